/* phases.h: who owns the memory: live bytes by the phase that allocated them and by thread
 * name, the phases active at each peak, per-phase active time, and the log lines that drove
 * CUZKTRACE_PHASES rules. A replay observer (replay.h); it formats its own text report and
 * --phases-csv, and hands report_json.c plain data through the accessors below.
 *
 * Semantics (the same as include/cuzktrace.h):
 *  - a phase is active while it is pushed on any thread or begun (begins minus ends > 0);
 *  - "active at a moment" lists phases in the order they became active, oldest first;
 *  - bytes belong to the phase stamped on the allocation by the capture library (or the one a
 *    --phase-rule gives it); phase id 0 is "(none)";
 *  - a thread is grouped under the last name the trace gives it; trailing digits are folded to
 *    '*' when two or more thread names differ only there (rayon-synth-1, rayon-synth-17 ->
 *    rayon-synth-*), so a lone io-7 stays io-7.
 * Byte spaces: "heap" is heap blocks; "rss" is what the report counts toward RSS (heap +
 * anonymous mmap + CUDA pinned host memory, as in peak_rss.unexplained_bytes); "host" adds
 * file-backed mappings; "gpu" is CUDA device + pool + VMM memory.
 */
#ifndef CKT_PHASES_H
#define CKT_PHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"

struct ckt_phases;

/* NULL when out of memory. */
struct ckt_phases *ckt_phases_new(void);
void ckt_phases_free(struct ckt_phases *p);

/* Registers p as an observer of r (before the replay runs). Returns 0 or CKT_ENOMEM. */
int ckt_phases_attach(struct ckt_phases *p, struct ckt_replay *r);

/* The sample sink chain: set ckt_phases_sample (ctx p) as the replay's sink; each sample is
 * passed on to `next` with active_phases filled in, after the --phases-csv rows are written. */
void ckt_phases_sample(void *ctx, const struct ckt_sample *s);
void ckt_phases_set_next_sink(struct ckt_phases *p, ckt_replay_sample_fn *next, void *next_ctx);

/* --phases-csv: long format t_s,phase,heap_bytes,mmap_bytes,estimated, one row per phase holding bytes
 * at each RSS sample (and one zero row when it stops holding any). open/close return 0 or
 * -errno; a failed write in between is reported by close. */
int ckt_phases_csv_open(struct ckt_phases *p, const char *path);
/* with ok (the trace read to its end) the file is put in place (util.h); 0 or -errno */
int ckt_phases_csv_close(struct ckt_phases *p, bool ok);

/* --phase-rule NAME=PATTERN: the decision for each stack id, made by the caller (main.c)
 * before the replay: fn returns the NAME (owned by the caller, alive while p is) the stack's
 * allocations are re-attributed to, or NULL to keep the phase the capture stamped. */
/* The trace's format version (the header's): before 4, the tracer stamped BEGIN/END outside
 * the lock that counted them, so an END may sort before the BEGIN it closes by a few ns; from
 * 4 on, only at the same timestamp (the merge orders threads at one instant). Default: 4. */
void ckt_phases_set_format(struct ckt_phases *p, unsigned format_version);
/* Whether bytes are also counted by thread (--by thread; on by default). Off, the groups by
 * thread name are empty. */
void ckt_phases_set_by_thread(struct ckt_phases *p, bool on);
/* The text lists at most top phases at each peak, then one row for the rest (0: all). */
void ckt_phases_set_top(struct ckt_phases *p, unsigned top);

typedef const char *ckt_phases_rule_fn(void *ctx, uint64_t stack);
void ckt_phases_set_rule(struct ckt_phases *p, ckt_phases_rule_fn *fn, void *ctx);

/* After the replay: closes the active intervals still open at end_ns (the trace's duration).
 * Returns 0, or CKT_ENOMEM when a callback ran out of memory during the replay. */
int ckt_phases_finish(struct ckt_phases *p, uint64_t end_ns);

/* ---- results: computed by ckt_phases_finish, valid until ckt_phases_free ---- */

/* Whether the trace marked any phase (PHASE_DEF, PHASE or NOTE records) or a rule applied. */
bool ckt_phases_any(const struct ckt_phases *p);
/* the trace defines a phase of this name (a PHASE_DEF: a CUZKTRACE_PHASES rule's phase has one
 * once a marker of it matched) */
bool ckt_phases_defined(const struct ckt_phases *p, const char *name, size_t len);

/* Names of the phases active at the (final) peak of moment m, oldest activation first. */
size_t ckt_phases_active_at(const struct ckt_phases *p, enum ckt_moment m, const char *const **names);
/* Of those, how many were active process-wide (begun, by the API or a log line, and not
 * ended); two or more: the hint below applies */
