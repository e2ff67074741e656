/* ownmaps.c: the tracer's own mappings, kept apart from the program's munmap.
 *
 * The tracer maps memory while the program runs (a ring for each new thread, zstd's and the
 * merge's buffers). The kernel may place such a mapping in a hole the program made inside a
 * range of its own (it unmapped a page in the middle), and a program may later unmap the whole
 * range again: legal, since untraced nothing is there, but it took the tracer's page and the
 * writer crashed (SIGSEGV, the trace cut short; a black-box test: 5 pages mapped, the middle one
 * unmapped, threads started, then munmap of the 5 pages: 12 of 12 runs). Two defences:
 *   - each mapping leaves CKT_OWN_PAD of address space free on each side (PROT_NONE, never
 *     touched), so the kernel places it only in a gap 2 MiB larger than itself: no small hole,
 *     where the program's MAP_FIXED, mremap, mprotect or madvise would reach it too;
 *   - the munmap hook unmaps only the parts of a range that are not the tracer's (which also
 *     covers an address-space limit, where the pads are left out).
 *
 * A fixed table of slots, each [lo, hi) or free (lo == 0); a slot being filled holds lo == 1.
 * Adding and removing are rare (a thread's first event, a buffer's growth) and lock-free (a CAS
 * on a free slot); the munmap hook reads the slots up to the highest ever used, about 2 loads
 * per mapping of ours (a few hundred with as many threads): no lock on the program's path.
 * Past CKT_OWN_SLOTS mappings at once, the rest are not protected (they still work).
 * Not covered: a MAP_FIXED mapping or mremap to a fixed address over a hole of 2 MiB or more,
 * or over any hole under an address-space limit, still replaces a mapping of ours placed there
 * (README, Limits), and a munmap racing the mapping itself.
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

#define CKT_OWN_SLOTS 4096
#define CKT_OWN_FILLING ((uintptr_t)1)

static struct {
	_Atomic uintptr_t lo, hi;
} own[CKT_OWN_SLOTS];
static _Atomic size_t own_top; /* slots [0, own_top) may be in use */

/* A free slot, claimed (lo = CKT_OWN_FILLING), or -1 when all are taken. */
static long own_claim(void)
{
	for (size_t i = 0; i < CKT_OWN_SLOTS; i++) {
		uintptr_t free_slot = 0;
		if (atomic_load_explicit(&own[i].lo, memory_order_relaxed) != 0 ||
		    !atomic_compare_exchange_strong(&own[i].lo, &free_slot, CKT_OWN_FILLING))
			continue;
		size_t top = atomic_load(&own_top);
		while (top < i + 1 && !atomic_compare_exchange_weak(&own_top, &top, i + 1))
			;
		return (long)i;
	}
	return -1;
}

static void own_set(long i, uintptr_t lo, uintptr_t hi)
{
	atomic_store_explicit(&own[i].hi, hi, memory_order_relaxed);
	atomic_store_explicit(&own[i].lo, lo, memory_order_release);
}

/* Address space left free around each mapping of ours, on each side, so that the kernel can
 * only place it in a gap of at least 2 MiB more than its size: not in a program's small hole,
 * where the program's mremap, mprotect, madvise or MAP_FIXED over its own range would take it
 * too (which no munmap hook can prevent). None under an address-space limit (RLIMIT_AS, read
 * each time: a program may set one while it runs), which the tracer's reservations already
 * strain (README, Limits), nor for a mapping the table has no slot for (its unmap would not
 * know them). */
#define CKT_OWN_PAD ((size_t)1 << 20)

static size_t whole_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) & ~(page - 1);
}

void *ckt_own_map(size_t n, int flags)
{
	struct rlimit rl;
	size_t len = whole_pages(n);
	if (len < n || len > SIZE_MAX - 2 * CKT_OWN_PAD)
		return NULL;
	long slot = own_claim();
	size_t pad = slot >= 0 && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY ? CKT_OWN_PAD : 0;
	char *base = (char *)syscall(SYS_mmap, NULL, len + 2 * pad, pad ? PROT_NONE : PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | (pad ? MAP_NORESERVE : flags), -1, 0);
	if (base != MAP_FAILED && pad &&
	    (void *)syscall(SYS_mmap, base + pad, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | flags, -1, 0) == MAP_FAILED) {
		syscall(SYS_munmap, base, len + 2 * pad);
		base = MAP_FAILED;
	}
	if (base == MAP_FAILED) {
		if (slot >= 0)
			atomic_store_explicit(&own[slot].lo, 0, memory_order_release);
		return NULL;
	}
	/* the pads are ours too: a program's munmap must not free them for a later mapping of
	 * its own, which our unmap would then take */
	if (slot >= 0)
		own_set(slot, (uintptr_t)base, (uintptr_t)base + len + 2 * pad);
	return base + pad;
}

void ckt_own_unmap(void *p, size_t n)
{
	if (!p)
		return;
	uintptr_t a = (uintptr_t)p;
	size_t top = atomic_load(&own_top);
	for (size_t i = 0; i < top; i++) {
		uintptr_t lo = atomic_load_explicit(&own[i].lo, memory_order_acquire);
		if (lo <= CKT_OWN_FILLING || a < lo || a >= atomic_load_explicit(&own[i].hi, memory_order_relaxed))
			continue;
		size_t len = atomic_load_explicit(&own[i].hi, memory_order_relaxed) - lo;
		atomic_store_explicit(&own[i].lo, 0, memory_order_release);
		syscall(SYS_munmap, lo, len);
		return;
	}
	syscall(SYS_munmap, p, whole_pages(n)); /* mapped without a slot: no pads */
}

/* The lowest start among our mappings that overlap [lo, hi), and its end; false if none. */
static bool own_first(uintptr_t lo, uintptr_t hi, uintptr_t *s, uintptr_t *e)
{
	size_t top = atomic_load_explicit(&own_top, memory_order_acquire);
	bool found = false;
	for (size_t i = 0; i < top; i++) {
		uintptr_t a = atomic_load_explicit(&own[i].lo, memory_order_acquire);
		if (a <= CKT_OWN_FILLING || a >= hi)
			continue;
		uintptr_t b = atomic_load_explicit(&own[i].hi, memory_order_relaxed);
		if (b <= lo || (found && a >= *s))
			continue;
		*s = a;
		*e = b;
		found = true;
	}
	return found;
}

int ckt_own_munmap_around(int (*real)(void *, size_t), void *addr, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)addr, s, e;
	/* the real call decides what is invalid (unaligned, empty, past the user address space,
	 * which the kernel refuses whole: a munmap of 2^62 bytes cut around ours unmapped every
	 * mapping above it) */
	if (!len || (a & (page - 1)) || a >= CKT_USER_TOP || len > CKT_USER_TOP - a)
		return real(addr, len);
	uintptr_t end = a + ((len + page - 1) & ~(page - 1));
	if (end > CKT_USER_TOP || !own_first(a, end, &s, &e))
		return real(addr, len);
	int rc = 0, err = 0;
	for (uintptr_t cur = a; cur < end;) {
		if (!own_first(cur, end, &s, &e))
			s = e = end;
		if (s > cur && real((void *)cur, s - cur) != 0 && !rc) {
			rc = -1;
			err = errno;
		}
		cur = e > cur ? e : end;
	}
	if (rc)
		errno = err;
	return rc;
}
