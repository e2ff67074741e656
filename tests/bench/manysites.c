/* manysites.c: many distinct call stacks for `make bench`, the reader's other hard case.
 * Each allocation is made at the end of a chain of BITS calls, each a call of one of two
 * functions (left or right) as a bit of a random path says, so the program has 2^BITS distinct
 * stacks (32,768 by default) and every one of them allocates. Each of THREADS threads makes N
 * allocations of 16..271 bytes in rounds of 4,096: one in eight is kept to the end of its
 * round, the others freed at once. The reader's counters per stack (hundreds of bytes each)
 * then fill no cache, as in a large program traced in exact mode.
 * Usage: manysites [threads=4] [n=1000000] [bits=15] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int n = 1000000, bits = 15;

static void *left(int lvl, uint32_t path, size_t size);
static void *right(int lvl, uint32_t path, size_t size);

/* noinline, and a use after the call: each level is a frame of its own (no tail call) */
#define STEP(lvl, path, size)                                                                   \
	void *p = lvl == 0 ? malloc(size) : (path & 1 ? left : right)(lvl - 1, path >> 1, size); \
	__asm__ volatile("" ::"r"(p) : "memory");                                                \
	return p

static __attribute__((noinline)) void *left(int lvl, uint32_t path, size_t size)
{
	STEP(lvl, path, size);
}

static __attribute__((noinline)) void *right(int lvl, uint32_t path, size_t size)
{
	STEP(lvl, path, size);
}

static void *run(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1);
	void *keep[4096 / 8 + 1];
	int kept = 0;
	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		void *p = left(bits, (uint32_t)x, 16 + (size_t)((x >> 32) & 255));
		if (((x >> 48) & 7) == 0 && kept < (int)(sizeof(keep) / sizeof(keep[0])))
			keep[kept++] = p;
		else
			free(p);
		if ((i & 4095) == 4095) {
			while (kept)
				free(keep[--kept]);
		}
	}
	while (kept)
		free(keep[--kept]);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		n = atoi(argv[2]);
	if (argc > 3)
		bits = atoi(argv[3]);
	if (threads < 1 || threads > 256 || n < 1 || bits < 0 || bits > 24) {
		fprintf(stderr, "usage: manysites [threads 1..256] [n >= 1] [bits 0..24]\n");
		return 2;
	}
	pthread_t t[256];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, run, (void *)(uintptr_t)i) != 0) {
			fprintf(stderr, "manysites: cannot start thread %d\n", i);
			return 1;
		}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("manysites: %d threads x %d allocations over %u stacks\n", threads, n, 1u << bits);
	return 0;
}
