/* replay.h: replays decoded records in global time order and keeps what the reports need:
 * the live heap blocks, the live mappings, current totals, peaks and RSS samples. It does not
 * read files (decode.h) and does not format anything (report.h).
 */
#ifndef CKT_REPLAY_H
#define CKT_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"
#include "util.h"

/* Event kinds as counted in the report (one per record; a REALLOC counts once). */
enum ckt_replay_kind {
	CKT_KIND_ALLOC,
	CKT_KIND_FREE,
	CKT_KIND_REALLOC,
	CKT_KIND_MMAP,
	CKT_KIND_MUNMAP,
	CKT_KIND_MREMAP,
	CKT_KIND_RSS,
	CKT_KIND_RSS_DETAIL,
	CKT_KIND_CUDA_ALLOC,   /* replayed (GPU figures), but not counted in `events` */
	CKT_KIND_CUDA_FREE,
	CKT_KIND_AGG,          /* default mode: running totals of small blocks (not in `events`) */
	CKT_KIND_CUDA_MAP,     /* cuMemMap, cuMemUnmap (not in `events`) */
	CKT_KIND_CUDA_UNMAP,
	CKT_KIND_MPROTECT,     /* version 5 */
	CKT_KIND_COUNT
};

/* A maximum and the first time it was reached; ts is meaningful only when bytes > 0. */
struct ckt_peak {
	uint64_t bytes;
	uint64_t ts;
};

/* A CUDA device named by the trace (CUDA_DEVICE record, or an allocation's ordinal). */
struct ckt_cuda_device {
	uint32_t ordinal;
	char uuid[48];          /* "GPU-..."; "" when the driver did not say */
	char name[64];
	uint64_t bytes;         /* device + pool + VMM on this device, now */
	struct ckt_peak peak;
};

/* The state at one RSS sample, as handed to the sample sink (one CSV row). */
struct ckt_sample {
	uint64_t ts;
	uint64_t rss;
	uint64_t heap;
	uint64_t anon_mmap;
	uint64_t file_mmap;
	uint64_t gpu;    /* CUDA device + pool + VMM bytes on devices */
	uint64_t pinned; /* CUDA pinned host bytes */
	/* phases active then, joined by '+' ("" when none); NULL from the replay itself, filled
	 * in by phases.c when it sits first in the sink chain (ckt_phases_sample) */
	const char *active_phases;
};

typedef void ckt_replay_sample_fn(void *ctx, const struct ckt_sample *s);

