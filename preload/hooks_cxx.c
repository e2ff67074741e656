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
 * jump to free), are that call's and pass through. Which is decided once, at the first call of
 * any of them (after the bootstrap): whether the definition after us lies in the object our
 * real malloc comes from, and is not libstdc++; with no definition after us in the global
 * scope, each caller gets the one of its own scope (LOCAL, see local_of).
 *
 * The real new may throw (std::bad_alloc, or a new-handler's exception): this file is built
 * with -fexceptions, and a cleanup takes the guard down as the exception leaves the hook.
 * Every form is called through one signature of three integer arguments (size or pointer, then
 * size, alignment or the nothrow tag's address): on the ABIs we build for (x86_64, aarch64)
 * the arguments a callee does not take are ignored registers. */
#include "ckt.h"
#include "ckt_format.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

typedef void *new_fn(uintptr_t, uintptr_t, uintptr_t);
typedef void del_fn(void *, uintptr_t, uintptr_t);

/* new (_Zn...) and delete (_Zd...) forms: fallback_of tells them apart by name */
#define CKT_CXX_FORMS(X)                                                                  \
	X(_Znwm) X(_Znam) X(_ZnwmRKSt9nothrow_t) X(_ZnamRKSt9nothrow_t) X(_ZnwmSt11align_val_t) \
	X(_ZnamSt11align_val_t) X(_ZnwmSt11align_val_tRKSt9nothrow_t)                      \
	X(_ZnamSt11align_val_tRKSt9nothrow_t) X(_ZdlPv) X(_ZdaPv) X(_ZdlPvm) X(_ZdaPvm)        \
	X(_ZdlPvRKSt9nothrow_t) X(_ZdaPvRKSt9nothrow_t) X(_ZdlPvSt11align_val_t)             \
	X(_ZdaPvSt11align_val_t) X(_ZdlPvmSt11align_val_t) X(_ZdaPvmSt11align_val_t)          \
	X(_ZdlPvSt11align_val_tRKSt9nothrow_t) X(_ZdaPvSt11align_val_tRKSt9nothrow_t)

#define CKT_CXX_INDEX(name) I##name,
enum { CKT_CXX_FORMS(CKT_CXX_INDEX) CKT_CXX_N };
#define CKT_CXX_NAME(name) #name,
static const char *const names[CKT_CXX_N] = { CKT_CXX_FORMS(CKT_CXX_NAME) };

/* The hot path (every new and delete of a C++ program): one load of `mode`, one of its real
 * function, a jump: some 1 to 2 ns over the call untraced (the trace of the malloc it makes
 * costs the rest, as for malloc). */
enum { UNRESOLVED, PASS, DIRECT, LOCAL };
static _Atomic(void *) real[CKT_CXX_N];
static atomic_int mode; /* PASS: libstdc++'s (calls malloc); DIRECT: the allocator's own; LOCAL:
			 * each caller's own (see local_of) */

/* Where neither the global scope nor the caller's own holds a form, the malloc family stands
 * in, each form as its contract asks: alignment kept, NULL from the nothrow forms, an abort
 * where new would throw (we cannot). */
static void *fallback_alloc(size_t n, size_t align, int nothrow)
{
	void *p = NULL;
	ckt_tls.cxx_request = 0; /* an aligned new's (cxx_new_aligned): malloc would not take it */
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

/* LOCAL mode: no definition after us in the global scope (a C program that opened C++
 * libraries RTLD_LOCAL, such as Python importing PyTorch): each caller gets the definition it
 * would have bound to without us, the first in its own object's scope: its libstdc++, libc++'s,
 * or its own static copy (a library built with -static-libstdc++ exports one, and its calls
 * still bind to ours, global and first).
 *
 * The loader is not asked (no dlopen, dlsym or dladdr): this runs inside operator new, often in
 * a library's constructor while the loader is running constructors, and a dlopen there, even
 * RTLD_NOLOAD of an object already loaded, may run other pending constructors inside this one
 * (glibc 2.39 ran libtorch_cpu's inside libc10's, which held its registry's mutex across that
 * new: "import torch" hung for good). The definitions are read from each object's dynamic
 * symbol table in memory (elfsym.c), in the order the loader searches the scope of an object
 * it opened: the caller itself, then its DT_NEEDED objects breadth first, each searched as it
 * is found (the DT_NEEDED lists of the first CKT_CXX_EXPAND objects are followed). Not searched:
 * the rest of the process (an unrelated RTLD_LOCAL library's operator new is not the caller's),
 * and the objects ahead of the caller in the scope of the dlopen that loaded it (a root library
 * that replaces operator new for its dependencies: see README's Limits).
 *
 * A form no object of the caller's scope defines (the return address is the caller's caller
 * when new was reached by a tail call, from C code; code outside every object) gets the one
 * every calling object agrees on, when it lies in an object that is never unloaded (loaded at
 * startup, or the C++ runtime's own library: see find_runtime), else the malloc family's
 * stand-in.
 *
 * The answers are kept per calling object in CKT_CXX_OBJS rows, found by the object's span:
 * the thread's last one first (one index in its TLS), then a scan. A row is valid in one epoch
 * of the dlclose calls that unloaded something (unloads): a later one drops it (the code it
 * names may be gone, and a library loaded at the same addresses would take it for its own),
 * and the row is taken again. While a dlclose runs (closing), nothing is kept or lent. Rows are
 * written as a sequence lock: the tag odd while written, the epoch's value once done; a reader
 * takes an answer only if the tag was the same before and after. */
#define CKT_CXX_OBJS 256
#define CKT_CXX_EXPAND 64
struct local_row {
	atomic_uint tag; /* 0 never used, 1 being written, else 2 * epoch + 2 */
	_Atomic uintptr_t lo, hi;
	void *_Atomic fn[CKT_CXX_N];
};
static struct local_row rows[CKT_CXX_OBJS];
static atomic_int n_rows;     /* rows ever taken: the scan's bound */
static atomic_uint unloads;   /* dlclose calls that unloaded an object (the epoch) */
static atomic_int closing;    /* dlclose calls running now */
static atomic_uint dlclose_calls, calls_checked; /* dlclose calls done; those looked at */
static _Atomic unsigned long long subs_seen;       /* the loader's count of unloads then */

static inline unsigned epoch_tag(unsigned e)
{
	return 2 * e + 2;
}

/* row r's answer for form i when it is valid for tag `want` and holds ra, else NULL (an answer
 * is never NULL: a form with no definition holds the stand-in) */
static inline void *row_answer(struct local_row *r, unsigned want, uintptr_t ra, int i)
{
	unsigned t = atomic_load_explicit(&r->tag, memory_order_acquire);
	if (t != want)
		return NULL;
	uintptr_t lo = atomic_load_explicit(&r->lo, memory_order_relaxed);
	uintptr_t hi = atomic_load_explicit(&r->hi, memory_order_relaxed);
	void *f = ra - lo < hi - lo ? atomic_load_explicit(&r->fn[i], memory_order_relaxed) : NULL;
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&r->tag, memory_order_relaxed) == t ? f : NULL;
}

/* Keeps the answers for the object [lo, hi) in a row of tag `want`: a row of an earlier epoch
 * taken again, or a new one; none when the object has one already (another thread's walk), or
 * every row is of this epoch. Taken by compare-and-swap: a signal handler's call in between
 * skips the row being written (one that jumps out of here leaves that row unused for good). */
static void keep_row(uintptr_t lo, uintptr_t hi, void *const *fn, unsigned want)
{
	int n = atomic_load_explicit(&n_rows, memory_order_acquire);
	for (int k = 0; k < n; k++)
		if (row_answer(&rows[k], want, lo, 0))
			return;
	for (int k = 0; k < CKT_CXX_OBJS; k++) {
		unsigned t = atomic_load_explicit(&rows[k].tag, memory_order_relaxed);
		if (t == want || (t & 1) || !atomic_compare_exchange_strong(&rows[k].tag, &t, 1))
			continue;
		atomic_thread_fence(memory_order_release); /* the odd tag before the data (seqlock) */
		atomic_store_explicit(&rows[k].lo, lo, memory_order_relaxed);
		atomic_store_explicit(&rows[k].hi, hi, memory_order_relaxed);
		for (int j = 0; j < CKT_CXX_N; j++)
			atomic_store_explicit(&rows[k].fn[j], fn[j], memory_order_relaxed);
		atomic_store_explicit(&rows[k].tag, want, memory_order_release);
		for (int m = atomic_load(&n_rows); m < k + 1 && !atomic_compare_exchange_weak(&n_rows, &m, k + 1);)
			;
		return;
	}
}

struct scope_walk {
	uintptr_t ra, self;	 /* the caller's return address; an address of the tracer's */
	const char *want;	 /* find_needed: the DT_NEEDED name wanted */
	struct ckt_dynobj found; /* what the walk found */
	uintptr_t lo, hi;	 /* find_caller: the caller's object's span */
	int have, ours;
};

/* the object that holds the caller's return address */
static int find_caller(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scope_walk *w = data;
	uintptr_t lo, hi;
	int holds;
	(void)size;
	ckt_span_of(info, &lo, &hi, &holds, w->ra);
	if (!holds)
		return 0;
	w->lo = lo;
	w->hi = hi;
	w->have = ckt_dynobj_of(info, &w->found);
	return 1;
}

/* the object a DT_NEEDED entry names: by its soname, or by its file (the base name, or the
 * whole path for an entry that is a path) */
static int find_needed(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scope_walk *w = data;
	struct ckt_dynobj o;
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	const char *base = strrchr(path, '/');
	(void)size;
	base = base ? base + 1 : path;
	if (!ckt_dynobj_of(info, &o))
		return 0;
	if (!((o.soname && !strcmp(w->want, o.soname)) ||
	      (strchr(w->want, '/') ? !strcmp(w->want, path) : !strcmp(w->want, base))))
		return 0;
	uintptr_t lo, hi;
	int holds;
	ckt_span_of(info, &lo, &hi, &holds, w->self);
	w->found = o;
	w->have = 1;
	w->ours = holds;
	return 1;
}

/* o's own definitions of the forms still missing from fn; returns how many are still missing */
static int search(const struct ckt_dynobj *o, void **fn, int left)
{
	for (int k = 0; k < CKT_CXX_N && left; k++)
		if (!fn[k] && (fn[k] = ckt_dynobj_lookup(o, names[k])) != NULL)
			left--;
	return left;
}

/* The objects loaded at startup (the program, its DT_NEEDED closure, the preloads): the first
 * startup_objects in load order, counted as the tracer starts (ckt_cxx_startup); never
 * unloaded. */
static int startup_objects;

static int count_objects(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	++*(int *)data;
	return 0;
}

void ckt_cxx_startup(void)
{
	int n = 0;
	dl_iterate_phdr(count_objects, &n);
	startup_objects = n;
}

struct runtime_q {
	uintptr_t f;
	int yes, index;
};

/* q->yes: q->f lies in an object that is never unloaded: one loaded at startup, or the C++
 * runtime's own library (libstdc++, LLVM's libc++ or its libc++abi, which
 * defines operator new there, Android's libc++_shared: their unique symbols keep them loaded) */
static int find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	static const char *const runtimes[] = {"libstdc++.so", "libc++.so", "libc++abi.so", "libc++_shared.so"};
	struct runtime_q *q = data;
	struct ckt_dynobj o;
	uintptr_t lo, hi;
	int holds, index = q->index++;
	(void)size;
	ckt_span_of(info, &lo, &hi, &holds, q->f);
	if (!holds)
		return 0;
	q->yes = index < startup_objects;
	int named = !q->yes && ckt_dynobj_of(info, &o) && o.soname;
	for (unsigned k = 0; named && !q->yes && k < sizeof(runtimes) / sizeof(runtimes[0]); k++)
		q->yes = !strncmp(o.soname, runtimes[k], strlen(runtimes[k]));
	return 1;
}

static int lasting(void *f)
{
	struct runtime_q q = {(uintptr_t)f, 0, 0};
	if (f)
		dl_iterate_phdr(find_runtime, &q);
	return q.yes;
}

/* The answer for form i that every calling object of this epoch with one agrees on, if it lies
 * in an object that is never unloaded; else NULL. Lent to a caller outside the object's scope,
 * so only from such an object. */
static void *agreed(int i, unsigned want)
{
	int n = atomic_load_explicit(&n_rows, memory_order_acquire);
	void *f = NULL;
	for (int k = 0; k < n; k++) {
		unsigned t = atomic_load_explicit(&rows[k].tag, memory_order_acquire);
		if (t != want)
			continue;
		void *g = atomic_load_explicit(&rows[k].fn[i], memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&rows[k].tag, memory_order_relaxed) != t || g == fallback_of(i))
			continue;
		if (f && g != f)
			return NULL;
		f = g;
	}
	return lasting(f) ? f : NULL;
}

