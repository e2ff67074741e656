/* stacks.c: call stacks of allocations. Captures return addresses with libunwind, drops the
 * tracer's own frames, and turns the frame array into a small id: a per-thread direct-mapped
 * cache in front of a global lock-free table. Each distinct stack is stored once, in an
 * append-only arena, and published by id for the writer (which writes each one once as a
 * STACK record). Symbolization is the reader's job.
 *
 * Two unwinders, the same frames (checked once at start, see unwinders_agree; and by
 * tests/progs/unwind_switch.c):
 *   stepping a cursor (unw_init_local, unw_step): about 1.7 us for 9 frames here, 5-8 us for
 *     40, and about 6 KiB of memory per thread;
 *   unw_backtrace: about 40 ns for 9 frames, but on a thread's first call libunwind maps and
 *     fills a trace cache of 256 KiB for that thread (16384 entries, all written), kept until
 *     the thread ends: 128 threads that each capture one stack cost 32 MiB. The tracer hands
 *     those pages back as soon as they are filled (unw_cache_trim), and the cache's hash
 *     brings back one page for each few distinct return addresses the thread meets.
 * A thread steps until stepping has taken CKT_UNW_FAST_SPENT_NS of its time within
 * CKT_UNW_WINDOW_NS (0.25%), then uses unw_backtrace for good: a busy thread (exact mode) pays
 * the cache after 125 us of stepping, a thread that captures stacks at a moderate rate (most
 * threads in the default mode, where only samples and large blocks have stacks: 500 samples a
 * second of 10-frame stacks are 0.1% of a thread's time) does not. (At 1%, the 4 threads of
 * the benchmark's default mode, 1400 samples a second each, kept stepping and made it 1%
 * slower, measured side by side, to save 1 MiB.) The bound is in time, not
 * stacks, because stepping costs grow with depth and with variety: libunwind's per-thread
 * cache of unwind rules for stepping holds 128 addresses, and a miss looks the address up
 * under the loader's lock (dl_iterate_phdr), about 1 us a frame (87 us for a 71-frame stack
 * that alternates between two paths, against 0.7 us with unw_backtrace), so a thread with
 * deep, varied stacks switches after a few of them. Two clock reads per stepped stack (~50 ns
 * of the ~2 us) measure it.
 *
 * Cost after unwinding: hashing is ~1 ns per frame; a cache hit costs one compare; a miss that
 * finds the stack in the global tables costs a probe or two (no write), and a stack of the big
 * table (past the first 32,768) a probe of the small one before; only a new stack writes shared
 * memory (a CAS and a fetch_add, and for the small table two more on one counter's line). */
#define UNW_LOCAL_ONLY
#include <errno.h>

#include "ckt.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TABLE_BITS 21 /* 2M distinct stacks */
#define TABLE_SIZE (1u << TABLE_BITS)
/* The first distinct stacks go to a small table in front of it (SMALL_SIZE slots, 1 MiB; half
 * of them at most: SMALL_MAX stacks). A stack's slot is where its hash falls, so in the big
 * table alone each of the first few thousand stacks made a page resident: 8,192 stacks kept
 * 20 MiB of it, 30,000 nearly all 32 MiB (a program's RSS 1.3 MiB untraced, 27.7 MiB traced
 * with 8,192 stacks in exact mode). Most programs have fewer than SMALL_MAX stacks, and they
 * now cost 1 MiB; the big table takes the ones after. Lookup: the small table, then the big
 * one (a stack in the big one pays a probe of the small one, a line or two, on a miss of the
 * thread's cache only). */
#define SMALL_BITS 16
#define SMALL_SIZE (1u << SMALL_BITS)
#define SMALL_MAX (SMALL_SIZE / 2)
#define MAX_IDS TABLE_SIZE
#define ARENA_MAX (4ull << 30) /* reserved address space; pages are touched as used */
#define ARENA_MIN (16ull << 20)
#define CKT_UNW_FAST_SPENT_NS 125000ull
#define CKT_UNW_WINDOW_NS 50000000ull
#define CKT_UNW_FRAME_MAX_NS 5000ull /* a frame steps in 0.2-1.5 us; see backtrace_now */
/* A thread steps at least this many stacks before it may switch: its first stacks step cold
 * (libunwind's per-thread rule cache empty: 30 to 60 us each), and a short-lived thread that
 * captured 3 or 4 of them switched, and mapped and zeroed the 256 KiB cache for nothing: 5,000
 * threads of 4 allocations each took 1.24 s traced in exact mode against 0.23 s untraced, 10,000
 * threads of a few allocations 14.7 s against 1.4 s (38% of it zeroing the caches). A busy
 * thread pays 16 stepped stacks once (under 0.5 ms). */
#define CKT_UNW_MIN_STEPPED 16u
/* The default mode lets at most this many threads hold libunwind's 256 KiB cache at once (16
 * MiB if every page came back); the others keep stepping, which its samples afford (1,400
 * samples a second cost a thread 0.25% of its time stepping). On a slower day 256 busy threads
 * of threads_bench switched nearly all: 65 MiB over untraced (before unw_cache_trim). Exact
 * mode, which captures every allocation, is not capped (stepping there costs 40 times
 * unw_backtrace's time); there the trim took 256 busy threads from +104 MiB to +47 MiB. */
