/* exitphase.c: a thread that begins and ends a phase in a loop gets a SIGTERM whose handler
 * ends the process while main's exit (or, with "x", two exits: main's and another thread's)
 * runs handlers that end a phase of their own, which needs the tracer's phase mutex. A handler
 * that interrupted the loop while it held that mutex waited there for the other exit, whose
 * handlers waited for the mutex: 10 s, then a warning that blamed the program, and now and
 * then status 0 instead of 3. It goes on now, as untraced: status 3 at once.
 *   exitphase q: the handler calls quick_exit(3); exitphase x: exit(3), a third exit;
 *   exitphase Q: quick_exit(3), the loop spinning between its calls, so that the signal
 *   mostly lands outside the hooks: that quick_exit waited for main's exit to finish the
 *   trace and then raced it for the status (0 in 7 runs of 10). */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_t w, t2;
static int quick, spin;

static void on_term(int s)
{
	(void)s;
	if (quick)
		quick_exit(3);
	exit(3);
}

static void *loop(void *a)
{
	for (;;) {
		cuzktrace_phase_begin("w");
		cuzktrace_phase_end("w");
		for (volatile int k = 0; k < spin; k++)
			;
	}
	return a;
}

static void *second(void *a)
{
	usleep(10000);
	exit(0);
	return a;
}

static void h_a(void)
{
	usleep(30000);
	cuzktrace_phase_end("main");
}

static void h_b(void)
{
	usleep(20000);
	pthread_kill(w, SIGTERM);
	usleep(10000);
	cuzktrace_phase_end("main");
}

int main(int argc, char **argv)
{
	quick = argc > 1 && (!strcmp(argv[1], "q") || !strcmp(argv[1], "Q"));
	spin = argc > 1 && !strcmp(argv[1], "Q") ? 20000 : 0;
	signal(SIGTERM, on_term);
	cuzktrace_phase_begin("main");
	pthread_create(&w, NULL, loop, NULL);
	atexit(h_a);
	atexit(h_b);
	usleep(20000);
	if (!quick)
		pthread_create(&t2, NULL, second, NULL);
	exit(0);
}