/* A DT_NEEDED list to follow: what ckt_dynobj_of found that the walk needs (the queue is on the
 * stack of whatever thread called new: 24 bytes an entry). */
struct need {
	const ElfW(Dyn) *dyn;
	const char *str;
	size_t strsz;
};

static void *local_of(int i, uintptr_t ra);

static int loader_subs(struct dl_phdr_info *info, size_t size, void *data)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*(unsigned long long *)data = info->dlpi_subs;
	return 1;
}

/* dlclose calls have ended since the last look (c: their count now): if the loader's count of
 * unloads moved, the epoch moves (one walk, here inside operator new, not in dlclose: there
 * the loader's lock it takes could wait for a thread of the program that waits for that
 * dlclose) */
static CKT_NOINLINE void note_unloads(unsigned c)
{
	unsigned long long now = 0;
	dl_iterate_phdr(loader_subs, &now);
	/* the epoch first, then the count seen: a thread that finds the count seen already moved
	 * finds the epoch moved too (two threads may both move it: harmless); the count only
	 * goes forward */
	unsigned long long seen = atomic_load(&subs_seen);
	if (now > seen) {
		atomic_fetch_add(&unloads, 1);
		while (now > seen && !atomic_compare_exchange_weak(&subs_seen, &seen, now))
			;
	}
	for (unsigned m = atomic_load(&calls_checked);
	     (int)(c - m) > 0 && !atomic_compare_exchange_weak(&calls_checked, &m, c);)
		;
}

