/* hooks_malloc.c: the interposed malloc family. Each hook has one shape: bootstrap check ->
 * reentrancy guard -> real call -> record -> release guard; free records *before* the real free
 * so that no other thread can be handed the same address by an earlier-stamped allocation.
 * Exact mode records the sizes the program asked for; the default mode counts blocks under
 * the sampling rate at their usable size (sample.c, ckt.h).
 *
 * Cost per call beyond the real allocator: see the budget in ckt.h. */
#include "ckt.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Allocation before the real symbols exist (during dlsym, or while another thread resolves
 * them): from the pool, which is zero-filled, so calloc is served too. */
static CKT_NOINLINE void *boot_alloc(size_t n, size_t align)
{
	void *p = ckt_pool_alloc(n, align);
	if (!p)
		errno = ENOMEM;
	return p;
}

/* The first call of the process resolves the real symbols and then takes the normal path, so
 * it is traced like any other; calls made while that runs (dlsym's calloc) get the pool. */
static CKT_NOINLINE int boot_ready(void)
{
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	return ckt_real.malloc != NULL;
}

/* An allocation of n requested bytes at p (usable size u), past the common case of
 * record_alloc: exact mode, or a block at the sampling rate or over. Out of line: its stack
 * capture and emit need registers the common case does without. */
static CKT_NOINLINE void record_alloc_rest(struct ckt_tls *t, void *p, size_t n, size_t u, uint8_t fn)
{
	if (ckt_sample_r)
		ckt_sample_flush(t); /* the small blocks' totals before it: the heap then is exact */
	/* the stack first, then the clock: what the SYNC horizon promises the reader holds only if
	 * little happens between an event's timestamp and its commit */
	uint32_t st = ckt_stacks_capture(t);
	uint64_t b = ckt_slot_size(n, u, &fn);
	ckt_emit(t, CKT_EV_ALLOC, fn, ckt_stamp(t), (uint64_t)(uintptr_t)p, b, st);
}

/* An allocation of n requested bytes at p. Exact mode: one event with stack and phase. Default
 * mode: small blocks only move the thread's running totals (and now and then are sampled):
 * that case is inlined into the hooks, the rest is record_alloc_rest. */
static inline __attribute__((always_inline)) void record_alloc(struct ckt_tls *t, void *p, size_t n, uint8_t fn)
{
	if (CKT_UNLIKELY(p == NULL))
		return;
	/* the header was just written by the allocator: this load hits L1 */
	size_t u = ckt_usable_size(p);
	if (CKT_LIKELY(u < ckt_sample_r)) { /* never in exact mode, where the rate is 0 */
		/* a sample goes out before the running total that counts its block: the total
		 * may make the new heap peak, and the peak's sites and phases must include the
		 * sample */
		if (CKT_UNLIKELY((t->sample_left -= (int64_t)n) <= 0))
			ckt_sample_take(t, p, n, fn);
		ckt_sample_count(t, (int64_t)u, 1);
		return;
	}
	record_alloc_rest(t, p, n, u, fn);
}

/* p, of usable size u, is about to be freed: stamped before the real free (see the file
 * comment), past the common case of record_free. The slot carries the block's usable size for
 * the exit line's running total (summary.c); the header read is one the real free makes right
 * after. A block of the malloc family (own) whose free unmaps it (ckt_block_unmaps) begins a
 * release first: its size, and the caller ends it (ckt_nosample_end) after the real free;
 * else 0. */
