/* churn.c: allocates and frees continuously for argv[1] milliseconds (default 500) and at
 * least argv[2] thousand times (default 0), keeping nothing; used to fill the writer with many
 * flushes (disk-full, SIGKILL and stuck-writer tests). argv[3]: an interval timer's period in
 * microseconds (SIGALRM, an empty handler; default none), for signals that cut waits short.
 * argv[4]: threads doing the same beside the main thread (default 0): a trace that grows
 * faster than a reader beside it can read. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void *volatile keep;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long end;

static void *churn_too(void *arg)
{
	(void)arg;
	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			free(malloc(32 + (size_t)(i & 255)));
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	end = now_ms() + ms;
	for (long t = argc > 4 ? atol(argv[4]) : 0; t > 0; t--) {
		pthread_t th;
		if (pthread_create(&th, NULL, churn_too, NULL) == 0)
			pthread_detach(th);
	}
	long thousands = argc > 2 ? atol(argv[2]) : 0, timer_us = argc > 3 ? atol(argv[3]) : 0;
	if (timer_us > 0) {
		struct sigaction sa = {0};
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		struct itimerval it = {{0, timer_us}, {0, timer_us}};
		setitimer(ITIMER_REAL, &it, NULL);
	}
	for (long k = 0; k < thousands || now_ms() < end; k++)
		for (int i = 0; i < 1000; i++) {
			keep = malloc(32 + (size_t)(i & 255));
			free(keep);
		}
	return 0;
}