static CKT_NOINLINE void *local_slow(int i, uintptr_t ra)
{
	/* read first: a dlclose during the walk leaves the answer unkept */
	int closing0 = atomic_load(&closing);
	unsigned c0 = atomic_load(&dlclose_calls);
	if (!closing0 && c0 != atomic_load(&calls_checked))
		note_unloads(c0);
	unsigned e0 = atomic_load(&unloads);
	struct scope_walk w = {.ra = ra, .self = (uintptr_t)&local_of};
	void *fn[CKT_CXX_N] = {0};
	struct need q[CKT_CXX_EXPAND];
	int nq = 0, left = CKT_CXX_N;
	dl_iterate_phdr(find_caller, &w);
	if (w.have) {
		left = search(&w.found, fn, left);
		q[nq++] = (struct need){w.found.dyn, w.found.str, w.found.strsz};
	}
	for (int at = 0; at < nq && left; at++) {
		unsigned entries = 0;
		for (const ElfW(Dyn) *d = q[at].dyn; left && d->d_tag != DT_NULL && entries < CKT_DYN_MAX;
		     d++, entries++) {
			if (d->d_tag != DT_NEEDED || d->d_un.d_val >= q[at].strsz)
				continue;
			w.want = q[at].str + d->d_un.d_val;
			w.have = w.ours = 0;
			dl_iterate_phdr(find_needed, &w);
			int seen = !w.have || w.ours;
			for (int k = 0; k < nq && !seen; k++)
				seen = q[k].dyn == w.found.dyn;
			if (seen)
				continue;
			left = search(&w.found, fn, left);
			if (nq < CKT_CXX_EXPAND)
				q[nq++] = (struct need){w.found.dyn, w.found.str, w.found.strsz};
		}
	}
	for (int k = 0; k < CKT_CXX_N; k++)
		if (!fn[k]) {
			fn[k] = closing0 ? NULL : agreed(k, epoch_tag(e0));
			fn[k] = fn[k] ? fn[k] : fallback_of(k);
		}
	if (w.hi && !closing0 && !atomic_load(&closing) && atomic_load(&dlclose_calls) == c0 &&
	    atomic_load(&unloads) == e0)
		keep_row(w.lo, w.hi, fn, epoch_tag(e0));
	return fn[i];
}