size_t ckt_phases_overlap_at(const struct ckt_phases *p, enum ckt_moment m);
/* One line under a moment's phases: what overlapping process-wide phases do to the bytes */
/* two or more process-wide phases were active at once at some time up to moment m */
bool ckt_phases_overlapped_before(const struct ckt_phases *p, enum ckt_moment m);
void ckt_phases_put_overlap_hint(FILE *out);
/* Where the overlap hint goes, said once a report (--diff: over both traces): under the first
 * peak shown with two or more process-wide phases active at it in one of the n traces p[k]
 * (NULL: no phases) that have that peak (has[k]): CKT_HINT_AT; where no peak shown has
 * (overlap_shown false), under the first after an overlap whose phase begun last holds bytes
 * there: CKT_HINT_BEFORE; else CKT_HINT_NONE. A report learns overlap_shown by asking with
 * it true, for each peak it shows. */
enum ckt_hint { CKT_HINT_NONE, CKT_HINT_AT, CKT_HINT_BEFORE };
enum ckt_hint ckt_phases_hint(const struct ckt_phases *const *p, const bool *has, size_t n, enum ckt_moment m,
			      bool overlap_shown);

struct ckt_phases_share {
	const char *name;
	uint64_t bytes;
	uint64_t samples; /* the default mode's samples among them (heap blocks) */
	uint64_t sampled_bytes; /* what those samples stand for; the rest of bytes is exact */
};
/* Live bytes by owning phase at the peak of moment m (heap bytes for CKT_AT_PEAK_HEAP, "rss"
 * bytes for CKT_AT_PEAK_RSS, host for MMAP, gpu for GPU, pinned for PINNED), largest first
 * (ties by name), zero entries left out. Returns the count. */
size_t ckt_phases_by_phase(const struct ckt_phases *p, enum ckt_moment m,
			   const struct ckt_phases_share **out);

/* The standard error of a share's bytes from the default mode's samples: R x sqrt(samples), R
 * the trace's CUZKTRACE_SAMPLE (each live sample stands for about R bytes); 0 for a share of
 * exact bytes only (large blocks, mappings, an exact trace). */
uint64_t ckt_phases_share_error(const struct ckt_phases *p, const struct ckt_phases_share *sh);

struct ckt_phases_row {
	const char *name;
	bool marked;              /* false: never active (only "(none)" and --phase-rule names) */
	uint64_t active_ns;       /* time active, summed over its intervals */
	uint64_t allocated_bytes; /* host bytes allocated (heap + mmap + CUDA pinned) */
	uint64_t peak_bytes;      /* the phase's own peak of live host bytes */
	uint64_t at_peak_heap;    /* heap bytes it held at the peak heap */
	uint64_t at_peak_rss;     /* "rss" bytes it held at the peak RSS */
	uint64_t gpu_allocated_bytes, gpu_peak_bytes;
};
/* Every phase the trace defined or that owned bytes, in id order (the order of first use),
 * "(none)" last when it owned any bytes. Returns the count. */
size_t ckt_phases_table(const struct ckt_phases *p, const struct ckt_phases_row **out);

struct ckt_phases_group {
	const char *name;         /* folded name, e.g. "rayon-synth-*" */
	unsigned threads;
	uint64_t allocated_bytes; /* host bytes */
	uint64_t at_peak_heap, at_peak_rss;
	/* the default mode's samples among them (heap blocks), live then: for --diff's noise */
	uint64_t samples_at_peak_heap, samples_at_peak_rss;
	uint64_t sampled_at_peak_heap, sampled_at_peak_rss; /* their bytes (the rest is exact) */
};
/* The length of name without its trailing digits (the whole length when it has none, or is
 * nothing but digits): "rayon-synth-17" -> 12. */
size_t ckt_phases_stem(const char *name);
/* Threads grouped by name (see above), largest at the peak heap first, groups that never
 * held bytes left out. Returns the count. */
size_t ckt_phases_groups(const struct ckt_phases *p, const struct ckt_phases_group **out);
/* The latest name the trace gave thread tid, or NULL (none, or no such thread). */
const char *ckt_phases_thread_name(const struct ckt_phases *p, uint64_t tid);

struct ckt_phases_note {
	uint64_t ts;
	const char *phase;
	const char *text;
	size_t len;
};
/* The first CKT_PHASES_NOTES_KEPT log lines that drove a rule, in file order; *total gets how
 * many the trace held. */
#define CKT_PHASES_NOTES_KEPT 100
size_t ckt_phases_notes(const struct ckt_phases *p, const struct ckt_phases_note **out, uint64_t *total);

/* The text report's phase section (and, with by_thread, the thread-group table). Returns 0
 * or -errno. */
int ckt_phases_print_text(FILE *out, const struct ckt_phases *p, const struct ckt_replay_stats *st,
			  bool by_thread);

/* A name as the text reports show it: an empty one (cuzktrace_phase_push("")) as "" rather
 * than as nothing at all. */
const char *ckt_phases_shown(const char *name);

#endif
