/* sites.c: bytes by call site. During the replay it keeps, per distinct stack, live bytes and
 * blocks as ckt_tracked counters (their values at every peak come for free); afterwards it
 * symbolizes the stacks live at a peak (all stacks that allocated when the CSV wants each
 * site's own peak), folds allocator plumbing into the site it serves, aggregates by site and
 * formats the text section, --sites-csv and --folded. Symbol lookup is symbolize.c's.
 */
#define _GNU_SOURCE /* qsort_r */
#include "sites.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"
#include "util.h"

/* Counters per stack: bytes and blocks of each byte space the report explains, and (T_SMP) its
 * live heap blocks that are samples of the default mode. A stack's RSS counters take every
 * change of its heap counters, the same values in the same calls, and more only from its
 * mappings and pinned memory: until the first such change (rss_own) they are its heap counters,
 * and a heap change updates two counters instead of four (since 0.2.48: with thousands of
 * stacks each one is a cache miss). ckt_sites_t picks the counter. */
enum { T_HEAP, T_HEAP_N, T_RSS, T_RSS_N, T_GPU, T_GPU_N, T_SMP, T_COUNT };

/* Blocks are counted in 1/65536ths: a sample of the default mode stands for a fractional number
 * of allocations (1.58 for a block just under the rate), and rounding each sample's weight
 * biased the counts by up to a quarter. Its free subtracts the same amount, so live counts
 * still return to zero exactly; ckt_sites_count rounds once, at the end. */
#define CKT_SITES_ONE 65536

static uint64_t ckt_sites_count(uint64_t fixed)
{
	return (fixed + CKT_SITES_ONE / 2) / CKT_SITES_ONE;
}

/* The moments with a site list, and the counters they read. K_EXIT is the end of the trace:
 * the heap blocks still live then (leaks, for a program that exits), read from the counters'
 * current values rather than from a peak's epoch; K_GPU_EXIT and K_PINNED_EXIT the same for
 * CUDA device and pinned memory (since 0.2.43). */
enum { K_HEAP, K_RSS, K_GPU, K_PINNED, K_EXIT, K_GPU_EXIT, K_PINNED_EXIT, K_COUNT };
static const enum ckt_moment ckt_sites_moment[K_COUNT] = { CKT_AT_PEAK_HEAP, CKT_AT_PEAK_RSS, CKT_AT_PEAK_GPU,
							   CKT_AT_PEAK_PINNED, CKT_SITES_EXIT, CKT_SITES_EXIT_GPU,
							   CKT_SITES_EXIT_PINNED };
/* K_PINNED, K_PINNED_EXIT: the pins */
static const int ckt_sites_tbytes[K_COUNT] = { T_HEAP, T_RSS, T_GPU, 0, T_HEAP, T_GPU, 0 };

/* the moments at the end of the trace (counters' current values) */
static bool ckt_sites_at_end(int k)
{
	return k >= K_EXIT;
}

/* the moments of CUDA memory alone: no heap block, no sample */
static bool ckt_sites_cuda(int k)
{
	return k == K_GPU || k == K_PINNED || k == K_GPU_EXIT || k == K_PINNED_EXIT;
}

/* what a moment's bytes are a share of, in the text */
static const char *ckt_sites_of(int k)
{
	return k == K_EXIT ? "the heap then" : k == K_GPU_EXIT ? "the GPU memory then"
		: k == K_PINNED_EXIT ? "the pinned memory then" : "the peak";
}

/* CUDA pinned host memory's bytes and blocks, for the few stacks that allocate it (the
 * parameters a prover keeps pinned): apart, so that every other stack does without them */
struct ckt_sites_pin {
	struct ckt_tracked t[2]; /* bytes, blocks */
};

#define CKT_SITES_NOFRAMES UINT32_MAX /* no STACK record (yet) */
#define CKT_SITES_SHORT CKT_SITES_CALLERS

struct ckt_sites_stack {
	/* What a heap change reads and writes lies in two cache lines (the stacks lie on 64-byte
	 * lines past 2 MiB: ckt_util_big_alloc, and the size below): the first, with its id, its
	 * counts and the part of its heap bytes' counter a change touches (cur, max and seen: the
	 * first 24 bytes of struct ckt_tracked; the rest is read after a new peak only), and the
	 * third, where its heap blocks' counter begins. In three lines before 0.2.49. */
	uint64_t id;
	uint64_t allocs, alloc_bytes;
	uint64_t temps;         /* heap blocks freed as temporaries (exact mode; struct ckt_run) */
	bool sampled;           /* it allocated samples of the default mode: estimates */
	bool anon;              /* it made anonymous mappings: its frames are looked at for an
				 * allocator's (ckt_sites_allocator_of), a heap block's are not */
	bool rss_own;           /* counters T_RSS and T_RSS_N hold its RSS: it made a change of
				 * RSS that was not one of its heap (else those are its heap's) */
	bool anon_odd;          /* it made an anonymous mapping of another size than an arena's
				 * (CKT_SITES_ARENA_*): not pymalloc's */
	char pad0[4];
	struct ckt_tracked heap; /* counter T_HEAP (ckt_sites_c), from byte 40 */
	int32_t site;           /* index in s->sites; -1 until resolved */
	uint32_t pin;           /* its pinned memory's counters in s->pins, + 1; 0: none */
	struct ckt_tracked t[T_COUNT - 1]; /* counters T_HEAP_N (from byte 128) to T_SMP */
	double allocs_var;      /* the variance of allocs (in allocations^2) from samples */
	uint64_t gpu_allocs, gpu_alloc_bytes; /* CUDA device, pool and VMM memory (always exact) */
	size_t off;             /* its STACK record's frame deltas, in s->enc */
	uint32_t len, n;        /* bytes and frames there; n == CKT_SITES_NOFRAMES: none yet */
	uint32_t nsym, site_frame;
	uint32_t map;           /* the module map current when its STACK record was read */
	const char **sym;       /* formatted frames, innermost first; NULL until symbolized */
	bool cut;               /* sym ends CKT_SITES_SHORT callers past the site (shallow) */
	char pad[31];           /* to a multiple of 64 bytes (checked below) */
};
_Static_assert(sizeof(struct ckt_sites_stack) % 64 == 0, "stacks on whole cache lines");
_Static_assert(offsetof(struct ckt_sites_stack, heap) + offsetof(struct ckt_tracked, seen) + sizeof(uint32_t) <= 64,
	       "the heap bytes' current value, top and epoch mark in the first line");
_Static_assert(offsetof(struct ckt_sites_stack, t) == 128, "the heap blocks' counter from the third line");

/* Counter t (T_*) of stack st, as it is stored */
static inline struct ckt_tracked *ckt_sites_c(struct ckt_sites_stack *st, int t)
{
	return t == T_HEAP ? &st->heap : &st->t[t - 1];
}

/* Counter t of stack st (T_RSS and T_RSS_N: its heap's until it has RSS of its own) */
static inline const struct ckt_tracked *ckt_sites_t(const struct ckt_sites_stack *st, int t)
{
	if ((t == T_RSS || t == T_RSS_N) && !st->rss_own)
		t -= T_RSS - T_HEAP;
	return ckt_sites_c((struct ckt_sites_stack *)st, t);
}

struct ckt_sites_site {
	const char *key;        /* the site frame, interned: compared by pointer */
	int64_t run, max;       /* live "rss" bytes now and at most (own_peaks only) */
	uint64_t at[K_COUNT], n_at[K_COUNT]; /* n_at, allocs: in CKT_SITES_ONE units */
	uint64_t heap_at[K_COUNT], heap_n_at[K_COUNT]; /* of those, heap blocks' */
	size_t best_stack[K_COUNT]; /* the stack shown at each moment it holds bytes at
				     * (ckt_sites_paths) */
	uint64_t path_bytes[K_COUNT][CKT_SITES_SHORT]; /* bytes through each caller shown */
	uint64_t n_stacks[K_COUNT];   /* distinct stacks (symbolized) holding its bytes then */
	uint64_t allocs, alloc_bytes;
	double allocs_var;
	uint64_t temps;
	uint64_t gpu_allocs, gpu_alloc_bytes;
	uint64_t smp[K_COUNT];  /* live samples of the default mode at each moment: its figures
				 * there are estimates */
	uint64_t smpb[K_COUNT]; /* and the bytes they stand for: the rest of at[] was recorded
				 * block by block, exact (--diff sets the two apart) */
	bool sampled;           /* some of its allocations were samples (the CSV's estimated) */
	uint64_t most_alloc;    /* the stack that allocated the most bytes, for the CSV */
	size_t most_stack;
	uint64_t most_calls;    /* the stack that allocated the most times, for the list by
				 * allocations (since 0.2.26) */
	size_t calls_stack;
};

struct ckt_sites {
	bool own_peaks;
	bool keep_gpu; /* ckt_sites_keep_gpu */
	unsigned depth;         /* the trace's CUZKTRACE_DEPTH; 0: unknown */
	int err;                /* CKT_ENOMEM met in a callback */
	const uint64_t *epochs; /* the replay's during the replay, then final_epochs */
	uint64_t final_epochs[CKT_EPOCHS_LEN];
	struct ckt_sym *sym;

	struct ckt_sites_stack *stacks;
	size_t n_stacks, cap_stacks;
	uint32_t *index;        /* id -> stack index + 1; open addressing */
	size_t last_stack;      /* the stack ckt_sites_stack_of found last, + 1; 0 = none */
	bool prefetch;          /* the replay's prefetch hint is on (ckt_sites_prefetch) */
	size_t index_cap;
	uint8_t *enc;
	size_t enc_len, enc_cap;

	struct ckt_sites_site *sites;
	size_t n_sites, cap_sites;
	struct ckt_sites_pin *pins;
	size_t n_pins, cap_pins;
	/* the default mode: each stack's live samples' bytes (weighted, as T_HEAP's), indexed as
	 * stacks, cap_smpb of them: apart, so that an exact trace, which has no sample, keeps no
	 * such counter (80 bytes a stack); made at the first sample, freed once the sites hold
	 * their sums (ckt_sites_finish) */
	struct ckt_tracked *smpb;
	size_t cap_smpb;
	uint32_t *site_index;   /* key pointer -> site index + 1 */
	size_t site_index_cap;

	/* results */
	size_t *order[K_COUNT], n_order[K_COUNT], n_nonzero[K_COUNT];
	size_t *csv;
	size_t n_csv;
	uint64_t peak[K_COUNT], peak_ts[K_COUNT]; /* K_EXIT: heap live at the end, its time */
	bool has_rss, ended, sampled; /* sampled: the default mode */
	uint64_t sample_r;      /* the default mode's rate R; 0: exact mode */
	uint64_t rss_heap;      /* the heap at the peak RSS sample */
	bool has_agg;           /* the default mode's running totals came: small blocks were made */
	uint64_t sum[K_COUNT], smp_sum[K_COUNT]; /* every listed site's bytes, samples */
	size_t *by_calls, n_by_calls, n_calling; /* sites by allocations, the first --top of them */
	size_t *by_temps, n_by_temps, n_temping; /* sites by temporaries (exact mode), likewise */
	double calls_var;       /* their variance from samples */
	uint64_t temps;         /* every site's heap blocks freed as temporaries (exact mode) */
	uint64_t heap_allocs;   /* the trace's heap allocations (alloc and realloc records) */
	/* the stacks of temporaries live at the current peak heap, with their counts (struct
	 * ckt_run's peak_temps): theirs once the peak rises again (ckt_sites_on_peak) */
	struct ckt_sites_pend { size_t stack; uint64_t n; } *pend;
	size_t n_pend, cap_pend;
	bool calls_estimated;
	/* the stacks symbolized so far with a frame of a known allocator (ckt_sites_allocators):
	 * few (the allocator's mappings), so kept apart from the per-stack state */
	struct ckt_sites_alloc_stack {
		size_t stack;
		unsigned kind;
		const char *function, *module; /* its innermost such frame's, interned; NULL: unknown */
	} *alloc_stacks;
	size_t n_alloc_stacks, cap_alloc_stacks;
	struct ckt_sites_untraced untraced[CKT_SITES_ALLOCATORS];
	size_t n_untraced;
};

/* ---- the folding rule ---- */

/* The standard libraries' namespaces and the allocation entry points, by the start of a name.
 * The Rust crates' (from "alloc::" on) are not a C++ function's (cxx): a C++ program's own
 * namespace may be "core" or "alloc", and its functions there are its own sites. */
static bool ckt_sites_prefixed(const char *name, bool cxx)
{
	static const char *const pre[] = {
		"operator new", "std::", "__gnu_cxx::", "cudart::", "cudaMalloc", "cudaHostAlloc", "cuMem",
	};
	static const char *const rust[] = { "alloc::", "core::", "hashbrown::", "__rustc::", "panic_unwind::" };
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (strncmp(name, pre[i], strlen(pre[i])) == 0)
			return true;
	for (size_t i = 0; !cxx && i < sizeof(rust) / sizeof(rust[0]); i++)
		if (strncmp(name, rust[i], strlen(rust[i])) == 0)
			return true;
	return false;
}

/* Rust v0 names of the standard library's code for primitive types, which do not start with
 * a crate path: inherent impls ("<str>::repeat", "<[u8]>::to_vec", "<[Vec<u8>]>::concat")
 * and std trait impls ("<i32 as core::fmt::Display>::fmt", "<u8 as
 * <[_]>::to_vec_in::ConvertVec>::to_vec"). A program cannot write an inherent impl for a
 * primitive type, nor (for its own types) a trait impl with a primitive self type and a std
 * trait, so these are the library's. name starts with '<'; self is after the '<'s; as is its
 * first " as " or NULL. */
