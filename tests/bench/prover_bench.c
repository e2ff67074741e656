/* prover_bench.c: a prover-shaped workload for `make bench`.
 * Each of THREADS threads runs ROUNDS rounds of "synthesis": many small allocations (16..528
 * bytes), most freed at once, one in eight kept until the end of the round; a Vec-like buffer
 * grown by realloc to VEC_MIB MiB and filled; some arithmetic on everything it touches. The
 * main thread also holds a few large buffers and large anonymous mappings, like parameters.
 * Usage: prover_bench [threads=4] [rounds=6] [small_per_round=400000] [vec_mib=8] [work=150]
 * `work` is the arithmetic done per small allocation. Its default is calibrated so that
 * heaptrack slows this program down about 12x on a 2-core machine, the slowdown measured for
 * heaptrack on the reference prover-like workload; with work=24 the program is little more
 * than a malloc/free loop (heaptrack ~60x) and shows the tracer's per-event cost bare. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int rounds = 6, small = 400000, vec_mib = 8, work = 150;
static volatile uint64_t sink;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static void *synth(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg * 7919 + 1, acc = 0;
	size_t keep_cap = (size_t)small / 8 + 1;
	void **keep = malloc(keep_cap * sizeof(*keep));
	for (int r = 0; r < rounds; r++) {
		size_t kept = 0;
		uint64_t *vec = NULL;
		size_t len = 0, cap = 0, want = (size_t)vec_mib * 1024 * 1024 / 8;
		for (int i = 0; i < small; i++) {
			seed = mix(seed);
			size_t n = 16 + (seed & 511);
			uint64_t *p = malloc(n);
			p[0] = seed;
			p[n / 8 - 1] = seed >> 3;
			for (int k = 0; k < work; k++) /* the work between allocations */
				acc += mix(p[0] + (uint64_t)k);
			if ((seed >> 20 & 7) == 0 && kept < keep_cap)
				keep[kept++] = p;
			else
				free(p);
			if (len < want && (i & 3) == 0) {
				if (len == cap) {
					cap = cap ? cap * 2 : 64;
					vec = realloc(vec, cap * sizeof(*vec));
				}
				vec[len++] = acc;
			}
		}
		for (size_t k = 0; k < kept; k++)
			free(keep[k]);
		acc += vec ? vec[len / 2] : 0;
		free(vec);
	}
	free(keep);
	sink += acc;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (argc > 3)
		small = atoi(argv[3]);
	if (argc > 4)
		vec_mib = atoi(argv[4]);
	if (argc > 5)
		work = atoi(argv[5]);
	if (threads < 1 || threads > 256 || rounds < 1 || small < 1 || vec_mib < 1 || work < 0) {
		fprintf(stderr, "usage: prover_bench [threads] [rounds] [small_per_round] [vec_mib] [work]\n");
		return 2;
	}
	/* parameters: large buffers and mappings held for the whole run */
	size_t big = 64u << 20;
	char *params = malloc(big);
	memset(params, 1, big);
	char *srs = mmap(NULL, 2 * big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(srs, 2, big);
	pthread_t th[256];
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, synth, (void *)(uintptr_t)t);
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	munmap(srs, 2 * big);
	free(params);
	printf("prover_bench: %llx\n", (unsigned long long)sink);
	return 0;
}
