/* phasenames.c: phase names at the tracer's limits (tests/integration/t_phases.sh).
 *   phasenames long   two names of 1,100 bytes that differ only in their last byte, past the
 *                     1,024 the trace keeps: 100,001 bytes in the first, 100,002 in the second,
 *                     both held at the end (one phase of 200,003 bytes)
 *   phasenames many   5,000 names pushed (10 bytes each), then "SYNTH_START", 123,457 bytes and
 *                     "SYNTH_END" written with write(2): a CUZKTRACE_PHASES rule's phase must
 *                     still be named after the program used up the 4,096 names
 *   phasenames manyafter  the rules' phases first: "SYNTH_START", 123,457 bytes, "SYNTH_END"
 *                     (write(2)); then 5,000 names pushed (10 bytes each), then "GPU_START" and
 *                     5,000 bytes: with the rules logsynth=SYNTH_START..SYNTH_END and gpu=GPU_START
 *                     the table keeps one slot, gpu's, for the rules: logsynth has its own
 *                     already (since 0.2.42; it kept two, and only 4,093 of the names fitted)
 *   phasenames labels a phase named "(none)" (1,000 bytes) beside bytes of no phase (2,000),
 *                     on a thread named "(unnamed)" (8,000) beside an unnamed one (4,000):
 *                     the report's own labels, which a program may give too; then those
 *                     names in quotes: a phase "\"(none)\"" (1,500), a thread "\"(unnamed)\""
 *                     (6,000); all held
 *   phasenames empty  a phase named "" pushed for 50 ms around a block of 3,000 bytes (held)
 *   phasenames plus   names that hold '+': "fft+msm" begun (process-wide), then "C++", "q\"+x"
 *                     and "plain" pushed, for 50 ms around a block of 4,000 bytes (held): the
 *                     timeline's active_phases joins names by '+'
 *   phasenames quote  names that hold '"' and no '+': "\"a" and "b\"" pushed, for 50 ms around a
 *                     block of 4,000 bytes (held)
 *   phasenames null   a push of NULL inside "prove" and its pop: "prove" holds its 1,000,000
 *                     bytes before, 2,000,000 inside and 3,000,000 after (all held; the pop
 *                     popped "prove", and the last block was of no phase)
 *   phasenames nullproc  a push of NULL on a thread with nothing pushed, while the
 *                     process-wide "load" is active (1,000,000 bytes before it); "load" ends
 *                     and "prove" begins, 3,000,000 bytes, the pop, 2,000,000 bytes: "load"
 *                     holds 1,000,000, "prove" 5,000,000 (all held; the push took "load" for
 *                     the thread's phase, which kept the 3,000,000 made after it ended)
 *   phasenames moved  "task" pushed on the main thread around 1,000,000 bytes (held); a second
 *                     thread pops twice, with nothing pushed of its own (a guard that moved to
 *                     another worker), then the main thread allocates 2,000,000 bytes, still in
 *                     "task" (the pops are ignored; one line says so, since 0.2.40)
 *   phasenames keydtor  a thread pushes "worker", keeps a block of 1,000,000 bytes as its
 *                     thread-specific data and exits; the key's destructor frees it and pops
 *                     "worker" (balanced, on the pushing thread, after the tracer's own key
 *                     destructor ended the thread's phases): no line (since 0.2.55)
 *   phasenames overlaprss  process-wide "synth" begins, then "prove" while it is active: 64 MiB
 *                     mapped and touched for 150 ms (the peak RSS, both active), 1 MiB allocated and
 *                     held, the mapping unmapped; "prove" ends, and 8 MiB allocated and not
 *                     touched (the peak heap, "synth" alone, "prove"'s 1 MiB live)
 *   phasenames overlapheap  the other way round: "synth" begins, then "prove" while it is
 *                     active: 8 MiB allocated, not touched (the peak heap, both active), and
 *                     1 MiB held; the 8 MiB freed, "prove" ends, then 64 MiB mapped and touched for 150 ms (the peak RSS,
 *                     "synth" alone, after the overlap)
 *   phasenames small  "small" holds 65,536 blocks of 1,000 bytes (the default mode samples
 *                     them: about 125 samples at its rate of 512 KiB), then "big" one block of
 *                     8 MiB (recorded on its own: exact); all held
 *   phasenames tiny   "small" holds 3,000 blocks of 100 bytes, then "big" one of 2 MiB: under a
 *                     sampling rate of 1 GiB nearly always without a sample (all held)
 *   phasenames wide   40 threads each push a phase of their own, "w00" to "w39", allocate 100,000
 *                     bytes in it (held) and wait, pushed, while the main thread allocates 8 MiB
 *                     (the peak heap, 12,000,000 + 8,388,608 bytes: 40 phases active then), then
 *                     frees it and the threads pop
 *   phasenames cost   the time of 20,000 push/pop pairs of a 1,100-byte name against a 10-byte
 *                     one's, the best of 5 rounds each, for `make bench`: "<long> <short>
 *                     <ratio>" (seconds; the long name's, cut where the trace keeps it, took the
 *                     tracer's lock at every push before 0.2.40: 12 to 34 times) */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep[5001];

