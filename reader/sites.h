/* sites.h: which call sites own the memory at the peaks. A replay observer (replay.h) that
 * keeps live bytes per distinct stack, then, after the replay, symbolizes the stacks that
 * matter (symbolize.h), folds allocator plumbing into the site it serves and aggregates stacks
 * by site. It formats its own text section, --sites-csv and --folded, and hands report_json.c
 * plain data through ckt_sites_top.
 *
 * Byte spaces, as in the rest of the report: at the peak heap moment a site's bytes are its
 * heap blocks; at the peak RSS moment they are what the report counts toward RSS (heap +
 * anonymous mmap + CUDA pinned host memory, as in peak_rss.unexplained_bytes); at the peak GPU
 * moment, CUDA device + pool + VMM memory. File-backed mappings are not attributed.
 *
 * The site of a stack is its first frame (inlined frames expanded, innermost first) that is
 * not allocator plumbing (ckt_sites_is_plumbing); the full stack stays available.
 * Memory: one entry per distinct stack, its frames kept as the trace encodes them (varint
 * deltas); symbols only for the stacks the output needs.
 */
#ifndef CKT_SITES_H
#define CKT_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"

struct ckt_sites;

/* own_peaks: also compute every site's own maximum of live bytes (site_peak_bytes of
 * --sites-csv). That needs each stack's site when its bytes change, so every stack that
 * allocates is symbolized during the replay: ask for it only when the CSV is wanted.
 * Returns NULL when out of memory. */
struct ckt_sites *ckt_sites_new(bool own_peaks);
void ckt_sites_free(struct ckt_sites *s);
/* The trace's CUZKTRACE_DEPTH: a stack of exactly that many frames was probably cut, and gets
 * an outermost frame "(stack cut at N frames: CUZKTRACE_DEPTH)" (so a flame graph's cut
 * stacks share one root instead of each starting at whatever frame was last kept). */
void ckt_sites_set_depth(struct ckt_sites *s, unsigned depth);
/* the trace read, for the line when symbolizing runs out of memory (ckt_sym_set_trace) */
void ckt_sites_set_trace(struct ckt_sites *s, const char *path);
/* when it began (ckt_sym_set_start) */
void ckt_sites_set_start(struct ckt_sites *s, uint64_t start_wall_ns);

/* Registers s as an observer of r (before the replay runs). Returns 0 or CKT_ENOMEM. */
int ckt_sites_attach(struct ckt_sites *s, struct ckt_replay *r);

/* After the replay: symbolizes and aggregates. top is the number of sites the text and JSON
 * show per moment. Returns 0, or CKT_ENOMEM (also when a callback ran out of memory). */
int ckt_sites_finish(struct ckt_sites *s, const struct ckt_replay_stats *st, unsigned top);

/* Warnings of the symbolizer (changed or unreadable modules), one line each, no prefix. */
/* ckt_sym_rust_mangling of the frames named (CKT_SYM_RUST_*) */
unsigned ckt_sites_rust_mangling(const struct ckt_sites *s);
size_t ckt_sites_nwarnings(const struct ckt_sites *s);
/* The call stacks events named that no STACK record defined (a complete trace has none: the
 * tracer defines each before the flush that releases its events), and *first the lowest id */
uint64_t ckt_sites_undefined(const struct ckt_sites *s, uint64_t *first);
const char *ckt_sites_warning(const struct ckt_sites *s, size_t i);

/* ---- results (after ckt_sites_finish, valid until ckt_sites_free) ---- */

/* callers shown under a site in the text report, with their bytes when it has several stacks */
#define CKT_SITES_CALLERS 3

struct ckt_sites_entry {
	uint64_t bytes;             /* live at the moment */
	uint64_t count;             /* live blocks (allocations, mappings) then */
	uint64_t heap_bytes, heap_count; /* of those, heap blocks' (not mappings, nor CUDA memory:
					  * less than bytes and count at the peak RSS only) */
	bool estimate;              /* bytes and count include samples of the default mode (each
				     * weighted by what it stands for): estimates */
	uint64_t samples;           /* those samples, live then: the estimate's standard error
				     * is about R x sqrt(samples) (each stands for about R bytes) */
	uint64_t sampled_bytes;     /* of bytes, what those samples stand for (the rest was
				     * recorded block by block, exact: blocks of R or more,
				     * mappings); 0 in exact mode */
	const char *site;           /* "function (file:line)" */
	const char *const *frames;  /* the stack shown, innermost first: of the heaviest branch of
				     * callers (sites.c, ckt_sites_paths) */
	size_t nframes;
	size_t site_frame;          /* index of the site in frames */
	uint64_t stacks;            /* call stacks holding the site's bytes then */
	uint64_t callers_bytes[CKT_SITES_CALLERS]; /* bytes through each of the callers after
						    * the site in frames (0 past their end) */
};