#define CKT_UNW_FAST_MAX_DEFAULT 64
static atomic_int fast_threads;

struct tslot {
	_Atomic uint64_t key; /* hash, 0 = empty */
	_Atomic uint32_t id;  /* 0 until published */
	uint32_t pad;
};

struct ckt_stack_entry {
	uint32_t n;
	/* the module map current when it was captured; a map taken because of this very stack
	 * (a new library) replaces it right after the stack is published */
	_Atomic uint32_t map;
	uint64_t frames[];
};

static struct tslot *table; /* TABLE_SIZE slots, then the small table's SMALL_SIZE */
static struct tslot *small;
/* slots of the small table taken (up to SMALL_MAX, then it closes for good), and the inserts
 * into it under way: a thread that finds it closed waits for those before it looks there a
 * last time and goes on to the big table, so no stack gets a slot (an id) in both (a fork
 * child, where a thread of the parent may have been inside, is not traced) */
static atomic_uint small_n;
static atomic_int small_closed, small_pending, small_stuck;
static struct ckt_stack_entry *_Atomic *by_id;
static unsigned char *arena;
/* The arena's size and the bytes used of it, in units of 8 bytes (an entry is a multiple of
 * 8), the size in the high 32 bits: one word, so that a stack published (publish: a CAS that
 * takes room only below the size) and the arena shrunk (ckt_stacks_fit_limit) agree on where
 * the room ends. The size is ARENA_MAX, or under an address-space limit (RLIMIT_AS, ulimit -v)
 * 1/32 of it, at least ARENA_MIN: the reservation counts against that limit although its pages
 * are never touched (4 GiB of a 6 GiB limit left the program 30 blocks of 64 MiB instead of
 * 95); a limit the program sets after start shrinks it so (ckt_stacks_fit_limit). */
static _Atomic uint64_t arena_state;
#define ARENA_UNITS(state) ((state) & 0xffffffffu)
#define ARENA_CAP(state) ((state) >> 32)

/* the arena's size for an address-space limit of `limit` bytes (RLIM_INFINITY: none) */
static size_t arena_size_for(uint64_t limit)
{
	if (limit == RLIM_INFINITY || limit / 32 >= ARENA_MAX)
		return ARENA_MAX;
	return limit / 32 > ARENA_MIN ? (size_t)(limit / 32) : ARENA_MIN;
}
static atomic_uint next_id = 1;
static atomic_int full_reported;
static int fast_only; /* 1: the unwinders disagree (unwinders_agree): unw_backtrace only */
static uintptr_t self_lo, self_hi; /* our own text: frames in here are the tracer's */
uintptr_t ckt_rtld_lo, ckt_rtld_hi; /* the dynamic linker's text (ld.so) */

/* Thread-local data of libraries loaded at run time. libunwind's own (its per-thread caches)
 * is reached through glibc's __tls_get_addr, which first brings the thread's table of TLS
 * blocks (the DTV) up to date when libraries came or went: it grows the table with realloc
 * and frees the blocks of libraries closed since, through the hooks. Inside a hook that
 * update passed through untraced (the frees counted lost, "a signal handler called the
 * allocator", their blocks live for good: a dlopen/dlclose loop of a plugin with __thread
 * data), and when the hook was that very realloc, called by glibc's update itself, it ran the
 * update a second time inside the first, which freed the table twice (status 134 in exact
 * mode, from about 30 such libraries: tests/progs/tlsmany.c). So a capture brings the table
 * up to date first, under CKT_GUARD_TLS, so that those calls are traced (and no other); and a malloc,
 * realloc or memalign called from the dynamic linker (which is how that update allocates)
 * captures no stack. Its calloc (a new thread's DTV, a loaded object) does. */
struct ckt_tls_index {
	unsigned long module, offset;
};
extern void *__tls_get_addr(struct ckt_tls_index *ti);
static struct ckt_tls_index unw_tls; /* libunwind's TLS module (0: none) */

/* The return address of the hook that called the capture: the first outside the tracer's text
 * up the frame-pointer chain (the tracer is built with frame pointers: a few frames). */
static uintptr_t hook_caller(void)
{
	void *const *fp = __builtin_frame_address(0);
	for (int i = 0; i < 8 && fp; i++) {
		uintptr_t ra = (uintptr_t)fp[1];
		if (ra - self_lo >= self_hi - self_lo)
			return ra;
		fp = fp[0];
	}
	return 0;
}
atomic_int ckt_stacks_ready;

struct text_probe {
	uintptr_t probe, lo, hi;
	size_t tls_modid; /* the object's TLS module (0: none) */
};

/* The executable segment of the object that holds probe. */
static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct text_probe *t = arg;
	uintptr_t probe = t->probe;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (probe >= lo && probe < hi) {
			t->lo = lo;
			t->hi = hi;
			t->tls_modid = info->dlpi_tls_modid;
			return 1;
		}
	}
	return 0;
}

static int unwinders_agree(void);