static CKT_NOINLINE size_t record_free_rest(struct ckt_tls *t, void *p, int own, size_t u)
{
	size_t big = own && CKT_UNLIKELY(ckt_block_unmaps(p, u)) ? u : 0;
	if (big)
		ckt_nosample_begin(big);
	if (ckt_sample_r) {
		if (CKT_LIKELY(u < ckt_sample_r)) {
			if (CKT_UNLIKELY(ckt_sample_maybe(p)) && ckt_sample_forget(p)) {
				/* the totals before it go first, so that the thread's next AGG holds the
				 * sample's bytes (since 0.2.58: a tick's send of the pending totals could
				 * come right after the sample's free, without it; the reader takes a
				 * sample freed after a held peak out with the AGG that holds it) */
				ckt_sample_flush(t);
				ckt_emit(t, CKT_EV_FREE, CKT_FN_SAMPLED, ckt_stamp(t), (uint64_t)(uintptr_t)p, u, 0);
			}
			ckt_sample_count(t, -(int64_t)u, -1);
			return big;
		}
		ckt_sample_flush(t);
	}
	ckt_emit(t, CKT_EV_FREE, 0, ckt_stamp(t), (uint64_t)(uintptr_t)p, u, 0);
	return big;
}

/* p is about to be freed. The common case of the default mode, inlined into the hooks: a block
 * under the sampling rate, and under what glibc maps on its own (so its free unmaps nothing:
 * ckt_block_unmaps), that the filter says is no sample: only the running totals move. A call
 * to the whole of it, out of line, pushed and popped six registers and a frame for the paths
 * that emit (perf of the default mode on the bench: a fifth of the tracer's samples were
 * record_free's entry and exit). Returns as record_free_rest. */
static inline __attribute__((always_inline)) size_t record_free(struct ckt_tls *t, void *p, int own)
{
	size_t u = ckt_usable_size(p);
	if (CKT_LIKELY(u < ckt_sample_r && u < CKT_GLIBC_MMAP_MIN) && !ckt_sample_maybe(p)) {
		ckt_sample_count(t, -(int64_t)u, -1);
		return 0;
	}
	return record_free_rest(t, p, own, u);
}

/* the same, for the C++ operator new and delete of an allocator that serves them itself
 * (hooks_cxx.c) */
void ckt_heap_record_alloc(struct ckt_tls *t, void *p, size_t n, uint8_t fn)
{
	record_alloc(t, p, n, fn);
}

void ckt_heap_record_free(struct ckt_tls *t, void *p)
{
	/* an allocator serving new and delete itself (hooks_cxx.c, DIRECT) is not glibc, whose
	 * headers ckt_block_unmaps reads (and follows to the next chunk's): not asked, so no
	 * release begins (its frees are not waited for: see ckt_block_unmaps) */
	(void)record_free(t, p, 0);
}

/* A call traced though a guard is up (ckt_inner_traced): glibc's TLS update (from the dynamic
 * linker) while a stack capture brings the thread's TLS table up to date (CKT_GUARD_TLS,
 * stacks.c), or the C++ runtime's exception object (CKT_GUARD_CXX): traced, and the guard
 * given back as it was. Off the traced path: only with such a guard up. */
static CKT_NOINLINE void *inner_alloc(struct ckt_tls *t, size_t nm, size_t sz, uint8_t fn)
{
	int g = t->guard;
	t->guard = CKT_GUARD_HOOK;
	void *p = fn == CKT_FN_CALLOC ? ckt_real.calloc(nm, sz) : ckt_real.malloc(nm);
	t->inner = 1;
	record_alloc(t, p, fn == CKT_FN_CALLOC ? nm * sz : nm, fn);
	t->inner = 0;
	t->guard = g;
	return p;
}

static CKT_NOINLINE void inner_free(struct ckt_tls *t, void *p)
{
	int g = t->guard;
	t->guard = CKT_GUARD_HOOK;
	size_t big = record_free(t, p, 1);
	ckt_real.free(p);
	if (big)
		ckt_nosample_end(big);
	t->guard = g;
}

