/* ownmaps.c: the tracer's own mappings, kept apart from what the program does to its own.
 *
 * The tracer maps memory while the program runs (a ring for each new thread, zstd's and the
 * merge's buffers). The kernel may place such a mapping in a hole the program made inside a
 * range of its own (it unmapped a page in the middle), and the program may later take the
 * whole range again: legal, since untraced nothing is there, but it took the tracer's page and
 * the process crashed (SIGSEGV, the trace cut short; 5 pages mapped, the middle one unmapped,
 * threads that allocate, then munmap of the 5 pages: every run). Two defences:
 *   - each mapping smaller than CKT_OWN_SPAN leaves address space free on each side (PROT_NONE,
 *     never touched) up to that span, so the kernel places it only in a gap of 2 MiB or more:
 *     in no small hole, where the program's MAP_FIXED, mremap, mprotect or madvise would reach
 *     it too;
 *   - the munmap hook unmaps only the parts of a range that are not the tracer's (which also
 *     covers an address-space limit, where the pads are left out).
 *
 * A fixed table of slots, one 64-bit word each: the first page number of the mapping (pads
 * included) above CKT_OWN_NPAGES_BITS bits of its page count; 0 = free, CKT_OWN_FILLING =
 * claimed, being mapped. One word, so a scan never pairs one mapping's start with another's
 * length (a slot freed and taken again between two loads). Claiming and freeing are rare (a
 * ring for a new thread, a buffer's growth) and lock-free (a CAS on a free slot); the munmap
 * hook reads the slots up to the highest ever used, one load per mapping of ours (a ring per
 * thread alive at once: up to all 4,096 slots), no lock on the program's path.
 * Past CKT_OWN_SLOTS mappings at once, the rest are neither padded nor protected.
 * A mapping's tail given back (ckt_ownmaps_shrink) leaves the table first, then is unmapped: a
 * program that unmaps that range itself and maps anew there in between loses the new mapping.
 * Not covered: a MAP_FIXED mapping or mremap to a fixed address over a hole of 2 MiB or more,
 * or over any hole under an address-space limit, still replaces a mapping of ours placed there
 * (README, Limits); a munmap racing the mapping itself; munmaps that pass the hooks by
 * (libunwind's own, raw system calls).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ckt.h"

#ifndef CKT_OWN_SLOTS /* smaller in tests/unit/test_ownmaps.c */
#define CKT_OWN_SLOTS 4096
#endif
#define CKT_OWN_NPAGES_BITS 24 /* up to 64 GiB of 4 KiB pages per mapping; the page number
				* keeps 40 bits (52-bit addresses) */
#define CKT_OWN_FILLING ((uint64_t)1)
/* The least address space a mapping of ours takes, pads included (see above): one of 2 MiB
 * or more has none. None under an address-space limit below CKT_OWN_PAD_LIMIT either
 * (RLIMIT_AS, read each time: a program may set one while it runs), which the tracer's
 * reservations already strain (README, Limits); a limit that high leaves room for them (1.5
 * MiB a thread ring). */
#define CKT_OWN_SPAN ((size_t)2 << 20)
#define CKT_OWN_PAD_LIMIT ((uint64_t)64 << 30)

static _Atomic uint64_t own[CKT_OWN_SLOTS];
static _Atomic size_t own_top; /* slots [0, own_top) may be in use */

static size_t own_page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static size_t own_whole_pages(size_t n)
{
	size_t page = own_page();
	return (n + page - 1) & ~(page - 1);
}

/* A slot's [lo, hi), false when it holds no mapping. */
static bool own_range(uint64_t w, uintptr_t *lo, uintptr_t *hi)
{
	if (w <= CKT_OWN_FILLING)
		return false;
	size_t page = own_page();
	*lo = (uintptr_t)(w >> CKT_OWN_NPAGES_BITS) * page;
	*hi = *lo + (uintptr_t)(w & (((uint64_t)1 << CKT_OWN_NPAGES_BITS) - 1)) * page;
	return true;
}

/* A free slot, claimed, or -1 when all are taken. */
static long own_claim(void)
{
	for (size_t i = 0; i < CKT_OWN_SLOTS; i++) {
		uint64_t free_slot = 0;
		if (atomic_load_explicit(&own[i], memory_order_relaxed) != 0 ||
		    !atomic_compare_exchange_strong(&own[i], &free_slot, CKT_OWN_FILLING))
			continue;
		size_t top = atomic_load(&own_top);
		while (top < i + 1 && !atomic_compare_exchange_weak(&own_top, &top, i + 1))
			;
		return (long)i;
	}
	return -1;
}