/* libunwind's trace cache (x86_64, Gtrace.c, since 1.0) is a hash table of unw_tdep_frame_t,
 * 1 << 14 of them (16 bytes each, a type internal to it) in a private anonymous mapping, each
 * written as an empty slot when it is made; a lookup takes a slot whose address is 0 as empty
 * and fills all of its fields. A page dropped with MADV_DONTNEED reads back as zeros, empty
 * slots again, so the pages can go back to the kernel once filled and return one by one as
 * the hash touches them (threads_bench, 256 busy threads, exact mode: 64 MiB of caches, most
 * of it never read). A thread's first unw_backtrace goes through unw_cache_trim, which notes
 * the mappings of that size libunwind makes meanwhile (the mmap hook, on a call from
 * libunwind's code: ckt_stacks_unw_mapped) and drops the pages of the one that holds a cache
 * just made. Another of that size, which a refill of libunwind's rule cache makes at a
 * program's unw_set_cache_size of 8193 to 16384 (its links, whose zeroed chains would make
 * its lookups loop for ever), does not look like one and is left alone; so is everything
 * when libunwind maps the cache some other way (1.7 on: a raw system call), keeps it in
 * another layout, or this thread made its cache before. Once per thread, off the allocation
 * path: a read of 256 KiB and a system call. */
#if defined(__x86_64__)
#define CKT_UNW_CACHE_BYTES ((size_t)16 << 14)
/* an empty slot's second word, Gtrace.c's empty_frame {0, FRAME_OTHER, -1, -1, 0, -1, -1} in
 * its bit fields: frame_type:3 = 0, last_frame:1 = -1, cfa_reg_rsp:1 = -1,
 * cfa_reg_offset:29 = 0, rbp_cfa_offset:15 = -1, rsp_cfa_offset:15 = -1 */
#define CKT_UNW_EMPTY_FIELDS 0xfffffffc00000018ull
#else
#define CKT_UNW_CACHE_BYTES 0 /* not looked at: its layout elsewhere is not known here */
#define CKT_UNW_EMPTY_FIELDS 0
#endif

void ckt_stacks_unw_mapped(struct ckt_tls *t, void *p, size_t len, int flags)
{
	if (CKT_UNW_CACHE_BYTES && len == CKT_UNW_CACHE_BYTES && t->unw_nmaps < 4 &&
	    (flags & (MAP_PRIVATE | MAP_ANONYMOUS | MAP_SHARED)) == (MAP_PRIVATE | MAP_ANONYMOUS))
		t->unw_maps[t->unw_nmaps++] = p;
}

/* 1 when the mapping at p holds a trace cache as made, but for the few slots filled since
 * (the trim's lookup of one frame; a signal handler's unwinding) */
static int unw_cache_fresh(const uint64_t *w)
{
	unsigned filled = 0;
	for (size_t i = 0; i < CKT_UNW_CACHE_BYTES / 8; i += 2)
		if (w[i] ? ++filled > 64 : w[i + 1] != CKT_UNW_EMPTY_FIELDS)
			return 0;
	return 1;
}

/* The thread's first unw_backtrace (see above); its frames are dropped with the pages. */
static CKT_NOINLINE void unw_cache_trim(struct ckt_tls *t)
{
	void *one[1];
	t->unw_nmaps = 0;
	t->unw_trimming = 1;
	(void)unw_backtrace(one, 1);
	t->unw_trimming = 0;
	for (unsigned k = 0; k < t->unw_nmaps; k++)
		if (unw_cache_fresh(t->unw_maps[k])) {
			(void)syscall(SYS_madvise, t->unw_maps[k], CKT_UNW_CACHE_BYTES, MADV_DONTNEED);
			break;
		}
}

uintptr_t ckt_out_lo[CKT_OUT_N], ckt_out_hi[CKT_OUT_N];

void ckt_callout_set(int k, void *probe)
{
	struct text_probe p = {.probe = (uintptr_t)probe};
	if (p.probe)
		dl_iterate_phdr(find_text, &p);
	ckt_out_lo[k] = p.lo;
	ckt_out_hi[k] = p.hi;
}

void ckt_callout_init(void *real_malloc)
{
	void *const probe[] = {(void *)&unw_backtrace, (void *)&pthread_setspecific, real_malloc,
			       (void *)&ckt_callout_init};
	for (int k = 0; k < (int)(sizeof(probe) / sizeof(probe[0])); k++)
		ckt_callout_set(k, probe[k]);
	/* the dynamic linker's (ckt_tls_update_call, ckt_passed): at bootstrap, as the rest */
	struct text_probe rtld = {.probe = (uintptr_t)&__tls_get_addr};
	dl_iterate_phdr(find_text, &rtld);
	ckt_rtld_lo = rtld.lo;
	ckt_rtld_hi = rtld.hi;
}

/* Called from the constructor: libunwind is initialized by then (it is our dependency), which
 * is not true for allocations made by earlier constructors; those get stack 0. */
