/* test_sample.c: the default mode's set of live sampled pointers and the filter in front of it
 * (preload/sample.c), driven directly: pointers remembered and forgotten by several threads
 * while the writer's step grows the filter to its second level. No live sample may ever read
 * as absent (a missed sampled free), every one must be found and forgotten exactly once, and
 * once all are gone both levels must be empty (every count back to 0: nothing counted twice).
 * The pointers are never dereferenced, so they are made-up even addresses. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ckt.h"

/* what sample.o needs from the rest of the library; the set and the filter use none of it */
struct ckt_config ckt_config;
uint64_t ckt_t0;
atomic_int ckt_proc_phase;
_Atomic uint64_t ckt_lost_noring;
uint64_t ckt_clock_raw(void)
{
	return 0;
}
uint32_t ckt_stacks_capture(struct ckt_tls *t)
{
	(void)t;
	return 0;
}
struct ckt_ring *ckt_thread_attach(struct ckt_tls *t)
{
	(void)t;
	return NULL;
}
int ckt_thread_make_room(struct ckt_ring *r, unsigned n)
{
	(void)r;
	(void)n;
	return 0;
}

#define THREADS 4
#define LIVE 6000 /* per thread: 24,000 live in all, past CKT_FILTER_GROW */
#define ROUNDS 200000

static atomic_int go, grown, failures;

static uint64_t words_of(uint64_t state)
{
	return state & ((1ull << 56) - 1);
}

static unsigned shift_of(uint64_t state)
{
	return (unsigned)(state >> 56);
}

/* Each thread owns a range of addresses; it keeps LIVE of them remembered, forgetting the
 * oldest as it remembers a new one, and checks the filter says "maybe" for every live one. */
static void *worker(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg, live[LIVE], next = 0;
	for (int i = 0; i < LIVE; i++) {
		live[i] = base + 16 * next++;
		ckt_sample_remember((void *)(uintptr_t)live[i]);
	}
	atomic_fetch_add(&go, 1);
	for (int r = 0; r < ROUNDS || !atomic_load(&grown); r++) {
		int i = r % LIVE;
		/* a live sample that reads as absent would be a sampled free the tracer misses */
		if (!ckt_sample_maybe((void *)(uintptr_t)live[(i + LIVE / 2) % LIVE]))
			atomic_fetch_add(&failures, 1);
		if (ckt_sample_forget((void *)(uintptr_t)live[i]) != 1)
			atomic_fetch_add(&failures, 1);
		live[i] = base + 16 * next++;
		ckt_sample_remember((void *)(uintptr_t)live[i]);
		if (!ckt_sample_maybe((void *)(uintptr_t)live[i]))
			atomic_fetch_add(&failures, 1);
	}
	for (int i = 0; i < LIVE; i++)
		if (ckt_sample_forget((void *)(uintptr_t)live[i]) != 1)
			atomic_fetch_add(&failures, 1);
	/* forgotten means gone: a second forget finds nothing */
	if (ckt_sample_forget((void *)(uintptr_t)live[0]) != 0)
		atomic_fetch_add(&failures, 1);
	return NULL;
}

static void test_grow_under_load(void **state)
{
	(void)state;
	ckt_config.sample = 1024;
	ckt_sample_init();
	uint64_t s0 = atomic_load(&ckt_filter_state);
	assert_int_equal(shift_of(s0), 64 - CKT_FILTER_BITS0);
	/* below the threshold the writer's step does nothing */
	ckt_sample_remember((void *)(uintptr_t)0x5000);
	ckt_sample_maintain();
	assert_int_equal(atomic_load(&ckt_filter_state), s0);
	assert_int_equal(ckt_sample_forget((void *)(uintptr_t)0x5000), 1);

	pthread_t th[THREADS];
	for (uintptr_t k = 0; k < THREADS; k++)
		assert_int_equal(pthread_create(&th[k], NULL, worker, (void *)((k + 1) << 40)), 0);
	while (atomic_load(&go) < THREADS)
		sched_yield();
	ckt_sample_maintain(); /* while the workers remember and forget */
	uint64_t s1 = atomic_load(&ckt_filter_state);
	atomic_store(&grown, 1);
	for (int k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	assert_int_equal(atomic_load(&failures), 0);
	assert_int_equal(shift_of(s1), 64 - CKT_FILTER_BITS1);
	assert_true(words_of(s1) != words_of(s0));
	/* a second step does not grow again */
	ckt_sample_maintain();
	assert_int_equal(atomic_load(&ckt_filter_state), s1);

	/* every sample is gone: no bit left set in either level */
	const _Atomic uint64_t *w0 = (const _Atomic uint64_t *)(uintptr_t)words_of(s0);
	const _Atomic uint64_t *w1 = (const _Atomic uint64_t *)(uintptr_t)words_of(s1);
	size_t set0 = 0, set1 = 0;
	for (size_t i = 0; i < (1u << CKT_FILTER_BITS0) / 64; i++)
		set0 += (size_t)__builtin_popcountll(atomic_load(&w0[i]));
	for (size_t i = 0; i < (1u << CKT_FILTER_BITS1) / 64; i++)
		set1 += (size_t)__builtin_popcountll(atomic_load(&w1[i]));
	assert_int_equal(set0, 0);
	assert_int_equal(set1, 0);

	/* after the switch a new sample is found through the second level */
	ckt_sample_remember((void *)(uintptr_t)0x7000);
	assert_true(ckt_sample_maybe((void *)(uintptr_t)0x7000));
	assert_int_equal(ckt_sample_forget((void *)(uintptr_t)0x7000), 1);
	assert_false(ckt_sample_maybe((void *)(uintptr_t)0x7000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_under_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
