/* test_sample.c: the default mode's set of live sampled pointers and the filter in front of it
 * (preload/sample.c), driven directly: pointers remembered and forgotten by several threads
 * while the writer's step grows the filter to its second level. No live sample may ever read
 * as absent (a missed sampled free), every one must be found and forgotten exactly once, and
 * once all are gone both levels must be empty (every count back to 0: nothing counted twice).
 * The pointers are never dereferenced, so they are made-up even addresses. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
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
/* 0 (a wait for a release never gives up) unless a test asks for the real clock */
static int real_clock;
uint64_t ckt_clock_raw(void)
{
	struct timespec t;
	if (!real_clock)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
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
/* the writer's: which table filled, how often it was said */
static unsigned limit_kind, limit_calls;
void ckt_writer_limit_reached(unsigned kind)
{
	limit_kind = kind;
	limit_calls++;
}

/* sample.c's race points (built in for this test only): stall a thread where the interleavings
 * its comments argue about begin, so they happen in every run, not one run in a hundred */
extern void (*ckt_test_race)(int where);
static _Thread_local unsigned race_calls;

static void stall(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000};
	nanosleep(&ts, NULL);
}

/* The scenarios below give threads roles; the random stalls are for the others. */
enum { ROLE_ANY, ROLE_RELEASER, ROLE_ADDER, ROLE_LATE_ADDER, ROLE_STUCK_RELEASER };
static atomic_int left_window; /* the stuck releaser has left its clear window */
static _Thread_local int role;
static atomic_int step; /* the scenario's progress, advanced by its threads */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits until step >= want, at most `limit` seconds; 1 if it got there. */
static int wait_step(int want, double limit)
{
	double end = now_s() + limit;
	while (atomic_load(&step) < want)
		if (now_s() > end)
			return 0;
		else
			sched_yield();
	return 1;
}

static void race(int where)
{
	race_calls++;
	if (role == ROLE_RELEASER) {
		if (where == 5) { /* its count is 0, its bit not yet cleared: the adder counts now */
			atomic_store(&step, 1);
			wait_step(2, 1.0);
		} else if (where == 2) { /* bit cleared, not re-checked: an adder that did not wait
					  * would look now; one that waits cannot, so give up soon */
			atomic_store(&step, 3);
			wait_step(4, 0.002);
		}
		return;
	}
	if (role == ROLE_STUCK_RELEASER) {
		if (where == 5) {
			atomic_store(&step, 1);
			wait_step(2, 5.0);
		} else if (where == 2) { /* stays in its window until the adder is back, 5 s at most */
			atomic_store(&step, 3);
			wait_step(4, 5.0);
			atomic_store(&left_window, 1);
		}
		return;
	}
	if (role == ROLE_ADDER) {
		if (where == 6) { /* counted (its bit set); the release clears it, then this goes on */
			atomic_store(&step, 2);
			wait_step(3, 1.0);
		}
		return;
	}
	if (role == ROLE_LATE_ADDER) {
		if (where == 1) { /* it read "not growing": the writer grows before its insert */
			atomic_store(&step, 1);
			wait_step(2, 5.0);
		}
		return;
	}
	switch (where) {
	case 1: /* a new sample read the grow state and has not inserted yet */
		if (race_calls % 64 == 0)
			stall(30);
		break;
	case 2: /* a release cleared a bit and has not re-checked its count yet */
		if (race_calls % 16 == 0)
			stall(20);
		else
			sched_yield();
		break;
	case 3: /* the writer scans the set to move entries to the big filter */
		stall(300);
		break;
	case 4: /* a release found its entry and has not taken it yet */
		if (race_calls % 32 == 0)
			stall(20);
		break;
	}
}

#define THREADS 4
#define LIVE 6000 /* per thread: 24,000 live in all, past CKT_FILTER_GROW */
#define ROUNDS 50000

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
	ckt_test_race = race;
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
	ckt_test_race = NULL; /* the rest runs at full speed */
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

/* Another address whose bit in the filter in use is p's. */
static uint64_t same_bit(uint64_t p)
{
	unsigned shift = shift_of(atomic_load(&ckt_filter_state));
	uint64_t q = p + 16;
	while (ckt_filter_bit((void *)(uintptr_t)q, shift) != ckt_filter_bit((void *)(uintptr_t)p, shift))
		q += 16;
	return q;
}

/* Two samples on one filter bit: q's release takes the count to 0 and, before it clears the
 * bit, p is taken (count 1, bit set); the release then clears the bit. p's bit must read set
 * once p is in: its add waits until the release has re-checked the count and set the bit
 * again. (An add that did not wait read p's bit clear here: its free would be missed.) */
static void *releaser(void *arg)
{
	role = ROLE_RELEASER;
	ckt_sample_forget(arg);
	return NULL;
}