/* The hot part: the thread's last calling object (an index + 1 in its TLS: one word, so a
 * signal handler's call in between never sees half of an update), then the others. */
static void *local_of(int i, uintptr_t ra)
{
	if (atomic_load(&closing)) /* a dlclose runs: the rows may name what it unmaps */
		return local_slow(i, ra);
	unsigned c = atomic_load(&dlclose_calls);
	if (c != atomic_load_explicit(&calls_checked, memory_order_relaxed))
		note_unloads(c);
	struct ckt_tls *t = &ckt_tls;
	unsigned want = epoch_tag(atomic_load(&unloads));
	int k = t->cxx_obj - 1;
	void *f;
	if (k >= 0 && (f = row_answer(&rows[k], want, ra, i)))
		return f;
	int n = atomic_load_explicit(&n_rows, memory_order_acquire);
	for (k = 0; k < n; k++)
		if ((f = row_answer(&rows[k], want, ra, i))) {
			t->cxx_obj = k + 1;
			return f;
		}
	return local_slow(i, ra);
}

static CKT_NOINLINE void *resolve(int i, uintptr_t ra)
{
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	void *nw = ckt_next("_Znwm");
	if (!ckt_real.malloc || !nw) { /* the malloc family not resolved yet (another thread is
					 * at it: this call passes on), or none global: LOCAL */
		if (!nw && ckt_real.malloc)
			atomic_store_explicit(&mode, LOCAL, memory_order_release);
		return local_of(i, ra);
	}
	for (int k = 0; k < CKT_CXX_N; k++) {
		void *f = ckt_next(names[k]);
		atomic_store_explicit(&real[k], f ? f : fallback_of(k), memory_order_relaxed);
	}
	Dl_info in_new, in_malloc;
	int direct = dladdr(nw, &in_new) && dladdr((void *)ckt_real.malloc, &in_malloc) &&
		     in_new.dli_fbase == in_malloc.dli_fbase && in_new.dli_fname &&
		     !strstr(in_new.dli_fname, "/libstdc++.so");
	/* passed on for good only to a definition that is never unloaded (find_runtime): a plugin
	 * built with -static-libstdc++, opened RTLD_GLOBAL first, was kept after it was closed
	 * (SIGSEGV at the next new); each caller's own then (LOCAL), which follows dlclose */
	if (!direct && !lasting(nw)) {
		atomic_store_explicit(&mode, LOCAL, memory_order_release);
		return local_of(i, ra);
	}
	if (direct) /* its bad_alloc's exception object is the call's own (CKT_GUARD_CXX) */
		ckt_callout_set(CKT_OUT_CXXRT, dlsym(RTLD_DEFAULT, "__cxa_allocate_exception"));
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
	t->cxx_request = 0; /* set before the first call found this mode (cxx_new_aligned) */
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

/* the definition form i's caller gets, by mode (resolved at the first call) */
static inline void *real_for(int m, int i, uintptr_t ra)
{
	return m == UNRESOLVED ? resolve(i, ra) : m == LOCAL ? local_of(i, ra) : atomic_load(&real[i]);
}

static CKT_NOINLINE void *new_slow(int i, uintptr_t ra, uintptr_t n, uintptr_t a, uintptr_t b)
{
	new_fn *r = (new_fn *)real_for(atomic_load(&mode), i, ra);
	return atomic_load(&mode) == DIRECT ? traced_new(r, n, a, b) : r(n, a, b);
}

static CKT_NOINLINE void delete_slow(int i, uintptr_t ra, void *p, uintptr_t a, uintptr_t b)
{
	del_fn *r = (del_fn *)real_for(atomic_load(&mode), i, ra);
	if (atomic_load(&mode) == DIRECT)
		traced_delete(r, p, a, b);
	else
		r(p, a, b);
}

/* the hot path: libstdc++'s new or delete, a jump; ra: the caller's return address */
static inline void *cxx_new(int i, uintptr_t ra, uintptr_t n, uintptr_t a, uintptr_t b)
{
	if (CKT_LIKELY(atomic_load_explicit(&mode, memory_order_acquire) == PASS))
		return ((new_fn *)atomic_load_explicit(&real[i], memory_order_relaxed))(n, a, b);
	return new_slow(i, ra, n, a, b);
}

/* The aligned forms: libstdc++'s new rounds the size up to the alignment before it calls
 * aligned_alloc, so the size asked for waits in the thread's cxx_request for that hook, which
 * takes it (see requested_size in hooks_malloc.c). Not for an allocator that serves new itself
 * (DIRECT: the hook records the size asked for, and the allocator's own aligned_alloc, if it
 * calls one, is not that call's; a first call that finds DIRECT, and the malloc family's
 * stand-in (fallback_alloc), clear it). Two stores on a rare call, which stays a jump: a call
 * would leave this frame in the middle of the block's stack. */
static inline void *cxx_new_aligned(int i, uintptr_t ra, uintptr_t n, uintptr_t al, uintptr_t b)
{
	if (atomic_load_explicit(&mode, memory_order_relaxed) != DIRECT) {
		struct ckt_tls *t = &ckt_tls;
		t->cxx_request = n + 1;
		t->cxx_align = al;
	}
	return cxx_new(i, ra, n, al, b);
}

static inline void cxx_delete(int i, uintptr_t ra, void *p, uintptr_t a, uintptr_t b)
{
	if (CKT_LIKELY(atomic_load_explicit(&mode, memory_order_acquire) == PASS)) {
		((del_fn *)atomic_load_explicit(&real[i], memory_order_relaxed))(p, a, b);
		return;
	}
	delete_slow(i, ra, p, a, b);
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
#define RA ((uintptr_t)__builtin_return_address(0))
CKT_EXPORT void *_Znwm(size_t n) { return cxx_new(I_Znwm, RA, n, 0, 0); }
CKT_EXPORT void *_Znam(size_t n) { return cxx_new(I_Znam, RA, n, 0, 0); }
CKT_EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt) { return cxx_new(I_ZnwmRKSt9nothrow_t, RA, n, U(nt), 0); }
CKT_EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt) { return cxx_new(I_ZnamRKSt9nothrow_t, RA, n, U(nt), 0); }
CKT_EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al) { return cxx_new_aligned(I_ZnwmSt11align_val_t, RA, n, al, 0); }
CKT_EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al) { return cxx_new_aligned(I_ZnamSt11align_val_t, RA, n, al, 0); }
CKT_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new_aligned(I_ZnwmSt11align_val_tRKSt9nothrow_t, RA, n, al, U(nt));
}
CKT_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new_aligned(I_ZnamSt11align_val_tRKSt9nothrow_t, RA, n, al, U(nt));
}
CKT_EXPORT void _ZdlPv(void *p) { cxx_delete(I_ZdlPv, RA, p, 0, 0); }
CKT_EXPORT void _ZdaPv(void *p) { cxx_delete(I_ZdaPv, RA, p, 0, 0); }
CKT_EXPORT void _ZdlPvm(void *p, size_t n) { cxx_delete(I_ZdlPvm, RA, p, n, 0); }
CKT_EXPORT void _ZdaPvm(void *p, size_t n) { cxx_delete(I_ZdaPvm, RA, p, n, 0); }
CKT_EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(I_ZdlPvRKSt9nothrow_t, RA, p, U(nt), 0); }
CKT_EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(I_ZdaPvRKSt9nothrow_t, RA, p, U(nt), 0); }
CKT_EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { cxx_delete(I_ZdlPvSt11align_val_t, RA, p, al, 0); }
CKT_EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { cxx_delete(I_ZdaPvSt11align_val_t, RA, p, al, 0); }
CKT_EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(I_ZdlPvmSt11align_val_t, RA, p, n, al); }
CKT_EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(I_ZdaPvmSt11align_val_t, RA, p, n, al); }
CKT_EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{
	cxx_delete(I_ZdlPvSt11align_val_tRKSt9nothrow_t, RA, p, al, U(nt));
}
CKT_EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{
	cxx_delete(I_ZdaPvSt11align_val_tRKSt9nothrow_t, RA, p, al, U(nt));
}

