/* jmpmap.c: a 200 us timer whose handler leaves by siglongjmp whatever the main thread is in,
 * over 200,000 rounds of a one-page mmap and munmap (legal: both are async-signal-safe), then
 * the timer stopped, 100 blocks of 1 MiB kept from one line, and "jmpmap: done". A jump out of
 * the tracer's mmap or munmap hook left the thread's guard up: every later call of the thread
 * passed through untraced (the 100 MiB missing, about 400,000 events counted lost as a signal
 * handler's). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>

static sigjmp_buf jb;
static volatile long jumps, done;
static void *volatile keep[100];

static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(jb, 1);
}

static __attribute__((noinline)) void keep_blocks(void)
{
	for (int i = 0; i < 100; i++)
		keep[i] = malloc(1 << 20);
}

int main(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &it, NULL);
	sigsetjmp(jb, 1);
	while (done < 200000) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			munmap(m, 4096);
		done++;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	keep_blocks();
	printf("jmpmap: done (%s)\n", jumps ? "jumped" : "no jump");
	return 0;
}
