/* sigforkmap.c: a SIGALRM handler (a 500 us timer) that forks (the child _exits, the handler
 * reaps it) while the main thread loops on small mmap and munmap calls, until 400 forks (or
 * 400,000 pairs); the program counts its atfork prepare handler's runs. fork is
 * async-signal-safe and glibc's runs the handlers; the tracer's fork made such a child with
 * _Fork (no handlers) when the handler interrupted an mmap-family hook outside its system
 * call, where untraced they run. Prints "sigforkmap: atfork handlers ran for every fork" or
 * "sigforkmap: atfork handlers missed N of M forks". */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int prepared, forked;
static volatile sig_atomic_t stopping;

static void on_prepare(void)
{
	prepared++;
}

static void on_alarm(int sig)
{
	(void)sig;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p > 0 && waitpid(p, NULL, 0) == p)
		forked++;
	/* the next alarm 500 us after this handler ends, not after it began: on a busy machine a
	 * fork and its wait can take longer than the interval, and a periodic timer then ran the
	 * handler back to back for good, the main loop never running again */
	struct itimerval next = {{0, 0}, {0, 500}};
	if (!stopping)
		setitimer(ITIMER_REAL, &next, NULL);
}

int main(void)
{
	pthread_atfork(on_prepare, NULL, NULL);
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 0}, {0, 500}}; /* re-armed by the handler */
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 400000 && forked < 400; i++) {
		void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			munmap(m, 4096);
	}
	stopping = 1;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	if (prepared == forked)
		printf("sigforkmap: atfork handlers ran for every fork\n");
	else
		printf("sigforkmap: atfork handlers missed %d of %d forks\n", forked - prepared, forked);
	return 0;
}
