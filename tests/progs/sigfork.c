/* sigfork.c: a program of one thread whose SIGALRM handler (a 2 ms timer) forks, often while
 * the main thread is inside malloc or free (a loop of them on blocks too big for glibc's
 * per-thread cache); the child _exits at once and the handler reaps it. fork is
 * async-signal-safe, and glibc's takes no allocator lock in a process of one thread; traced,
 * the tracer's threads make the process one of several, and its fork waited for the arena
 * lock the interrupted malloc held, for good. Arguments: the loop's iterations (default
 * 3,000,000). Prints "forks: some" when the handler forked at least once. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int forks;
static volatile sig_atomic_t stopping;

static void on_alarm(int sig)
{
	(void)sig;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p > 0 && waitpid(p, NULL, 0) == p)
		forks++;
	/* the next alarm 2000 us after this handler ends, not after it began: on a busy machine a
	 * fork and its wait can take longer than the interval, and a periodic timer then ran the
	 * handler back to back for good, the main loop never running again */
	struct itimerval next = {{0, 0}, {0, 2000}};
	if (!stopping)
		setitimer(ITIMER_REAL, &next, NULL);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000;
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 0}, {0, 2000}}; /* re-armed by the handler */
	setitimer(ITIMER_REAL, &it, NULL);
	void *keep[64] = {0};
	for (long i = 0; i < n; i++) {
		free(keep[i & 63]);
		keep[i & 63] = malloc((size_t)(i * 7919) % 3000 + 1100);
	}
	stopping = 1;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	printf("forks: %s\n", forks > 0 ? "some" : "none");
	return 0;
}
