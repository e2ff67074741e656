/* jmpfast.c: a fast timer (100 us, ITIMER_REAL) whose handler leaves by siglongjmp whatever
 * mmap, mprotect or munmap call of a loop it interrupts, until 300 jumps (or 20 s); then 100
 * blocks of 1 MiB kept, allocated from main at the depth of the calls left, and
 * "jmpfast: done (300 jumps)". The hooks' own work around the system call (stack capture,
 * recording) takes longer than the call itself, so most jumps land there: each left the
 * thread's guard up where the next hook could not take it back, and every later call of the
 * thread passed untraced (the 100 MiB missing, counted lost as a handler's). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define JUMPS 300

static sigjmp_buf jb;
static volatile int jumps, armed;
static void *volatile keep[100];

static void on_alarm(int sig)
{
	(void)sig;
	if (!armed)
		return;
	armed = 0;
	jumps++;
	siglongjmp(jb, 1);
}

int main(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;) {
		sigsetjmp(jb, 1);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (jumps >= JUMPS || now.tv_sec - t0.tv_sec >= 20)
			break;
		armed = 1;
		for (int i = 0; i < 1000; i++) {
			void *m = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				continue;
			mprotect(m, 4096, PROT_READ);
			munmap(m, 16384);
		}
		armed = 0;
	}
	armed = 0;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	for (int i = 0; i < 100; i++) /* from main, as the calls left: at their depth */
		keep[i] = malloc(1 << 20);
	printf("jmpfast: done (%d jumps)\n", jumps);
	return 0;
}