static void *labels_thread(void *named)
{
	int k = named ? *(int *)named : 0;
	if (k)
		pthread_setname_np(pthread_self(), k == 1 ? "(unnamed)" : "\"(unnamed)\"");
	keep[2 + k] = malloc(k == 0 ? 4000 : k == 1 ? 8000 : 6000);
	return NULL;
}

static pthread_barrier_t pushed;

/* phasenames wide: the peak comes while all 40 hold their phase (the second wait) */
#define WIDE 40
static pthread_barrier_t wide_in, wide_out;

static void *wide_thread(void *arg)
{
	char nm[8];
	snprintf(nm, sizeof(nm), "w%02d", (int)(long)arg);
	cuzktrace_phase_push(nm);
	keep[10 + (long)arg] = malloc(100000);
	pthread_barrier_wait(&wide_in);
	pthread_barrier_wait(&wide_out);
	cuzktrace_phase_pop();
	return NULL;
}

static void *pop_twice(void *arg)
{
	pthread_barrier_wait(&pushed);
	cuzktrace_phase_pop();
	cuzktrace_phase_pop();
	return arg;
}

static pthread_key_t ctx_key;

static void ctx_free(void *p)
{
	free(p);
	cuzktrace_phase_pop();
}

static void *keyed_worker(void *arg)
{
	cuzktrace_phase_push("worker");
	void *p = malloc(1000000);
	memset(p, 1, 64);
	pthread_setspecific(ctx_key, p);
	return arg;
}

/* "small" holds n blocks of `size` bytes, then "big" one of `big` bytes, in blocks[n]; all held */
static void small_then_big(void *volatile *blocks, int n, size_t size, size_t big)
{
	cuzktrace_phase_push("small");
	for (int i = 0; i < n; i++)
		blocks[i] = malloc(size);
	cuzktrace_phase_pop();
	cuzktrace_phase_push("big");
	blocks[n] = malloc(big);
	cuzktrace_phase_pop();
}

/* 64 MiB mapped and touched for 150 ms (a peak RSS), with 1 MiB allocated and held during it
 * when `block` */
