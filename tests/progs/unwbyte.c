/* unwbyte.c (from a review of 0.2.10): a daemon that closes every descriptor, raises its soft descriptor limit to the
 * hard one, and puts a pipe of its own at a high number (dup2), which happens to be the write
 * end libunwind was handed before the close (found in /proc/self/fd: the tracer's only pipe).
 * Then an allocation from new stack pages: libunwind validates them by writing a byte of
 * stack into its (stale) write-end number with a raw syscall -> into the program's pipe.
 * Prints "pipe ok" or "pipe CORRUPTED (n extra bytes)". */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
static void *volatile keep;
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
int main(void)
{
	keep = malloc(100);
	usleep(150000);
	int w = -1; /* the highest-numbered pipe descriptor: the tracer's private pipe's write end */
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char l[64], p[300];
	while ((e = readdir(d))) {
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(p, l, sizeof l - 1);
		if (n > 0) { l[n] = 0; if (!strncmp(l, "pipe:", 5) && atoi(e->d_name) > w) w = atoi(e->d_name); }
	}
	closedir(d);
	if (w < 0) { puts("no pipe found"); return 2; }
	close_range(3, ~0U, 0);
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	int pp[2];
	if (pipe2(pp, O_NONBLOCK) < 0 || dup2(pp[1], w) != w) { puts("setup failed"); return 2; }
	close(pp[1]);
	deep(6);
	char buf[64];
	ssize_t n = read(pp[0], buf, sizeof buf);
	if (n > 0) printf("pipe CORRUPTED (%zd extra bytes)\n", n); else puts("pipe ok");
	return n > 0;
}