int ckt_stacks_init(void)
{
	if (!ckt_config.depth)
		return 0;
	table = ckt_ownmaps_map(((size_t)TABLE_SIZE + SMALL_SIZE) * sizeof(*table), MAP_NORESERVE);
	small = table ? table + TABLE_SIZE : NULL;
	by_id = ckt_ownmaps_map(MAX_IDS * sizeof(*by_id), MAP_NORESERVE);
	struct rlimit as;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t arena_size = arena_size_for(getrlimit(RLIMIT_AS, &as) == 0 ? as.rlim_cur : RLIM_INFINITY);
	arena_size = (arena_size + page - 1) / page * page; /* the state's size is the mapping's */
	arena = ckt_ownmaps_map(arena_size, MAP_NORESERVE);
	atomic_store(&arena_state, (uint64_t)(arena_size / 8) << 32);
	if (!table || !by_id || !arena) {
		ckt_log("error: cannot reserve memory for call stacks; stacks are not recorded", NULL,
			NULL, NULL);
		ckt_writer_limit_reached(CKT_LIMIT_STACKS);
		return -1;
	}
	struct text_probe self = {.probe = (uintptr_t)&ckt_stacks_init};
	dl_iterate_phdr(find_text, &self);
	self_lo = self.lo;
	self_hi = self.hi;
	struct text_probe unw = {.probe = (uintptr_t)&unw_backtrace};
	dl_iterate_phdr(find_text, &unw);
	unw_tls.module = unw.tls_modid;
	ckt_tls.in_unwind++;
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	unw_cache_trim(&ckt_tls);
	fast_only = !unwinders_agree();
	ckt_tls.in_unwind--;
	ckt_tls.unw_fast = 1; /* this thread has paid for unw_backtrace's cache by now */
	atomic_store(&ckt_stacks_ready, 1);
	return 0;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* The slot of hash h in a table of mask + 1 slots: its own, or the empty slot where it would
 * go; NULL when 64 probes met neither (a crowded run: slots are never emptied, so it stays
 * so). */
static inline struct tslot *probe(struct tslot *t, uint32_t mask, uint64_t h)
{
	uint32_t i = (uint32_t)h & mask;
	for (uint32_t probes = 0; probes < 64; probes++, i = (i + 1) & mask) {
		uint64_t k = atomic_load_explicit(&t[i].key, memory_order_acquire);
		if (k == h || k == 0)
			return &t[i];
	}
	return NULL;
}

/* The id of the stack in slot s, whose key is h: another thread may be publishing it, a few
 * stores away; if it was descheduled there, yield to it; if it never finishes (a longjmp out
 * of a signal handler mid-store), give up after 200,000 yields: no stack (0). */
static uint32_t published_id(struct tslot *s)
{
	uint32_t id;
	for (unsigned spins = 0; !(id = atomic_load_explicit(&s->id, memory_order_acquire)); spins++) {
		if (spins < 64)
			continue;
		if (spins > 64 + 200000)
			return 0;
		sched_yield();
	}
	return id == UINT32_MAX ? 0 : id;
}

static void table_full(void)
{
	if (!atomic_exchange(&full_reported, 1)) {
		ckt_log("warning: the call-stack table is full; new stacks are not recorded", NULL,
			NULL, NULL);
		ckt_writer_limit_reached(CKT_LIMIT_STACKS);
	}
}

/* Publishes a new stack in slot s, just claimed (its key set): an id, its frames in the
 * arena. *e: its entry, for publish_map once the caller's other bookkeeping is done. */
static uint32_t publish(struct tslot *s, const uint64_t *f, uint32_t n, struct ckt_stack_entry **e)
{
	uint32_t id = atomic_fetch_add(&next_id, 1);
	uint64_t units = (sizeof(struct ckt_stack_entry) + n * sizeof(uint64_t)) / 8;
	uint64_t st = atomic_load_explicit(&arena_state, memory_order_relaxed);
	bool room;
	do
		room = id < MAX_IDS && ARENA_UNITS(st) + units <= ARENA_CAP(st);
	while (room && !atomic_compare_exchange_weak(&arena_state, &st, st + units));
	/* a stack that does not fit fills the arena: no later one is recorded either, as the
	 * table says once (a smaller one could fit, and the trace's limit record would say less
	 * than the truth about the stacks since) */
	while (!room && id < MAX_IDS && ARENA_UNITS(st) != ARENA_CAP(st) &&
	       !atomic_compare_exchange_weak(&arena_state, &st, ARENA_CAP(st) << 32 | ARENA_CAP(st)))
		;
	if (!room) {
		atomic_store_explicit(&s->id, UINT32_MAX, memory_order_release);
		table_full();
		return 0;
	}
	*e = (void *)(arena + ARENA_UNITS(st) * 8);
	(*e)->n = n;
	memcpy((*e)->frames, f, n * sizeof(uint64_t));
	/* published with its map still open: threads waiting for this id must not wait for the
	 * loader's lock, and the writer leaves the stack for a later flush until it knows after
	 * which module map it goes */
	atomic_store_explicit(&(*e)->map, CKT_MAP_PENDING, memory_order_relaxed);
	atomic_store_explicit(&by_id[id], *e, memory_order_release);
	atomic_store_explicit(&s->id, id, memory_order_release);
	return id;
}

/* whether ckt_stacks_fit_limit(limit) would give any of the arena back */
int ckt_stacks_would_shrink(uint64_t limit)
{
	return arena && arena_size_for(limit) / 8 < ARENA_CAP(atomic_load(&arena_state));
}

/* The program set an address-space limit (RLIMIT_AS) of `limit` bytes after start (setrlimit,
 * prlimit: hooks_mmap.c): the arena's reservation, 4 GiB, counts against it although nearly all
 * of it is never touched, so that a limit untraced programs live under (a script's `ulimit -v
 * 4000000`, Python's resource.setrlimit) refused the program's next allocation. The arena
 * shrinks to the size a limit set before start gives (1/32 of it, at least ARENA_MIN), never
 * below what stacks use (to its page), and the rest is unmapped. A limit raised again later
 * does not grow it back: past its end new stacks are not recorded, as when it fills (one
 * warning). Not the hot path: a CAS, then a munmap. */
void ckt_stacks_fit_limit(uint64_t limit)
{
	if (!arena)
		return;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE) / 8, want = arena_size_for(limit) / 8, cap, old;
	uint64_t st = atomic_load(&arena_state);
	do {
		old = ARENA_CAP(st);
		cap = want > ARENA_UNITS(st) ? want : ARENA_UNITS(st);
		cap = (cap + page - 1) / page * page;
		if (cap >= old)
			return;
	} while (!atomic_compare_exchange_weak(&arena_state, &st, cap << 32 | ARENA_UNITS(st)));
	/* no stack is published past cap from here on: its pages can go */
	ckt_ownmaps_shrink(arena, old * 8, cap * 8);
}

