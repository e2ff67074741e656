/* mini_prover.c: a small program shaped like a Groth16 prover, to see cuzktrace work.
 *   load:      "parameters" read into a 64 MiB heap buffer, plus a 32 MiB anonymous mapping
 *   synthesis: per partition, a pool of 4 threads each grows a Vec-like buffer by realloc to
 *              4 MiB and makes many small short-lived allocations
 *   prove:     per partition, 16 MiB of scratch, then the partition's synthesis output is freed
 * Partitions are pipelined: synthesis of partition k+1 runs while partition k is proved.
 * Usage: mini_prover [partitions=3] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define THREADS 4
#define MIB (1024u * 1024u)

struct vec {
	uint64_t *data;
	size_t len, cap;
};

static void vec_push(struct vec *v, uint64_t x)
{
	if (v->len == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 16;
		v->data = realloc(v->data, v->cap * sizeof(*v->data));
		if (!v->data)
			abort();
	}
	v->data[v->len++] = x;
}

/* stores through a volatile pointer so the compiler keeps every allocation */
static void *volatile escape;

struct partition {
	struct vec out[THREADS];
};

static void *synth_worker(void *arg)
{
	struct vec *v = arg;
	for (uint64_t i = 0; i < 4 * MIB / 8; i++) {
		vec_push(v, i * 2654435761u);
		if (i % 64 == 0) { /* short-lived temporaries, like a constraint system's scratch */
			char *tmp = malloc(48 + i % 200);
			tmp[0] = (char)i;
			escape = tmp;
			free(tmp);
		}
	}
	return NULL;
}

static void *synthesize(void *arg)
{
	struct partition *p = arg;
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, synth_worker, &p->out[t]);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	return NULL;
}

static uint64_t prove(struct partition *p)
{
	uint64_t *scratch = malloc(16 * MIB);
	memset(scratch, 0, 16 * MIB);
	uint64_t acc = 0;
	for (int t = 0; t < THREADS; t++)
		for (size_t i = 0; i < p->out[t].len; i += 4096)
			acc += p->out[t].data[i];
	scratch[acc % (2 * MIB)] = acc;
	free(scratch);
	for (int t = 0; t < THREADS; t++)
		free(p->out[t].data);
	return acc;
}

int main(int argc, char **argv)
{
	int parts = argc > 1 ? atoi(argv[1]) : 3;
	if (parts < 1 || parts > 64) {
		fprintf(stderr, "usage: mini_prover [partitions 1..64]\n");
		return 2;
	}
	/* load */
	char *params = malloc(64 * MIB);
	memset(params, 7, 64 * MIB);
	char *srs = mmap(NULL, 32 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(srs, 3, 32 * MIB);

	struct partition *part = calloc((size_t)parts, sizeof(*part));
	pthread_t synth;
	pthread_create(&synth, NULL, synthesize, &part[0]);
	uint64_t acc = 0;
	for (int k = 0; k < parts; k++) {
		pthread_join(synth, NULL);
		if (k + 1 < parts) /* pipelining: next synthesis overlaps this proof */
			pthread_create(&synth, NULL, synthesize, &part[k + 1]);
		acc += prove(&part[k]);
	}
	free(part);
	munmap(srs, 32 * MIB);
	free(params);
	printf("mini_prover: %d partitions proved (checksum %llx)\n", parts, (unsigned long long)acc);
	return 0;
}