struct ckt_replay_stats {
	uint64_t events;                    /* records ALLOC..RSS_DETAIL (CUDA not included) */
	uint64_t counts[CKT_KIND_COUNT];
	uint64_t lost;                      /* max(sum of LOST, END's lost) */
	/* the program's threads' sleep waiting for room in their rings (WAITED, version 7): ns
	 * in all, and how many waits; 0 in older traces */
	uint64_t wait_ns, waits;
	/* per kind (CKT_LIMIT_*): 1 + when the tracer's table of that kind filled (LIMIT, version
	 * 8: the earliest, where a trace says it twice), 0 when it did not */
	uint64_t limit_at[CKT_LIMIT_KINDS + 1];
	uint64_t sample_r;                  /* CUZKTRACE_SAMPLE of the trace; 0 = exact mode */
	uint64_t sampled_allocs;            /* ALLOC records flagged CKT_FN_SAMPLED */
	uint64_t agg_threads;               /* threads that sent AGG records (for the bound) */
	/* of those, the most that may have had totals pending at one time (sent AGG and not
	 * ended yet: THREAD_EXIT). The heap figures at any time, the peak included, are exact to
	 * within this many CKT_AGG_STEPs (the true peak may lie at another moment, when other
	 * threads had totals pending: so not the count at the reported peak) */
	uint64_t agg_threads_at_once;
	/* AGG records of threads that idled (their bytes came before their send: format version
	 * 6's since) that raised the peak heap in place, keeping its moment */
	uint64_t agg_late_kept;
	/* samples of the default mode taken after the peak heap's moment, whose bytes such a
	 * total counted there: counted at the peak in the estimates too (since 0.2.37) */
	uint64_t late_samples_at_peak;
	uint64_t late_frees_at_peak; /* samples freed then, live at the peak, taken out with those totals */
	/* the peak heap is the peak RSS sample's moment: late totals put more heap there than at
	 * the replay's own top (ckt_replay_finish) */
	bool peak_heap_at_rss;
	uint64_t inconsistencies;           /* ALLOC of an address that was still live */
	/* of them, among the events stamped at or after the last SYNC's horizon, which no SYNC
	 * promises complete: a process that ended while threads ran on, its last flush taking
	 * each thread's ring at another moment (since 0.2.50); and that horizon */
	uint64_t inconsistencies_after_sync;
	uint64_t last_sync_ns;
	/* events read after events later than them were replayed: the writer broke the SYNC
	 * promise (replayed late, out of order: figures near them may be off by their bytes) */
	uint64_t late_events;
	/* events stamped before the event queued before them on their thread (a tracer's clock is
	 * monotonic: corrupt); replayed in the thread's order all the same */
	uint64_t backward_events;
	/* allocations the decoder's address model paired with their release, so the replay kept
	 * them out of its live table (a measure of the fast path, no effect on any figure) */
	uint64_t paired;
	/* heap blocks freed as temporaries (struct ckt_run's temps; exact mode only, else 0) */
	uint64_t temporary;
	/* the most events held in the queues at once, waiting for time order (at a SYNC), and
	 * those replayed before the trace's time order was final because more than the bound
	 * (ckt_replay_set_max_held) were held: an event stamped long before it was written held
	 * them back, and comes late (late_events) */
	uint64_t max_held, replayed_early;
	/* how far the heap's signed total went below zero at most: frees of blocks the trace did
	 * not see allocated, which the default mode's running totals subtract (allocated before
	 * tracing, or through an entry point the tracer does not hook); past the totals' bound,
	 * the heap figures are low by about that */
	uint64_t heap_below_zero;
	/* bytes the per-thread event queues take at finish, in whole huge pages from 2 MiB on
	 * (ckt_util_big_size; bounded: ckt_replay_retire) */
	uint64_t queue_bytes;
	uint64_t threads;                   /* distinct thread ids that recorded events (at finish) */
	/* threads of the program that recorded events (a thread id reused after a THREAD_EXIT
	 * counts again; the tracer's own RSS sampling does not count), and the most of them that
	 * had recorded and not ended at one time, in replay order: the tracer's buffers of a
	 * thread that ended serve the next one */
	uint64_t threads_started, threads_at_once;
	uint64_t tracer_stack_bytes; /* the tracer's memory for the distinct stacks (see below) */
	/* the pages of the tracer's table of stack hashes the distinct stacks are expected to have
	 * touched (see below), and the share of its pages that is */
	uint64_t tracer_stack_table_bytes;
	double stack_table_touched, stack_small_touched; /* the big table's share, the small one's */
	uint64_t stack_records; /* STACK records read */
	bool truncated;                     /* no END record (set by ckt_replay_run) */
	bool ended;
	uint64_t end_ts, end_reason, end_events;
	/* the END record is stamped before events replayed (corrupt: the tracer stamps it after
	 * its last drain); duration_ns then runs to the last event */
	bool end_before_events;
	/* the END record is stamped over CKT_REPLAY_END_LATE_NS after the last event and the last
	 * SYNC's horizon (corrupt: the tracer writes the final SYNC, stamped at its final flush's
	 * start, then END at that flush's end); duration_ns then runs to the later of the two */
	bool end_far_after;
#define CKT_REPLAY_END_LATE_NS (3600ull * 1000000000ull)
	uint64_t last_ts;                   /* latest event timestamp replayed */
	uint64_t duration_ns;               /* END ts, or last_ts when truncated */