CKT_EXPORT void *malloc(size_t n)
{
	if (CKT_UNLIKELY(!ckt_real.malloc) && !boot_ready())
		return boot_alloc(n, 16);
	struct ckt_tls *t = &ckt_tls;
	if (!CKT_HOOK_ENTER(t)) {
		if (CKT_UNLIKELY(ckt_inner_traced(t, __builtin_return_address(0))))
			return inner_alloc(t, n, 1, CKT_FN_MALLOC);
		ckt_passed(t, __builtin_return_address(0));
		ckt_child_note(n);
		return CKT_UNLIKELY(t->from_pool) ? boot_alloc(n, 16) : ckt_real.malloc(n);
	}
	t->guard = CKT_GUARD_HOOK;
	void *p = ckt_real.malloc(n);
	record_alloc(t, p, n, CKT_FN_MALLOC);
	t->guard = 0;
	return p;
}

CKT_EXPORT void free(void *p)
{
	if (CKT_UNLIKELY(!p || ckt_pool_owns(p)))
		return;
	if (CKT_UNLIKELY(!ckt_real.free))
		ckt_bootstrap();
	struct ckt_tls *t = &ckt_tls;
	if (CKT_HOOK_ENTER(t)) {
		t->guard = CKT_GUARD_HOOK;
		size_t big = record_free(t, p, 1);
		ckt_real.free(p);
		if (CKT_UNLIKELY(big))
			ckt_nosample_end(big);
		t->guard = 0;
		return;
	}
	if (CKT_UNLIKELY(ckt_inner_traced(t, __builtin_return_address(0)))) {
		inner_free(t, p);
		return;
	}
	ckt_passed(t, __builtin_return_address(0));
	ckt_real.free(p);
}

CKT_EXPORT void *calloc(size_t nm, size_t sz)
{
	size_t n;
	if (__builtin_mul_overflow(nm, sz, &n)) {
		/* the allocator's own answer, errno as it sets it or not (since 0.2.59: tcmalloc's
		 * and mimalloc's leave errno as it was, and the tracer set ENOMEM); nothing to record */
		if (ckt_real.calloc)
			return ckt_real.calloc(nm, sz);
		errno = ENOMEM;
		return NULL;
	}
	if (CKT_UNLIKELY(!ckt_real.malloc) && !boot_ready())
		return boot_alloc(n, 16); /* pool memory is zero */
	struct ckt_tls *t = &ckt_tls;
	if (!CKT_HOOK_ENTER(t)) {
		if (CKT_UNLIKELY(ckt_inner_traced(t, __builtin_return_address(0))))
			return inner_alloc(t, nm, sz, CKT_FN_CALLOC);
		ckt_passed_calloc(t, __builtin_return_address(0));
		ckt_child_note(n);
		return CKT_UNLIKELY(t->from_pool) ? boot_alloc(n, 16) : ckt_real.calloc(nm, sz);
	}
	t->guard = CKT_GUARD_HOOK;
	void *p = ckt_real.calloc(nm, sz);
	t->in_calloc = 1;
	record_alloc(t, p, n, CKT_FN_CALLOC);
	t->in_calloc = 0;
	t->guard = 0;
	return p;
}