/* ckt_sites_top's moment for the heap blocks live at the end of the trace (at exit, or where
 * a truncated trace stops): what a leak report lists. Not a moment of the replay's epochs:
 * for ckt_sites_top only (sites.c reads counters' current values for it). */
#define CKT_SITES_EXIT ((enum ckt_moment)CKT_AT_COUNT)
/* the same for CUDA memory live at the end (since 0.2.43): device, pool and VMM memory (as the
 * peak GPU's), and pinned host memory (as the peak pinned's); for ckt_sites_top and
 * ckt_sites_rest only */
#define CKT_SITES_EXIT_GPU ((enum ckt_moment)(CKT_AT_COUNT + 1))
#define CKT_SITES_EXIT_PINNED ((enum ckt_moment)(CKT_AT_COUNT + 2))

/* The i-th largest site at the (final) peak of moment m (CKT_AT_PEAK_HEAP, _RSS or _GPU), or
 * at the end (CKT_SITES_EXIT), among the top shown. Returns false past the end. */
bool ckt_sites_top(const struct ckt_sites *s, enum ckt_moment m, size_t i, struct ckt_sites_entry *e);

/* What a moment's list leaves out: the sites past --top and their bytes, and the moment's
 * bytes that no site holds (the peak heap, GPU, pinned, exit moments; not the peak RSS's,
 * whose rest is the report's unexplained RSS): 0 in exact mode; in the default mode the
 * exact total minus the sites' estimates, positive or negative, whose standard error is
 * about error_bytes: sqrt(R x S), S the small blocks' bytes then (R x the samples live then,
 * and the shortfall where there is one). */
struct ckt_sites_rest {
	uint64_t other_sites, other_bytes;
	bool has_unattributed;
	int64_t unattributed;
	uint64_t error_bytes;
};
void ckt_sites_rest(const struct ckt_sites *s, enum ckt_moment m, struct ckt_sites_rest *r);

/* Sites by allocations (since 0.2.26): the calls that made heap blocks (realloc's included) and
 * mappings, by site, most first, as many as --top; i-th into *c, false past the end. In the
 * default mode small blocks count through their samples (estimate). frames: the site's stack
 * that allocated most often. */
struct ckt_sites_calls {
	uint64_t count, bytes;  /* allocations, bytes they allocated */
	uint64_t error;         /* count's standard error from samples (0: exact) */
	/* of the heap blocks, those freed as temporaries (struct ckt_run's temps): known in
	 * exact mode only */
	uint64_t temps;
	bool temps_known;
	bool estimate;
	const char *site;
	const char *const *frames;
	size_t nframes, site_frame;
};
bool ckt_sites_by_calls(const struct ckt_sites *s, size_t i, struct ckt_sites_calls *c);
/* The site frame (interned) of the i-th site of every kind (heap, anonymous mappings, CUDA;
 * whatever it holds), in no order; NULL past the last. A stack that allocated CUDA device
 * memory only and holds nothing at any moment a list shows has a site only after
 * ckt_sites_keep_gpu (--diff: it tells a name's two source files apart; a single report would
 * symbolize it for nothing, and say what it found wrong in its module). */
void ckt_sites_keep_gpu(struct ckt_sites *s);
const char *ckt_sites_key(const struct ckt_sites *s, size_t i);
/* The same entries, of the sites whose heap blocks were freed as temporaries (exact mode), most
 * temporaries first, as many as --top. */
bool ckt_sites_by_temps(const struct ckt_sites *s, size_t i, struct ckt_sites_calls *c);
/* every site's allocations together, how many sites allocated, whether samples count in, and
 * what the list leaves out */
struct ckt_sites_calls_rest {
	uint64_t count, error;  /* error: count's standard error from samples */
	size_t sites;
	bool estimate;          /* the default mode (small blocks count only through samples) */
	bool missing;           /* ... whose unsampled sites are missing from the count */
	size_t other_sites;
	uint64_t other_count, other_bytes; /* other_count: count less the listed lines' */
	bool other_estimate;
	/* the list by temporaries (ckt_sites_by_temps): every site's temporaries (counted in
	 * exact mode only: temps_known), how many sites made them, and those the list leaves out */
	bool temps_known;
	uint64_t temps;
	size_t temp_sites, other_temp_sites;
	uint64_t other_temps;
};
void ckt_sites_calls_total(const struct ckt_sites *s, struct ckt_sites_calls_rest *r);