static bool ckt_sites_std_on_primitive(const char *name, const char *self, const char *as)
{
	if (!as) /* inherent: "<str>::" or "<[...]>::" */
		return strncmp(name, "<str>::", 7) == 0 || (name[1] == '[' && strstr(name, "]>::"));
	static const char *const prims[] = {
		"bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize",
		"u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64",
	};
	size_t n = (size_t)(as - self);
	bool prim = *self == '[';
	for (size_t i = 0; !prim && i < sizeof(prims) / sizeof(prims[0]); i++)
		prim = strlen(prims[i]) == n && strncmp(self, prims[i], n) == 0;
	const char *tr = as + 4;
	return prim && (strncmp(tr, "core::", 6) == 0 || strncmp(tr, "alloc::", 7) == 0 ||
			strncmp(tr, "std::", 5) == 0 || strncmp(tr, "<[", 2) == 0 ||
			strncmp(tr, "<str>", 5) == 0);
}

/* The " as " of the outermost "<Self as Trait>" of a name that starts with '<' (NULL for an
 * inherent "<Self>::m"): Self may nest its own "<... as ...>" ("->" of a fn type is no '>'). */
static const char *ckt_sites_outer_as(const char *name)
{
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && (p == name || p[-1] != '-') && --depth == 0)
			return NULL;
		else if (depth == 1 && strncmp(p, " as ", 4) == 0)
			return p;
	}
	return NULL;
}

/* Rust's allocator shims (their crate path "__rustc::" aside): code inlined into one is the
 * allocator's (a #[global_allocator]'s). Names no program gives its own functions, unlike
 * "free" or "malloc", which line-tables-only debug info makes of a method Slab::free. */
static bool ckt_sites_is_rust_shim(const char *name)
{
	static const char *const shims[] = { "__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc",
					     "__rust_dealloc", "__rdl_alloc", "__rdl_alloc_zeroed",
					     "__rdl_realloc", "__rg_alloc", "__rg_alloc_zeroed", "__rg_realloc" };
	if (strncmp(name, "__rustc::", 9) == 0)
		name += 9;
	for (size_t i = 0; i < sizeof(shims) / sizeof(shims[0]); i++)
		if (strcmp(name, shims[i]) == 0)
			return true;
	return false;
}

/* The allocator's own entry points and wrappers (C's, GLib's, libiberty's, C++'s exception
 * allocation), by exact name. glibc's debug symbols name its functions by their internal
 * aliases, "__GI_" and the name ("__GI___strdup" for strdup, what a frame inside it reads
 * where they are installed): compared without that prefix */
static bool ckt_sites_is_alloc_fn(const char *name)
{
	if (strncmp(name, "__GI_", 5) == 0 && name[5])
		name += 5;
	static const char *const exact[] = {
		"malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign", "aligned_alloc",
		"memalign", "valloc", "pvalloc", "mmap", "mmap64", "mremap", "strdup", "strndup",
		"__strdup", "__strndup", "__libc_malloc", "__libc_calloc", "__libc_realloc",
		"__libc_memalign", "_int_malloc", "_int_realloc", "_int_memalign", "sysmalloc",
		"tcache_init", "xmalloc", "xcalloc", "xrealloc", "xstrdup", "g_malloc", "g_malloc0", "g_realloc",
		"g_try_malloc", "g_try_malloc0", "g_try_realloc", "g_malloc_n", "g_malloc0_n",
		"g_realloc_n", "__cxa_allocate_exception", "__cxa_allocate_dependent_exception",
	};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	return false;
}

/* Where a thread or the process starts (the C library's and the loader's): a site found
 * there means every frame above it was plumbing (ckt_sites_resolve). glibc's clone and clone3
 * are assembly, never inlined: an inlined frame of that name is a method, as Rust's
 * Clone::clone, which debug info of line tables only (Cargo's debug = "line-tables-only")
 * names "clone" alone (taken for the thread's start, a derived clone's bytes went to std's
 * alloc, the innermost frame past the plumbing) */
static bool ckt_sites_is_root_entry(const struct ckt_sym_frame *f)
{
	static const char *const roots[] = {
		"start_thread", "__clone3", "__clone", "__libc_start_call_main",
		"__libc_start_main_impl", "__libc_start_main", "_start",
	};
	static const char *const outer_roots[] = { "clone3", "clone" };
	const char *name = f->name;
	for (size_t i = 0; name && i < sizeof(roots) / sizeof(roots[0]); i++)
		if (strcmp(name, roots[i]) == 0)
			return true;
	for (size_t i = 0; name && !f->inlined && i < sizeof(outer_roots) / sizeof(outer_roots[0]); i++)
		if (strcmp(name, outer_roots[i]) == 0)
			return true;
	return false;
}

/* A frame that can own bytes when the stack holds nothing but plumbing up to its root: code
 * of a standard library that is not the allocator's own (not the malloc family, nor Rust's
 * alloc:: and core:: crates, nor its allocator shims). A Rust trait impl's name may open with
 * several '<' ("<<alloc::boxed::Box<str> as core::convert::From<&str>>::from as
 * core::ops::function::FnOnce<(&str,)>>::call_once", core's shim that calls alloc's from: it
 * owned the name std keeps for each named thread) */
static bool ckt_sites_is_runtime_owner(const struct ckt_sym_frame *f)
{
	static const char *const not_owners[] = { "alloc::", "core::" };
	const char *name = f->name;
	if (!name || !*name || ckt_sites_is_alloc_fn(name) || ckt_sites_is_rust_shim(name) ||
	    ckt_sites_is_root_entry(f))
		return false;
	const char *p = name;
	while (*p == '<')
		p++;
	for (size_t i = 0; i < sizeof(not_owners) / sizeof(not_owners[0]); i++)
		if (strncmp(p, not_owners[i], strlen(not_owners[i])) == 0)
			return false;
	return true;
}

/* The C main rustc generates: the frame inside it is std's runtime, by name
 * (std::rt::lang_start_internal) or, where fat LTO inlined that into main and the debug info
 * keeps only the innermost of the chain (std::sys::pal::unix::stack_overflow::imp::make_handler
 * right inside main), by its source file in the Rust standard library's std crate, which no C
 * or C++ main calls straight into. That main has no source line of its own; a program's own
 * main that calls std (a #![no_main] Rust program's #[no_mangle] main creating a HashMap, whose
 * line-tables-only name is "main") has one, and stays the site */
static bool ckt_sites_is_rust_main(const struct ckt_sym_frame *f, const char *inner, const char *inner_file)
{
	return f->name && strcmp(f->name, "main") == 0 && inner &&
	       (strncmp(inner, "std::rt::lang_start", 19) == 0 ||
		(!(f->file && f->line) && inner_file && strstr(inner_file, "library/std/src/")));
}

bool ckt_sites_is_plumbing(const char *name, bool cxx)
{
	if (!name || !*name)
		return false;
	if (ckt_sites_is_alloc_fn(name))
		return true;
	if (ckt_sites_is_rust_shim(name))
		return true;
	if (ckt_sites_prefixed(name, cxx))
		return true;
	/* Rust trait impls: "<alloc::vec::Vec<T> as core::clone::Clone>::clone",
	 * "<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem", nested "<<..." */
	if (name[0] == '<') {
		const char *p = name;
		while (*p == '<')
			p++;
		/* an impl of a trait of no standard crate is that crate's or the program's code,
		 * whatever type it is for (a crate implements only its own traits for another
		 * crate's types): "<alloc::vec::Vec<u64> as app::Grow>::grow_to" owns what it
		 * pushes (it was taken for Vec's code, and main owned the bytes) */
		const char *outer = ckt_sites_outer_as(name);
		if (outer && outer[4] != '<' && !ckt_sites_prefixed(outer + 4, false))
			return false;
		if (ckt_sites_prefixed(p, false))
			return true;
		/* the trait alone: allocator traits only ("<X as core::clone::Clone>" is X's code) */
		static const char *const traits[] = { "alloc::", "core::alloc::", "std::alloc::", "hashbrown::" };
		const char *as = strstr(name, " as ");
		for (size_t i = 0; as && i < sizeof(traits) / sizeof(traits[0]); i++)
			if (strncmp(as + 4, traits[i], strlen(traits[i])) == 0)
				return true;
		if (ckt_sites_std_on_primitive(name, p, as))
			return true;
	}
	return false;
}

/* A frame in the Rust standard library's or hashbrown's sources, or in the C++ standard
 * library's headers, is plumbing whatever its name says: with debuginfo=line-tables-only the
 * names have no crate path ("alloc", "grow_impl"), and v0 names of inlined std code need not
 * start with one; a C++ template instantiated for a type of internal linkage (a type local to
 * a function, or in an anonymous namespace) has internal linkage too, and GCC names its
 * inlined frames without "std::" ("allocate" in bits/new_allocator.h, "_M_allocate" in
 * bits/stl_vector.h: a vector of such a type was its own site). libstdc++'s headers are in
 * .../include/c++/<version>/, libc++'s in .../include/c++/v1/. */
bool ckt_sites_is_plumbing_file(const char *file)
{
	static const char *const dirs[] = { "library/alloc/src/", "library/core/src/",
					    "library/std/src/", "library/panic_unwind/src/", "/hashbrown-" };
	for (size_t i = 0; file && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strstr(file, dirs[i]))
			return true;
	/* .../include/c++/<version>/ (libstdc++: "12", "4.8.5": digits and dots) or
	 * .../include/c++/v1/ (libc++), not a project's own include/c++/ tree */
	for (const char *p = file; p && (p = strstr(p, "/include/c++/")); p++) {
		const char *v = p + 13, *e = v;
		while ((*e >= '0' && *e <= '9') || (*e == '.' && e > v))
			e++;
		if ((e > v && *e == '/') || strncmp(v, "v1/", 3) == 0)
			return true;
	}
	return false;
}

/* A frame of the C and C++ runtimes that no symbol names (a local function of a stripped
 * libstdc++: the one between a failed nothrow operator new and __cxa_allocate_exception) is
 * plumbing: its address tells the reader nothing the caller it serves would not (every
 * exception of a failed new was that address's). */
