/* jmpmap.c: a timeout around a slow system call, the textbook way (setitimer and a handler
 * that leaves by siglongjmp; legal, as mmap is async-signal-safe): 3 rounds of a 128 MiB
 * mmap with MAP_POPULATE (tens of ms) under a 2 ms timer, each left by the jump as the call
 * returns (the mapping is lost to the program; untraced the same; tries where the timer fired
 * before the call, or the call beat it, do not count: see main), then 100 blocks of 1 MiB
 * kept, allocated from main, and "jmpmap: done (3 jumps)". A jump out of the tracer's mmap hook left
 * the thread's guard up: every later call of the thread passed through untraced, the 100 MiB
 * missing, counted lost as a signal handler's. With the argument "fork", each jump is followed
 * by a plain fork (the child _exits), and "jmpmap: atfork handlers ran for N of M forks": the
 * guard the jump left up until the thread's next hook made the tracer's fork take it for one
 * from a handler inside a hook (_Fork, no atfork handlers). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pthread.h>

static sigjmp_buf jb;
static volatile int jumps, jumps_after;
static void *volatile keep[100];
static volatile int prepared, forked;

static void on_prepare(void)
{
	prepared++;
}

static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(jb, 1);
}

int main(int argc, char **argv)
{
	int forks = argc > 1 && !strcmp(argv[1], "fork");
	pthread_atfork(on_prepare, NULL, NULL);
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* Rounds until 3 jumps have left a made mapping (20 tries at most): on a busy machine the
	 * timer can fire before the call is entered (no mapping: not a round), or the call beat
	 * the timer (unmapped: not a round either). Each try maps at an address of its own
	 * (MAP_FIXED_NOREPLACE), so mincore tells whether the jump left its mapping made. */
	static volatile int tries;
	for (tries = 0; jumps_after < 3 && tries < 20; tries++) {
		char *at = (char *)0x300000000000ul + (size_t)tries * (1ul << 30);
		if (sigsetjmp(jb, 1)) {
			unsigned char v;
			if (mincore(at, 4096, &v) != 0)
				continue; /* jumped before the call was entered */
			jumps_after++;
			if (forks) { /* first after the jump: before any other hook */
				pid_t p = fork();
				if (p == 0)
					_exit(0);
				if (p > 0 && waitpid(p, NULL, 0) == p)
					forked++;
			}
			continue;
		}
		struct itimerval it = {{0, 0}, {0, 2000}};
		setitimer(ITIMER_REAL, &it, NULL);
		void *m = mmap(at, 128 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_FIXED_NOREPLACE, -1, 0);
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(ITIMER_REAL, &off, NULL);
		if (m != MAP_FAILED) /* the call beat the timer */
			munmap(m, 128 << 20);
	}
	for (int i = 0; i < 100; i++) /* from main, as the calls left: at their depth */
		keep[i] = malloc(1 << 20);
	printf("jmpmap: done (%d jumps)\n", jumps_after);
	if (forks)
		printf("jmpmap: atfork handlers ran for %d of %d forks\n", prepared, forked);
	return 0;
}
