/* hooks_cxx.c: C++ operator new and delete, every form (plain and array; nothrow, sized,
 * aligned), by their Itanium ABI names.
 *
 * libstdc++'s operator new calls malloc, and its delete free: the malloc hooks trace them.
 * These hooks then pass the call on to the next definition (libstdc++'s): a load, a predicted
 * branch and a jump, nothing recorded. An allocator that defines both malloc and operator new
 * (tcmalloc, jemalloc, mimalloc: preloaded after the tracer, or linked as a shared library) is
 * the allocator behind our malloc, and serves new and delete itself, never through malloc: a
 * C++ program's heap then reached the trace as 75 KiB of 51 MiB. There these hooks trace the
 * call as the malloc hooks do (CKT_FN_NEW), with CKT_GUARD_CXX up across the real call: the
 * allocator's own mmap, and the malloc or free it may call on the way (jemalloc's delete is a
 * jump to free), are that call's and pass through. Which of the two is decided once, at the first
 * call of any of them (after the bootstrap): whether the definition after us lies in the
 * object our real malloc comes from, and is not libstdc++.
 *
 * The real new may throw (std::bad_alloc, or a new-handler's exception): this file is built
 * with -fexceptions, and a cleanup takes the guard down as the exception leaves the hook.
 * Every form is called through one signature of three integer arguments (size or pointer, then
 * size, alignment or the nothrow tag's address): on the ABIs we build for (x86_64, aarch64)
 * the arguments a callee does not take are ignored registers. */
#include "ckt.h"
#include "ckt_format.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef void *new_fn(uintptr_t, uintptr_t, uintptr_t);
typedef void del_fn(void *, uintptr_t, uintptr_t);

#define CKT_CXX_FORMS(X)                                                             \
	X(_Znwm, N) X(_Znam, N) X(_ZnwmRKSt9nothrow_t, N) X(_ZnamRKSt9nothrow_t, N)  \
	X(_ZnwmSt11align_val_t, N) X(_ZnamSt11align_val_t, N)                       \
	X(_ZnwmSt11align_val_tRKSt9nothrow_t, N) X(_ZnamSt11align_val_tRKSt9nothrow_t, N) \
	X(_ZdlPv, D) X(_ZdaPv, D) X(_ZdlPvm, D) X(_ZdaPvm, D) X(_ZdlPvRKSt9nothrow_t, D) \
	X(_ZdaPvRKSt9nothrow_t, D) X(_ZdlPvSt11align_val_t, D) X(_ZdaPvSt11align_val_t, D) \
	X(_ZdlPvmSt11align_val_t, D) X(_ZdaPvmSt11align_val_t, D)                   \
	X(_ZdlPvSt11align_val_tRKSt9nothrow_t, D) X(_ZdaPvSt11align_val_tRKSt9nothrow_t, D)

#define CKT_CXX_INDEX(name, kind) I##name,
enum { CKT_CXX_FORMS(CKT_CXX_INDEX) CKT_CXX_N };
#define CKT_CXX_NAME(name, kind) #name,
static const char *const names[CKT_CXX_N] = { CKT_CXX_FORMS(CKT_CXX_NAME) };

/* The hot path (every new and delete of a C++ program): one load of `mode`, one of its real
 * function, a jump: some 1 to 2 ns over the call untraced (the trace of the malloc it makes
 * costs the rest, as for malloc). */
enum { UNRESOLVED, PASS, DIRECT };
static _Atomic(void *) real[CKT_CXX_N];
static atomic_int mode; /* PASS: libstdc++'s (calls malloc); DIRECT: the allocator's own */

/* Where a form has no definition after us in the global scope: a C program that dlopened a
 * C++ plugin RTLD_LOCAL, whose libstdc++ is not global (the plugin's new still binds to ours,
 * global and first), is served by that libstdc++ (found loaded by name); failing that, the
 * malloc family stands in, each form as its contract asks: alignment kept, NULL from the
 * nothrow forms, an abort where new would throw (we cannot). */
static void *fallback_alloc(size_t n, size_t align, int nothrow)
{
	void *p = NULL;
	if (align > 16) {
		if (posix_memalign(&p, align, n ? n : 1) != 0)
			p = NULL;
	} else {
		p = malloc(n ? n : 1);
	}
	if (!p && !nothrow)
		abort();
	return p;
}