/* The module map after which a new stack goes: a new stack may come from a new library.
 * Not while a call of the program's is inside dl_iterate_phdr (ckt_phdr_capture_enter): its
 * callback may wait for a lock this thread holds around this allocation, and the look takes
 * the loader's lock, which that call holds (tests/progs/phdrlock.c hung for good before
 * 0.2.57). The stack then goes after the last map: frames of a library loaded since, and
 * reached first by this stack, show as addresses. */
static uint32_t publish_map(struct ckt_stack_entry *e, uint32_t id)
{
	struct ckt_tls *t = &ckt_tls;
	uint32_t map = 0;
	if (ckt_phdr_capture_enter(t)) {
		map = ckt_modules_check();
		ckt_phdr_capture_leave(t);
	}
	atomic_store_explicit(&e->map, map ? map : ckt_modules_current(), memory_order_release);
	return id;
}

/* The small table: the stack's id, or 0 with *go_big set when it is not there and will not be
 * (the table closed, or the stack's run of it is crowded). Claiming a slot raises
 * small_pending first and then looks at small_closed, and a thread that closes it (or finds
 * it closed) looks at small_pending after: of two threads with the same new stack, either the
 * second waits for the first's insert to finish and finds it, or both go to the big table,
 * whose claim (a compare-and-swap of the key) makes one of them publish it. */
static uint32_t intern_small(const uint64_t *f, uint32_t n, uint64_t h, bool *go_big)
{
	while (!atomic_load(&small_closed)) {
		struct tslot *s = probe(small, SMALL_SIZE - 1, h);
		if (!s) {
			*go_big = true;
			return 0;
		}
		if (atomic_load_explicit(&s->key, memory_order_acquire) == h)
			return published_id(s);
		atomic_fetch_add(&small_pending, 1);
		if (atomic_load(&small_closed) || atomic_fetch_add(&small_n, 1) >= SMALL_MAX) {
			atomic_store(&small_closed, 1);
			atomic_fetch_sub(&small_pending, 1);
			break;
		}
		uint64_t zero = 0;
		if (atomic_compare_exchange_strong(&s->key, &zero, h)) {
			struct ckt_stack_entry *e = NULL;
			uint32_t id = publish(s, f, n, &e);
			atomic_fetch_sub(&small_pending, 1);
			return id ? publish_map(e, id) : 0;
		}
		/* another thread took the slot (for this stack or another): look again */
		atomic_fetch_sub(&small_n, 1);
		atomic_fetch_sub(&small_pending, 1);
	}
	/* closed: no insert starts there any more; wait for those under way (as published_id
	 * waits for one), then look (once: a stack of the big table probes the small one once).
	 * One that never finishes (a longjmp out of a signal handler mid-insert) would make every
	 * later new stack wait: after the first such wait none does (a stack whose insert into the
	 * small table was under way as it closed may then get a second id in the big one: two
	 * STACK records of the same frames) */
	if (!atomic_load_explicit(&small_stuck, memory_order_relaxed)) {
		for (unsigned spins = 0; atomic_load(&small_pending); spins++) {
			if (spins > 64 + 200000) {
				atomic_store_explicit(&small_stuck, 1, memory_order_relaxed);
				break;
			}
			if (spins >= 64)
				sched_yield();
		}
	}
	struct tslot *s = probe(small, SMALL_SIZE - 1, h);
	if (s && atomic_load_explicit(&s->key, memory_order_acquire) == h)
		return published_id(s);
	*go_big = true;
	return 0;
}

