/* sigpipe.c: a signal handler writes one byte into the program's own pipe (the self-pipe
 * trick) while the interrupted thread allocates, i.e. is often inside the tracer's stack
 * capture. Every byte must reach the program's pipe: the tracer's redirection of libunwind's
 * pipe must not catch the handler's write. Prints "sigpipe: ok" when the bytes read equal the
 * signals handled. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int p[2];
static volatile sig_atomic_t handled;
static void *volatile keep;

static void on_alarm(int sig)
{
	(void)sig;
	if (write(p[1], "x", 1) == 1)
		handled++;
}

static __attribute__((noinline)) void *deep(int d)
{
	void *r = d ? deep(d - 1) : malloc(48);
	__asm__ volatile("" ::: "memory");
	return r;
}

int main(void)
{
	if (pipe(p) < 0)
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < 300000; i++) {
		keep = deep((int)(i % 30));
		free(keep);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	close(p[1]);
	long got = 0;
	char buf[4096];
	ssize_t n;
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		got += n;
	printf("sigpipe: %s (%ld signals, %ld bytes)\n", got == handled ? "ok" : "LOST BYTES", (long)handled, got);
	return got == handled ? 0 : 1;
}