static void *fallback_new(uintptr_t n, uintptr_t a, uintptr_t b)
{
	(void)a;
	(void)b;
	return fallback_alloc(n, 0, 0);
}

static void *fallback_new_nothrow(uintptr_t n, uintptr_t a, uintptr_t b)
{
	(void)a;
	(void)b;
	return fallback_alloc(n, 0, 1);
}

static void *fallback_new_aligned(uintptr_t n, uintptr_t a, uintptr_t b)
{
	(void)b;
	return fallback_alloc(n, a, 0);
}

static void *fallback_new_aligned_nothrow(uintptr_t n, uintptr_t a, uintptr_t b)
{
	(void)b;
	return fallback_alloc(n, a, 1);
}

static void fallback_delete(void *p, uintptr_t a, uintptr_t b)
{
	(void)a;
	(void)b;
	free(p);
}

static void *fallback_of(int i)
{
	const char *n = names[i];
	if (n[2] == 'd')
		return (void *)fallback_delete;
	int aligned = strstr(n, "align_val_t") != NULL, nothrow = strstr(n, "nothrow") != NULL;
	return aligned ? nothrow ? (void *)fallback_new_aligned_nothrow : (void *)fallback_new_aligned
		       : nothrow ? (void *)fallback_new_nothrow : (void *)fallback_new;
}

/* the definition of form i after us, else libstdc++'s where it is loaded out of the global
 * scope, else the stand-in */
static void *next_of(int i)
{
	void *f = dlsym(RTLD_NEXT, names[i]);
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			f = dlsym(h, names[i]);
			dlclose(h);
		}
	}
	return f ? f : fallback_of(i);
}

static CKT_NOINLINE void *resolve(int i)
{
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!ckt_real.malloc) /* another thread is resolving the malloc family: pass on, unchecked */
		return next_of(i);
	for (int k = 0; k < CKT_CXX_N; k++)
		atomic_store_explicit(&real[k], next_of(k), memory_order_relaxed);
	Dl_info in_new, in_malloc;
	void *nw = atomic_load(&real[I_Znwm]);
	int direct = nw != fallback_of(I_Znwm) && dladdr(nw, &in_new) &&
		     dladdr((void *)ckt_real.malloc, &in_malloc) && in_new.dli_fbase == in_malloc.dli_fbase &&
		     in_new.dli_fname && !strstr(in_new.dli_fname, "/libstdc++.so");
	atomic_store_explicit(&mode, direct ? DIRECT : PASS, memory_order_release);
	return atomic_load_explicit(&real[i], memory_order_relaxed);
}

static void guard_down(struct ckt_tls **t)
{
	(*t)->guard = 0;
}

static CKT_NOINLINE void *traced_new(new_fn *r, uintptr_t n, uintptr_t a, uintptr_t b)
{
	struct ckt_tls *t = &ckt_tls;
	if (!CKT_HOOK_ENTER(t)) {
		ckt_passed(t, __builtin_return_address(0));
		return r(n, a, b);
	}
	struct ckt_tls *held __attribute__((cleanup(guard_down))) = t;
	t->guard = CKT_GUARD_CXX;
	void *p = r(n, a, b);
	t->guard = CKT_GUARD_HOOK;
	ckt_heap_record_alloc(held, p, n, CKT_FN_NEW);
	return p;
}

static CKT_NOINLINE void traced_delete(del_fn *r, void *p, uintptr_t a, uintptr_t b)
{
	struct ckt_tls *t = &ckt_tls;
	if (!p || !CKT_HOOK_ENTER(t)) {
		if (p)
			ckt_passed(t, __builtin_return_address(0));
		r(p, a, b);
		return;
	}
	struct ckt_tls *held __attribute__((cleanup(guard_down))) = t;
	t->guard = CKT_GUARD_HOOK;
	ckt_heap_record_free(held, p);
	t->guard = CKT_GUARD_CXX;
	r(p, a, b);
}

static CKT_NOINLINE void *new_slow(int i, uintptr_t n, uintptr_t a, uintptr_t b)
{
	new_fn *r = (new_fn *)(atomic_load(&mode) == UNRESOLVED ? resolve(i) : atomic_load(&real[i]));
	return atomic_load(&mode) == DIRECT ? traced_new(r, n, a, b) : r(n, a, b);
}