	/* current totals; after ckt_replay_finish these are the values live at exit */
	uint64_t heap_bytes, heap_blocks;
	uint64_t anon_mmap_bytes, file_mmap_bytes;
	/* mappings (or parts) with protection PROT_NONE: address space, not memory; not in the
	 * mapped bytes above nor their peaks */
	uint64_t reserved_bytes;
	struct ckt_peak peak_reserved;

	struct ckt_peak peak_heap;
	struct ckt_peak peak_mmap;          /* anon + file */
	uint64_t peak_mmap_anon_bytes, peak_mmap_file_bytes; /* the split at peak_mmap */
	struct ckt_peak peak_anon, peak_file;

	uint64_t rss_samples;
	uint64_t hwm_max;                   /* largest VmHWM of any RSS_DETAIL */
	struct {
		bool seen;                  /* false: no RSS sample at all */
		uint64_t ts, bytes;
		uint64_t heap_bytes, anon_mmap_bytes, file_mmap_bytes;
		bool has_detail;            /* latest RSS_DETAIL at or before the peak */
		uint64_t hwm, anon, file, shmem;
		uint64_t gpu_bytes, pinned_bytes; /* CUDA device memory and pinned host RAM then */
	} peak_rss;

	/* CUDA, counted at the driver layer. gpu = device + pool + VMM memory on devices (sum
	 * over devices); pinned = page-locked host RAM the driver allocated (it is in RSS);
	 * managed and registered (existing memory pinned in place) are kept apart. Pool memory
	 * counts from cuMemAllocAsync to cuMemFreeAsync, not while the pool keeps it reserved. */
	uint64_t gpu_bytes, pinned_bytes, managed_bytes, registered_bytes;
	uint64_t cuda_bytes[6];             /* now, by CKT_CUDA_* kind */
	uint64_t cuda_blocks;               /* live CUDA allocations */
	struct ckt_peak peak_gpu, peak_pinned, peak_managed, peak_registered;
	uint64_t peak_gpu_kind[6];          /* cuda_bytes at peak_gpu */
	struct ckt_cuda_device *cuda_devices; /* by first appearance; owned by the replay */
	size_t n_cuda_devices;                /* at most 256 */
	uint64_t cuda_device_overflow;        /* records naming a device past those 256 */
	/* GPU memory of no known device (CKT_CUDA_NO_DEVICE: the driver did not say), now and
	 * at its own highest (since 0.2.45: the devices' lines did not add up to the total, and
	 * nothing said why) */
	uint64_t nodev_bytes;
	struct ckt_peak peak_nodev;
};

/* ---- observers: aggregations by call site (sites.c), phase or thread (phases.c) plug in
 * here without touching the replay's own state. Calls come in replay (time) order. ---- */

/* Which kind of memory a change of live bytes is about. */
enum ckt_space {
	CKT_SPACE_HEAP,
	CKT_SPACE_ANON,    /* anonymous mmap */
	CKT_SPACE_FILE,    /* file-backed mmap */
	CKT_SPACE_GPU,     /* CUDA device + pool + VMM */
	CKT_SPACE_PINNED,  /* CUDA pinned host memory */
	CKT_SPACE_MANAGED, /* CUDA managed memory */
	CKT_SPACE_OTHER,   /* CUDA registered (no new bytes) */
	CKT_SPACE_COUNT
};

/* The moments the reports explain: each new maximum opens a new epoch of that moment. */
enum ckt_moment {
	CKT_AT_PEAK_HEAP,
	CKT_AT_PEAK_RSS,
	CKT_AT_PEAK_MMAP,
	CKT_AT_PEAK_GPU,
	CKT_AT_PEAK_PINNED,
	CKT_AT_COUNT
};
/* where the moment numbers start in the replay's epochs (CKT_EPOCHS_LEN) */
#define CKT_EPOCHS_ALIAS (CKT_AT_COUNT + 2)

