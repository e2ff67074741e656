/* fastexit.c: ends with _exit (or _Exit with argument "E", quick_exit with "Q", after an
 * at_quick_exit handler that frees one of the blocks), skipping exit handlers, as shells,
 * Python's os._exit and forked workers do. Keeps 3,000,000 bytes in 1,000 blocks first; the
 * trace must still be complete (an END record) and hold them live at exit. With argument
 * "signal" it instead allocates and frees in a loop until a SIGALRM handler calls _exit(0):
 * the handler may interrupt the tracer's own hooks, and the program must end either way. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
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

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "signal")) {
		signal(SIGALRM, on_alarm);
		struct itimerval it = {{0, 0}, {0, 20000}}; /* 20 ms */
		setitimer(ITIMER_REAL, &it, NULL);
		for (;;) {
			void *p = malloc(64);
			keep[0] = p;
			free(p);
		}
	}
	for (int i = 0; i < 1000; i++) {
		keep[i] = malloc(3000);
		memset(keep[i], 1, 16);
	}
	if (argc > 1 && !strcmp(argv[1], "E"))
		_Exit(5);
	if (argc > 1 && !strcmp(argv[1], "Q")) {
		at_quick_exit(on_quick_exit);
		quick_exit(6);
	}
	_exit(4);
}
