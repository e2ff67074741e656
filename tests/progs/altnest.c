/* altnest.c [autodisarm]: a timer handler on an alternate signal stack that lies above the
 * thread's frames (an array in main's frame) allocates and frees while main sits in slow
 * mmap(MAP_POPULATE) calls; no jump anywhere. The handler's calls interrupt the tracer's mmap
 * hook: they are counted lost as a handler's, and the hook must not be taken for one left by
 * a jump (its guard taken back while it runs), with SS_AUTODISARM too, where the stack reads
 * as disabled inside the handler. Prints "altnest: <handler runs>". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

static void *volatile sink;
static volatile long runs;

static void on_alarm(int sig)
{
	(void)sig;
	sink = malloc(100);
	free(sink);
	runs++;
}

static __attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 100; i++) {
		void *m = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (m != MAP_FAILED)
			munmap(m, 16 << 20);
	}
}

int main(int argc, char **argv)
{
	char alt[1 << 16];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt), .ss_flags = argc > 1 ? SS_AUTODISARM : 0};
	(void)argv;
	if (sigaltstack(&ss, NULL) != 0) {
		perror("altnest: sigaltstack");
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 300}, {0, 300}}, off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &it, NULL);
	work();
	setitimer(ITIMER_REAL, &off, NULL);
	printf("altnest: %s\n", runs > 0 ? "handler ran" : "handler never ran");
	return 0;
}