void *ckt_ownmaps_map(size_t n, int flags)
{
	struct rlimit rl;
	size_t len = own_whole_pages(n), page = own_page();
	if (len < n || len > SIZE_MAX - CKT_OWN_SPAN)
		return NULL;
	long slot = own_claim();
	size_t pad = 0;
	if (slot >= 0 && len < CKT_OWN_SPAN && getrlimit(RLIMIT_AS, &rl) == 0 &&
	    (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= CKT_OWN_PAD_LIMIT))
		pad = own_whole_pages((CKT_OWN_SPAN - len) / 2);
	int type = flags & MAP_SHARED ? MAP_SHARED : MAP_PRIVATE; /* shared: with forked children */
	flags &= ~MAP_SHARED;
	char *base = (char *)syscall(SYS_mmap, NULL, len + 2 * pad, pad ? PROT_NONE : PROT_READ | PROT_WRITE,
				     MAP_ANONYMOUS | (pad ? MAP_PRIVATE | MAP_NORESERVE : type | flags), -1, 0);
	if (base != MAP_FAILED && pad &&
	    (void *)syscall(SYS_mmap, base + pad, len, PROT_READ | PROT_WRITE,
			    type | MAP_ANONYMOUS | MAP_FIXED | flags, -1, 0) == MAP_FAILED) {
		syscall(SYS_munmap, base, len + 2 * pad);
		base = MAP_FAILED;
	}
	uint64_t pages = (len + 2 * pad) / page, first = base == MAP_FAILED ? 0 : (uintptr_t)base / page;
	/* a slot only for what its word can hold; without one (all taken, or too big a word)
	 * the mapping is neither padded nor protected */
	uint64_t w = first << CKT_OWN_NPAGES_BITS | pages;
	bool fits = pages < ((uint64_t)1 << CKT_OWN_NPAGES_BITS) && first < ((uint64_t)1 << (64 - CKT_OWN_NPAGES_BITS));
	if (base == MAP_FAILED || !fits || slot < 0) {
		if (slot >= 0)
			atomic_store_explicit(&own[slot], 0, memory_order_release);
		if (base == MAP_FAILED)
			return NULL;
		if (!pad)
			return base;
		/* no slot to find the pads by when unmapping: mapped again without them */
		syscall(SYS_munmap, base, len + 2 * pad);
		base = (char *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags,
				       -1, 0);
		return base == MAP_FAILED ? NULL : base;
	}
	/* the pads are ours too: a program's munmap must not free them for a later mapping of
	 * its own, which our unmap would then take */
	atomic_store_explicit(&own[slot], w, memory_order_release);
	return base + pad;
}

void ckt_ownmaps_unmap(void *p, size_t n)
{
	if (!p)
		return;
	uintptr_t a = (uintptr_t)p, lo, hi;
	size_t top = atomic_load(&own_top);
	for (size_t i = 0; i < top; i++) {
		uint64_t w = atomic_load_explicit(&own[i], memory_order_acquire);
		if (!own_range(w, &lo, &hi) || a < lo || a >= hi)
			continue;
		atomic_store_explicit(&own[i], 0, memory_order_release);
		syscall(SYS_munmap, lo, hi - lo);
		return;
	}
	syscall(SYS_munmap, p, own_whole_pages(n)); /* mapped without a slot: no pads */
}

/* Gives back the tail [p + keep, p + len) of a mapping of ours of 2 MiB or more (no pads;
 * keep and len whole pages): its slot says the shorter range first, so that once the tail is
 * unmapped the program's munmap over it goes to the kernel whole (ckt_stacks_fit_limit). */
void ckt_ownmaps_shrink(void *p, size_t len, size_t keep)
{
	uintptr_t a = (uintptr_t)p, lo, hi, page = own_page();
	size_t top = atomic_load(&own_top);
	for (size_t i = 0; i < top; i++) {
		uint64_t w = atomic_load_explicit(&own[i], memory_order_acquire);
		if (!own_range(w, &lo, &hi) || a < lo || a >= hi)
			continue;
		/* another shrink may lower it meanwhile: only ever lowered */
		while (hi > a + keep) {
			uint64_t nw = w >> CKT_OWN_NPAGES_BITS << CKT_OWN_NPAGES_BITS | (a + keep - lo) / page;
			if (atomic_compare_exchange_weak(&own[i], &w, nw) || !own_range(w, &lo, &hi))
				break;
		}
		break;
	}
	syscall(SYS_munmap, a + keep, len - keep);
}