static int held_mapping(int block)
{
	size_t n = (size_t)64 << 20;
	char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	memset(m, 1, n);
	if (block)
		keep[1] = malloc(1 << 20); /* live at the peak heap */
	usleep(150000);
	return munmap(m, n);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "long")) {
		static char n1[1101], n2[1101];
		memset(n1, 'a', 1100);
		memset(n2, 'a', 1100);
		n2[1099] = 'b';
		cuzktrace_phase_push(n1);
		keep[0] = malloc(100001);
		cuzktrace_phase_pop();
		cuzktrace_phase_push(n2);
		keep[1] = malloc(100002);
		cuzktrace_phase_pop();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "labels")) {
		cuzktrace_phase_push("(none)");
		keep[0] = malloc(1000);
		cuzktrace_phase_pop();
		keep[1] = malloc(2000);
		cuzktrace_phase_push("\"(none)\"");
		keep[5] = malloc(1500);
		cuzktrace_phase_pop();
		for (int named = 0; named < 3; named++) {
			pthread_t t;
			if (pthread_create(&t, NULL, labels_thread, named ? &named : NULL) != 0 || pthread_join(t, NULL) != 0)
				return 1;
		}
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "null")) {
		cuzktrace_phase_push("prove");
		keep[0] = malloc(1000000);
		cuzktrace_phase_push(NULL);
		keep[1] = malloc(2000000);
		cuzktrace_phase_pop();
		keep[2] = malloc(3000000);
		cuzktrace_phase_pop();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "nullproc")) {
		cuzktrace_phase_begin("load");
		keep[0] = malloc(1000000);
		cuzktrace_phase_push(NULL);
		cuzktrace_phase_end("load");
		cuzktrace_phase_begin("prove");
		keep[1] = malloc(3000000);
		cuzktrace_phase_pop();
		keep[2] = malloc(2000000);
		cuzktrace_phase_end("prove");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "small")) {
		static void *volatile blocks[65537];
		small_then_big(blocks, 65536, 1000, 8 << 20);
		return blocks[65535] ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "tiny")) {
		small_then_big(keep, 3000, 100, 2 << 20);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "overlaprss")) {
		cuzktrace_phase_begin("synth");
		cuzktrace_phase_begin("prove");
		if (held_mapping(1) < 0)
			return 1;
		cuzktrace_phase_end("prove");
		keep[0] = malloc(8 << 20);
		usleep(20000);
		cuzktrace_phase_end("synth");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "overlapheap")) {
		cuzktrace_phase_begin("synth");
		cuzktrace_phase_begin("prove");
		keep[0] = malloc(8 << 20);
		keep[1] = malloc(1 << 20); /* held: "prove"'s bytes live at the peak RSS */
		usleep(20000);
		free(keep[0]);
		cuzktrace_phase_end("prove");
		if (held_mapping(0) < 0)
			return 1;
		cuzktrace_phase_end("synth");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "keydtor")) {
		pthread_t th;
		if (pthread_key_create(&ctx_key, ctx_free) || pthread_create(&th, NULL, keyed_worker, NULL) ||
		    pthread_join(th, NULL))
			return 1;
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "moved")) {
		/* the thread made before the push: its bookkeeping block (glibc's) is of no phase */
		pthread_t th;
		if (pthread_barrier_init(&pushed, NULL, 2) || pthread_create(&th, NULL, pop_twice, NULL))
			return 1;
		cuzktrace_phase_push("task");
		keep[0] = malloc(1000000);
		pthread_barrier_wait(&pushed);
		if (pthread_join(th, NULL))
			return 1;
		keep[1] = malloc(2000000);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "cost")) {
		static char lng[1101];
		memset(lng, 'a', 1100);
		const char *nm[2] = {"short name", lng};
		double best[2] = {1e9, 1e9};
		for (int round = 0; round < 5; round++)
			for (int k = 0; k < 2; k++) {
				struct timespec a, b;
				clock_gettime(CLOCK_MONOTONIC, &a);
				for (int i = 0; i < 20000; i++) {
					cuzktrace_phase_push(nm[k]);
					cuzktrace_phase_pop();
				}
				clock_gettime(CLOCK_MONOTONIC, &b);
				double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
				best[k] = s < best[k] ? s : best[k];
			}
		printf("%.6f %.6f %.1f\n", best[1], best[0], best[1] / best[0]);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "wide")) {
		pthread_t t[WIDE];
		pthread_barrier_init(&wide_in, NULL, WIDE + 1);
		pthread_barrier_init(&wide_out, NULL, WIDE + 1);
		for (long i = 0; i < WIDE; i++)
			if (pthread_create(&t[i], NULL, wide_thread, (void *)i))
				return 1;
		pthread_barrier_wait(&wide_in);
		keep[0] = malloc(8 << 20); /* through keep: a pair the compiler may not drop */
		memset(keep[0], 1, 8 << 20);
		free(keep[0]);
		pthread_barrier_wait(&wide_out);
		for (int i = 0; i < WIDE; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "plus")) {
		cuzktrace_phase_begin("fft+msm");
		cuzktrace_phase_push("C++");
		cuzktrace_phase_push("q\"+x");
		cuzktrace_phase_push("plain");
		keep[0] = malloc(4000);
		usleep(50000);
		cuzktrace_phase_pop();
		cuzktrace_phase_pop();
		cuzktrace_phase_pop();
		cuzktrace_phase_end("fft+msm");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "quote")) {
		cuzktrace_phase_push("\"a");
		cuzktrace_phase_push("b\"");
		keep[0] = malloc(4000);
		usleep(50000);
		cuzktrace_phase_pop();
		cuzktrace_phase_pop();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "empty")) {
		cuzktrace_phase_push("");
		keep[0] = malloc(3000);
		usleep(50000);
		cuzktrace_phase_pop();
		return 0;
	}
	char nm[16];
	int after = argc > 1 && !strcmp(argv[1], "manyafter");
	static const char a[] = "SYNTH_START\n", b[] = "SYNTH_END\n", g[] = "GPU_START\n";
	if (after) {
		if (write(2, a, sizeof(a) - 1) < 0)
			return 1;
		keep[5000] = malloc(123457);
		if (write(2, b, sizeof(b) - 1) < 0)
			return 1;
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(nm, sizeof(nm), "n%04d", i);
		cuzktrace_phase_push(nm);
		keep[i] = malloc(10);
		cuzktrace_phase_pop();
	}
	if (after) {
		if (write(2, g, sizeof(g) - 1) < 0)
			return 1;
		keep[4999] = malloc(5000);
		return 0;
	}
	if (write(2, a, sizeof(a) - 1) < 0)
		return 1;
	keep[5000] = malloc(123457);
	if (write(2, b, sizeof(b) - 1) < 0)
		return 1;
	return 0;
}