static CKT_NOINLINE void delete_slow(int i, void *p, uintptr_t a, uintptr_t b)
{
	del_fn *r = (del_fn *)(atomic_load(&mode) == UNRESOLVED ? resolve(i) : atomic_load(&real[i]));
	if (atomic_load(&mode) == DIRECT)
		traced_delete(r, p, a, b);
	else
		r(p, a, b);
}

/* the hot path: libstdc++'s new or delete, a jump */
static inline void *cxx_new(int i, uintptr_t n, uintptr_t a, uintptr_t b)
{
	if (CKT_LIKELY(atomic_load_explicit(&mode, memory_order_acquire) == PASS))
		return ((new_fn *)atomic_load_explicit(&real[i], memory_order_relaxed))(n, a, b);
	return new_slow(i, n, a, b);
}

static inline void cxx_delete(int i, void *p, uintptr_t a, uintptr_t b)
{
	if (CKT_LIKELY(atomic_load_explicit(&mode, memory_order_acquire) == PASS)) {
		((del_fn *)atomic_load_explicit(&real[i], memory_order_relaxed))(p, a, b);
		return;
	}
	delete_slow(i, p, a, b);
}

/* the exported forms (no C++ header declares them to C) */
void *_Znwm(size_t n);
void *_Znam(size_t n);
void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt);
void *_ZnamRKSt9nothrow_t(size_t n, const void *nt);
void *_ZnwmSt11align_val_t(size_t n, size_t al);
void *_ZnamSt11align_val_t(size_t n, size_t al);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt);
void _ZdlPv(void *p);
void _ZdaPv(void *p);
void _ZdlPvm(void *p, size_t n);
void _ZdaPvm(void *p, size_t n);
void _ZdlPvRKSt9nothrow_t(void *p, const void *nt);
void _ZdaPvRKSt9nothrow_t(void *p, const void *nt);
void _ZdlPvSt11align_val_t(void *p, size_t al);
void _ZdaPvSt11align_val_t(void *p, size_t al);
void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al);
void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al);
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt);
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt);

#define U(x) ((uintptr_t)(x))
CKT_EXPORT void *_Znwm(size_t n) { return cxx_new(I_Znwm, n, 0, 0); }
CKT_EXPORT void *_Znam(size_t n) { return cxx_new(I_Znam, n, 0, 0); }
CKT_EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt) { return cxx_new(I_ZnwmRKSt9nothrow_t, n, U(nt), 0); }
CKT_EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt) { return cxx_new(I_ZnamRKSt9nothrow_t, n, U(nt), 0); }
CKT_EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al) { return cxx_new(I_ZnwmSt11align_val_t, n, al, 0); }
CKT_EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al) { return cxx_new(I_ZnamSt11align_val_t, n, al, 0); }
CKT_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new(I_ZnwmSt11align_val_tRKSt9nothrow_t, n, al, U(nt));
}
CKT_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new(I_ZnamSt11align_val_tRKSt9nothrow_t, n, al, U(nt));
}
CKT_EXPORT void _ZdlPv(void *p) { cxx_delete(I_ZdlPv, p, 0, 0); }
CKT_EXPORT void _ZdaPv(void *p) { cxx_delete(I_ZdaPv, p, 0, 0); }
CKT_EXPORT void _ZdlPvm(void *p, size_t n) { cxx_delete(I_ZdlPvm, p, n, 0); }
CKT_EXPORT void _ZdaPvm(void *p, size_t n) { cxx_delete(I_ZdaPvm, p, n, 0); }
CKT_EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(I_ZdlPvRKSt9nothrow_t, p, U(nt), 0); }
CKT_EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(I_ZdaPvRKSt9nothrow_t, p, U(nt), 0); }
CKT_EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { cxx_delete(I_ZdlPvSt11align_val_t, p, al, 0); }
CKT_EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { cxx_delete(I_ZdaPvSt11align_val_t, p, al, 0); }
CKT_EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(I_ZdlPvmSt11align_val_t, p, n, al); }
CKT_EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(I_ZdaPvmSt11align_val_t, p, n, al); }
CKT_EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{
	cxx_delete(I_ZdlPvSt11align_val_tRKSt9nothrow_t, p, al, U(nt));
}
CKT_EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{
	cxx_delete(I_ZdaPvSt11align_val_tRKSt9nothrow_t, p, al, U(nt));
}