/* The filter's slot function: the 512 granules of 16 bytes of an aligned 8 KiB are the 512
 * bits of one 64-byte line (a thread's frees near each other read one line), each its own bit,
 * in order but rotated; the lines of 8 KiB blocks in a row spread over the whole bitmap, at
 * both sizes. */
static void test_filter_locality(void **state)
{
	(void)state;
	unsigned bits[2] = {CKT_FILTER_BITS0, CKT_FILTER_BITS1};
	for (int k = 0; k < 2; k++) {
		unsigned shift = 64 - bits[k];
		uint64_t base = 0x7f0012340000ull; /* 8 KiB aligned */
		uint64_t first = ckt_filter_bit((void *)(uintptr_t)base, shift);
		for (uint64_t g = 0; g < 512; g++) {
			uint64_t b = ckt_filter_bit((void *)(uintptr_t)(base + 16 * g + g % 16), shift);
			assert_int_equal(b >> 9, first >> 9);
			assert_int_equal((b - first) & 511, g);
		}
		/* 4096 blocks of 8 KiB: their lines, and where they fall in the bitmap */
		static uint8_t used[1u << (CKT_FILTER_BITS1 - 9)];
		memset(used, 0, sizeof(used));
		unsigned lines = 1u << (bits[k] - 9), distinct = 0, halves[2] = {0, 0};
		for (uint64_t i = 0; i < 4096; i++) {
			uint64_t b = ckt_filter_bit((void *)(uintptr_t)(base + (i << 13)), shift);
			assert_true(b < (1ull << bits[k]));
			distinct += !used[b >> 9];
			used[b >> 9] = 1;
			halves[(b >> 9) >= lines / 2]++;
		}
		/* 512 lines: 4096 blocks leave none unused; 8192 lines: about 3,100 distinct */
		assert_true(distinct >= (k == 0 ? 512u : 2800u));
		assert_true(halves[0] > 1700 && halves[1] > 1700);
	}
}

/* How often a free that is not of a sample meets a set bit (the slow path), on heaps of blocks
 * of one power-of-two size: 64 glibc arenas 64 MiB apart, 262,144 blocks at 16 bytes past
 * their chunk, one in 64 a live sample. About the share of bits set (as with a hash per block),
 * at most 1.3 times it: a slot function that kept each block's granule in its line sent 98% of
 * the frees of 4 KiB blocks to the slow path (every 8 KiB has them at the same two granules),
 * and one that rotated it by the line hash's next bits 3.5% of those of 256 B blocks, with
 * 1.5% of bits set. Deterministic: fixed addresses and draws. */
static void test_filter_strides(void **state)
{
	(void)state;
	static uint64_t map[(1u << CKT_FILTER_BITS1) / 64];
	unsigned bits[2] = {CKT_FILTER_BITS0, CKT_FILTER_BITS1};
	uint64_t strides[] = {32, 64, 256, 1024, 4096, 16384};
	for (int k = 0; k < 2; k++) {
		unsigned shift = 64 - bits[k];
		for (size_t si = 0; si < sizeof(strides) / sizeof(strides[0]); si++) {
			memset(map, 0, sizeof(map));
			uint64_t n = 262144, rng = 12345, set = 0, hits = 0, frees = 0;
			for (int pass = 0; pass < 2; pass++) {
				rng = 12345;
				for (uint64_t i = 0; i < n; i++) {
					uint64_t a = 0x7f0000000000ull + (i % 64) * (64ull << 20) + (i / 64) * strides[si] + 16;
					rng = rng * 6364136223846793005ull + 1442695040888963407ull;
					int sampled = (rng >> 58) == 0; /* one in 64 */
					uint64_t b = ckt_filter_bit((void *)(uintptr_t)a, shift);
					if (pass == 0 && sampled) {
						set += !(map[b / 64] >> (b % 64) & 1);
						map[b / 64] |= 1ull << (b % 64);
					} else if (pass == 1 && !sampled) {
						frees++;
						hits += map[b / 64] >> (b % 64) & 1;
					}
				}
			}
			double rate = (double)hits / (double)frees, share = (double)set / (double)(1ull << bits[k]);
			if (rate > 1.3 * share + 0.002)
				fail_msg("stride %llu, 2^%u bits: %.2f%% of frees met a set bit, %.2f%% of bits set",
					 (unsigned long long)strides[si], bits[k], 100 * rate, 100 * share);
		}
	}
}

