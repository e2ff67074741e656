/* exitblock.c: keeps 1,000 x 32 bytes; main calls exit(0), and its exit blocks for 30 s
 * before the tracer's destructor: in an atexit handler (exitblock handler), or in the
 * program's own destructor (exitblock dtor), which runs from glibc's _dl_fini, the exit
 * handler that runs the tracer's destructor too. Once main is blocked there (and 200 ms in),
 * a second thread calls exit(0) (exitblock MODE N: N threads do, at once). glibc 2.36 lets
 * that second exit run the handlers the first has not reached and end the process. With the
 * handler, the second exit runs _dl_fini itself, and the tracer's destructor finishes the
 * trace there: it ends at once (before, it waited 10 s, then finished the trace with a
 * warning). With the destructor, the first exit has taken _dl_fini: the tracer's handler
 * after it makes the second exit wait for the trace to be finished (at most 10 s while
 * nothing finishes it), then it finishes the trace itself, with a warning. Before that, it
 * said "left incomplete" and the trace was complete (handler), or its exit ended the process
 * with the trace cut short (dtor). (The other threads wait for main to be blocked: after a
 * fixed 200 ms, a main thread slowed down on a busy machine had not reached _dl_fini, another
 * exit took it and blocked in the destructor, and main, in the tracer's last handler,
 * finished the trace at once, complete and without a warning: once in 36 runs, with two test
 * suites on 2 cores.)
 * An exit handler registered before the blocking one frees 8,400,000 bytes: the second exit
 * runs it (handler) or the first one did (dtor), before the trace is finished either way, so
 * the trace ends with 32,000 bytes live and some of glibc's, never the 8,400,000 (when the
 * second exit finished the trace before the handlers it runs, they were live).
 * exitblock dtorsig: as dtor with one other thread, and 2 s after main is blocked it sends
 * that thread SIGUSR1, whose handler calls _exit(3): the thread is then waiting in the
 * tracer's last exit handler for the trace to be finished, and its _exit must finish it (it
 * ended the process there, the trace cut short without a word). exitblock dtorsigexit: the
 * same with exit(4) in the handler. */
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[1000];
static void *volatile big;

static void free_big(void)
{
	free(big);
}
static int in_dtor, signal_other;
static atomic_int blocked;
static pthread_t first_other;

static int exit_in_handler;

static void on_usr1(int sig)
{
	(void)sig;
	if (exit_in_handler)
		exit(4);
	_exit(3);
}

static void block(void)
{
	atomic_store(&blocked, 1);
	if (signal_other) {
		sleep(2);
		pthread_kill(first_other, SIGUSR1);
	}
	sleep(30);
}

__attribute__((destructor)) static void program_dtor(void)
{
	if (in_dtor)
		block();
}

static void *other(void *a)
{
	usleep(200000);
	while (!atomic_load(&blocked))
		usleep(1000);
	exit(0);
	return a;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(32);
	big = malloc(8400000);
	atexit(free_big);
	in_dtor = argc > 1 && strncmp(argv[1], "dtor", 4) == 0;
	signal_other = argc > 1 && strncmp(argv[1], "dtorsig", 7) == 0;
	exit_in_handler = argc > 1 && strcmp(argv[1], "dtorsigexit") == 0;
	signal(SIGUSR1, on_usr1);
	if (!in_dtor)
		atexit(block);
	int n = argc > 2 ? atoi(argv[2]) : 1;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, other, NULL))
			return 2;
		if (i == 0)
			first_other = t;
	}
	exit(0);
}