/* An allocator linked in under its own names (Rust's tikv-jemallocator, the mimalloc crate, a
 * program calling mi_malloc): the program's blocks from it never pass through malloc, and the
 * trace holds only the anonymous mappings it made through mmap, at the allocator's own stacks.
 * Known by a frame of such a mapping's stack (function names: jemalloc's "je_" and "_rjem_",
 * mimalloc's "mi_" and "_mi_", "tcmalloc::", "snmalloc::", rpmalloc's "rpmalloc" and
 * "_rpmalloc"; modules: libjemalloc*, libmimalloc*, libtcmalloc*, libsnmalloc*). An allocator
 * behind malloc (preloaded after the tracer) maps inside the traced malloc call, where the
 * tracer records no mapping: it is not listed. */
#define CKT_SITES_ALLOCATORS 6
struct ckt_sites_untraced {
	const char *name;             /* "jemalloc", "mimalloc", "tcmalloc", "snmalloc", "rpmalloc",
				       * "pymalloc" (CPython's object allocator, since 0.2.49) */
	const char *function, *module; /* the innermost frame of the allocator in the stack that
					* holds most of its bytes (function NULL: no name; module
					* NULL: in no module) */
	uint64_t bytes_at_peak_rss;   /* its mappings live at the peak RSS (0 without RSS samples) */
	uint64_t bytes_at_peak_mmap;  /* ... and at the peak mmap */
	bool arenas;                  /* a language runtime's arenas (pymalloc): what it serves are
				       * objects, not blocks, and not from malloc */
};
/* The rule: the allocator (its name above) that a frame of function `name` (demangled, without
 * parameters) in module `module` (its file name) belongs to, either NULL; NULL: none. *entry
 * (when not NULL): the frame is a way into it (its module, or a name that says "alloc" after
 * the prefix); a stack's mappings count as the allocator's only with such a frame. */
const char *ckt_sites_allocator_name(const char *name, const char *module, bool *entry);
/* The i-th such allocator with mappings live at the peak RSS or the peak mmap, most bytes at
 * the peak RSS first (after ckt_sites_finish); false past the end. */
bool ckt_sites_untraced(const struct ckt_sites *s, size_t i, struct ckt_sites_untraced *u);

/* The text section ("top sites at peak heap", "... at peak RSS", "... live at exit").
 * module_map_full: the tracer's module map filled (a frame in no module may be a library's).
 * Returns nothing: the caller checks the stream. */
void ckt_sites_print_text(FILE *out, const struct ckt_sites *s, bool module_map_full);

/* --sites-csv: one row per site, columns
 * site,bytes_at_peak_rss,bytes_at_peak_heap,site_peak_bytes,allocated_bytes,allocations,
 * bytes_at_peak_gpu,stack,bytes_at_exit (heap bytes live at the end of the trace; the last
 * column since 0.2.11, so that readers of the earlier columns by position are unaffected).
 * Returns 0 or -errno. */
int ckt_sites_write_csv(const struct ckt_sites *s, FILE *f);

/* --folded: "frame;frame;frame bytes" lines, outermost frame first, weighted by the bytes
 * live at the peak RSS moment (the peak heap moment when the trace has no RSS sample).
 * Returns 0 or -errno. */
int ckt_sites_write_folded(const struct ckt_sites *s, FILE *f);
/* --folded-heap: the same, weighted by the heap bytes live at the peak heap */
int ckt_sites_write_folded_heap(const struct ckt_sites *s, FILE *f);

/* The folding rule: true when a function (demangled, without parameters) is allocator
 * plumbing whose bytes belong to its caller: libc's allocator entry points, C++ operator new
 * and the standard library (std::, __gnu_cxx::), Rust's alloc:: / core:: / std:: /
 * __rust_alloc / RawVec / hashbrown growth, the CUDA runtime's allocators, and common x/g_
 * malloc wrappers. Only the innermost run of such frames folds: the first frame that is not
 * plumbing is the site. */
bool ckt_sites_is_plumbing(const char *name, bool cxx);
/* The same by source file (Rust's standard library, hashbrown); NULL: no. */
bool ckt_sites_is_plumbing_file(const char *file);

#endif