/* dlclose: the rows kept for LOCAL mode's calling objects (local_of) may name code it unmaps,
 * and a library loaded later at the same addresses would take them for its own (a plugin built
 * with -static-libstdc++, closed, then another opened over its addresses: the second jumped
 * into the first's code, SIGSEGV). While it runs, closing keeps the rows unused; after it, the
 * next LOCAL call looks whether anything was unloaded (note_unloads), and if so the epoch
 * moves, which drops them all. A dlclose that unloads nothing drops nothing. Nothing here takes
 * a lock: a dlclose that unloads nothing takes only the loader's load lock in glibc. The
 * counts are set right by a cleanup when the call is left by unwinding (a destructor
 * cancelled), and after a fork by ckt_cxx_after_fork_child. */
typedef int dlclose_fn(void *);
static dlclose_fn *_Atomic real_dlclose_p;

CKT_EXPORT int dlclose(void *handle);

/* glibc's dlclose: by version (a dlsym replaced by a library preloaded ahead of the tracer
 * would look "next" from that library, and find this one), never this one */
static dlclose_fn *real_dlclose(void)
{
	dlclose_fn *f = atomic_load_explicit(&real_dlclose_p, memory_order_acquire);
	if (!f)
		f = (dlclose_fn *)ckt_glibc_next("dlclose");
	if (!f)
		f = (dlclose_fn *)ckt_elf_lookup_in("libc.so.6", "dlclose");
	if (f == dlclose)
		f = NULL;
	if (f)
		atomic_store_explicit(&real_dlclose_p, f, memory_order_release);
	return f;
}

static void close_done(int *armed)
{
	if (*armed) {
		atomic_fetch_add(&dlclose_calls, 1);
		ckt_tls.dlclose_depth--;
		atomic_fetch_sub(&closing, 1);
	}
}

CKT_EXPORT int dlclose(void *handle)
{
	dlclose_fn *f = real_dlclose();
	if (!f) { /* cannot happen with glibc: as dlclose says of a handle it does not know */
		errno = EINVAL;
		return -1;
	}
	atomic_fetch_add(&closing, 1);
	ckt_tls.dlclose_depth++;
	int armed __attribute__((cleanup(close_done))) = 1;
	return f(handle);
}

/* (ckt.h) in a forked child: only the forking thread's own dlclose calls are still running */
void ckt_cxx_after_fork_child(void)
{
	/* another thread's dlclose, cut short here, may have unloaded something already */
	if (atomic_load(&closing) != ckt_tls.dlclose_depth)
		atomic_fetch_add(&unloads, 1);
	atomic_store(&closing, ckt_tls.dlclose_depth);
}