/* Who a change of live bytes belongs to: the allocation's stack, phase and thread. */
struct ckt_attr {
	uint64_t stack;
	uint32_t phase;
	/* the thread: its id, and in the high 32 bits how many threads of that id had ended
	 * before it (THREAD_EXIT: the kernel gives an id again once its thread is gone), so that
	 * two threads of one id are two (ckt_replay_thread_key) */
	uint64_t tid;
	enum ckt_space space;
	/* 1 for a block recorded exactly; for a sample of the default mode, the number of
	 * allocations it stands for (its bytes delta is already weighted the same way) */
	double weight;
};

/* Changes of the live bytes of one attribution, consecutive in replay order: a run. One change
 * is a run of one; the replay hands consecutive heap changes of one stack, phase (and thread,
 * when asked: ckt_replay_runs_by_thread) over as one run, exact blocks only (not samples of
 * the default mode), with nothing an observer could see between them: no other change, peak,
 * sample, phase or record. Every other space's changes come one by one. Each change has
 * bytes d and blocks b: b is +1 when a block (allocation, mapping) appears, -1 when one
 * disappears entirely, 0 for a partial change (part of a mapping unmapped). Coalescing saved
 * a quarter of the reader's time on the benchmark's trace (two observers, seven counters each
 * per event before). */
struct ckt_run {
	int64_t delta;        /* the sum of d */
	int64_t rise;         /* the largest partial sum (d1, d1 + d2, ...): how far above their
			       * value before the run the bytes went, for a counter's own maximum */
	int64_t blocks;       /* the sum of b */
	int64_t blocks_rise;  /* the same for blocks */
	uint64_t allocs;      /* changes with b > 0 (allocations, zero-size ones too) */
	uint64_t alloc_bytes; /* their d where positive */
	/* blocks freed as temporaries (exact mode): a `free` by the thread that allocated the
	 * block, before that thread allocated anything else (heaptrack's temporary allocations,
	 * per thread), the heap having risen to no new peak while it was live */
	uint64_t temps;
	/* such blocks that were live at the current peak heap (it rose while they were): they
	 * are temporaries if the peak rises again, and are not if it is the last (an observer
	 * holds them until the next CKT_AT_PEAK_HEAP peak, and drops those left at the end) */
	uint64_t peak_temps;
	uint64_t added;       /* d of every change with d > 0 */
	uint64_t n;           /* changes */
	uint64_t ts;          /* of the last change */
};

/* The phase observer's op for a thread's end (THREAD_EXIT): what it still has pushed ends
 * with it. The tracer's exit hook pops a thread's phases; a thread ended by the raw exit
 * system call skips it (since 0.2.60; its phases stayed active to the trace's end). Only for
 * traces of tracers since 0.2.33, whose THREAD_EXIT comes before the records of a later
 * thread of the same id. Not a value of the format's enum ckt_phase_op. */
#define CKT_REPLAY_PHASE_GONE 0x100u

struct ckt_observer {
	void *ctx;
	/* Live bytes of `a` change by a run of changes (above), the last at run->ts. Called before
	 * the new maximum the run's last change may cause is announced. */
	void (*bytes)(void *ctx, const struct ckt_attr *a, const struct ckt_run *run);
	/* A new maximum of moment m was reached at ts; epochs[m] was just incremented. */
	void (*peak)(void *ctx, enum ckt_moment m, uint64_t ts);
	/* A PHASE record of thread tid, in time order (op: enum ckt_phase_op), or the thread's
	 * end (op CKT_REPLAY_PHASE_GONE, id 0: its THREAD_EXIT, in time order). */
	void (*phase)(void *ctx, uint64_t ts, uint64_t tid, unsigned op, uint32_t id);
	/* Records that are not events, in file order: STACK, MODULE, THREAD_NAME, PHASE_DEF,
	 * NOTE, CUDA_DEVICE. Pointers in rec are valid during the call only. */
	void (*record)(void *ctx, const struct ckt_record *rec);
	/* The value of a's counters at the latest peak of moment m grows by delta bytes and
	 * `blocks` blocks (a's weight each); their current values do not change. For a sample
	 * of the default mode (heap, weight above 1) taken after the peak heap's moment, whose
	 * bytes a running total sent late counted at that peak: ckt_replay_late_samples. May be
	 * NULL. */
	void (*at_peak)(void *ctx, const struct ckt_attr *a, enum ckt_moment m, int64_t delta, int64_t blocks);
};