static bool ckt_sites_is_plumbing_unnamed(const struct ckt_sym_frame *f)
{
	static const char *const runtimes[] = { "libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so",
						"libc.so", "libpthread.so", "ld-linux", "ld-musl-", "libc.musl-" };
	for (size_t i = 0; !f->name && f->module && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (strncmp(f->module, runtimes[i], strlen(runtimes[i])) == 0)
			return true;
	return false;
}

/* Allocators a program links in under their own names (Rust's tikv-jemallocator: _rjem_malloc,
 * _rjem_je_* inside; the mimalloc crate: mi_malloc_aligned, _mi_* inside), whose blocks never
 * pass through malloc: the tracer sees only the mappings they make through libc's mmap. Known
 * by a frame's function name, or by the file name of its module where the allocator is a
 * shared library whose functions have no names (a stripped libmimalloc.so.2). */
/* Since 0.2.49 also CPython's object allocator (pymalloc), which takes objects of 512 bytes and
 * under from arenas of 1 MiB (256 KiB before 3.10) it maps itself: known by its arena
 * function's name, or where the frame has none by the interpreter's module (python3.x, or
 * libpython3.x.so where the interpreter is a library; Debian's has no local symbols: the arena
 * function is an address), only at the innermost call (the call of mmap itself: an extension module that maps memory is called from
 * the interpreter too), and only for stacks whose anonymous mappings are all of an arena's size
 * (the interpreter maps its frames' data stack through the same function, 16 KiB and up;
 * ckt_sites_untraced_sum). */
#define CKT_SITES_ARENA_NEW ((int64_t)1 << 20)
#define CKT_SITES_ARENA_OLD ((int64_t)256 << 10)
static const struct {
	const char *name;
	const char *prefix[2];
	const char *module[2];
	bool arenas; /* named by the innermost call alone, for arena-sized mappings only */
} ckt_sites_allocators[CKT_SITES_ALLOCATORS] = {
	{ "jemalloc", { "je_", "_rjem_" }, { "libjemalloc", NULL }, false },
	{ "mimalloc", { "mi_", "_mi_" }, { "libmimalloc", NULL }, false },
	{ "tcmalloc", { "tcmalloc::", NULL }, { "libtcmalloc", NULL }, false },
	{ "snmalloc", { "snmalloc::", NULL }, { "libsnmalloc", NULL }, false },
	{ "rpmalloc", { "rpmalloc", "_rpmalloc" }, { NULL, NULL }, false },
	{ "pymalloc", { "_PyObject_Arena", "_PyMem_Arena" }, { "python3.", "libpython3." }, true },
};

/* A frame in the shared library of one of those allocators, by its file name as the
 * distributions ship it (libtcmalloc_minimal.so.4, libjemalloc.so.2, libmimalloc-secure.so.2;
 * named or not; not a program's libjemalloc_wrap.so). In a heap block's stack it is plumbing:
 * the allocator's own operator new, serving new itself, throws std::bad_alloc, whose exception
 * object __cxa_allocate_exception mallocs; the failed call's caller owns it (since 0.2.59:
 * every failed new's exception was the allocator's address, "libtcmalloc_minimal.so.4+0xdf9a"). */
static bool ckt_sites_in_allocator_lib(const struct ckt_sym_frame *f)
{
	static const char *const libs[] = { "libtcmalloc", "libtcmalloc_minimal", "libtcmalloc_debug",
					    "libtcmalloc_minimal_debug", "libtcmalloc_and_profiler", "libjemalloc",
					    "libmimalloc", "libmimalloc-secure", "libmimalloc-debug", "libsnmalloc" };
	for (size_t i = 0; f->module && i < sizeof(libs) / sizeof(libs[0]); i++) {
		size_t n = strlen(libs[i]);
		if (strncmp(f->module, libs[i], n) == 0 && strncmp(f->module + n, ".so", 3) == 0 &&
		    (f->module[n + 3] == 0 || f->module[n + 3] == '.'))
			return true;
	}
	return false;
}

/* "alloc" in s, in either case */
static bool ckt_sites_says_alloc(const char *s)
{
	for (; *s; s++)
		if (strncasecmp(s, "alloc", 5) == 0)
			return true;
	return false;
}

/* The allocator of ckt_sites_allocators a function (name) or module belongs to, or -1; *entry:
 * the frame is one of the allocator's ways in (a frame in its module, or a name whose rest
 * after the prefix is empty or says "alloc": _rjem_malloc, mi_malloc_aligned, rpmalloc).
 * A mapping counts as the allocator's only where its stack has such a frame: a program's own
 * mi_table_create or je_setup that maps memory is not mimalloc's or jemalloc's. */
static int ckt_sites_allocator_of(const char *name, const char *module, bool *entry)
{
	for (int k = 0; k < CKT_SITES_ALLOCATORS; k++) {
		for (int p = 0; name && p < 2 && ckt_sites_allocators[k].prefix[p]; p++) {
			size_t len = strlen(ckt_sites_allocators[k].prefix[p]);
			if (strncmp(name, ckt_sites_allocators[k].prefix[p], len) == 0) {
				/* an arena function is the way in itself (the innermost call) */
				*entry = ckt_sites_allocators[k].arenas || !name[len] || ckt_sites_says_alloc(name + len);
				return k;
			}
		}
		/* the interpreter's module counts only for a frame it gives no name (where named,
		 * the arena function's name says it: a program named python3.x whose main maps
		 * memory is not pymalloc) */
		if (ckt_sites_allocators[k].arenas && name)
			continue;
		for (int p = 0; module && p < 2 && ckt_sites_allocators[k].module[p]; p++) {
			const char *m = ckt_sites_allocators[k].module[p];
			if (strncmp(module, m, strlen(m)) == 0) {
				*entry = true;
				return k;
			}
		}
	}
	return -1;
}

const char *ckt_sites_allocator_name(const char *name, const char *module, bool *entry)
{
	bool e = false;
	int k = ckt_sites_allocator_of(name, module, &e);
	if (entry)
		*entry = e;
	return k < 0 ? NULL : ckt_sites_allocators[k].name;
}

/* Stack i has frame f of allocator kind: noted, with the frame's function and module */
static int ckt_sites_note_allocator(struct ckt_sites *s, size_t i, int kind, const struct ckt_sym_frame *f)
{
	if (s->n_alloc_stacks == s->cap_alloc_stacks) {
		struct ckt_sites_alloc_stack *v = ckt_util_grow(s->alloc_stacks, &s->cap_alloc_stacks, sizeof(*v), 8);
		if (!v)
			return CKT_ENOMEM;
		s->alloc_stacks = v;
	}
	const char *fn = f->name ? ckt_sym_intern(s->sym, f->name, strlen(f->name)) : NULL;
	const char *mod = f->module ? ckt_sym_intern(s->sym, f->module, strlen(f->module)) : NULL;
	if ((f->name && !fn) || (f->module && !mod))
		return CKT_ENOMEM;
	s->alloc_stacks[s->n_alloc_stacks++] = (struct ckt_sites_alloc_stack){ i, (unsigned)kind, fn, mod };
	return 0;
}

/* ---- per-stack state ---- */

struct ckt_sites *ckt_sites_new(bool own_peaks)
{
	struct ckt_sites *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->own_peaks = own_peaks;
	s->sym = ckt_sym_new();
	if (!s->sym) {
		free(s);
		return NULL;
	}
	return s;
}

void ckt_sites_free(struct ckt_sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_stacks; i++)
		free(s->stacks[i].sym);
	ckt_util_big_free(s->stacks, s->cap_stacks * sizeof(*s->stacks));
	free(s->index);
	free(s->enc);
	free(s->sites);
	free(s->pins);
	free(s->smpb);
	free(s->site_index);
	for (int k = 0; k < K_COUNT; k++)
		free(s->order[k]);
	free(s->csv);
	free(s->by_calls);
	free(s->by_temps);
	free(s->pend);
	free(s->alloc_stacks);
	ckt_sym_free(s->sym);
	free(s);
}

static int ckt_sites_index_grow(struct ckt_sites *s)
{
	size_t cap = s->index_cap ? s->index_cap * 2 : 1024;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return CKT_ENOMEM;
	for (size_t i = 0; i < s->n_stacks; i++) {
		size_t k = ckt_util_home(s->stacks[i].id, cap);
		while (t[k])
			k = (k + 1) & (cap - 1);
		t[k] = (uint32_t)i + 1;
	}
	free(s->index);
	s->index = t;
	s->index_cap = cap;
	return 0;
}

/* Index of the stack with this id, created (without frames) when new; CKT_ENOMEM. */
static long ckt_sites_stack_find(struct ckt_sites *s, uint64_t id);
static ckt_replay_prefetch_fn ckt_sites_prefetch;
#define CKT_SITES_PREFETCH_FROM 2048

static long ckt_sites_stack_of(struct ckt_sites *s, uint64_t id)
{
	/* runs of events share a stack: the previous answer first (indices never move) */
	if (s->last_stack && s->stacks[s->last_stack - 1].id == id)
		return (long)s->last_stack - 1;
	long i = ckt_sites_stack_find(s, id);
	if (i >= 0)
		s->last_stack = (size_t)i + 1;
	return i;
}

static long ckt_sites_stack_find(struct ckt_sites *s, uint64_t id)
{
	if (s->n_stacks * 2 >= s->index_cap && ckt_sites_index_grow(s) < 0)
		return CKT_ENOMEM;
	size_t k = ckt_util_home(id, s->index_cap);
	for (; s->index[k]; k = (k + 1) & (s->index_cap - 1))
		if (s->stacks[s->index[k] - 1].id == id)
			return (long)s->index[k] - 1;
	/* a table of its own past 2 MiB: huge pages (the counters are read at random) */
	if (s->n_stacks == s->cap_stacks &&
	    ckt_util_big_grow((void **)&s->stacks, &s->cap_stacks, sizeof(*s->stacks), 256) < 0)
		return CKT_ENOMEM;
	struct ckt_sites_stack *st = &s->stacks[s->n_stacks];
	memset(st, 0, sizeof(*st));
	st->id = id;
	st->n = CKT_SITES_NOFRAMES;
	st->site = -1;
	s->index[k] = (uint32_t)s->n_stacks + 1;
	/* past this many stacks (1.3 MiB of them) their counters leave the caches: the merge
	 * hints at allocations to come (ckt_sites_prefetch) */
	if (s->n_stacks == CKT_SITES_PREFETCH_FROM)
		s->prefetch = true;
	return (long)s->n_stacks++;
}

/* ---- symbolization of one stack ---- */

__attribute__((format(printf, 2, 3))) static const char *ckt_sites_fmt(struct ckt_sites *s, const char *fmt, ...)
{
	char small[512], *buf = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(small)) { /* long Rust and C++ names: no fixed limit */
		buf = malloc((size_t)n + 1);
		if (!buf)
			return NULL;
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	const char *r = ckt_sym_intern(s->sym, buf, (size_t)n);
	if (buf != small)
		free(buf);
	return r;
}

/* "function (file:line)", "function (module+0xoff)", "module+0xoff" or "0xaddr" */
static const char *ckt_sites_frame_str(struct ckt_sites *s, const struct ckt_sym_frame *f)
{
	if (f->func && f->file && f->line)
		return ckt_sites_fmt(s, "%s (%s:%u)", f->func, f->file, f->line);
	if (f->func && f->module)
		return ckt_sites_fmt(s, "%s (%s+0x%" PRIx64 ")", f->func, f->module, f->offset);
	if (f->module)
		return ckt_sites_fmt(s, "%s+0x%" PRIx64, f->module, f->offset);
	return ckt_sites_fmt(s, "0x%" PRIx64, f->offset);
}

/* Appends str (NULL: out of memory) to the growing frame list *v. Returns 0 or CKT_ENOMEM. */
static int ckt_sites_push(const char ***v, size_t *n, size_t *cap, const char *str)
{
	if (!str)
		return CKT_ENOMEM;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		const char **nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return CKT_ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = str;
	return 0;
}

/* shallow: only as far as the site and the callers a list shows after it (a stack the list
 * by allocations needs alone: 2^20 distinct deep stacks of temporaries took 4.4 s whole) */
static int ckt_sites_symbolize(struct ckt_sites *s, size_t i, bool shallow)
{
	struct ckt_sites_stack *st = &s->stacks[i];
	const char **v = NULL;
	size_t n = 0, cap = 0;
	/* allocator_kind: the allocator a frame of which was noted (the innermost), as
	 * alloc_stacks' last entry, -1 none; entry_seen: a way into it was seen in the stack (else
	 * the note is taken back) */
	bool found = false, entry_seen = false, cut = false;
	int allocator_kind = -1;
	uint32_t site = 0, runtime = UINT32_MAX; /* runtime: the innermost frame ckt_sites_is_runtime_owner takes */

	if (st->sym)
		return 0;
	if (st->id == 0 || st->n == CKT_SITES_NOFRAMES) {
		v = malloc(sizeof(*v));
		if (!v)
			return CKT_ENOMEM;
		v[0] = st->id == 0 ? ckt_sites_fmt(s, "(no call stack)")
				   : ckt_sites_fmt(s, "(stack %" PRIu64 " missing from the trace)", st->id);
		if (!v[0]) {
			free(v);
			return CKT_ENOMEM;
		}
		n = 1;
	} else {
		const uint8_t *p = s->enc + st->off, *end = p + st->len;
		uint64_t pc = 0;
		const char *inner = NULL, *inner_file = NULL; /* the frame before (inside) the one looked at */
		bool interrupted = false; /* the frame is the one a signal interrupted */
		for (uint32_t k = 0; k < st->n && !cut; k++) {
			int64_t d;
			p = ckt_get_sv(p, end, &d); /* validated by the decoder */
			if (!p)
				break;
			pc += (uint64_t)d;
			const struct ckt_sym_frame *f;
			int nf = ckt_sym_lookup(s->sym, pc, st->map, interrupted, &f);
			if (nf < 0)
				goto nomem;
			interrupted = f[nf - 1].sigtramp;
			/* code inlined into Rust's allocator shim is the allocator's: a
			 * #[global_allocator]'s GlobalAlloc::alloc inlined into __rust_alloc,
			 * which line-tables-only debug info names "alloc" alone (the program's
			 * frame, and the site, it was taken for) */
			int entry = -1;
			for (int j = nf - 1; j >= 0 && entry < 0; j--)
				if (f[j].name && ckt_sites_is_rust_shim(f[j].name))
					entry = j;
			for (int j = 0; j < nf; j++) {
				if (!found && j > entry && !ckt_sites_is_plumbing(f[j].name, f[j].cxx) &&
				    !ckt_sites_is_plumbing_file(f[j].file) && !ckt_sites_is_plumbing_unnamed(&f[j]) &&
				    (st->anon || !ckt_sites_in_allocator_lib(&f[j]))) {
					found = true;
					site = (uint32_t)n;
					/* nothing but plumbing up to where the thread began: the
					 * runtime's own code owns it (Rust's thread start maps the
					 * thread's signal stack in std: "start_thread" owned it; on
					 * the main thread the C main rustc generates, which calls
					 * std::rt::lang_start_internal: "main" owned it there, read
					 * as the program's own) */
					if ((ckt_sites_is_root_entry(&f[j]) ||
					     ckt_sites_is_rust_main(&f[j], inner, inner_file)) &&
					    runtime != UINT32_MAX)
						site = runtime;
				}
				inner = f[j].name;
				inner_file = f[j].file;
				bool way_in = false;
				int kind = entry_seen || !st->anon ? -1 : ckt_sites_allocator_of(f[j].name, f[j].module, &way_in);
				if (kind >= 0 && allocator_kind < 0 && k > 0 && ckt_sites_allocators[kind].arenas)
					kind = -1; /* the interpreter's, but not its call of mmap */
				if (kind >= 0 && allocator_kind < 0) {
					if (ckt_sites_note_allocator(s, i, kind, &f[j]) < 0)
						goto nomem;
					allocator_kind = kind;
				}
				entry_seen |= kind >= 0 && kind == allocator_kind && way_in;
				if (!found && runtime == UINT32_MAX && j > entry && ckt_sites_is_runtime_owner(&f[j]))
					runtime = (uint32_t)n;
				if (ckt_sites_push(&v, &n, &cap, ckt_sites_frame_str(s, &f[j])) < 0)
					goto nomem;
				if (shallow && found && n > site + CKT_SITES_SHORT) {
					cut = true;
					break;
				}
			}
		}
		if (allocator_kind >= 0 && !entry_seen) /* no way into it: the program's own function */
			s->n_alloc_stacks--;
		if (n == 0) { /* a STACK record with no frames (corrupt: the tracer writes none) */
			if (ckt_sites_push(&v, &n, &cap,
					   ckt_sites_fmt(s, "(stack %" PRIu64 " is empty in the trace)", st->id)) < 0)
				goto nomem;
		}
		if (!cut && s->depth && st->n == s->depth &&
		    ckt_sites_push(&v, &n, &cap,
				   ckt_sites_fmt(s, "(stack cut at %u frame%s: CUZKTRACE_DEPTH)", s->depth, s->depth == 1 ? "" : "s")) < 0)
			goto nomem;
	}
	st->sym = v;
	st->nsym = (uint32_t)n;
	st->site_frame = site; /* all plumbing: the innermost frame */
	st->cut = cut;
	return 0;
nomem:
	free(v);
	return CKT_ENOMEM;
}

/* Stack i symbolized whole where it was cut (shallow): its site stays the one found, and what
 * the first pass noted of its allocator stands. */
