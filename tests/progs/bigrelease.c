/* bigrelease.c: releases big blocks whose pages the kernel frees during the call, while the
 * RSS sampler runs: bigrelease MODE MIB ROUNDS, each round making a block of MIB MiB, touching
 * every page, and releasing it:
 *   free     malloc, then free (glibc unmaps the block)
 *   munmap   an anonymous mmap, then munmap
 *   realloc  malloc, then realloc to 64 bytes (glibc shrinks the mapping with mremap)
 *   populate an anonymous mmap with MAP_POPULATE (the kernel makes every page during the
 *            call, which the trace records after it), then munmap
 *   churn    (MIB and ROUNDS ignored) a thread makes and frees 4 MiB blocks in a loop for a
 *            second while main sleeps: after the first free glibc raises its mmap threshold
 *            (to 32 MiB at most), the blocks stay in the heap and their frees unmap nothing;
 *            counted as releases, they held every RSS sample back a second
 *   arena    a thread makes and frees the blocks in its own arena (glibc's mmap threshold
 *            set to 32 MiB, the most it takes, so MIB must be under 32): each free merges the
 *            block into the arena's top, which glibc then trims (madvise or a PROT_NONE map)
 *   fixed    the same with glibc's mmap threshold set to 16 MiB (MIB under 16), after main
 *            freed a 20 MiB block glibc mapped on its own: glibc's trim threshold stays at
 *            128 KiB (a set threshold turns its dynamic ones off), and it trims every free
 *   envfixed the same, the threshold set by the environment (MALLOC_MMAP_THRESHOLD_=16777216)
 *   backmerge main frees a 20 MiB block glibc mapped (glibc's trim threshold: 40 MiB); a
 *            thread makes three blocks of MIB MiB, X, Y and W, and frees X, Y, then W, which
 *            merges with X and Y before it and the top after it: 3 x MIB, trimmed
 *   heapdel  main frees a 31 MiB block glibc mapped (trim threshold 62 MiB); a thread fills
 *            its arena's first heap with two blocks of MIB MiB (MIB 30), then each round makes
 *            a third, which needs a heap of its own, and frees it: glibc unmaps that heap
 *   jump     (ROUNDS ignored) a timer's handler leaves an mmap of MIB MiB with MAP_POPULATE by
 *            siglongjmp (its hook never ends), then main sleeps a second: the call's hold on
 *            the RSS sampler must go with the hook (before, every later sample waited 2 s)
 * The trace stamps each release before its call; a sample read during the call counted the
 * pages still there while the trace had released them (RSS up to MIB above heap and
 * mappings: a 256 MiB free takes about 16 ms); the same during a populating mmap. Nothing
 * else of size is live. */
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

static sigjmp_buf jb;

static void on_alarm(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static volatile int stop;
static size_t arena_n;
static int arena_rounds;

static char *touched(size_t n, int c)
{
	char *p = malloc(n);
	if (p)
		memset(p, c, n);
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

static void *backmerge(void *arg)
{
	(void)arg;
	for (int r = 0; r < arena_rounds; r++) {
		char *x = touched(arena_n, 1), *y = touched(arena_n, 2), *w = touched(arena_n, 3);
		free(x);
		free(y);
		free(w);
	}
	return NULL;
}

static void *heapdel(void *arg)
{
	(void)arg;
	char *a = touched(arena_n, 1), *b = touched(arena_n, 2);
	for (int r = 0; r < arena_rounds; r++) {
		free(touched(arena_n, 3));
		usleep(500);
	}
	/* a and b stay: freed, the heap's 60 MiB would stay with glibc, under its threshold */
	__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
	return NULL;
}

static void *arena(void *arg)
{
	(void)arg;
	for (int r = 0; r < arena_rounds; r++) {
		char *p = malloc(arena_n);
		if (!p)
			return NULL;
		memset(p, r + 1, arena_n);
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
	return NULL;
}

static void *churn(void *arg)
{
	(void)arg;
	while (!stop) {
		char *p = malloc((size_t)4 << 20);
		if (!p)
			return NULL;
		p[0] = 1;
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	const char *mode = argv[1];
	if (strcmp(mode, "jump") == 0) {
		size_t n = strtoul(argv[2], NULL, 10) << 20;
		signal(SIGALRM, on_alarm);
		struct itimerval it = {{0, 0}, {0, 1000}};
		if (sigsetjmp(jb, 1) == 0) {
			setitimer(ITIMER_REAL, &it, NULL);
			mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
			pause(); /* the tick came after the call: wait for it here */
		}
		/* the next mmap-family call finds the left hook (the guard) */
		munmap(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4096);
		for (int i = 0; i < 100; i++)
			usleep(10000);
		return 0;
	}
	if (strcmp(mode, "churn") == 0) {
		pthread_t th;
		if (pthread_create(&th, NULL, churn, NULL))
			return 1;
		for (int i = 0; i < 100; i++)
			usleep(10000);
		stop = 1;
		pthread_join(th, NULL);
		return 0;
	}
	size_t n = strtoul(argv[2], NULL, 10) << 20;
	int rounds = atoi(argv[3]);
	if (strcmp(mode, "backmerge") == 0 || strcmp(mode, "heapdel") == 0) {
		pthread_t th;
		arena_n = n;
		arena_rounds = rounds;
		free(touched(mode[0] == 'b' ? (size_t)20 << 20 : (size_t)31 << 20, 0)); /* glibc mapped it */
		if (pthread_create(&th, NULL, mode[0] == 'b' ? backmerge : heapdel, NULL))
			return 1;
		pthread_join(th, NULL);
		return 0;
	}
	if (strcmp(mode, "arena") == 0 || strcmp(mode, "fixed") == 0 || strcmp(mode, "envfixed") == 0) {
		pthread_t th;
		int fixed = mode[0] != 'a';
		arena_n = n;
		arena_rounds = rounds;
		if (mode[0] != 'e' && !mallopt(M_MMAP_THRESHOLD, fixed ? 16 << 20 : 32 << 20))
			return 1;
		if (fixed) {
			char *w = malloc((size_t)20 << 20);
			if (!w)
				return 1;
			memset(w, 0, 4096);
			__asm__ volatile("" : : "r"(w) : "memory");
			free(w);
		}
		if (pthread_create(&th, NULL, arena, NULL))
			return 1;
		pthread_join(th, NULL);
		return 0;
	}
	for (int r = 0; r < rounds; r++) {
		int map = strcmp(mode, "munmap") == 0 || strcmp(mode, "populate") == 0;
		int pop = strcmp(mode, "populate") == 0 ? MAP_POPULATE : 0;
		char *p = map ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | pop, -1, 0)
			      : malloc(n);
		if (!p || p == MAP_FAILED)
			return 1;
		memset(p, r + 1, n);
		__asm__ volatile("" : : "r"(p) : "memory"); /* the pages are touched, kept */
		if (map) {
			munmap(p, n);
		} else if (strcmp(mode, "realloc") == 0) {
			char *q = realloc(p, 64);
			__asm__ volatile("" : : "r"(q) : "memory");
			free(q);
		} else {
			free(p);
		}
	}
	return 0;
}