static CKT_NOINLINE uint32_t intern(const uint64_t *f, uint32_t n, uint64_t h)
{
	bool go_big = false;
	uint32_t id = intern_small(f, n, h, &go_big);
	if (!go_big)
		return id;
	for (;;) {
		struct tslot *s = probe(table, TABLE_SIZE - 1, h);
		if (!s) {
			table_full();
			return 0;
		}
		uint64_t zero = 0;
		if (atomic_load_explicit(&s->key, memory_order_acquire) == h ||
		    !atomic_compare_exchange_strong(&s->key, &zero, h)) {
			if (zero && zero != h)
				continue; /* another stack took the slot: look again */
			return published_id(s);
		}
		struct ckt_stack_entry *e = NULL;
		id = publish(s, f, n, &e);
		return id ? publish_map(e, id) : 0;
	}
}

/* A capture's buffers are in the thread's ring, not on its stack: the hooks run on the
 * program's stack, which may be small (an 8 KiB sigaltstack whose handler allocates, threads
 * with small stacks), and these took 4 KiB of it (the frames, libunwind's context and
 * cursor): such programs crashed traced. Not in TLS either: glibc carves a thread's static TLS
 * out of its stack. No capture nests on a thread (it runs with the hook guard raised: a
 * signal handler's allocation then passes through), so one set each. libunwind's
 * unw_backtrace still keeps its own context and cursor on the stack, except on an alternate
 * signal stack (below). */
struct cap_unw {
	unw_context_t uc;
	unw_cursor_t cursor;
};
_Static_assert(sizeof(struct cap_unw) <= CKT_CAP_UNW_BYTES, "CKT_CAP_UNW_BYTES holds libunwind's context and cursor");
_Static_assert(_Alignof(struct cap_unw) <= 64, "the ring's buffer is 64-byte aligned");

/* The return addresses of the calling thread, innermost first, by stepping a cursor: this
 * function's own frame first (the tracer's, dropped with the others), then the same frames
 * unw_backtrace gives. */
