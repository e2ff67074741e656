/* mini_prover.c: a small program shaped like a Groth16 prover, to see cuzktrace work.
 *   load:      "parameters" read into a 64 MiB heap buffer, plus a 32 MiB anonymous mapping
 *   synthesis: per partition, a pool of 4 threads (named rayon-synth-N) each grows a Vec-like
 *              buffer by realloc to 4 MiB and makes many small short-lived allocations
 *   prove:     per partition, 16 MiB of scratch, then the partition's synthesis output is freed
 * Partitions are pipelined: synthesis of partition k+1 runs while partition k is proved.
 * Phases are marked with the weak-symbol API of cuzktrace.h ("load" and "synthesis" are
 * process-wide, "prove" is pushed on the main thread): traced, the report splits the peaks by
 * phase; untraced, each mark costs a not-taken branch.
 * Usage: mini_prover [partitions=3] */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define THREADS 4
#define MIB (1024u * 1024u)

/* stores through a volatile pointer so the compiler keeps every allocation */
static void *volatile escape;

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

struct partition {
	struct vec out[THREADS];
};

struct job {
	struct vec *v;
	int worker;
};

static void *synth_worker(void *arg)
{
	struct job *j = arg;
	char name[16];
	snprintf(name, sizeof(name), "rayon-synth-%d", j->worker);
	pthread_setname_np(pthread_self(), name);
	for (uint64_t i = 0; i < 4 * MIB / 8; i++) {
		vec_push(j->v, i * 2654435761u);
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
	static int next_worker;
	struct partition *p = arg;
	pthread_t th[THREADS];
	struct job jobs[THREADS];
	CUZKTRACE_PHASE_BEGIN("synthesis");
	for (int t = 0; t < THREADS; t++) {
		jobs[t] = (struct job){&p->out[t], __atomic_fetch_add(&next_worker, 1, __ATOMIC_RELAXED)};
		pthread_create(&th[t], NULL, synth_worker, &jobs[t]);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	CUZKTRACE_PHASE_END("synthesis");
	return NULL;
}

static uint64_t prove(struct partition *p)
{
	CUZKTRACE_PHASE_PUSH("prove");
	uint64_t *scratch = malloc(16 * MIB);
	escape = scratch; /* else gcc -O2 drops the malloc/free pair: nothing reads the scratch */
	memset(scratch, 0, 16 * MIB);
	uint64_t acc = 0;
	for (int t = 0; t < THREADS; t++)
		for (size_t i = 0; i < p->out[t].len; i += 4096)
			acc += p->out[t].data[i];
	scratch[acc % (2 * MIB)] = acc;
	free(scratch);
	for (int t = 0; t < THREADS; t++)
		free(p->out[t].data);
	CUZKTRACE_PHASE_POP();
	return acc;
}

int main(int argc, char **argv)
{
	int parts = argc > 1 ? atoi(argv[1]) : 3;
	if (parts < 1 || parts > 64) {
		fprintf(stderr, "usage: mini_prover [partitions 1..64]\n");
		return 2;
	}
	CUZKTRACE_PHASE_BEGIN("load");
	char *params = malloc(64 * MIB);
	memset(params, 7, 64 * MIB);
	char *srs = mmap(NULL, 32 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(srs, 3, 32 * MIB);
	struct partition *part = calloc((size_t)parts, sizeof(*part));
	CUZKTRACE_PHASE_END("load");

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
