/* closefds.c: behaves like a daemon: closes every descriptor above 2, then opens a pipe that
 * may reuse the trace's descriptor number, allocates, and checks that the pipe carries only
 * what it wrote itself. Prints "pipe ok" or "pipe CORRUPTED"; exit 0 or 1.
 * closefds range: after a first allocation, closes them with close_range(3, ~0U, 0) (every
 * number, however high: the tracer's private ones too), and at the end allocates 4096 bytes
 * from deeper in the stack than before.
 * closefds unwpipe: after a first allocation, closes them all, raises its soft descriptor limit
 * to the hard one and puts a pipe of its own (dup2) on the number of the tracer's only pipe
 * (the write end libunwind was handed before, found in /proc/self/fd), then allocates from new
 * stack pages, which libunwind checks by writing bytes of them into its pipe with a raw system
 * call: "pipe ok" when the program's pipe holds nothing, else "pipe CORRUPTED (<n> extra
 * bytes)" (before 0.2.10; from a review). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* the highest-numbered pipe descriptor: the tracer's private pipe's write end */
static int tracer_pipe(void)
{
	int w = -1;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char l[64], p[300];
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(p, l, sizeof(l) - 1);
		if (n > 0) {
			l[n] = 0;
			if (!strncmp(l, "pipe:", 5) && atoi(e->d_name) > w)
				w = atoi(e->d_name);
		}
	}
	if (d)
		closedir(d);
	return w;
}

static int unwpipe(void)
{
	keep = malloc(100);
	usleep(150000);
	int w = tracer_pipe();
	if (w < 0) {
		puts("no pipe found");
		return 2;
	}
	close_range(3, ~0U, 0);
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	int pp[2];
	if (pipe2(pp, O_NONBLOCK) < 0 || dup2(pp[1], w) != w) {
		puts("setup failed");
		return 2;
	}
	close(pp[1]);
	deep(6);
	char buf[64];
	ssize_t n = read(pp[0], buf, sizeof(buf));
	if (n > 0)
		printf("pipe CORRUPTED (%zd extra bytes)\n", n);
	else
		puts("pipe ok");
	return n > 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "unwpipe") == 0)
		return unwpipe();
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