static int ckt_sites_whole(struct ckt_sites *s, size_t i)
{
	struct ckt_sites_stack *st = &s->stacks[i];
	if (!st->cut)
		return 0;
	const char **v = st->sym;
	uint32_t n = st->nsym, site = st->site_frame;
	size_t noted = s->n_alloc_stacks;
	st->sym = NULL;
	int rc = ckt_sites_symbolize(s, i, false);
	s->n_alloc_stacks = noted;
	if (rc < 0) {
		st->sym = v; /* as it was: the report goes on to say it is out of memory */
		st->nsym = n;
		st->site_frame = site;
		st->cut = true;
		return rc;
	}
	free(v);
	return 0;
}

static int ckt_sites_site_grow(struct ckt_sites *s)
{
	size_t cap = s->site_index_cap ? s->site_index_cap * 2 : 256;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return CKT_ENOMEM;
	for (size_t i = 0; i < s->n_sites; i++) {
		size_t k = ckt_util_home((uintptr_t)s->sites[i].key, cap);
		while (t[k])
			k = (k + 1) & (cap - 1);
		t[k] = (uint32_t)i + 1;
	}
	free(s->site_index);
	s->site_index = t;
	s->site_index_cap = cap;
	return 0;
}

/* The site of stack i (symbolizing it if needed, shallow: see ckt_sites_symbolize): its index,
 * or CKT_ENOMEM. */
static long ckt_sites_resolve_as(struct ckt_sites *s, size_t i, bool shallow)
{
	if (s->stacks[i].site >= 0)
		return s->stacks[i].site;
	if (ckt_sites_symbolize(s, i, shallow) < 0)
		return CKT_ENOMEM;
	const char *key = s->stacks[i].sym[s->stacks[i].site_frame];
	if (s->n_sites * 2 >= s->site_index_cap && ckt_sites_site_grow(s) < 0)
		return CKT_ENOMEM;
	size_t k = ckt_util_home((uintptr_t)key, s->site_index_cap);
	for (; s->site_index[k]; k = (k + 1) & (s->site_index_cap - 1))
		if (s->sites[s->site_index[k] - 1].key == key)
			return s->stacks[i].site = (int32_t)s->site_index[k] - 1;
	if (s->n_sites == s->cap_sites) {
		size_t cap = s->cap_sites ? s->cap_sites * 2 : 64;
		struct ckt_sites_site *n = realloc(s->sites, cap * sizeof(*n));
		if (!n)
			return CKT_ENOMEM;
		s->sites = n;
		s->cap_sites = cap;
	}
	memset(&s->sites[s->n_sites], 0, sizeof(s->sites[0]));
	s->sites[s->n_sites].key = key;
	s->site_index[k] = (uint32_t)s->n_sites + 1;
	return s->stacks[i].site = (int32_t)s->n_sites++;
}

static long ckt_sites_resolve(struct ckt_sites *s, size_t i)
{
	return ckt_sites_resolve_as(s, i, false);
}

/* ---- observer callbacks ---- */

static void ckt_sites_on_record(void *ctx, const struct ckt_record *rec)
{
	struct ckt_sites *s = ctx;
	if (rec->tag == CKT_TAG_MODULE) {
		if (ckt_sym_add_module(s->sym, rec->u.module.base, rec->u.module.lo, rec->u.module.hi,
				       (const char *)rec->u.module.path, rec->u.module.path_len,
				       (const char *)rec->u.module.build_id, rec->u.module.build_id_len) < 0)
			s->err = CKT_ENOMEM;
		return;
	}
	if (rec->tag != CKT_TAG_STACK)
		return;
	long i = ckt_sites_stack_of(s, rec->u.stack.id);
	if (i < 0) {
		s->err = CKT_ENOMEM;
		return;
	}
	struct ckt_sites_stack *st = &s->stacks[i];
	if (st->n != CKT_SITES_NOFRAMES || st->site >= 0)
		return; /* written once per stack; the same frames again change nothing (the decoder
			 * refuses other ones) */
	st->map = ckt_sym_map_now(s->sym);
	size_t len = rec->u.stack.frames_len;
	if (s->enc_len + len > s->enc_cap) {
		size_t cap = s->enc_cap ? s->enc_cap : 4096;
		while (cap < s->enc_len + len)
			cap *= 2;
		uint8_t *n = realloc(s->enc, cap);
		if (!n) {
			s->err = CKT_ENOMEM;
			return;
		}
		s->enc = n;
		s->enc_cap = cap;
	}
	if (len) /* an empty stack has no frame bytes (and enc may still be NULL) */
		memcpy(s->enc + s->enc_len, rec->u.stack.frames, len);
	st->off = s->enc_len;
	st->len = (uint32_t)len;
	st->n = (uint32_t)rec->u.stack.nframes;
	s->enc_len += len;
}