/* realloc of a pool block: move it to the real heap (recorded as a new allocation). */
static CKT_NOINLINE void *realloc_from_pool(void *p, size_t n)
{
	void *q = malloc(n);
	if (q) {
		size_t old = ckt_pool_size(p);
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

/* p (u0 usable bytes) became q (n requested, u1 usable), stamped `before` the call and now. */
static inline void record_realloc(struct ckt_tls *t, void *p, size_t u0, void *q, size_t n,
				  size_t u1, uint64_t before, uint32_t st)
{
	uint8_t fn = 0;
	uint64_t b = ckt_slot_size(n, u1, &fn);
	ckt_emit2(t, CKT_EV_REALLOC, fn, before, (uint64_t)(uintptr_t)p, b, ckt_now(),
		  (uint64_t)(uintptr_t)q, u0, st);
}

/* A realloc of p (u0 usable bytes) to n bytes that may change a megabyte or more of resident
 * pages during the call, between the old block's stamp and the new one's (ckt_nosample_begin):
 * a block that grows or shrinks across CKT_NOSAMPLE_MIN, whose copy holds both blocks' pages
 * while the trace shows neither (a Vec of 24 MiB grown to 96 MiB: every sample during the
 * copy read both blocks unexplained). */
static inline size_t realloc_moves(size_t u0, size_t n)
{
	/* the weight wait_cap (rss.c) takes: its copy makes pages */
	return u0 >= CKT_NOSAMPLE_MIN || n >= CKT_NOSAMPLE_MIN ? CKT_NOSAMPLE_MAKES * (u0 > n ? u0 : n) : 0;
}

/* Default mode, p != NULL: the old block is released and the new one allocated, each by the
 * rules of its own size; only a large block moved to a large block stays one REALLOC event. */
static CKT_NOINLINE void *realloc_sampled(struct ckt_tls *t, void *p, size_t n, size_t u0)
{
	int big0 = u0 >= ckt_sample_r;
	int was_sample = !big0 && ckt_sample_maybe(p) && ckt_sample_forget(p);
	if (big0 || was_sample) /* a sample's free: as in record_free_rest */
		ckt_sample_flush(t);
	uint32_t st = big0 ? ckt_stacks_capture(t) : 0; /* before the clock, see record_alloc */
	uint64_t before = big0 || was_sample ? ckt_stamp(t) : 0;
	void *q = ckt_real.realloc(p, n);
	if (!q && n) { /* failed: p is untouched */
		ckt_done(t);
		if (was_sample)
			ckt_sample_remember(p);
		return NULL;
	}
	size_t u1 = q ? ckt_usable_size(q) : 0;
	if (big0 && q && u1 >= ckt_sample_r) {
		record_realloc(t, p, u0, q, n, u1, before, st);
		return q;
	}
	if (big0 || was_sample)
		ckt_emit(t, CKT_EV_FREE, was_sample ? CKT_FN_SAMPLED : 0, before, (uint64_t)(uintptr_t)p,
			 u0, 0);
	if (!big0)
		ckt_sample_count(t, -(int64_t)u0, -1);
	record_alloc(t, q, n, CKT_FN_REALLOC);
	return q;
}

/* ra: the caller's return address (the hook's); the guard is given back as restore_guard
 * (0, or the guard of a call traced under it: see inner_alloc) */
static inline void *realloc_common(void *p, size_t n, uint8_t fn_for_null, const void *ra)
{
	struct ckt_tls *t = &ckt_tls;
	int restore_guard = 0;
	if (!CKT_HOOK_ENTER(t)) {
		if (!CKT_UNLIKELY(ckt_inner_traced(t, ra))) {
			ckt_passed(t, ra);
			ckt_child_note(n);
			return ckt_real.realloc(p, n);
		}
		restore_guard = t->guard;
	}
	t->guard = CKT_GUARD_HOOK;
	void *q;
	if (p && ckt_sample_r) {
		/* a big block's move (see realloc_moves) begun before the stamps, ended after the
		 * new block's */
		size_t u0 = ckt_usable_size(p);
		size_t release = realloc_moves(u0, n);
		if (release)
			ckt_nosample_begin(release);
		q = realloc_sampled(t, p, n, u0);
		if (release)
			ckt_nosample_end(release);
	} else if (!p) {
		q = ckt_real.realloc(p, n);
		record_alloc(t, q, n, fn_for_null);
	} else {
		uint32_t st = ckt_stacks_capture(t); /* the same before and after the call */
		size_t u0 = ckt_usable_size(p);
		size_t release = realloc_moves(u0, n);
		if (release)
			ckt_nosample_begin(release);
		uint64_t before = ckt_stamp(t);
		q = ckt_real.realloc(p, n);
		if (q)
			record_realloc(t, p, u0, q, n, ckt_usable_size(q), before, st);
		else if (n == 0) /* glibc frees p and returns NULL */
			ckt_emit(t, CKT_EV_FREE, 0, before, (uint64_t)(uintptr_t)p, u0, 0);
		else /* failed, p is untouched */
			ckt_done(t);
		if (release) /* after the new block's stamp */
			ckt_nosample_end(release);
	}
	t->guard = restore_guard;
	return q;
}

CKT_EXPORT void *realloc(void *p, size_t n)
{
	if (CKT_UNLIKELY(!ckt_real.malloc) && !boot_ready()) {
		if (!p)
			return boot_alloc(n, 16);
		if (ckt_pool_owns(p)) {
			void *q = boot_alloc(n, 16);
			if (q) {
				size_t old = ckt_pool_size(p);
				memcpy(q, p, old < n ? old : n);
			}
			return q;
		}
	}
	if (CKT_UNLIKELY(p && ckt_pool_owns(p)))
		return realloc_from_pool(p, n);
	return realloc_common(p, n, CKT_FN_REALLOC, __builtin_return_address(0));
}

CKT_EXPORT void *reallocarray(void *p, size_t nm, size_t sz)
{
	size_t n;
	if (__builtin_mul_overflow(nm, sz, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	if (CKT_UNLIKELY(!ckt_real.malloc || (p && ckt_pool_owns(p))))
		return realloc(p, n);
	/* an allocator ahead of the tracer (ckt_check_interposition) that has realloc but not
	 * reallocarray: glibc's reallocarray calls the program's realloc, so this one does too
	 * (the next one's realloc gave a block of another heap to the program's free: abort) */
	__typeof__(realloc) *foreign = ckt_program_realloc();
	if (CKT_UNLIKELY(foreign != NULL))
		return foreign(p, n);
	return realloc_common(p, n, CKT_FN_REALLOCARRAY, __builtin_return_address(0));
}

/* The aligned family. `how` selects the real entry point; a missing optional symbol falls back
 * to posix_memalign (all of them are memalign underneath in glibc). */
enum { A_POSIX, A_ALIGNED, A_MEMALIGN, A_VALLOC, A_PVALLOC };

/* The failed posix_memalign's *memptr, as the real one left it: glibc's leaves it alone, its
 * debug library's (libc_malloc_debug.so) sets NULL; the hook does the same to the program's */
static char untouched;

static void *real_aligned(int how, size_t align, size_t n, int *err, void **failed)
{
	void *p = &untouched;
	*err = 0;
	switch (how) {
	case A_ALIGNED:
		if (ckt_real.aligned_alloc)
			return ckt_real.aligned_alloc(align, n);
		break;
	case A_MEMALIGN:
		if (ckt_real.memalign)
			return ckt_real.memalign(align, n);
		break;
	case A_VALLOC:
		if (ckt_real.valloc)
			return ckt_real.valloc(n);
		break;
	case A_PVALLOC:
		if (ckt_real.pvalloc)
			return ckt_real.pvalloc(n);
		break;
	default:
		break;
	}
	if (!ckt_real.posix_memalign) {
		*err = ENOMEM;
		return NULL;
	}
	*err = ckt_real.posix_memalign(&p, align, n);
	if (*err && failed)
		*failed = p;
	return *err || p == &untouched ? NULL : p; /* (a success that wrote nothing: NULL) */
}

/* The size to record for a block of n bytes aligned to align: libstdc++'s aligned operator new
 * (C++17) asks aligned_alloc for its size rounded up to a multiple of the alignment (C11 asked
 * for one), and its hook (hooks_cxx.c) leaves the size the program asked for in cxx_request: a
 * new of 777 bytes aligned to 4096 counted 4096 bytes, where the program and an allocator that
 * serves new itself say 777. The first call of the aligned family takes it, whatever it asks
 * and returns (a new that fails calls its new-handler, and retries without it: the retry's
 * block counts at the rounded size): what it could leave behind (a new refused before it
 * allocates: an alignment not a power of two) matches only an allocation of the same
 * alignment within that alignment of the size. */
static inline size_t requested_size(struct ckt_tls *t, size_t align, size_t n)
{
	size_t want = t->cxx_request;
	if (CKT_LIKELY(!want))
		return n;
	t->cxx_request = 0;
	want--;
	/* new of 0 bytes asks for 1, rounded up */
	return align == t->cxx_align && want <= n && n - (want ? want : 1) < align ? want : n;
}

static void *aligned_common(int how, size_t align, size_t n, uint8_t fn, int *err, void **failed)
{
	*err = 0;
	if (CKT_UNLIKELY(!ckt_real.malloc)) {
		if (atomic_load(&ckt_boot_state) == 0)
			ckt_bootstrap();
		if (!ckt_real.malloc) {
			void *p = ckt_pool_alloc(n, align);
			if (!p)
				*err = ENOMEM;
			return p;
		}
	}
	struct ckt_tls *t = &ckt_tls;
	if (!CKT_HOOK_ENTER(t)) {
		ckt_passed(t, __builtin_return_address(0));
		ckt_child_note(n);
		t->cxx_request = 0;
		return real_aligned(how, align, n, err, failed);
	}
	t->guard = CKT_GUARD_HOOK;
	void *p = real_aligned(how, align, n, err, failed);
	record_alloc(t, p, requested_size(t, align, n), fn);
	t->guard = 0;
	return p;
}

CKT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int err;
	void *failed = &untouched;
	void *p = aligned_common(A_POSIX, align, n, CKT_FN_POSIX_MEMALIGN, &err, &failed);
	if (!err) { /* p NULL too: POSIX lets a call for 0 bytes succeed with a null pointer */
		*out = p;
		return 0;
	}
	if (failed != &untouched)
		*out = failed;
	return err;
}

static void *aligned_errno(int how, size_t align, size_t n, uint8_t fn)
{
	int err;
	void *p = aligned_common(how, align, n, fn, &err, NULL);
	if (!p && err)
		errno = err;
	return p;
}

CKT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return aligned_errno(A_ALIGNED, align, n, CKT_FN_ALIGNED_ALLOC);
}

CKT_EXPORT void *memalign(size_t align, size_t n)
{
	return aligned_errno(A_MEMALIGN, align, n, CKT_FN_MEMALIGN);
}

CKT_EXPORT void *valloc(size_t n)
{
	return aligned_errno(A_VALLOC, (size_t)sysconf(_SC_PAGESIZE), n, CKT_FN_VALLOC);
}

CKT_EXPORT void *pvalloc(size_t n)
{
	return aligned_errno(A_PVALLOC, (size_t)sysconf(_SC_PAGESIZE), n, CKT_FN_PVALLOC);
}

/* glibc's thresholds, as the program sets them (ckt_glibc_trim, ckt.h): any of these turns
 * glibc's moves off, and a trim threshold set is the one. */
CKT_EXPORT int mallopt(int param, int value)
{
	if (!ckt_real.mallopt && atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!ckt_real.mallopt)
		return 0; /* as glibc's for a parameter it does not take */
	int ok = ckt_real.mallopt(param, value);
	if (ok == 1 && (param == M_TRIM_THRESHOLD || param == M_TOP_PAD || param == M_MMAP_THRESHOLD ||
			param == M_MMAP_MAX)) {
		atomic_store(&ckt_glibc_trim_fixed, 1);
		if (param == M_TRIM_THRESHOLD)
			atomic_store(&ckt_glibc_trim, (size_t)(long)value);
	}
	return ok;
}

/* Our own definitions, for bootstrap.c to compare with what symbol lookup finds: inside this
 * library a plain reference to `malloc` is interposable and may name another definition. */
extern __typeof__(malloc) ckt_self_malloc __attribute__((alias("malloc"), copy(malloc)));
extern __typeof__(free) ckt_self_free __attribute__((alias("free"), copy(free)));
extern __typeof__(calloc) ckt_self_calloc __attribute__((alias("calloc"), copy(calloc)));
extern __typeof__(realloc) ckt_self_realloc __attribute__((alias("realloc"), copy(realloc)));