/* A counter of live bytes that remembers its value at the latest peak of every moment, at
 * O(CKT_AT_COUNT) per change: when it changes in a later epoch than the one it last saw, the
 * value it held until then is the value it had at that epoch's peak. `epochs` is the replay's
 * array (ckt_replay_epochs): CKT_AT_COUNT epochs, then their sum. Epochs only grow, so an equal
 * sum means no epoch moved since the counter last looked: the common case costs one compare
 * (the per-moment walk runs only after a new peak). The replay counts epochs in 64 bits (a
 * heap that grows by small blocks makes billions of new maxima: at 2^32 a 32-bit epoch read as
 * "no peak yet"); a counter keeps their low 32 bits, which misread only for a counter left
 * untouched for exactly a multiple of 2^32 peaks. */
struct ckt_tracked {
	int64_t cur, max;
	uint32_t seen; /* low 32 bits of epochs[CKT_AT_COUNT] when epoch[] was last brought up to date */
	uint32_t epoch[CKT_AT_COUNT]; /* low 32 bits of the epochs */
	int64_t at[CKT_AT_COUNT];
};

static inline void ckt_tracked_sync(struct ckt_tracked *v, const uint64_t *epochs)
{
	for (int m = 0; m < CKT_AT_COUNT; m++)
		if (v->epoch[m] != (uint32_t)epochs[m]) {
			v->at[m] = v->cur;
			v->epoch[m] = (uint32_t)epochs[m];
		}
	v->seen = (uint32_t)epochs[CKT_AT_COUNT];
}

/* a + b, held at the int64 bounds. Byte sums stay far inside them (the replay rejects more
 * than 2^59 live in one space); estimated counts of the default mode, 65536ths of a block
 * each weighted up to CUZKTRACE_SAMPLE (2^30), could pass them in a forged trace. */