/* blocks x w (65536ths of a block), held at the bounds, as ckt_tracked_sum */
static int64_t ckt_sites_times(int64_t blocks, int64_t w)
{
	int64_t r;
	if (__builtin_mul_overflow(blocks, w, &r))
		r = blocks > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* Stack i's counter of sampled bytes (s->smpb), the array made or grown to the stacks'
 * capacity first (zeroed: a counter that never moved reads 0 at every moment); NULL when out
 * of memory. */
static struct ckt_tracked *ckt_sites_smpb(struct ckt_sites *s, size_t i)
{
	if (i >= s->cap_smpb) {
		size_t cap = s->cap_stacks > i ? s->cap_stacks : i + 1;
		struct ckt_tracked *v = realloc(s->smpb, cap * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + s->cap_smpb, 0, (cap - s->cap_smpb) * sizeof(*v));
		s->smpb = v;
		s->cap_smpb = cap;
	}
	return &s->smpb[i];
}

static void ckt_sites_on_bytes(void *ctx, const struct ckt_attr *a, const struct ckt_run *run)
{
	struct ckt_sites *s = ctx;
	bool heap = false, rss = false, gpu = false, pinned = false;
	int64_t delta = run->delta;
	switch (a->space) {
	case CKT_SPACE_HEAP: heap = rss = true; break;
	case CKT_SPACE_ANON: rss = true; break;
	case CKT_SPACE_PINNED: rss = pinned = true; break;
	case CKT_SPACE_GPU: gpu = true; break;
	default: return;
	}
	long i = ckt_sites_stack_of(s, a->stack);
	if (i < 0) {
		s->err = CKT_ENOMEM;
		return;
	}
	struct ckt_sites_stack *st = &s->stacks[i];
	/* a sample of the default mode stands for `weight` allocations (its delta is weighted
	 * already); the same weight comes with its free, so live counts return to zero */
	bool sample = a->weight > 1.0;
	int64_t w = sample ? llround(a->weight * CKT_SITES_ONE) : CKT_SITES_ONE;
	int64_t nb = ckt_sites_times(run->blocks, w), nb_rise = ckt_sites_times(run->blocks_rise, w);
	if (heap) {
		ckt_tracked_run(ckt_sites_c(st, T_HEAP), s->epochs, delta, run->rise);
		ckt_tracked_run(ckt_sites_c(st, T_HEAP_N), s->epochs, nb, nb_rise);
		if (sample) {
			struct ckt_tracked *b = ckt_sites_smpb(s, (size_t)i);
			if (!b) {
				s->err = CKT_ENOMEM;
				return;
			}
			ckt_tracked_run(ckt_sites_c(st, T_SMP), s->epochs, run->blocks, run->blocks_rise);
			ckt_tracked_run(b, s->epochs, delta, run->rise);
		}
	}
	if (pinned && !st->pin) {
		if (s->n_pins == s->cap_pins) {
			size_t cap = s->cap_pins ? s->cap_pins * 2 : 16;
			struct ckt_sites_pin *v = s->n_pins < UINT32_MAX - 1 ? realloc(s->pins, cap * sizeof(*v)) : NULL;
			if (!v) {
				s->err = CKT_ENOMEM;
				return;
			}
			s->pins = v;
			s->cap_pins = cap;
		}
		memset(&s->pins[s->n_pins], 0, sizeof(s->pins[0]));
		st->pin = (uint32_t)++s->n_pins;
	}
	if (pinned) {
		ckt_tracked_run(&s->pins[st->pin - 1].t[0], s->epochs, delta, run->rise);
		ckt_tracked_run(&s->pins[st->pin - 1].t[1], s->epochs, nb, nb_rise);
	}
	if (gpu) {
		ckt_tracked_run(ckt_sites_c(st, T_GPU), s->epochs, delta, run->rise);
		ckt_tracked_run(ckt_sites_c(st, T_GPU_N), s->epochs, nb, nb_rise);
		st->gpu_allocs += run->allocs;
		st->gpu_alloc_bytes += run->alloc_bytes;
	}
	if (!rss)
		return;
	if (!heap && !st->rss_own) {
		/* its first change of RSS that its heap does not make: the RSS counters part
		 * from the heap's, which they have equalled so far */
		*ckt_sites_c(st, T_RSS) = *ckt_sites_c(st, T_HEAP);
		*ckt_sites_c(st, T_RSS_N) = *ckt_sites_c(st, T_HEAP_N);
		st->rss_own = true;
	}
	if (st->rss_own) {
		ckt_tracked_run(ckt_sites_c(st, T_RSS), s->epochs, delta, run->rise);
		ckt_tracked_run(ckt_sites_c(st, T_RSS_N), s->epochs, nb, nb_rise);
	}
	if (a->space == CKT_SPACE_ANON) {
		st->anon = true;
		/* (a mapping's changes come one by one) it is allocated once; pages of it opened
		 * later by mprotect (a PROT_NONE reservation: its mapping came with 0 bytes) are
		 * allocated bytes then */
		if (run->blocks > 0) {
			st->allocs += (uint64_t)w;
			if (delta != CKT_SITES_ARENA_NEW && delta != CKT_SITES_ARENA_OLD)
				st->anon_odd = true;
		}
		if (delta > 0)
			st->alloc_bytes += (uint64_t)delta;
	} else {
		st->allocs += run->allocs * (uint64_t)w;
		st->alloc_bytes += run->alloc_bytes;
		st->temps += run->temps;
		if (run->peak_temps) {
			if (s->n_pend == s->cap_pend) {
				struct ckt_sites_pend *v = ckt_util_grow(s->pend, &s->cap_pend, sizeof(*v), 16);
				if (!v) {
					s->err = CKT_ENOMEM;
					return;
				}
				s->pend = v;
			}
			s->pend[s->n_pend++] = (struct ckt_sites_pend){ (size_t)i, run->peak_temps };
		}
		st->sampled |= sample && run->allocs;
		/* a sample standing for w allocations, taken with probability 1/w: variance
		 * w (w - 1) (Horvitz-Thompson) */
		if (sample)
			st->allocs_var += (double)run->allocs * a->weight * (a->weight - 1.0);
	}
	if (!s->own_peaks)
		return;
	/* The site's own peak needs the site now. Its STACK record normally precedes the SYNC
	 * that releases this event; if not, the site takes the stack's bytes when it arrives. */
	int64_t add = delta, rise = run->rise;
	if (st->site < 0) {
		if (st->n == CKT_SITES_NOFRAMES && st->id != 0)
			return;
		long site = ckt_sites_resolve(s, (size_t)i);
		if (site < 0) {
			s->err = CKT_ENOMEM;
			return;
		}
		st = &s->stacks[i];
		/* the stack's bytes before this run were not the site's yet: they join now, and
		 * the run's own rise comes on top of them (a run that allocates and frees, as a
		 * realloc's block freed by the next event, rose although it adds nothing: its
		 * site's own peak read 0 before 0.2.11) */
		add = ckt_sites_t(st, T_RSS)->cur;
		rise = ckt_tracked_sum(add - delta, run->rise);
	}
	struct ckt_sites_site *si = &s->sites[st->site];
	if (si->run + rise > si->max)
		si->max = si->run + rise;
	si->run += add;
}

/* A sample counted at a peak after its own change (struct ckt_observer's at_peak): the heap
 * counters it moved, and the RSS ones (the heap is host memory), at that peak only */
static void ckt_sites_on_at_peak(void *ctx, const struct ckt_attr *a, enum ckt_moment m, int64_t delta,
				 int64_t blocks)
{
	struct ckt_sites *s = ctx;
	long i = ckt_sites_stack_of(s, a->stack);
	if (i < 0) {
		s->err = CKT_ENOMEM;
		return;
	}
	struct ckt_sites_stack *st = &s->stacks[i];
	struct ckt_tracked *b = ckt_sites_smpb(s, (size_t)i);
	if (!b) {
		s->err = CKT_ENOMEM;
		return;
	}
	int64_t nb = ckt_sites_times(blocks, llround(a->weight * CKT_SITES_ONE));
	ckt_tracked_at_peak(ckt_sites_c(st, T_HEAP), s->epochs, m, delta);
	ckt_tracked_at_peak(ckt_sites_c(st, T_HEAP_N), s->epochs, m, nb);
	if (st->rss_own) {
		ckt_tracked_at_peak(ckt_sites_c(st, T_RSS), s->epochs, m, delta);
		ckt_tracked_at_peak(ckt_sites_c(st, T_RSS_N), s->epochs, m, nb);
	}
	ckt_tracked_at_peak(ckt_sites_c(st, T_SMP), s->epochs, m, blocks);
	ckt_tracked_at_peak(b, s->epochs, m, delta);
}

void ckt_sites_set_trace(struct ckt_sites *s, const char *path)
{
	ckt_sym_set_trace(s->sym, path);
}

void ckt_sites_set_start(struct ckt_sites *s, uint64_t start_wall_ns)
{
	ckt_sym_set_start(s->sym, start_wall_ns);
}

void ckt_sites_set_depth(struct ckt_sites *s, unsigned depth)
{
	s->depth = depth;
}

/* A new peak heap: the temporaries live at the one before were not live at this one */
static void ckt_sites_on_peak(void *ctx, enum ckt_moment m, uint64_t ts)
{
	struct ckt_sites *s = ctx;
	(void)ts;
	if (m != CKT_AT_PEAK_HEAP)
		return;
	for (size_t k = 0; k < s->n_pend; k++)
		s->stacks[s->pend[k].stack].temps += s->pend[k].n;
	s->n_pend = 0;
}

/* An allocation of this stack comes soon (ckt_replay_set_prefetch): stage 0 fetches its slot
 * in the index, stage 1 reads the slot and fetches the stack's counters that
 * ckt_sites_on_bytes updates (704 bytes a stack: a trace of thousands of stacks holds
 * them in no cache). The exact trace of tests/bench/manysites.c (32,768 stacks, 8 M
 * events) read in 1.33 s with it, 1.60 s without (medians of 7). */
static void ckt_sites_prefetch(void *ctx, uint64_t id, int stage)
{
	struct ckt_sites *s = ctx;
	if (!s->index_cap)
		return;
	const uint32_t *slot = &s->index[ckt_util_home(id, s->index_cap)];
	if (stage == 0) {
		__builtin_prefetch(slot);
		return;
	}
	uint32_t k = *slot;
	if (!k)
		return;
	struct ckt_sites_stack *st = &s->stacks[k - 1];
	__builtin_prefetch(&st->id, 1, 2); /* and the heap bytes' counter, on that line */
	__builtin_prefetch(ckt_sites_c(st, T_HEAP_N), 1, 2);
	/* not the RSS counters: few stacks have their own (rss_own), and reading that flag
	 * here would wait for the miss the prefetch is for */
}

int ckt_sites_attach(struct ckt_sites *s, struct ckt_replay *r)
{
	struct ckt_observer o = { .ctx = s, .bytes = ckt_sites_on_bytes, .peak = ckt_sites_on_peak,
				  .record = ckt_sites_on_record, .at_peak = ckt_sites_on_at_peak };
	s->epochs = ckt_replay_epochs(r);
	int rc = ckt_replay_observe(r, &o);
	if (rc == 0)
		ckt_replay_set_prefetch(r, ckt_sites_prefetch, s, &s->prefetch);
	return rc;
}

unsigned ckt_sites_rust_mangling(const struct ckt_sites *s)
{
	return ckt_sym_rust_mangling(s->sym);
}

uint64_t ckt_sites_undefined(const struct ckt_sites *s, uint64_t *first)
{
	uint64_t n = 0;
	*first = 0;
	for (size_t i = 0; i < s->n_stacks; i++)
		if (s->stacks[i].n == CKT_SITES_NOFRAMES && s->stacks[i].id != 0) {
			*first = n++ && *first < s->stacks[i].id ? *first : s->stacks[i].id;
		}
	return n;
}

size_t ckt_sites_nwarnings(const struct ckt_sites *s)
{
	return ckt_sym_nwarnings(s->sym);
}

const char *ckt_sites_warning(const struct ckt_sites *s, size_t i)
{
	return ckt_sym_warning(s->sym, i);
}

/* ---- aggregation ---- */

/* qsort's context: per thread, as --diff reads two traces at once */
static _Thread_local const struct ckt_sites *ckt_sites_sorting;
static _Thread_local int ckt_sites_sort_k;

static int ckt_sites_cmp_key(const struct ckt_sites_site *a, const struct ckt_sites_site *b)
{
	return strcmp(a->key, b->key);
}

static int ckt_sites_cmp_moment(const void *pa, const void *pb)
{
	const struct ckt_sites_site *a = &ckt_sites_sorting->sites[*(const size_t *)pa];
	const struct ckt_sites_site *b = &ckt_sites_sorting->sites[*(const size_t *)pb];
	int k = ckt_sites_sort_k;
	if (a->at[k] != b->at[k])
		return a->at[k] > b->at[k] ? -1 : 1;
	if (k == K_EXIT && a->n_at[k] != b->n_at[k]) /* live at exit: blocks of 0 bytes, by count */
		return a->n_at[k] > b->n_at[k] ? -1 : 1;
	return ckt_sites_cmp_key(a, b);
}

/* by allocations, then bytes allocated, then name */
static int ckt_sites_cmp_calls(const void *pa, const void *pb)
{
	const struct ckt_sites_site *a = &ckt_sites_sorting->sites[*(const size_t *)pa];
	const struct ckt_sites_site *b = &ckt_sites_sorting->sites[*(const size_t *)pb];
	if (a->allocs != b->allocs)
		return a->allocs > b->allocs ? -1 : 1;
	if (a->alloc_bytes != b->alloc_bytes)
		return a->alloc_bytes > b->alloc_bytes ? -1 : 1;
	return ckt_sites_cmp_key(a, b);
}

/* by temporaries, then by allocations (their share) */
static int ckt_sites_cmp_temps(const void *pa, const void *pb)
{
	const struct ckt_sites_site *a = &ckt_sites_sorting->sites[*(const size_t *)pa];
	const struct ckt_sites_site *b = &ckt_sites_sorting->sites[*(const size_t *)pb];
	if (a->temps != b->temps)
		return a->temps > b->temps ? -1 : 1;
	return ckt_sites_cmp_calls(pa, pb);
}

static int ckt_sites_cmp_csv(const void *pa, const void *pb)
{
	const struct ckt_sites_site *a = &ckt_sites_sorting->sites[*(const size_t *)pa];
	const struct ckt_sites_site *b = &ckt_sites_sorting->sites[*(const size_t *)pb];
	if (a->at[K_RSS] != b->at[K_RSS])
		return a->at[K_RSS] > b->at[K_RSS] ? -1 : 1;
	if (a->at[K_HEAP] != b->at[K_HEAP])
		return a->at[K_HEAP] > b->at[K_HEAP] ? -1 : 1;
	if (a->alloc_bytes != b->alloc_bytes)
		return a->alloc_bytes > b->alloc_bytes ? -1 : 1;
	if (a->gpu_alloc_bytes != b->gpu_alloc_bytes)
		return a->gpu_alloc_bytes > b->gpu_alloc_bytes ? -1 : 1;
	return ckt_sites_cmp_key(a, b);
}

static uint64_t ckt_sites_pos(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/* Whether bytes and blocks held at moment k put a stack or site in that moment's list: bytes;
 * and at exit blocks of 0 bytes too (a leaked malloc(0) is a leak all the same). */
static bool ckt_sites_listed(int k, int64_t bytes, int64_t blocks)
{
	return bytes > 0 || (k == K_EXIT && blocks > 0);
}

/* A stack's bytes (blocks: 1) at the moment of list k. */
/* Counter t of a stack at moment k (K_EXIT and the other ends: now, at the end). */
static int64_t ckt_sites_value(const struct ckt_sites *s, const struct ckt_tracked *t, int k)
{
	return ckt_sites_at_end(k) ? t->cur : ckt_tracked_at(t, s->epochs, ckt_sites_moment[k]);
}

static int64_t ckt_sites_at(const struct ckt_sites *s, const struct ckt_sites_stack *st, int k, int blocks)
{
	if (k == K_PINNED || k == K_PINNED_EXIT)
		return st->pin ? ckt_sites_value(s, &s->pins[st->pin - 1].t[blocks], k) : 0;
	return ckt_sites_value(s, ckt_sites_t(st, ckt_sites_tbytes[k] + blocks), k);
}

/* The stack's heap bytes (blocks: 1) at moment k: at the peak RSS, those without its mappings */
static int64_t ckt_sites_heap_at(const struct ckt_sites *s, const struct ckt_sites_stack *st, int k, int blocks)
{
	return ckt_sites_cuda(k) ? 0 : ckt_sites_value(s, ckt_sites_t(st, T_HEAP + blocks), k);
}

/* The stack's live samples at moment k (heap blocks only: none among GPU memory). */
static int64_t ckt_sites_smp_at(const struct ckt_sites *s, const struct ckt_sites_stack *st, int k)
{
	return ckt_sites_cuda(k) ? 0 : ckt_sites_value(s, ckt_sites_t(st, T_SMP), k);
}

/* The bytes stack i's live samples stand for at moment k (0 where it has none) */
static int64_t ckt_sites_smpb_at(const struct ckt_sites *s, size_t i, int k)
{
	return ckt_sites_cuda(k) || i >= s->cap_smpb ? 0 : ckt_sites_value(s, &s->smpb[i], k);
}

/* ---- the call path shown for a site ----
 * A site (a function and line) is often reached through several call stacks. The one shown,
 * in the text report, the JSON's frames and the CSV's stack column, is chosen caller by caller
 * as a bottom-up tree would show its heaviest branch: of the site's stacks holding bytes at
 * the moment, the caller holding the most bytes, then among those the caller's caller holding
 * the most, for the CKT_SITES_SHORT callers the text shows; then the largest stack left. The
 * largest single stack instead could show a path that holds the least: one 2 MiB stack
 * through f2 was shown for a site whose other 3 MiB came through f1 from three call lines
 * (three stacks of 1 MiB). Ties go to the stack seen first, so the output is the same at every
 * run. */
struct ckt_sites_pick {
	size_t site, stack;
	int64_t v;
	const char *frame; /* the caller compared at the current level (NULL: none) */
};

static int ckt_sites_cmp_pick_site(const void *pa, const void *pb)
{
	const struct ckt_sites_pick *a = pa, *b = pb;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* by the stacks' symbolized frames (interned: compared by pointer, for equality only) */
static int ckt_sites_cmp_pick_frames(const void *pa, const void *pb)
{
	const struct ckt_sites_stack *a = &ckt_sites_sorting->stacks[((const struct ckt_sites_pick *)pa)->stack];
	const struct ckt_sites_stack *b = &ckt_sites_sorting->stacks[((const struct ckt_sites_pick *)pb)->stack];
	if (a->nsym != b->nsym)
		return a->nsym < b->nsym ? -1 : 1;
	for (uint32_t i = 0; i < a->nsym; i++)
		if (a->sym[i] != b->sym[i])
			return (uintptr_t)a->sym[i] < (uintptr_t)b->sym[i] ? -1 : 1;
	return 0;
}

/* How many distinct stacks c[0..n) hold once symbolized: two calls on one line are two return
 * addresses, two stack ids, and one stack to the reader (--folded shows one line). Sorts c. */
static uint64_t ckt_sites_distinct(struct ckt_sites_pick *c, size_t n)
{
	qsort(c, n, sizeof(*c), ckt_sites_cmp_pick_frames);
	uint64_t d = n > 0;
	for (size_t i = 1; i < n; i++)
		d += ckt_sites_cmp_pick_frames(&c[i - 1], &c[i]) != 0;
	return d;
}

static int ckt_sites_cmp_pick_frame(const void *pa, const void *pb)
{
	const struct ckt_sites_pick *a = pa, *b = pb;
	if (a->frame != b->frame)
		return (uintptr_t)a->frame < (uintptr_t)b->frame ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* The heaviest branch among c[0..n), all stacks of one site: moves it to the front and returns
 * its length; bytes[l] gets the bytes through its caller l + 1 (0 past the stacks' end). */
static size_t ckt_sites_branch(const struct ckt_sites *s, struct ckt_sites_pick *c, size_t n,
			       uint64_t bytes[CKT_SITES_SHORT])
{
	for (unsigned lvl = 1; lvl <= CKT_SITES_SHORT; lvl++) {
		for (size_t i = 0; i < n; i++) {
			const struct ckt_sites_stack *st = &s->stacks[c[i].stack];
			size_t f = st->site_frame + lvl;
			c[i].frame = f < st->nsym ? st->sym[f] : NULL;
		}
		qsort(c, n, sizeof(*c), ckt_sites_cmp_pick_frame);
		size_t best = 0, best_n = 0, first = SIZE_MAX;
		int64_t best_v = -1;
		for (size_t g = 0; g < n;) {
			size_t e = g, low = SIZE_MAX;
			int64_t sum = 0;
			for (; e < n && c[e].frame == c[g].frame; e++) {
				sum = sum > INT64_MAX - c[e].v ? INT64_MAX : sum + c[e].v;
				if (c[e].stack < low)
					low = c[e].stack;
			}
			if (sum > best_v || (sum == best_v && low < first)) {
				best = g;
				best_n = e - g;
				best_v = sum;
				first = low;
			}
			g = e;
		}
		memmove(c, c + best, best_n * sizeof(*c));
		n = best_n;
		bytes[lvl - 1] = c[0].frame ? (uint64_t)best_v : 0;
	}
	return n;
}

static int ckt_sites_paths(struct ckt_sites *s)
{
	struct ckt_sites_pick *p = malloc((s->n_stacks ? s->n_stacks : 1) * sizeof(*p));
	if (!p)
		return CKT_ENOMEM;
	for (int k = 0; k < K_COUNT; k++) {
		size_t n = 0;
		for (size_t i = 0; i < s->n_stacks; i++) {
			if (s->stacks[i].site < 0)
				continue;
			int64_t v = ckt_sites_at(s, &s->stacks[i], k, 0);
			if (ckt_sites_listed(k, v, ckt_sites_at(s, &s->stacks[i], k, 1)))
				p[n++] = (struct ckt_sites_pick){ (size_t)s->stacks[i].site, i, v, NULL };
		}
		qsort(p, n, sizeof(*p), ckt_sites_cmp_pick_site);
		for (size_t g = 0; g < n;) {
			size_t e = g;
			while (e < n && p[e].site == p[g].site)
				e++;
			struct ckt_sites_site *site = &s->sites[p[g].site];
			site->n_stacks[k] = ckt_sites_distinct(p + g, e - g);
			size_t m = ckt_sites_branch(s, p + g, e - g, site->path_bytes[k]);
			size_t pick = 0;
			for (size_t i = 0; i < m; i++) {
				if (p[g + i].v > p[g + pick].v ||
				    (p[g + i].v == p[g + pick].v && p[g + i].stack < p[g + pick].stack))
					pick = i;
			}
			site->best_stack[k] = p[g + pick].stack;
			g = e;
		}
	}
	free(p);
	return 0;
}

/* A stack's anonymous mappings live at moment m: what it counts toward RSS then, less its heap
 * blocks and its CUDA pinned memory */
static int64_t ckt_sites_anon_at(const struct ckt_sites *s, const struct ckt_sites_stack *st, enum ckt_moment m)
{
	int64_t v = ckt_tracked_at(ckt_sites_t(st, T_RSS), s->epochs, m) - ckt_tracked_at(ckt_sites_t(st, T_HEAP), s->epochs, m);
	if (st->pin)
		v -= ckt_tracked_at(&s->pins[st->pin - 1].t[0], s->epochs, m);
	return v;
}

/* The allocators whose mappings are live at the peak RSS or the peak mmap, by those bytes (at
 * the peak RSS first), each named by the frame of its stack that holds the most then. */
static void ckt_sites_untraced_sum(struct ckt_sites *s)
{
	struct ckt_sites_untraced *u = s->untraced;
	uint64_t best[CKT_SITES_ALLOCATORS] = { 0 };
	memset(u, 0, sizeof(s->untraced));
	for (size_t a = 0; a < s->n_alloc_stacks; a++) {
		const struct ckt_sites_alloc_stack *as = &s->alloc_stacks[a];
		const struct ckt_sites_stack *st = &s->stacks[as->stack];
		if (ckt_sites_allocators[as->kind].arenas && st->anon_odd)
			continue; /* the interpreter's own mappings (its frames' data stack) */
		uint64_t rss = ckt_sites_pos(ckt_sites_anon_at(s, st, CKT_AT_PEAK_RSS));
		uint64_t mm = ckt_sites_pos(ckt_sites_anon_at(s, st, CKT_AT_PEAK_MMAP));
		if (!rss && !mm)
			continue;
		struct ckt_sites_untraced *x = &u[as->kind];
		x->bytes_at_peak_rss += rss;
		x->bytes_at_peak_mmap += mm;
		/* ties to the stack seen first: the same output at every run */
		uint64_t weight = rss ? rss + ((uint64_t)1 << 62) : mm;
		if (!x->name || weight > best[as->kind]) {
			best[as->kind] = weight;
			x->function = as->function;
			x->module = as->module;
		}
		x->name = ckt_sites_allocators[as->kind].name;
		x->arenas = ckt_sites_allocators[as->kind].arenas;
	}
	size_t n = 0;
	for (int k = 0; k < CKT_SITES_ALLOCATORS; k++)
		if (u[k].name)
			u[n++] = u[k];
	for (size_t k = n; k < CKT_SITES_ALLOCATORS; k++)
		memset(&u[k], 0, sizeof(u[k]));
	/* a few entries: insertion sort, stable */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (u[j].bytes_at_peak_rss > u[j - 1].bytes_at_peak_rss ||
					    (u[j].bytes_at_peak_rss == u[j - 1].bytes_at_peak_rss &&
					     u[j].bytes_at_peak_mmap > u[j - 1].bytes_at_peak_mmap)); j--) {
			struct ckt_sites_untraced t = u[j];
			u[j] = u[j - 1];
			u[j - 1] = t;
		}
	s->n_untraced = n;
}

bool ckt_sites_untraced(const struct ckt_sites *s, size_t i, struct ckt_sites_untraced *u)
{
	if (!s || i >= s->n_untraced)
		return false;
	*u = s->untraced[i];
	return true;
}

int ckt_sites_finish(struct ckt_sites *s, const struct ckt_replay_stats *st, unsigned top)
{
	if (s->err)
		return s->err;
	/* the results must outlive the replay */
	memcpy(s->final_epochs, s->epochs, sizeof(s->final_epochs));
	s->epochs = s->final_epochs;
	s->peak[K_HEAP] = st->peak_heap.bytes;
	s->peak_ts[K_HEAP] = st->peak_heap.ts;
	s->has_rss = st->peak_rss.seen;
	s->peak[K_RSS] = st->peak_rss.seen ? st->peak_rss.bytes : 0;
	s->peak_ts[K_RSS] = st->peak_rss.ts;
	s->peak[K_GPU] = st->peak_gpu.bytes;
	s->peak_ts[K_GPU] = st->peak_gpu.ts;
	s->peak[K_PINNED] = st->peak_pinned.bytes;
	s->peak_ts[K_PINNED] = st->peak_pinned.ts;
	s->peak[K_EXIT] = st->heap_bytes;
	s->peak[K_GPU_EXIT] = st->gpu_bytes;
	s->peak[K_PINNED_EXIT] = st->pinned_bytes;
	s->peak_ts[K_EXIT] = s->peak_ts[K_GPU_EXIT] = s->peak_ts[K_PINNED_EXIT] = st->duration_ns;
	s->ended = st->ended;
	s->sampled = st->sample_r != 0;
	s->sample_r = st->sample_r;
	s->rss_heap = st->peak_rss.seen ? st->peak_rss.heap_bytes : 0;
	s->has_agg = st->agg_threads > 0;
	s->heap_allocs = st->counts[CKT_KIND_ALLOC] + st->counts[CKT_KIND_REALLOC];

	for (size_t i = 0; i < s->n_stacks; i++) {
		int64_t v[K_COUNT], nb[K_COUNT];
		bool need = s->own_peaks && (s->stacks[i].allocs || s->stacks[i].gpu_allocs);
		for (int k = 0; k < K_COUNT; k++) {
			v[k] = ckt_sites_at(s, &s->stacks[i], k, 0);
			nb[k] = ckt_sites_at(s, &s->stacks[i], k, 1);
			need |= ckt_sites_listed(k, v[k], nb[k]);
		}
		/* every stack that allocated: the list by allocations names them (since 0.2.26),
		 * as far as it shows them when no other list needs them; and for --diff one that
		 * allocated CUDA device memory only, looked at for the source files of a name
		 * (ckt_sites_key; since 0.2.59) */
		if (!need && !s->stacks[i].allocs && !(s->keep_gpu && s->stacks[i].gpu_allocs))
			continue;
		bool late = s->own_peaks && s->stacks[i].site < 0;
		long si = ckt_sites_resolve_as(s, i, !need);
		if (si < 0)
			return CKT_ENOMEM;
		struct ckt_sites_stack *sk = &s->stacks[i];
		struct ckt_sites_site *site = &s->sites[si];
		for (int k = 0; k < K_COUNT; k++) {
			site->at[k] += ckt_sites_pos(v[k]);
			site->n_at[k] += ckt_sites_pos(nb[k]);
			site->heap_at[k] += ckt_sites_pos(ckt_sites_heap_at(s, sk, k, 0));
			site->heap_n_at[k] += ckt_sites_pos(ckt_sites_heap_at(s, sk, k, 1));
			site->smp[k] += ckt_sites_pos(ckt_sites_smp_at(s, &s->stacks[i], k));
			site->smpb[k] += ckt_sites_pos(ckt_sites_smpb_at(s, i, k));
		}
		site->allocs += sk->allocs;
		site->allocs_var += sk->allocs_var;
		site->alloc_bytes += sk->alloc_bytes;
		site->temps += sk->temps;
		site->gpu_allocs += sk->gpu_allocs;
		site->gpu_alloc_bytes += sk->gpu_alloc_bytes;
		site->sampled |= sk->sampled;
		if (sk->alloc_bytes >= site->most_alloc) {
			site->most_alloc = sk->alloc_bytes;
			site->most_stack = i;
		}
		if (sk->allocs > site->most_calls) {
			site->most_calls = sk->allocs;
			site->calls_stack = i;
		}
		/* a stack whose record came after its events: its own peak is a lower bound */
		if (late && ckt_sites_t(sk, T_RSS)->max > site->max)
			site->max = ckt_sites_t(sk, T_RSS)->max;
	}

	/* the sites hold the samples' bytes now: their stacks' counters are read no more */
	free(s->smpb);
	s->smpb = NULL;
	s->cap_smpb = 0;
	ckt_sites_untraced_sum(s);
	ckt_sites_sorting = s;
	if (ckt_sites_paths(s) < 0)
		return CKT_ENOMEM;
	for (int k = 0; k < K_COUNT; k++) {
		s->order[k] = malloc((s->n_sites ? s->n_sites : 1) * sizeof(size_t));
		if (!s->order[k])
			return CKT_ENOMEM;
		size_t n = 0;
		for (size_t i = 0; i < s->n_sites; i++)
			if (ckt_sites_listed(k, (int64_t)s->sites[i].at[k], (int64_t)s->sites[i].n_at[k]))
				s->order[k][n++] = i;
		ckt_sites_sort_k = k;
		qsort(s->order[k], n, sizeof(size_t), ckt_sites_cmp_moment);
		s->n_nonzero[k] = n;
		s->n_order[k] = n < top ? n : top;
		for (size_t i = 0; i < n; i++) {
			s->sum[k] += s->sites[s->order[k][i]].at[k];
			s->smp_sum[k] += s->sites[s->order[k][i]].smp[k];
		}
	}
	s->by_calls = malloc((s->n_sites ? s->n_sites : 1) * sizeof(size_t));
	if (!s->by_calls)
		return CKT_ENOMEM;
	for (size_t i = 0; i < s->n_sites; i++)
		if (s->sites[i].allocs) {
			s->by_calls[s->n_calling++] = i;
			s->calls_var += s->sites[i].allocs_var;
			s->temps += s->sites[i].temps;
			s->calls_estimated |= s->sites[i].sampled;
		}
	qsort(s->by_calls, s->n_calling, sizeof(size_t), ckt_sites_cmp_calls);
	s->n_by_calls = s->n_calling < top ? s->n_calling : top;
	s->by_temps = malloc((s->n_sites ? s->n_sites : 1) * sizeof(size_t));
	if (!s->by_temps)
		return CKT_ENOMEM;
	for (size_t i = 0; i < s->n_sites; i++)
		if (s->sites[i].temps)
			s->by_temps[s->n_temping++] = i;
	qsort(s->by_temps, s->n_temping, sizeof(size_t), ckt_sites_cmp_temps);
	s->n_by_temps = s->n_temping < top ? s->n_temping : top;
	/* the stacks the lists by allocations show, whole as every other list's (since 0.2.61;
	 * one symbolized only as far as those lists show, shallow, had its JSON frames cut
	 * there, but not under --sites-csv, which symbolizes every stack that allocated whole) */
	for (size_t i = 0; i < s->n_by_calls + s->n_by_temps; i++)
		if (ckt_sites_whole(s, s->sites[i < s->n_by_calls ? s->by_calls[i] : s->by_temps[i - s->n_by_calls]].calls_stack) < 0)
			return CKT_ENOMEM;
	s->csv = malloc((s->n_sites ? s->n_sites : 1) * sizeof(size_t));
	if (!s->csv)
		return CKT_ENOMEM;
	for (size_t i = 0; i < s->n_sites; i++)
		s->csv[s->n_csv++] = i;
	qsort(s->csv, s->n_csv, sizeof(size_t), ckt_sites_cmp_csv);
	ckt_sites_sorting = NULL;
	return 0;
}

/* ---- results ---- */

static int ckt_sites_k(enum ckt_moment m)
{
	for (int k = 0; k < K_COUNT; k++)
		if (ckt_sites_moment[k] == m)
			return k;
	return -1;
}

bool ckt_sites_top(const struct ckt_sites *s, enum ckt_moment m, size_t i, struct ckt_sites_entry *e)
{
	int k = ckt_sites_k(m);
	if (k < 0 || !s->order[k] || i >= s->n_order[k])
		return false;
	const struct ckt_sites_site *site = &s->sites[s->order[k][i]];
	const struct ckt_sites_stack *st = &s->stacks[site->best_stack[k]];
	e->bytes = site->at[k];
	e->count = ckt_sites_count(site->n_at[k]);
	e->heap_bytes = site->heap_at[k];
	e->heap_count = ckt_sites_count(site->heap_n_at[k]);
	e->estimate = site->smp[k] > 0;
	e->samples = site->smp[k];
	e->sampled_bytes = site->smpb[k] < e->bytes ? site->smpb[k] : e->bytes;
	e->site = site->key;
	e->frames = st->sym;
	e->nframes = st->nsym;
	e->site_frame = st->site_frame;
	e->stacks = site->n_stacks[k];
	memcpy(e->callers_bytes, site->path_bytes[k], sizeof(e->callers_bytes));
	return true;
}

static void ckt_sites_calls_of(const struct ckt_sites *s, const struct ckt_sites_site *site,
			       struct ckt_sites_calls *c);

bool ckt_sites_by_calls(const struct ckt_sites *s, size_t i, struct ckt_sites_calls *c)
{
	if (!s->by_calls || i >= s->n_by_calls)
		return false;
	ckt_sites_calls_of(s, &s->sites[s->by_calls[i]], c);
	return true;
}

void ckt_sites_keep_gpu(struct ckt_sites *s)
{
	s->keep_gpu = true;
}

const char *ckt_sites_key(const struct ckt_sites *s, size_t i)
{
	return i < s->n_sites ? s->sites[i].key : NULL;
}

bool ckt_sites_by_temps(const struct ckt_sites *s, size_t i, struct ckt_sites_calls *c)
{
	if (!s->by_temps || i >= s->n_by_temps)
		return false;
	ckt_sites_calls_of(s, &s->sites[s->by_temps[i]], c);
	return true;
}

static void ckt_sites_calls_of(const struct ckt_sites *s, const struct ckt_sites_site *site,
			       struct ckt_sites_calls *c)
{
	const struct ckt_sites_stack *st = &s->stacks[site->calls_stack];
	c->count = ckt_sites_count(site->allocs);
	c->error = (uint64_t)llround(sqrt(site->allocs_var));
	c->bytes = site->alloc_bytes;
	c->temps = site->temps;
	c->temps_known = !s->sampled;
	c->estimate = site->sampled;
	c->site = site->key;
	c->frames = st->sym;
	c->nframes = st->nsym;
	c->site_frame = st->site_frame;
}

void ckt_sites_calls_total(const struct ckt_sites *s, struct ckt_sites_calls_rest *r)
{
	uint64_t listed = 0, listed_bytes = 0, bytes = 0, all = 0;
	bool other_est = false;
	for (size_t i = 0; i < s->n_calling; i++) {
		const struct ckt_sites_site *site = &s->sites[s->by_calls[i]];
		/* each site's count rounded as its line shows it, the total and the rest their
		 * sums: the default mode's counts are sums of fractional weights, and a total
		 * rounded once read 8311 over listed rows of 8312 (a rest of -1, shown as 0; or 1
		 * with no other site), before 0.2.56 */
		uint64_t n = ckt_sites_count(site->allocs);
		bytes += site->alloc_bytes;
		all += n;
		if (i < s->n_by_calls) {
			listed += n;
			listed_bytes += site->alloc_bytes;
		} else {
			other_est |= site->sampled;
		}
	}
	r->count = all;
	r->error = (uint64_t)llround(sqrt(s->calls_var));
	r->sites = s->n_calling;
	/* in the default mode the small blocks' calls count only through samples, whether or
	 * not one came: estimates, which miss the calls of sites no sample stands for */
	r->estimate = s->calls_estimated || s->has_agg;
	r->missing = s->has_agg;
	r->other_sites = s->n_calling - s->n_by_calls;
	r->other_count = all - listed;
	r->other_bytes = bytes - listed_bytes;
	r->other_estimate = other_est;
	/* the list by temporaries: its own rest */
	uint64_t listed_temps = 0;
	for (size_t i = 0; i < s->n_by_temps; i++)
		listed_temps += s->sites[s->by_temps[i]].temps;
	r->temps_known = !s->sampled;
	r->temps = s->temps;
	r->temp_sites = s->n_temping;
	r->other_temp_sites = s->n_temping - s->n_by_temps;
	r->other_temps = s->temps - listed_temps;
}

void ckt_sites_rest(const struct ckt_sites *s, enum ckt_moment m, struct ckt_sites_rest *r)
{
	memset(r, 0, sizeof(*r));
	int k = ckt_sites_k(m);
	if (k < 0 || !s->order[k])
		return;
	uint64_t listed = 0;
	for (size_t i = 0; i < s->n_order[k]; i++)
		listed += s->sites[s->order[k][i]].at[k];
	r->other_sites = s->n_nonzero[k] - s->n_order[k];
	r->other_bytes = s->sum[k] - listed;
	/* at the peak RSS the sites hold what was allocated, resident or not, and the rest of
	 * the RSS is the report's `unexplained`: no remainder of the sites' own */
	r->has_unattributed = k != K_RSS;
	if (r->has_unattributed)
		r->unattributed = (int64_t)(s->peak[k] - s->sum[k]);
	/* sqrt(R x the small blocks' bytes), as the mode line's: what the samples stand for
	 * (about R each) and, where they fall short, the bytes they miss (with no sample live
	 * at all, R x sqrt(samples) said +-0 B of a real shortfall) */
	uint64_t small = s->sample_r * s->smp_sum[k] + (r->unattributed > 0 ? (uint64_t)r->unattributed : 0);
	r->error_bytes = s->sample_r ? (uint64_t)sqrt((double)s->sample_r * (double)small) : 0;
}

/* Control characters and invalid UTF-8 from debug info or paths are shown as '?'
 * (ckt_util_clean_len: a terminal must not be driven by them); ';' too in folded frames,
 * where it separates frames. */
static void ckt_sites_put(FILE *f, const char *str, bool folded)
{
	if (folded)
		ckt_util_put_clean_sep(f, str, ';', "?");
	else
		ckt_util_put_clean(f, str, strlen(str));
}

/* Whether the report said what a frame in no module is, and whether the tracer's module map
 * filled (then such a frame may also be a library's) */
struct ckt_sites_bare {
	bool said, module_map_full;
};

/* A frame in no module: ckt_sites_frame_str's "0xaddr", a bare address (a module's frames
 * read "module+0xoff", a named one "function (...)") */
static bool ckt_sites_bare(const char *str)
{
	return str[0] == '0' && str[1] == 'x' && !strpbrk(str, "+ (");
}

/* A listed site's lines: the site, then the callers shown, each with its bytes when
 * callers_bytes is given. The first time a report shows a frame in no module (*said false),
 * one line says what such a frame is (since 0.2.47: a JIT's frames, the JVM's or V8's in
 * Node.js, read as bare addresses with no word) */
static void ckt_sites_text_frames(FILE *out, const char *site, const char *const *frames, size_t nframes,
				  size_t site_frame, const uint64_t *callers_bytes, struct ckt_sites_bare *said)
{
	char h[32];
	const char *bare = ckt_sites_bare(site) ? site : NULL;
	fputs("      ", out);
	ckt_sites_put(out, site, false);
	fputc('\n', out);
	for (size_t j = site_frame + 1; j < nframes && j <= site_frame + CKT_SITES_SHORT; j++) {
		fputs("      <- ", out);
		ckt_sites_put(out, frames[j], false);
		if (!bare && ckt_sites_bare(frames[j]))
			bare = frames[j];
		if (callers_bytes)
			fprintf(out, "  [%s]", ckt_util_fmt_bytes(h, sizeof(h), callers_bytes[j - site_frame - 1]));
		fputc('\n', out);
	}
	if (bare && !said->said) {
		said->said = true;
		fprintf(out, "      (%s lies in no module the trace knows: code generated while the program ran, a JIT's "
			"(the JVM's, Node.js's V8) or a trampoline, which no symbol names; the named frames around it "
			"say which runtime ran it%s)\n", bare,
			said->module_map_full ? "; or a library left out of the module map, which filled (tracer limits)" : "");
	}
}

/* The lines after a moment's list: the sites not listed, and the moment's bytes in no site
 * (in the default mode, what the samples' estimates miss or exceed). */
static void ckt_sites_text_rest(FILE *out, const struct ckt_sites *s, int k)
{
	char h[32], e[32];
	struct ckt_sites_rest r;
	const char *of = ckt_sites_of(k);
	ckt_sites_rest(s, ckt_sites_moment[k], &r);
	double peak = s->peak[k] ? (double)s->peak[k] : 1.0;
	if (r.other_sites)
		fprintf(out, "  and %" PRIu64 " other site%s: %s (%" PRIu64 " bytes), %.1f%% of %s (--top N lists more)\n",
			r.other_sites, r.other_sites == 1 ? "" : "s", ckt_util_fmt_bytes(h, sizeof(h), r.other_bytes),
			r.other_bytes, 100.0 * (double)r.other_bytes / peak, of);
	if (!r.has_unattributed || !r.unattributed)
		return;
	uint64_t d = r.unattributed > 0 ? (uint64_t)r.unattributed : -(uint64_t)r.unattributed;
	ckt_util_fmt_bytes(h, sizeof(h), d);
	ckt_util_fmt_bytes(e, sizeof(e), r.error_bytes);
	if (!s->sampled)
		fprintf(out, "  in no site: %s (%" PRIu64 " bytes), %.1f%% of %s\n", h, d, 100.0 * (double)d / peak, of);
	else if (r.unattributed > 0)
		/* a shortfall past three times the error is seldom the samples' chance: with many
		 * tiny blocks it is mostly the usable bytes the heap counts past the sizes asked
		 * for (8 of 104 for each 96-byte block), which no site estimates (said since 0.2.44:
		 * 27.5 MiB short against +-12.5 MiB read as a sampling error of 2.2 sigma) */
		fprintf(out, "  in no site's estimate: %s (%" PRIu64 " bytes), %.1f%% of %s, small blocks "
			"(sampling error of the sites' sum: about +-%s%s)\n", h, d, 100.0 * (double)d / peak, of, e,
			d / 3 > r.error_bytes ? "; past it, most likely the usable bytes the heap counts beyond the "
						"sizes asked for, which no site estimates" : "");
	else
		fprintf(out, "  the sites' estimates exceed %s by %s (%" PRIu64 " bytes) (sampling error of the "
			"sites' sum: about +-%s)\n", of, h, d, e);
}

static void ckt_sites_text_moment(FILE *out, const struct ckt_sites *s, int k, const char *label, struct ckt_sites_bare *said)
{
	char h[32], t[32];
	fprintf(out, "top sites %s", label);
	if (!s->n_order[k]) {
		uint64_t heap = k == K_RSS ? s->rss_heap : k == K_EXIT || k == K_HEAP ? s->peak[k] : 0;
		if (heap && s->sampled)
			fprintf(out, ": none sampled (%s of heap%s in blocks under the default mode's sampling "
				"rate; CUZKTRACE_SAMPLE=0 records every block)\n\n",
				ckt_util_fmt_bytes(h, sizeof(h), heap), k == K_RSS ? " then" : "");
		else
			fputs(k == K_RSS && !s->has_rss ? ": no RSS samples in the trace\n\n" : ": none\n\n", out);
		return;
	}
	fprintf(out, " (%s%s at %s s; %zu of %zu site%s)\n",
		k == K_EXIT ? "heap " : k == K_GPU_EXIT ? "GPU memory " : k == K_PINNED_EXIT ? "pinned " : "",
		ckt_util_fmt_bytes(h, sizeof(h), s->peak[k]), ckt_util_fmt_secs(t, sizeof(t), s->peak_ts[k], 6),
		s->n_order[k], s->n_nonzero[k], s->n_nonzero[k] == 1 ? "" : "s");
	for (size_t i = 0; i < s->n_order[k]; i++) {
		struct ckt_sites_entry e;
		ckt_sites_top(s, ckt_sites_moment[k], i, &e);
		double share = s->peak[k] ? 100.0 * (double)e.bytes / (double)s->peak[k] : 0.0;
		/* at the peak RSS a site's bytes are those allocated, resident or not: a calloc'd
		 * buffer never touched can hold more than the RSS */
		bool over_rss = k == K_RSS && share > 100.0 && !e.estimate;
		fprintf(out, "  #%zu  %s (%" PRIu64 " bytes), %.1f%% of %s%s, %" PRIu64 " allocation%s live%s\n",
			i + 1, ckt_util_fmt_bytes(h, sizeof(h), e.bytes), e.bytes, share,
			ckt_sites_of(k), over_rss ? " (allocated, not all resident)" : "", e.count, e.count == 1 ? "" : "s",
			e.estimate ? " (estimated from samples)" : "");
		/* several stacks: what goes through each caller shown, as a bottom-up tree's
		 * heaviest branch would say */
		ckt_sites_text_frames(out, e.site, e.frames, e.nframes, e.site_frame,
				      e.stacks > 1 ? e.callers_bytes : NULL, said);
		if (e.stacks > 1)
			fprintf(out, "      (%" PRIu64 " call stacks in all; [bytes] through each caller; --folded has every stack)\n",
				e.stacks);
	}
	ckt_sites_text_rest(out, s, k);
	fputc('\n', out);
}

/* "top sites by allocations": the calls that made heap blocks and mappings, by site (the
 * allocator's own time and the heap's churn, whatever the peaks) */
static void ckt_sites_text_calls(FILE *out, const struct ckt_sites *s, struct ckt_sites_bare *said)
{
	char h[32];
	struct ckt_sites_calls_rest r;
	ckt_sites_calls_total(s, &r);
	uint64_t total = r.count;
	size_t n = r.sites;
	fputs("top sites by allocations", out);
	if (!s->n_by_calls) {
		fputs(s->has_agg ? ": none sampled (blocks under the default mode's sampling rate count here only "
				   "through samples; CUZKTRACE_SAMPLE=0 records every block)\n\n"
				 : ": none\n\n", out);
		return;
	}
	fprintf(out, " (%zu of %zu site%s; %" PRIu64 " allocation%s in all", s->n_by_calls, n, n == 1 ? "" : "s",
		total, total == 1 ? "" : "s");
	if (r.estimate)
		fprintf(out, ", estimated from samples, +-%" PRIu64, r.error);
	fputs(")\n", out);
	if (r.missing)
		fputs("  (small blocks count only through their samples: a site none of whose calls was sampled is "
		      "missing, and the error does not cover it, nor a site's calls of sizes none of which was "
		      "sampled; CUZKTRACE_SAMPLE=0 counts every call)\n", out);
	struct ckt_sites_calls c;
	for (size_t i = 0; ckt_sites_by_calls(s, i, &c); i++) {
		fprintf(out, "  #%zu  %" PRIu64 " allocation%s, %.1f%% of all, %s (%" PRIu64 " bytes) allocated", i + 1,
			c.count, c.count == 1 ? "" : "s", total ? 100.0 * (double)c.count / (double)total : 0.0,
			ckt_util_fmt_bytes(h, sizeof(h), c.bytes), c.bytes);
		if (c.estimate)
			fprintf(out, " (estimated from samples, +-%" PRIu64 " allocations)", c.error);
		fputc('\n', out);
		ckt_sites_text_frames(out, c.site, c.frames, c.nframes, c.site_frame, NULL, said);
	}
	if (r.other_sites)
		fprintf(out, "  and %zu other site%s: %" PRIu64 " allocation%s, %.1f%% of all, %s (%" PRIu64
			" bytes) allocated%s (--top N lists more)\n", r.other_sites, r.other_sites == 1 ? "" : "s",
			r.other_count, r.other_count == 1 ? "" : "s",
			total ? 100.0 * (double)r.other_count / (double)total : 0.0,
			ckt_util_fmt_bytes(h, sizeof(h), r.other_bytes), r.other_bytes,
			r.other_estimate ? " (estimated from samples)" : "");
	fputc('\n', out);
}

/* "top sites by temporary allocations" (exact mode): heap blocks freed by their thread before
 * it allocated again (heaptrack's "most temporary allocations", per thread) */
static void ckt_sites_text_temps(FILE *out, const struct ckt_sites *s, struct ckt_sites_bare *said)
{
	struct ckt_sites_calls_rest r;
	ckt_sites_calls_total(s, &r);
	fputs("top sites by temporary allocations", out);
	if (!r.temps_known) {
		fputs(": not counted in the default mode (CUZKTRACE_SAMPLE=0 counts them)\n\n", out);
		return;
	}
	if (!s->n_by_temps) {
		fputs(": none\n\n", out);
		return;
	}
	fprintf(out, " (%zu of %zu site%s; %" PRIu64 " in all, %.1f%% of %" PRIu64 " heap allocation%s)\n",
		s->n_by_temps, r.temp_sites, r.temp_sites == 1 ? "" : "s", r.temps,
		s->heap_allocs ? 100.0 * (double)r.temps / (double)s->heap_allocs : 0.0, s->heap_allocs,
		s->heap_allocs == 1 ? "" : "s");
	struct ckt_sites_calls c;
	for (size_t i = 0; ckt_sites_by_temps(s, i, &c); i++) {
		fprintf(out, "  #%zu  %" PRIu64 " temporary allocation%s, %.1f%% of them; %.1f%% of the site's %" PRIu64
			" allocation%s\n", i + 1, c.temps, c.temps == 1 ? "" : "s", 100.0 * (double)c.temps / (double)r.temps,
			c.count ? 100.0 * (double)c.temps / (double)c.count : 0.0, c.count, c.count == 1 ? "" : "s");
		ckt_sites_text_frames(out, c.site, c.frames, c.nframes, c.site_frame, NULL, said);
	}
	if (r.other_temp_sites)
		fprintf(out, "  and %zu other site%s: %" PRIu64 " temporary allocation%s, %.1f%% of them (--top N lists more)\n",
			r.other_temp_sites, r.other_temp_sites == 1 ? "" : "s", r.other_temps,
			r.other_temps == 1 ? "" : "s", 100.0 * (double)r.other_temps / (double)r.temps);
	fputc('\n', out);
}

void ckt_sites_print_text(FILE *out, const struct ckt_sites *s, bool module_map_full)
{
	/* the line on frames in no module: once; a module map that filled leaves libraries out too */
	struct ckt_sites_bare said = {false, module_map_full};
	ckt_sites_text_moment(out, s, K_HEAP, "at peak heap", &said);
	ckt_sites_text_moment(out, s, K_RSS, "at peak RSS", &said);
	if (s->peak[K_GPU])
		ckt_sites_text_moment(out, s, K_GPU, "at peak GPU memory", &said);
	if (s->peak[K_PINNED])
		ckt_sites_text_moment(out, s, K_PINNED, "at peak CUDA pinned host memory", &said);
	ckt_sites_text_moment(out, s, K_EXIT, s->ended ? "live at exit" : "live at cut", &said);
	/* CUDA memory left live (since 0.2.43): shown when there is some */
	if (s->peak[K_GPU_EXIT])
		ckt_sites_text_moment(out, s, K_GPU_EXIT, s->ended ? "with GPU memory live at exit"
							     : "with GPU memory live at cut", &said);
	if (s->peak[K_PINNED_EXIT])
		ckt_sites_text_moment(out, s, K_PINNED_EXIT, s->ended ? "with CUDA pinned host memory live at exit"
								: "with CUDA pinned host memory live at cut", &said);
	ckt_sites_text_calls(out, s, &said);
	ckt_sites_text_temps(out, s, &said);
}

static int ckt_sites_status(FILE *f)
{
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

int ckt_sites_write_csv(const struct ckt_sites *s, FILE *f)
{
	fputs("site,bytes_at_peak_rss,bytes_at_peak_heap,site_peak_bytes,allocated_bytes,allocations,"
	      "bytes_at_peak_gpu,stack,bytes_at_exit,estimated,gpu_allocated_bytes,gpu_allocations,"
	      "temporary_allocations\n", f);
	for (size_t r = 0; r < s->n_csv; r++) {
		const struct ckt_sites_site *site = &s->sites[s->csv[r]];
		size_t which = site->at[K_RSS] ? site->best_stack[K_RSS]
			       : site->at[K_HEAP] ? site->best_stack[K_HEAP]
			       : site->at[K_GPU]  ? site->best_stack[K_GPU]
			       : site->at[K_EXIT] ? site->best_stack[K_EXIT]
						  : site->most_stack;
		const struct ckt_sites_stack *st = &s->stacks[which];
		ckt_util_put_csv(f, site->key, true); /* always quoted; a module path's bytes cleaned */
		/* bytes_at_peak_rss: empty without RSS samples, where there is no such moment (JSON's
		 * null, the text's '-'; it read 0 for every site) */
		fputc(',', f);
		if (s->has_rss)
			fprintf(f, "%" PRIu64, site->at[K_RSS]);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			site->at[K_HEAP], ckt_sites_pos(site->max), site->alloc_bytes,
			ckt_sites_count(site->allocs), site->at[K_GPU]);
		fputc('"', f);
		for (uint32_t j = 0; j < st->nsym; j++) {
			if (j)
				fputs(" <- ", f);
			ckt_util_put_csv_inner(f, st->sym[j]);
		}
		/* estimated: its figures come partly from the default mode's samples */
		fprintf(f, "\",%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64 ",", site->at[K_EXIT],
			site->sampled || site->smp[K_EXIT] > 0, site->gpu_alloc_bytes, site->gpu_allocs);
		/* temporary_allocations: empty in the default mode, where they are not counted */
		if (!s->sampled)
			fprintf(f, "%" PRIu64, site->temps);
		fputc('\n', f);
	}
	return ckt_sites_status(f);
}

/* A folded line: a stack that stands for every stack with its frames, and their bytes */
struct ckt_sites_line {
	uint32_t idx;
	uint64_t bytes;
};

/* The lines are sorted by their text without formatting them: each distinct frame string is
 * cleaned once (as it is written), and two lines compare as strcmp compares their texts, byte
 * by byte, a frame the two lines share at one place passed over at once. Formatting every line
 * first held the whole file in memory until the sort: 1,048,576 live stacks of 25 frames wrote
 * 805 MB and took as much again of the reader's memory. */
struct ckt_sites_fold {
	const struct ckt_sites *s;
	struct ckt_util_map index; /* frame string -> index in text */
	char **text;		   /* each frame string as written in a folded line */
	size_t n, cap;
};

static const char *ckt_sites_fold_text(const struct ckt_sites_fold *fo, const char *frame)
{
	uint64_t v = 0;
	ckt_util_map_get(&fo->index, (uint64_t)(uintptr_t)frame, &v);
	return fo->text[v];
}

static int ckt_sites_fold_add(struct ckt_sites_fold *fo, const char *frame)
{
	uint64_t v;
	if (ckt_util_map_get(&fo->index, (uint64_t)(uintptr_t)frame, &v))
		return 0;
	if (fo->n == fo->cap) {
		char **t = ckt_util_grow(fo->text, &fo->cap, sizeof(*t), 64);
		if (!t)
			return -ENOMEM;
		fo->text = t;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	if (!mf)
		return -ENOMEM;
	ckt_sites_put(mf, frame, true);
	if (fclose(mf) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	if (ckt_util_map_put(&fo->index, (uint64_t)(uintptr_t)frame, fo->n) < 0) {
		free(buf);
		return -ENOMEM;
	}
	fo->text[fo->n++] = buf;
	return 0;
}

/* reads a line's text: its frames root first, joined by ';' */
struct ckt_sites_fcur {
	const struct ckt_sites_stack *st;
	uint32_t left; /* frames not begun */
	bool begun;    /* a frame was begun: the next one comes after a ';' */
	const char *p; /* the rest of the frame being read */
};

/* the next byte of the text, 0 at its end */
static int ckt_sites_fcur_next(struct ckt_sites_fcur *c, const struct ckt_sites_fold *fo)
{
	for (;;) {
		if (*c->p)
			return (unsigned char)*c->p++;
		if (!c->left)
			return 0;
		c->p = ckt_sites_fold_text(fo, c->st->sym[--c->left]);
		if (c->begun)
			return ';';
		c->begun = true;
	}
}

static int ckt_sites_cmp_line(const void *pa, const void *pb, void *ctx)
{
	const struct ckt_sites_fold *fo = ctx;
	const struct ckt_sites_stack *sa = &fo->s->stacks[((const struct ckt_sites_line *)pa)->idx];
	const struct ckt_sites_stack *sb = &fo->s->stacks[((const struct ckt_sites_line *)pb)->idx];
	struct ckt_sites_fcur a = { sa, sa->nsym, false, "" }, b = { sb, sb->nsym, false, "" };
	for (;;) {
		/* both between frames, the same frame string next in both: the same bytes */
		while (!*a.p && !*b.p && a.left && b.left && a.begun == b.begun &&
		       sa->sym[a.left - 1] == sb->sym[b.left - 1]) {
			a.left--;
			b.left--;
			a.begun = b.begun = true;
		}
		int x = ckt_sites_fcur_next(&a, fo), y = ckt_sites_fcur_next(&b, fo);
		if (x != y)
			return x - y;
		if (!x)
			return 0;
	}
}

/* Stacks whose frames are the same interned strings (the same text: symbolized alike from
 * different return addresses) are one line: summed by their frames first, so only distinct
 * lines are formatted. Formatting every live stack first kept about 10 KB per deep stack until
 * the sort (438 MB for 32,000 stacks of 250 frames that made 2 lines). */
static uint64_t ckt_sites_frames_hash(const struct ckt_sites_stack *st)
{
	uint64_t h = st->nsym;
	for (uint32_t j = 0; j < st->nsym; j++)
		h = ckt_util_hash64(h ^ (uint64_t)(uintptr_t)st->sym[j]);
	return h;
}

static bool ckt_sites_same_frames(const struct ckt_sites_stack *a, const struct ckt_sites_stack *b)
{
	return a->nsym == b->nsym && memcmp(a->sym, b->sym, a->nsym * sizeof(*a->sym)) == 0;
}

static int ckt_sites_folded_at(const struct ckt_sites *s, FILE *f, bool heap);

int ckt_sites_write_folded(const struct ckt_sites *s, FILE *f)
{
	return ckt_sites_folded_at(s, f, !s->has_rss);
}

int ckt_sites_write_folded_heap(const struct ckt_sites *s, FILE *f)
{
	return ckt_sites_folded_at(s, f, true);
}

/* heap: the heap bytes live at the peak heap; else what the peak RSS counts */
static int ckt_sites_folded_at(const struct ckt_sites *s, FILE *f, bool heap)
{
	enum ckt_moment m = heap ? CKT_AT_PEAK_HEAP : CKT_AT_PEAK_RSS;
	int t = heap ? T_HEAP : T_RSS;
	size_t cap = 16;
	while (cap < 2 * s->n_stacks)
		cap *= 2;
	/* stack index + 1 (0: empty) and the bytes of every stack with those frames */
	struct {
		uint32_t idx;
		uint64_t bytes;
	} *tab = calloc(cap, sizeof(*tab));
	struct ckt_sites_line *lines = malloc((s->n_stacks ? s->n_stacks : 1) * sizeof(*lines));
	size_t n = 0;
	int rc = 0;

	if (!tab || !lines) {
		free(tab);
		free(lines);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_stacks; i++) {
		const struct ckt_sites_stack *st = &s->stacks[i];
		int64_t v = ckt_tracked_at(ckt_sites_t(st, t), s->epochs, m);
		if (v <= 0 || !st->sym)
			continue;
		size_t k = (size_t)(ckt_sites_frames_hash(st) >> 32) & (cap - 1);
		while (tab[k].idx && !ckt_sites_same_frames(&s->stacks[tab[k].idx - 1], st))
			k = (k + 1) & (cap - 1);
		if (!tab[k].idx)
			tab[k].idx = (uint32_t)i + 1;
		tab[k].bytes += (uint64_t)v;
	}
	for (size_t k = 0; k < cap; k++)
		if (tab[k].idx)
			lines[n++] = (struct ckt_sites_line){ tab[k].idx - 1, tab[k].bytes };
	free(tab);
	struct ckt_sites_fold fo = { .s = s };
	for (size_t i = 0; i < n && !rc; i++) {
		const struct ckt_sites_stack *st = &s->stacks[lines[i].idx];
		for (uint32_t j = 0; j < st->nsym && !rc; j++)
			rc = ckt_sites_fold_add(&fo, st->sym[j]);
	}
	/* different frame strings can print alike (cleaned of ';'): one line each, summed */
	if (!rc)
		qsort_r(lines, n, sizeof(*lines), ckt_sites_cmp_line, &fo);
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t b = lines[i].bytes;
		while (i + 1 < n && ckt_sites_cmp_line(&lines[i], &lines[i + 1], &fo) == 0)
			b += lines[++i].bytes;
		/* flamegraph order: the root (outermost frame) first */
		const struct ckt_sites_stack *st = &s->stacks[lines[i].idx];
		for (uint32_t j = st->nsym; j-- > 0;) {
			fputs(ckt_sites_fold_text(&fo, st->sym[j]), f);
			if (j)
				fputc(';', f);
		}
		fprintf(f, " %" PRIu64 "\n", b);
	}
	for (size_t i = 0; i < fo.n; i++)
		free(fo.text[i]);
	free(fo.text);
	ckt_util_map_free(&fo.index);
	free(lines);
	return rc ? rc : ckt_sites_status(f);
}
