/* fastexit.c: ends with _exit (or _Exit with argument "E", quick_exit with "Q", after an
 * at_quick_exit handler that frees one of the blocks), skipping exit handlers, as shells,
 * Python's os._exit and forked workers do. Keeps 3,000,000 bytes in 1,000 blocks first; the
 * trace must still be complete (an END record) and hold them live at exit. With argument
 * "signal" it instead allocates and frees in a loop until a SIGALRM handler calls _exit(0):
 * the handler may interrupt the tracer's own hooks, and the program must end either way
 * ("signal-log" also writes two lines a CUZKTRACE_PHASES rule matches each time). With
 * "race", a thread calls _exit(7) while main's return (exit) is in the tracer's final flush:
 * it must wait for that flush, or its exit_group cuts the trace short. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep[1000];

static void on_quick_exit(void)
{
	free(keep[999]); /* the handler's free is traced too: it runs before the tracer's */
}

static void on_alarm(int sig)
{
	(void)sig;
	_exit(0);
}

static atomic_int go, ready;
static int hold[2];

/* fills part of its ring, then waits (blocked, alive) so its events stay for the final flush */
static void *filler(void *arg)
{
	(void)arg;
	for (int i = 0; i < 700; i++) {
		void *volatile p = malloc(32 + (size_t)i);
		free(p);
	}
	atomic_fetch_add(&ready, 1);
	char c;
	while (read(hold[0], &c, 1) < 0)
		;
	return NULL;
}

/* _exit(7) 1 ms after main began its exit: inside the tracer's final flush, when that flush
 * is slow (CUZKTRACE_ZSTD_LEVEL=19 and 16 threads' rings) */
static void *racer(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		;
	struct timespec ms1 = {0, 1000000};
	nanosleep(&ms1, NULL);
	_exit(7);
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "signal") || !strcmp(argv[1], "signal-log"))) {
		int log = !strcmp(argv[1], "signal-log"), null = open("/dev/null", O_WRONLY);
		signal(SIGALRM, on_alarm);
		struct itimerval it = {{0, 0}, {0, 20000}}; /* 20 ms */
		setitimer(ITIMER_REAL, &it, NULL);
		for (;;) {
			void *p = malloc(64);
			keep[0] = p;
			free(p);
			/* lines a CUZKTRACE_PHASES rule matches: the tracer's scan of them holds
			 * one of its mutexes, where the handler's _exit may land */
			if (log && (write(null, "XS\n", 3) < 0 || write(null, "XE\n", 3) < 0))
				_exit(2);
		}
	}
	for (int i = 0; i < 1000; i++) {
		keep[i] = malloc(3000);
		memset(keep[i], 1, 16);
	}
	if (argc > 1 && !strcmp(argv[1], "race")) {
		pthread_t t;
		if (pipe(hold))
			return 2;
		for (int i = 0; i < 16; i++)
			if (pthread_create(&t, NULL, filler, NULL))
				return 2;
		while (atomic_load(&ready) < 16)
			sched_yield();
		if (pthread_create(&t, NULL, racer, NULL))
			return 2;
		atomic_store(&go, 1);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "E"))
		_Exit(5);
	if (argc > 1 && !strcmp(argv[1], "Q")) {
		at_quick_exit(on_quick_exit);
		quick_exit(6);
	}
	_exit(4);
}