static CKT_NOINLINE int step_backtrace(struct cap_unw *u, void **buf, int size)
{
	unw_context_t *uc = &u->uc;
	unw_cursor_t *c = &u->cursor;
	int n = 0;
	if (unw_getcontext(uc) < 0 || unw_init_local(c, uc) < 0)
		return 0;
	do {
		unw_word_t ip;
		if (unw_get_reg(c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		buf[n++] = (void *)(uintptr_t)ip;
	} while (n < size && unw_step(c) > 0);
	return n;
}

/* Both unwinders from here: the same frames above this function's own (unw_backtrace's first
 * frame is the return address of its call here; the stepped stack starts with an address in
 * step_backtrace, then the return address of its call here). libunwind versions before 1.5
 * returned each address minus one from unw_backtrace on x86_64 (and until 2025 on aarch64):
 * a mixture would split every site into two stacks, so then every thread uses unw_backtrace
 * from its first stack, as the tracer did before it learned to step. Called once, by the
 * thread that initializes the tracer (which pays unw_backtrace's cache for it). */
static CKT_NOINLINE int unwinders_agree(void)
{
	void *a[16], *b[17];
	struct cap_unw u; /* once, on the initializing thread's stack */
	int na = unw_backtrace(a, 16);
	int nb = step_backtrace(&u, b, 17);
	if (na < 2 || nb != na + 1)
		return 0;
	for (int i = 1; i < na; i++)
		if (a[i] != b[i + 1])
			return 0;
	return 1;
}

/* The stack of the calling thread by the unwinder it uses now (see the top of this file). */
static inline int backtrace_now(struct ckt_tls *t, struct ckt_ring *r, void **buf, int size)
{
	if (CKT_LIKELY(t->unw_fast))
		return unw_backtrace(buf, size);
	if (fast_only) {
		unw_cache_trim(t);
		t->unw_fast = 1;
		return unw_backtrace(buf, size);
	}
	uint64_t t0 = ckt_now();
	/* stepping may read unwind tables from files (.debug_frame: open, read, close through
	 * glibc, cancellation points) or check memory with msync, one too: none of them may make
	 * malloc a cancellation point (hooks_io.c routes the pipe checks to raw system calls) */
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	int got = step_backtrace((struct cap_unw *)(void *)r->cap_unw, buf, size + 1);
	pthread_setcancelstate(cancel_state, NULL);
	uint64_t t1 = ckt_now();
	if (t0 - t->unw_since > CKT_UNW_WINDOW_NS) {
		t->unw_since = t0;
		t->unw_spent = 0;
	}
	/* a stack counts 5 us a frame at most (plus 50 us), several times what stepping takes:
	 * a thread preempted while it stepped did not spend that time stepping */
	uint64_t most = (uint64_t)(got + 10) * CKT_UNW_FRAME_MAX_NS;
	t->unw_spent += t1 - t0 < most ? t1 - t0 : most;
	if (t->unw_stepped < CKT_UNW_MIN_STEPPED)
		t->unw_stepped++;
	else if (t->unw_spent > CKT_UNW_FAST_SPENT_NS) {
		if (!ckt_sample_r) {
			unw_cache_trim(t);
			t->unw_fast = 1;
		} else if (atomic_fetch_add(&fast_threads, 1) < CKT_UNW_FAST_MAX_DEFAULT) {
			unw_cache_trim(t);
			t->unw_fast = 1;
			t->unw_counted = 1;
		} else { /* the cap: this thread keeps stepping, looked at again next window */
			atomic_fetch_sub(&fast_threads, 1);
			t->unw_spent = 0;
		}
	}
	return got;
}

void ckt_stacks_thread_exit(struct ckt_tls *t)
{
	if (t->unw_counted) {
		t->unw_counted = 0;
		atomic_fetch_sub(&fast_threads, 1);
	}
}

/* (ckt.h) libunwind's TLS touched under CKT_GUARD_TLS: glibc's update of this thread's TLS
 * table runs here, with its allocations traced, unless no library came or went since. */
void ckt_stacks_tls_touch(struct ckt_tls *t)
{
	if (unw_tls.module) {
		int g = ckt_tls_update_open(t, 1);
		(void)__tls_get_addr(&unw_tls);
		ckt_tls_update_close(t, g);
	}
}

/* ---- a capture on the alternate signal stack ----
 * libunwind keeps its context and cursor on the stack it runs on: about 2 KiB for
 * unw_backtrace, and 3 KiB and more while a thread's first stacks are stepped. An alternate
 * signal stack is often small: a fatal-signal reporter's of 8 KiB (SIGSTKSZ), whose handler
 * calls backtrace_symbols, which mallocs. Such programs died of SIGSEGV traced, with an
 * empty trace. So on x86_64 a capture made on the thread's alternate stack (as its
 * sigaltstack calls set it: hooks_signal.c) unwinds on a stack of its own, 64 KiB mapped at the
 * thread's first such capture (kept with its ring; without one, on the alternate stack as
 * before): ckt_side_call(fn, arg, top) calls fn(arg) with the stack pointer at top. Its frame
 * is a plain frame-pointer frame (CFA = rbp + 16, rbp saved below it), so the unwinders step
 * from fn's frames back to the hook's on the alternate stack: libunwind's fast trace takes it
 * as a standard frame, libgcc's and libunwind's stepping by its CFI.
 * Every signal is blocked meanwhile (two system calls, on this path only): the kernel places
 * a signal on the alternate stack below the stack pointer only while the pointer is on it,
 * and a second signal that came while it was on the side stack was placed at the alternate
 * stack's top, over the running handler's frames (a program whose handlers all use SA_ONSTACK
 * died); a handler run on the side stack would also lack the room it had, could not
 * siglongjmp back below it (glibc's _FORTIFY_SOURCE check), and would run with every signal
 * blocked. The faults too: one sent by another thread (pthread_kill of SIGSEGV) landed over
 * the handler like the rest; one that the unwinding itself raised ends the process, where a
 * handler would find it on the side stack. Captures on the thread's own stack stay there:
 * 0.3 KiB for the hooks and libunwind's 2 KiB or more come out of it (see README, Limits). */
#if defined(__x86_64__)
__asm__(".text\n"
	".p2align 4\n"
	".globl ckt_side_call\n"
	".hidden ckt_side_call\n"
	".type ckt_side_call, @function\n"
	"ckt_side_call:\n"
	".cfi_startproc\n"
	"	pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"	movq %rdx, %rsp\n" /* top: 16-byte aligned, as a call wants it */
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	callq *%rax\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	".cfi_endproc\n"
	".size ckt_side_call, .-ckt_side_call\n");

struct side_args {
	struct ckt_tls *t;
	struct ckt_ring *r;
	void **buf;
	int size;
};

static CKT_NOINLINE int side_backtrace(void *p)
{
	struct side_args *a = p;
	return backtrace_now(a->t, a->r, a->buf, a->size);
}

/* (CKT_ALT_STACK_NONE: could not be mapped, not tried again by this thread; thread.c clears it
 * for the ring's next owner) */
static atomic_int alt_stack_said;

static CKT_NOINLINE int backtrace_alt(struct ckt_tls *t, struct ckt_ring *r, void **buf, int size)
{
	if (!r->alt_stack) {
		void *m = ckt_ownmaps_map(CKT_CAP_STACK_BYTES, 0);
		r->alt_stack = m ? m : CKT_ALT_STACK_NONE;
		if (!m && !atomic_exchange(&alt_stack_said, 1))
			ckt_log("warning: cannot map a stack for call-stack captures on a signal handler's "
				"alternate stack (an address-space limit?); they unwind on that stack, "
				"which a small one may not hold",
				NULL, NULL, NULL);
	}
	uint64_t block = ~(uint64_t)0, old; /* the faults too: see above */
	_Static_assert(CKT_CAP_STACK_BYTES % 16 == 0, "the side stack's top is 16-byte aligned");
	if (r->alt_stack == CKT_ALT_STACK_NONE || syscall(SYS_rt_sigprocmask, SIG_SETMASK, &block, &old, 8) != 0)
		return backtrace_now(t, r, buf, size);
	struct side_args a = {t, r, buf, size};
	int got = ckt_side_call(side_backtrace, &a, r->alt_stack + CKT_CAP_STACK_BYTES);
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
	return got;
}
#endif

/* The stack of the calling thread into buf (see above). Cost on the thread's own stack: a
 * compare of the frame's address with the alternate stack's range. */
static inline int backtrace_here(struct ckt_tls *t, struct ckt_ring *r, void **buf, int size)
{
#if defined(__x86_64__)
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	if (CKT_UNLIKELY(sp - t->sig_alt_lo < t->sig_alt_hi - t->sig_alt_lo))
		return backtrace_alt(t, r, buf, size);
#endif
	return backtrace_now(t, r, buf, size);
}

static inline uint32_t stacks_capture(struct ckt_tls *t)
{
	/* acquire: the tables and fast_only written before it was set (a plain load on x86) */
	if (!atomic_load_explicit(&ckt_stacks_ready, memory_order_acquire))
		return 0;
	/* a dl_iterate_phdr callback's allocation (modules.c): no stack (libunwind's step takes a
	 * lock of its own, then the loader's, which this thread holds: with another thread doing
	 * that, the two waited for each other for good) */
	if (CKT_UNLIKELY(t->in_phdr))
		return 0;
	struct ckt_ring *r = ckt_thread_ring(t);
	if (!r)
		return 0;
	/* (see unw_tls): a compare, and a call that returns at once unless libraries came or went.
	 * The linker's calloc is not its TLS update's (a thread's DTV, a loaded object: their
	 * stacks name pthread_create's and dlopen's callers). Under CKT_GUARD_TLS only the
	 * update's own calls are traced (a signal handler's pass through, and the guard's frame
	 * mark of an mmap hook stays its own); none captures. */
	if (t->in_tls_touch ||
	    (ckt_rtld_hi && !t->in_calloc && hook_caller() - ckt_rtld_lo < ckt_rtld_hi - ckt_rtld_lo))
		return 0;
	ckt_stacks_tls_touch(t);
	void **raw = r->cap_raw;
	t->in_unwind++; /* libunwind's memory checks go to our private pipe (hooks_io.c) */
	int got = backtrace_here(t, r, raw, (int)ckt_config.depth + 8);
	t->in_unwind--;
	int skip = 0;
	while (skip < got && (uintptr_t)raw[skip] >= self_lo && (uintptr_t)raw[skip] < self_hi)
		skip++;
	uint32_t n = (uint32_t)(got - skip);
	if (n > ckt_config.depth)
		n = ckt_config.depth;
	if (!n)
		return 0;
	uint64_t *f = (uint64_t *)(raw + skip);
	if (CKT_UNLIKELY(t->inner)) {
		/* a call traced under a guard (the exception object of a bad_alloc thrown by an
		 * allocator's own new: ckt_inner_traced): the tracer's frames of the hook it ran
		 * under lie inside the stack, taken out so that the site is the program's (since
		 * 0.2.56; it read "traced_new (preload/hooks_cxx.c:496)") */
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			if (f[i] - self_lo >= self_hi - self_lo)
				f[k++] = f[i];
		if (!(n = k))
			return 0;
	}
	uint64_t h = 0x12345678abcdefull ^ n;
	for (uint32_t i = 0; i < n; i++)
		h = mix(h, f[i]);
	if (!h)
		h = 1;
	struct ckt_stack_cache *c = &r->cache[h & (CKT_STACK_CACHE - 1)];
	if (CKT_LIKELY(c->hash == h))
		return c->id;
	uint32_t id = intern(f, n, h);
	if (id) {
		c->hash = h;
		c->id = id;
	}
	return id;
}

/* Writer side: the stacks published since the last call, in id order, stopping at the first
 * id still being published (it will be picked up next time; readers accept a STACK record
 * after the events that name it). An id whose publishing never finishes (a longjmp out of a
 * signal handler between taking the id and storing its entry) stops the STACK records after
 * it for good: the report then names their stacks missing from the trace. */
uint32_t ckt_stacks_next(uint32_t from, const uint64_t **frames, uint32_t *n, uint32_t *map)
{
	if (!by_id || from >= atomic_load(&next_id) || from >= MAX_IDS)
		return 0;
	struct ckt_stack_entry *e = atomic_load_explicit(&by_id[from], memory_order_acquire);
	if (!e)
		return 0;
	*frames = e->frames;
	*n = e->n;
	*map = atomic_load_explicit(&e->map, memory_order_acquire);
	return from;
}

/* The ids handed out so far are below this (some may still be being published) */
uint32_t ckt_stacks_ids(void)
{
	uint32_t n = atomic_load(&next_id);
	return by_id ? (n < MAX_IDS ? n : MAX_IDS) : 1;
}

/* errno as it was: libunwind checks memory by reading our empty pipe (EAGAIN), and a
 * program that reads errno after a successful call saw that (tests/progs/errnokeep.c). One
 * thread-local load and store per stack captured (a capture costs 40 ns and up). */
uint32_t ckt_stacks_capture(struct ckt_tls *t)
{
	int e = errno;
	uint32_t id = stacks_capture(t);
	errno = e;
	return id;
}
