/* closefds.c: behaves like a daemon: closes every descriptor above 2, then opens a pipe that
 * may reuse the trace's descriptor number, allocates, and checks that the pipe carries only
 * what it wrote itself. Prints "pipe ok" or "pipe CORRUPTED"; exit 0 or 1.
 * closefds range: after a first allocation, closes them with close_range(3, ~0U, 0) (every
 * number, however high: the tracer's private ones too), and at the end allocates 4096 bytes
 * from deeper in the stack than before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

/* an allocation from deeper in the stack than anything before */
static __attribute__((noinline)) void deep(int n)
{
	volatile char pad[8192];
	pad[0] = (char)n;
	if (n > 0)
		deep(n - 1);
	else
		keep = malloc(4096);
	pad[1] = pad[0];
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "range") == 0) {
		keep = malloc(100);
		usleep(150000); /* the tracer's descriptors are all open by now */
		if (close_range(3, ~0U, 0) < 0)
			return 2;
	} else {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	}
	int p[2];
	if (pipe(p) < 0)
		return 2;
	const char msg[] = "hello through the pipe";
	if (write(p[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return 2;
	for (int i = 0; i < 100; i++) { /* give the tracer something to flush */
		keep = malloc(1000 + i);
		free(keep);
		usleep(5000);
	}
	keep = malloc(2000000);
	usleep(300000);
	close(p[1]);
	char buf[4096];
	ssize_t n = read(p[0], buf, sizeof(buf));
	int ok = n == (ssize_t)sizeof(msg) && !memcmp(buf, msg, sizeof(msg));
	char end;
	ok = ok && read(p[0], &end, 1) == 0;
	if (argc > 1)
		deep(6); /* libunwind checks stack memory it has not seen: its pipe, after the reopen */
	const char *r = ok ? "pipe ok\n" : "pipe CORRUPTED\n";
	if (write(1, r, strlen(r)) < 0)
		return 2;
	return ok ? 0 : 1;
}