/* The lowest start among our mappings that overlap [lo, hi), and its end; false if none. */
static bool own_first(uintptr_t lo, uintptr_t hi, uintptr_t *s, uintptr_t *e)
{
	size_t top = atomic_load_explicit(&own_top, memory_order_acquire);
	bool found = false;
	for (size_t i = 0; i < top; i++) {
		uintptr_t a, b;
		if (!own_range(atomic_load_explicit(&own[i], memory_order_acquire), &a, &b) || a >= hi || b <= lo ||
		    (found && a >= *s))
			continue;
		*s = a;
		*e = b;
		found = true;
	}
	return found;
}

/* Whether [addr, addr + len) is a range the kernel could take (nonzero, page-aligned, not
 * wrapping: else the real call gives its own answer) holding a mapping of ours; then its pages
 * are [*a, *end), and [*lo, *hi) spans our mappings in it (clipped to the range). */
static bool own_span(void *addr, size_t len, uintptr_t *a, uintptr_t *end, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t page = own_page(), s, e;
	*a = (uintptr_t)addr;
	if (!len || (*a & (page - 1)) || len > UINTPTR_MAX - *a - (page - 1))
		return false;
	*end = *a + own_whole_pages(len);
	if (!own_first(*a, *end, lo, &e))
		return false;
	*hi = e;
	for (uintptr_t cur = e; cur < *end && own_first(cur, *end, &s, &e); cur = e)
		*hi = e;
	if (*lo < *a)
		*lo = *a;
	if (*hi > *end)
		*hi = *end;
	return true;
}

int ckt_ownmaps_munmap_around(int (*real)(void *, size_t), void *addr, size_t len)
{
	uintptr_t a, end, lo, hi, s, e;
	if (!own_span(addr, len, &a, &end, &lo, &hi))
		return real(addr, len);
	/* The kernel unmaps all or nothing; pieces cannot. They go last piece first, then the
	 * first, then those between our mappings, stopping at the first failure: a range that
	 * ends or starts inside a huge page (EINVAL), or ends past the user address space (a
	 * munmap of 2^62 bytes, or one ending at 2^47, cut in address order, unmapped every
	 * mapping below its end), fails before anything went. A failure past that (a sealed page
	 * in between, EPERM; vm.max_map_count, ENOMEM) leaves the pieces before it unmapped. */
	int rc = 0;
	if (hi < end)
		rc = real((void *)hi, end - hi);
	if (!rc && lo > a)
		rc = real((void *)a, lo - a);
	for (uintptr_t cur = lo; cur < hi && !rc; cur = e) {
		if (!own_first(cur, hi, &s, &e))
			s = e = hi;
		if (s > cur)
			rc = real((void *)cur, s - cur);
	}
	return rc;
}

/* An advice that drops the contents of pages (MADV_DONTNEED and the like) over a range holding
 * a mapping of ours: untraced, that part of the range was a hole (the kernel placed our mapping
 * there), so the call goes to the rest, in address order, and ends as the kernel ends one over
 * a hole, ENOMEM after the rest took the advice; another error of a piece ends it with that
 * error, as the kernel stops at the area that fails. Under an address-space limit, where our mappings
 * can be in small holes, MADV_DONTNEED over one zeroed a thread's ring, and the trace lost its
 * events without a word (0 of 28 events, 3 runs of 4). */
int ckt_ownmaps_madvise_around(int (*real)(void *, size_t, int), void *addr, size_t len, int advice)
{
	uintptr_t a, end, lo, hi, s, e;
	if (!own_span(addr, len, &a, &end, &lo, &hi))
		return real(addr, len, advice);
	for (uintptr_t cur = a; cur < end; cur = e) {
		if (!own_first(cur, end, &s, &e))
			s = e = end;
		/* a piece with a hole of its own (ENOMEM) goes on, as the kernel does */
		if (s > cur && real((void *)cur, s - cur, advice) != 0 && errno != ENOMEM)
			return -1;
	}
	errno = ENOMEM;
	return -1;
}

/* see ckt.h: for mlockall (hooks_mmap.c), one area of /proc/self/maps at a time */
void ckt_ownmaps_mlock_around(uintptr_t lo, uintptr_t hi)
{
	uintptr_t s, e;
	for (uintptr_t cur = lo; cur < hi; cur = e) {
		if (!own_first(cur, hi, &s, &e))
			s = e = hi;
		if (s > cur)
			(void)syscall(SYS_mlock, (void *)cur, s - cur);
	}
}