static inline int64_t ckt_tracked_sum(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		r = b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline void ckt_tracked_add(struct ckt_tracked *v, const uint64_t *epochs, int64_t delta)
{
	if (__builtin_expect(v->seen != (uint32_t)epochs[CKT_AT_COUNT], 0))
		ckt_tracked_sync(v, epochs);
	v->cur = ckt_tracked_sum(v->cur, delta);
	if (v->cur > v->max)
		v->max = v->cur;
}

/* v's value at the latest peak of moment m grows by delta (struct ckt_observer's at_peak):
 * brought up to date first, at[m] holds that value (a counter unchanged since the peak held
 * it in cur, which the update copies there) */
static inline void ckt_tracked_at_peak(struct ckt_tracked *v, const uint64_t *epochs, enum ckt_moment m,
				       int64_t delta)
{
	if (v->seen != (uint32_t)epochs[CKT_AT_COUNT])
		ckt_tracked_sync(v, epochs);
	v->at[m] = ckt_tracked_sum(v->at[m], delta);
}

/* A run of changes (struct ckt_run): delta in all, rising at most `rise` above cur on the way. */
static inline void ckt_tracked_run(struct ckt_tracked *v, const uint64_t *epochs, int64_t delta,
				   int64_t rise)
{
	if (__builtin_expect(v->seen != (uint32_t)epochs[CKT_AT_COUNT], 0))
		ckt_tracked_sync(v, epochs);
	int64_t top = ckt_tracked_sum(v->cur, rise);
	if (top > v->max)
		v->max = top;
	v->cur = ckt_tracked_sum(v->cur, delta);
}

/* The moment whose counters stand for moment m at the end of the replay: m itself, or (the
 * peak heap, in the default mode) the peak RSS sample's moment, when running totals sent late
 * showed more heap there than at the replay's own top (ckt_replay_finish). */
static inline enum ckt_moment ckt_moment_of(const uint64_t *epochs, enum ckt_moment m)
{
	return (enum ckt_moment)epochs[CKT_EPOCHS_ALIAS + m];
}

/* The value at the (final) peak of moment m; 0 if that moment never had a peak. */
static inline int64_t ckt_tracked_at(const struct ckt_tracked *v, const uint64_t *epochs,
				     enum ckt_moment m)
{
	m = ckt_moment_of(epochs, m);
	if (epochs[m] == epochs[CKT_AT_COUNT + 1])
		return 0; /* no peak of m yet */
	return v->epoch[m] == (uint32_t)epochs[m] ? v->at[m] : v->cur;
}

struct ckt_replay;

/* Adds an observer (at most 8). Returns 0 or CKT_ENOMEM. */
int ckt_replay_observe(struct ckt_replay *r, const struct ckt_observer *o);
/* A hint for an observer whose counters per stack outgrow the caches: while *on is true, the
 * merge calls fn(ctx, stack, 0) for each allocation 2 x CKT_REPLAY_AHEAD events ahead in its
 * thread's queue, and fn(ctx, stack, 1) once it is CKT_REPLAY_AHEAD ahead, so that the
 * counters the observer will update are fetched meanwhile (fn changes nothing else). `on`
 * belongs to the observer and is read during the replay only. */
typedef void ckt_replay_prefetch_fn(void *ctx, uint64_t stack, int stage);
void ckt_replay_set_prefetch(struct ckt_replay *r, ckt_replay_prefetch_fn *fn, void *ctx, const bool *on);
/* Runs of heap changes are cut where the thread changes too (an observer counts by thread). */
void ckt_replay_runs_by_thread(struct ckt_replay *r, bool on);
/* Every change is handed over alone (for tests: the figures must not depend on it). */
void ckt_replay_runs_off(struct ckt_replay *r);
/* Current epoch of every moment (number of new maxima so far), CKT_AT_COUNT entries, then
 * their sum (what ckt_tracked_add reads first), then the count before the first peak (0), then
 * CKT_AT_COUNT moment numbers (ckt_moment_of): an observer that copies the array when the
 * replay has finished keeps them with the epochs they select. */
#define CKT_EPOCHS_LEN (CKT_EPOCHS_ALIAS + CKT_AT_COUNT)
const uint64_t *ckt_replay_epochs(const struct ckt_replay *r);
/* Tests: counts every epoch from base instead of 0, before the replay (the counters past
 * 2^32 peaks, which take hours of a real trace to reach). */
void ckt_replay_epochs_from(struct ckt_replay *r, uint64_t base);

/* page_size rounds mmap lengths (the header's page_size). Returns NULL when out of memory. */
struct ckt_replay *ckt_replay_new(uint64_t page_size);
void ckt_replay_free(struct ckt_replay *r);
/* After the replay: frees what only the replay needs (queues, live blocks and mappings), keeping
 * the stats (ckt_replay_stats) for the reports; the replay cannot run again. --diff holds two
 * traces' results, not two live sets. */
void ckt_replay_drop_state(struct ckt_replay *r);

/* At most this many events (default 8388608, 40 bytes each) wait in the queues for time order;
 * past it the oldest are replayed at once (stats: replayed_early). Call before feeding. */
void ckt_replay_set_max_held(struct ckt_replay *r, uint64_t events);

/* fn (may be NULL) is called at every RSS sample, in time order, with the state then. */
void ckt_replay_set_sample_sink(struct ckt_replay *r, ckt_replay_sample_fn *fn, void *ctx);

/* Replays everything still queued (END or end of file) and computes duration_ns. */
int ckt_replay_finish(struct ckt_replay *r, struct ckt_error *err);

/* Reads every record of d, feeds it, finishes and records truncation. Returns 0 or the first
 * decode/replay error. */
int ckt_replay_run(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err);
/* The same, with the decoding on a thread of its own (readahead.c), a batch of records ahead
 * of the replay; the records, their order and so every figure are ckt_replay_run's. Falls back
 * to ckt_replay_run when the thread cannot be had. */
int ckt_replay_run_ahead(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err);
/* ckt_replay_run's parts: n records fed in order (0 or the first error), and the end
 * (truncation from d, then ckt_replay_finish) */
int ckt_replay_feed(struct ckt_replay *r, const struct ckt_record *recs, size_t n, struct ckt_error *err);
int ckt_replay_end(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err);

const struct ckt_replay_stats *ckt_replay_stats(const struct ckt_replay *r);

/* RSS at its peak sample minus what the trace explains there: heap, anonymous mmap and CUDA
 * pinned host memory. May be negative (freed memory the allocator has not returned yet is in
 * the heap figure until it is freed, not in RSS once untouched). */
static inline int64_t ckt_replay_unexplained(const struct ckt_replay_stats *st)
{
	return (int64_t)(st->peak_rss.bytes - st->peak_rss.heap_bytes - st->peak_rss.anon_mmap_bytes -
			 st->peak_rss.pinned_bytes);
}

/* The part of that remainder not in file pages (peak_rss.has_detail): RssAnon and RssShmem of
 * the peak sample's /proc/self/status, less heap, anonymous mmap and pinned. The remainder
 * counts the resident pages of every file mapping too (the program's code, a parameter file
 * read through mmap: a prover's 300 MiB read that way was 300 MiB "unexplained"), which this
 * leaves out: what is left is stacks, allocator overhead and memory the tracer could not see. */
static inline int64_t ckt_replay_unexplained_anon(const struct ckt_replay_stats *st)
{
	return (int64_t)(st->peak_rss.anon + st->peak_rss.shmem - st->peak_rss.heap_bytes -
			 st->peak_rss.anon_mmap_bytes - st->peak_rss.pinned_bytes);
}

/* The peak RSS exceeds everything the tracer ever saw live (the peaks of heap, anonymous and
 * file-backed mmap and pinned memory together) by more than half of it and more than 64 MiB:
 * the program probably allocates through something the tracer cannot see (an allocator with
 * its own names, like Rust's jemallocator, or mappings made by raw system calls). Comparing
 * with the peaks, not the values at that moment, keeps memory the allocator still holds after
 * frees (glibc keeps freed arena memory) from raising the alarm; counting file-backed mappings
 * keeps a program that reads a big file through mmap (its pages are resident) from raising it,
 * and the tracer's per-thread buffers a program with hundreds of threads. */
/* The tracer's own memory per thread that recorded: its 516 KiB ring, and libunwind's 256
 * KiB cache for a thread that captured stacks. Not the program's, so not suspicious; counted
 * for the most threads alive at once (a thread's ring goes back once it ends and is drained,
 * libunwind's cache when it ends), not for every thread a long run ever started. */
#define CKT_TRACER_BYTES_PER_THREAD ((uint64_t)768 << 10)
/* And for each distinct call stack, kept to the end (preload/stacks.c): its frames (8 bytes
 * each, in tracer_stack_bytes) and about 32 bytes of entry, id and table slot. A program with
 * a million distinct 22-frame stacks held 243 MiB of them, which read as memory the tracer
 * could not see (before 0.2.15). */
#define CKT_TRACER_BYTES_PER_STACK 32u
/* And the table that finds a stack by its hash (preload/stacks.c: 2^21 slots of 16 bytes, 32 MiB
 * reserved): a new stack's slot is where its hash falls, so each of the first few thousand
 * distinct stacks makes a page of it resident, and some 30,000 make nearly all of it resident
 * (gcc's cc1 compiling a 2,500-line file in exact mode: 28,553 stacks, 31 MiB, which with its
 * 29 MiB of executable and libraries read as memory the tracer could not see). Counted as the
 * pages that many stacks touch on average: of P pages, after n stacks P(1 - (1 - 1/P)^n). */
#define CKT_TRACER_STACK_TABLE_BYTES ((uint64_t)32 << 20)
/* Since tracer 0.2.39 the first distinct stacks go to a small table in front of it (1 MiB, at
 * most 32,768 stacks), which their slots make resident instead (ckt_replay_set_stack_small):
 * 8,192 stacks kept 20 MiB of the big table resident, and keep 1 MiB of the small one. */
#define CKT_TRACER_STACK_SMALL_BYTES ((uint64_t)1 << 20)
#define CKT_TRACER_STACK_SMALL_MAX 32768u

/* Everything the tracer saw that can be resident, each at its own peak (see below). */
static inline uint64_t ckt_replay_traced_seen(const struct ckt_replay_stats *st)
{
	return st->peak_heap.bytes + st->peak_anon.bytes + st->peak_file.bytes + st->peak_pinned.bytes +
	       st->threads_at_once * CKT_TRACER_BYTES_PER_THREAD + st->tracer_stack_bytes +
	       st->tracer_stack_table_bytes;
}

/* Where the peak sample has the split of RSS (peak_rss.has_detail), its anonymous and shared
 * pages must show the excess too, against everything traced but file-backed mappings: file
 * pages no hook sees, such as a big library's code the loader mapped (clang's LLVM: 74 MiB of
 * file pages, 17 MiB anonymous), are not memory the program allocated where the tracer could
 * not see it. */
static inline bool ckt_replay_untraced_suspected(const struct ckt_replay_stats *st)
{
	uint64_t seen = ckt_replay_traced_seen(st);
	if (!st->peak_rss.seen || st->peak_rss.bytes <= seen)
		return false;
	uint64_t u = st->peak_rss.bytes - seen;
	if (!(u > (uint64_t)64 << 20 && u * 2 > st->peak_rss.bytes))
		return false;
	if (!st->peak_rss.has_detail)
		return true;
	uint64_t anon = st->peak_rss.anon + st->peak_rss.shmem, anon_seen = seen - st->peak_file.bytes;
	return anon > anon_seen && anon - anon_seen > (uint64_t)64 << 20;
}

/* The trace's sampling rate (header setting.CUZKTRACE_SAMPLE); call before feeding. */
void ckt_replay_set_sample(struct ckt_replay *r, uint64_t rate_bytes);
/* The tracer's coarse clock's tick, ns (format version 6's AGG since): call before feeding. */
void ckt_replay_set_agg_tick(struct ckt_replay *r, uint64_t ns);
/* The default mode's samples freed after a held peak leave its estimates with the freeing
 * thread's next AGG (ckt_replay_post_free): only for a trace whose tracer sends a thread's
 * pending totals before a sample's free (0.2.58 on). */
void ckt_replay_set_late_frees(struct ckt_replay *r, bool on);
/* What a sampled block of `size` bytes stands for: size / (1 - exp(-size / R)) bytes, and
 * 1 / (1 - exp(-size / R)) allocations. */
double ckt_replay_sample_weight(uint64_t rate, uint64_t size);

/* The key (struct ckt_attr's tid) of the thread of id tid that a THREAD_NAME record read now,
 * stamped ts, names: in file order a thread's THREAD_EXIT comes before the events of the next
 * thread of its id (tracer 0.2.33), and a name stamped before the end just read is the ended
 * thread's. */
uint64_t ckt_replay_thread_key(const struct ckt_replay *r, uint64_t tid, uint64_t ts);
/* Threads of one id are told apart (off by default): for a trace whose tracer writes a
 * thread's THREAD_EXIT before any record of the next thread of its id (0.2.33 and later;
 * before, the end came a flush or two late, after the next thread's names and events, and
 * the threads of an id stay one). */
void ckt_replay_set_thread_gens(struct ckt_replay *r, bool on);
/* The trace's tracer puts its first distinct stacks in a small table (0.2.39 on): the pages
 * of its tables of stack hashes are counted so (tracer_stack_table_bytes). */
void ckt_replay_set_stack_small(struct ckt_replay *r, bool on);

#endif