static void test_clear_window(void **state)
{
	(void)state;
	ckt_config.sample = 1024;
	ckt_sample_init();
	ckt_test_race = race;
	uint64_t p = 0x100000, q = same_bit(p);
	int missed = 0;
	for (int round = 0; round < 50; round++) {
		atomic_store(&step, 0);
		ckt_sample_remember((void *)(uintptr_t)q);
		pthread_t th;
		assert_int_equal(pthread_create(&th, NULL, releaser, (void *)(uintptr_t)q), 0);
		assert_true(wait_step(1, 5.0)); /* the release is inside its window */
		role = ROLE_ADDER;
		ckt_sample_remember((void *)(uintptr_t)p);
		role = ROLE_ANY;
		missed += !ckt_sample_maybe((void *)(uintptr_t)p);
		atomic_store(&step, 4);
		pthread_join(th, NULL);
		assert_int_equal(ckt_sample_forget((void *)(uintptr_t)p), 1);
	}
	ckt_test_race = NULL;
	assert_int_equal(missed, 0);
}

/* A releaser stopped inside its clear window (a signal handler that blocks, a debugger) delays
 * a new sample on its bitmap word by 1 ms at most: the sample's add returns while the releaser
 * is still inside (with an unbounded wait it would return only after the releaser). */
static void *stuck_releaser(void *arg)
{
	role = ROLE_STUCK_RELEASER;
	ckt_sample_forget(arg);
	return NULL;
}

static void test_wait_bounded(void **state)
{
	(void)state;
	ckt_config.sample = 1024;
	ckt_sample_init();
	ckt_test_race = race;
	real_clock = 1;
	uint64_t p = 0x200000, q = same_bit(p);
	atomic_store(&step, 0);
	atomic_store(&left_window, 0);
	ckt_sample_remember((void *)(uintptr_t)q);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, stuck_releaser, (void *)(uintptr_t)q), 0);
	assert_true(wait_step(1, 5.0));
	role = ROLE_ADDER;
	ckt_sample_remember((void *)(uintptr_t)p);
	role = ROLE_ANY;
	int inside = !atomic_load(&left_window);
	atomic_store(&step, 4);
	pthread_join(th, NULL);
	real_clock = 0;
	ckt_test_race = NULL;
	assert_true(inside);
	assert_int_equal(ckt_sample_forget((void *)(uintptr_t)p), 1);
}

/* A new sample that read "not growing" is inserted after the writer grew the filter (scanned
 * the set without it, and switched): it moves itself to the big filter, so it reads as
 * present there. In a child process: the filter grows once per process. */
static void *late_adder(void *arg)
{
	role = ROLE_LATE_ADDER;
	ckt_sample_remember(arg);
	return NULL;
}

/* A test's child (forked to keep the set's state its own) ended with status 0 */
static void expect_child_ok(pid_t pid)
{
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_late_add(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		ckt_config.sample = 1024;
		ckt_sample_init();
		for (uint64_t i = 1; i <= CKT_FILTER_GROW + 100; i++)
			ckt_sample_remember((void *)(uintptr_t)(i << 20));
		ckt_test_race = race;
		atomic_store(&step, 0);
		uint64_t p = 0x7777770;
		pthread_t th;
		if (pthread_create(&th, NULL, late_adder, (void *)(uintptr_t)p))
			_exit(3);
		if (!wait_step(1, 5.0))
			_exit(4);
		ckt_sample_maintain(); /* grows and switches while the adder waits before its insert */
		if (shift_of(atomic_load(&ckt_filter_state)) != 64 - CKT_FILTER_BITS1)
			_exit(5);
		atomic_store(&step, 2);
		pthread_join(th, NULL);
		_exit(ckt_sample_maybe((void *)(uintptr_t)p) && ckt_sample_forget((void *)(uintptr_t)p) == 1 ? 0 : 6);
	}
	expect_child_ok(pid);
}

/* The set full (its four tables, 5.5 million slots, crowded): the writer is told once, as a
 * LIMIT of kind SAMPLES, after more than 4 million samples went in (the biggest table's slots);
 * later full inserts do not tell it again. In a child: the set stays full. */
static void test_set_full(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		ckt_config.sample = 1024;
		ckt_sample_init();
		uint64_t i = 1;
		for (; i < (12u << 20) && !limit_calls; i++)
			ckt_sample_remember((void *)(uintptr_t)(i << 5));
		uint64_t in = i - 1;
		for (uint64_t k = 0; k < 1000; k++, i++)
			ckt_sample_remember((void *)(uintptr_t)(i << 5));
		_exit(limit_calls != 1 ? 3 : limit_kind != CKT_LIMIT_SAMPLES ? 4 : in <= (4u << 20) ? 5 : 0);
	}
	expect_child_ok(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_locality),
		cmocka_unit_test(test_filter_strides),
		cmocka_unit_test(test_clear_window),
		cmocka_unit_test(test_wait_bounded),
		cmocka_unit_test(test_late_add),
		cmocka_unit_test(test_grow_under_load),
		cmocka_unit_test(test_set_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
