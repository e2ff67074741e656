/* sigalloc.c: a SIGALRM handler that allocates and frees while the main thread loops on
 * malloc and free, so that some handler calls interrupt a traced allocator call (which POSIX
 * leaves undefined; programs do it anyway). The tracer cannot record those (the thread is
 * inside its own hook) and counts them lost: every allocator call of the program is either in
 * the trace or counted lost. Prints "calls N" (every malloc and free it made, the handler's
 * included) with write(2), which allocates nothing. With "phase", the main thread loops on
 * phase pushes and pops instead (the tracer's hook then is the phase API's): "calls N" counts
 * the handler's calls only.
 * Usage: sigalloc [iterations=400000] [phase] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define CUZKTRACE_WEAK /* resolved by the preloaded library: phase mode runs only traced */
#include "cuzktrace.h"

static volatile sig_atomic_t handler_calls;
static void *kept[64];
static volatile sig_atomic_t nkept;

static void on_alarm(int sig)
{
	(void)sig;
	if (nkept < 64) {
		kept[nkept] = malloc(10000);
		nkept = nkept + 1;
		handler_calls = handler_calls + 1;
	} else {
		for (int i = 0; i < 64; i++)
			free(kept[i]);
		handler_calls = handler_calls + 64;
		nkept = 0;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400000;
	int phase = argc > 2 && strcmp(argv[2], "phase") == 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 100 }, { 0, 100 } }; /* every 100 us of real time */
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; phase && i < n; i++) {
		cuzktrace_phase_push("loop");
		cuzktrace_phase_pop();
	}
	for (long i = 0; !phase && i < n; i++) {
		void *p = malloc(100);
		((volatile char *)p)[0] = 1;
		free(p);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	long calls = (phase ? 0 : 2 * n) + handler_calls;
	for (int i = 0; i < nkept; i++)
		free(kept[i]);
	calls += nkept;
	char line[64];
	int len = snprintf(line, sizeof(line), "calls %ld\n", calls);
	if (write(1, line, (size_t)len) < 0)
		return 1;
	return 0;
}
