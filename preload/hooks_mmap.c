/* hooks_mmap.c: the interposed mmap family. Only calls that go through the dynamic symbol are
 * seen: glibc's malloc maps its large blocks with an internal mmap, so heap bytes and mmap bytes
 * never count the same memory twice. Releases (munmap, the old range of mremap) are stamped
 * before the real call, so a later mapping of the same range by another thread sorts after. */
#include "ckt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4 /* Linux 5.7 */
#endif

/* munmap's: inside a CUDA driver call too. The driver's mappings made during the calls the
 * tracer wraps (pinned host memory) are not recorded, as they count as pinned memory; but one
 * it made during a call it does not wrap (cuInit, a context's creation, a module load) was
 * recorded, and it may unmap that during a wrapped call (a context reset or destroy, a free):
 * left out, the trace kept it mapped for good (mmap figures and live at exit too high). A
 * release of a range the trace never had mapped frees nothing in the reader.
 * fp: the hook's own frame address (for ckt_guard_stale) */
static inline int hook_enter_release(struct ckt_tls *t, void *fp)
{
	return (CKT_LIKELY(!t->guard) || ckt_guard_stale(t, fp)) &&
	       atomic_load_explicit(&ckt_active, memory_order_relaxed);
}

/* the other hooks': not inside a wrapped CUDA driver call (its mappings count as pinned) */
static inline int hook_enter(struct ckt_tls *t, void *fp)
{
	return hook_enter_release(t, fp) && CKT_LIKELY(!t->in_driver);
}

/* ckt_nosample_begin and _end for these hooks, which a signal handler may leave by siglongjmp
 * (a timeout around a slow MAP_POPULATE): noted in the thread, and ended by ckt_guard_stale
 * when it finds the hook left (the count stayed up, and every later sample waited its most) */
static inline void nosample_open(struct ckt_tls *t, size_t bytes)
{
	ckt_nosample_begin(bytes);
	t->nosample_open = bytes + 1;
}

static inline void nosample_close(struct ckt_tls *t)
{
	size_t b = t->nosample_open;
	t->nosample_open = 0;
	ckt_nosample_end(b - 1);
}

static void *real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (CKT_UNLIKELY(!ckt_real.mmap)) {
		if (atomic_load(&ckt_boot_state) == 0)
			ckt_bootstrap();
		if (!ckt_real.mmap)
			return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	}
	return ckt_real.mmap(addr, len, prot, flags, fd, off);
}

/* A mapping of /dev/zero is anonymous memory to the kernel: a private one counts in RssAnon, a
 * shared one is shared anonymous memory (as MAP_SHARED | MAP_ANONYMOUS: RssShmem). Since 0.2.51
 * the shared one too; it was counted file-backed. */
static int is_dev_zero(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	       minor(st.st_rdev) == 5;
}

static inline uint8_t map_bits(int prot, int flags, int fd)
{
	unsigned b = 0;
	if ((flags & MAP_ANONYMOUS) || is_dev_zero(fd))
		b |= CKT_MAP_ANON;
	if ((flags & MAP_TYPE) == MAP_SHARED || (flags & MAP_TYPE) == MAP_SHARED_VALIDATE)
		b |= CKT_MAP_SHARED;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))
		b |= CKT_MAP_FIXED;
	return (uint8_t)(b | (unsigned)(prot & 7) << 4);
}

/* The default huge page size (/proc/meminfo's Hugepagesize), read at the first MAP_HUGETLB
 * mapping; 2 MiB where it cannot be read. */
static size_t default_huge_page(void)
{
	static _Atomic size_t cached;
	size_t v = atomic_load_explicit(&cached, memory_order_relaxed);
	if (v)
		return v;
	v = (size_t)2 << 20;
	/* raw system calls: glibc's open and read are cancellation points, mmap is none (a
	 * thread with a cancel pending was cancelled inside the first MAP_HUGETLB mmap) */
	char buf[4096];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/meminfo", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? syscall(SYS_read, fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		syscall(SYS_close, fd);
	if (n > 0) {
		buf[n] = 0;
		const char *k = strstr(buf, "\nHugepagesize:");
		unsigned long long kb = 0;
		for (k = k ? k + 14 : NULL; k && *k == ' '; k++)
			;
		while (k && *k >= '0' && *k <= '9')
			kb = kb * 10 + (unsigned)(*k++ - '0');
		if (kb && !(kb & (kb - 1)) && kb < (1ull << 30))
			v = (size_t)kb << 10;
	}
	atomic_store_explicit(&cached, v, memory_order_relaxed);
	return v;
}

/* A MAP_HUGETLB mapping is whole huge pages: the kernel rounds its length up (1 MiB asked of 2
 * MiB pages maps 2 MiB, and munmap of the 1 MiB fails with EINVAL), so the length recorded is
 * the rounded one (before 0.2.57 the length asked: a 1 MiB mapping of a 2 MiB page). The page
 * size is in the flags' MAP_HUGE bits, else the default. */
static size_t mapped_len(size_t len, int flags)
{
	if (!(flags & MAP_HUGETLB))
		return len;
	unsigned shift = (unsigned)(flags >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK;
	size_t page = shift && shift < 8 * sizeof(size_t) ? (size_t)1 << shift : default_huge_page();
	return len <= SIZE_MAX - (page - 1) ? (len + page - 1) & ~(page - 1) : len;
}

CKT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct ckt_tls *t = &ckt_tls;
	/* the process's first intercepted call bootstraps and is traced, as the malloc family's
	 * (until 0.2.59 a first mmap, a library constructor's arena before the tracer's own
	 * constructor, passed through untraced: mimalloc's 32 MiB read as unexplained RSS). The
	 * rest of the family needs none: a range mapped before the tracer is none of the trace's */
	if (CKT_UNLIKELY(atomic_load_explicit(&ckt_boot_state, memory_order_relaxed) == 0))
		ckt_bootstrap();
	if (!hook_enter(t, __builtin_frame_address(0))) {
		const void *ra = __builtin_return_address(0);
		ckt_passed(t, ra);
		if ((flags & MAP_ANONYMOUS) && prot)
			ckt_child_note(len);
		void *p = real_mmap(addr, len, prot, flags, fd, off);
		if (CKT_UNLIKELY(t->unw_trimming) && p != MAP_FAILED && ckt_from_out(CKT_OUT_UNWIND, ra))
			ckt_stacks_unw_mapped(t, p, len, flags);
		return p;
	}
	struct ckt_guard_frame gf;
	ckt_guard_mark(t, &gf, __builtin_frame_address(0));
	/* pages made during the call, recorded after it: see ckt_nosample_begin */
	int populate = (flags & (MAP_POPULATE | MAP_LOCKED)) && len >= CKT_NOSAMPLE_MIN;
	if (populate) /* pages made go slower than unmapped ones: see wait_cap */
		nosample_open(t, CKT_NOSAMPLE_MAKES * len);
	ckt_guard_call(t, 1);
	void *p = real_mmap(addr, len, prot, flags, fd, off);
	ckt_guard_call(t, 0);
	if (p != MAP_FAILED) {
		uint32_t st = ckt_stacks_capture(t); /* before the clock: see hooks_malloc.c */
		ckt_emit(t, CKT_EV_MMAP, map_bits(prot, flags, fd), ckt_stamp(t), (uint64_t)(uintptr_t)p,
			 mapped_len(len, flags), st);
	}
	if (populate)
		nosample_close(t);
	ckt_guard_unmark(t, &gf);
	return p;
}

CKT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

/* A munmap of a big range is recorded before the real call, not when it returns: tearing down
 * touched pages takes long (0.3 s per 4 GiB here), and an event stamped before its call holds
 * the writer's SYNC horizon back until its commit, so the reader would hold every other
 * thread's events of that time in memory (a 4 GiB munmap beside one thread doing malloc/free:
 * 420 MiB of reader memory for a live set of one block). Recorded early, it cannot record the
 * call's outcome. Arguments the kernel refuses are checked first (not page-aligned, empty,
 * past the user address space, CKT_USER_TOP: a range up there, mapped by a 57-bit process,
 * goes the exact way); with the rest munmap fails, unmapping nothing, only in rare cases:
 * ENOMEM (a split past vm.max_map_count), EPERM (a sealed range, Linux 6.10), EINVAL (a
 * hugetlb range not split at its page size). The trace then counts the range unmapped though
 * it is not, and one warning line says so. (A range holding a mapping of the tracer is
 * unmapped around it, in pieces, which such a failure can leave half done: ownmaps.c.)
 * Smaller ranges keep the exact way (stamped before, recorded after success). */
#define CKT_MUNMAP_EARLY ((size_t)16 << 20)

static CKT_NOINLINE void munmap_failed(void *addr, size_t len, int err)
{
	static atomic_int warned;
	if (atomic_exchange(&warned, 1))
		return;
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: a munmap of ");
	ckt_line_bytes(&l, len);
	ckt_line_str(&l, " at ");
	ckt_line_hex(&l, (uint64_t)(uintptr_t)addr);
	ckt_line_str(&l, " failed (");
	const char *name = strerrorname_np(err); /* "ENOMEM": no locale, no allocation */
	if (name)
		ckt_line_str(&l, name);
	else
		ckt_line_u64(&l, (uint64_t)err);
	ckt_line_str(&l, ") after it was recorded: the trace counts the range unmapped (later such "
			 "failures are not reported)");
	ckt_line_emit(&l);
}

CKT_EXPORT int munmap(void *addr, size_t len)
{
	int (*real)(void *, size_t) = ckt_real.munmap;
	struct ckt_tls *t = &ckt_tls;
	/* libunwind unmaps its per-thread cache at thread exit, outside any hook of ours: its own
	 * memory (mapped under our guard, never recorded), not the program's */
	const void *ra = __builtin_return_address(0);
	if (CKT_UNLIKELY(!real) || !hook_enter_release(t, __builtin_frame_address(0)) ||
	    ckt_from_out(CKT_OUT_UNWIND, ra)) {
		ckt_passed(t, ra);
		return real ? real(addr, len) : (int)syscall(SYS_munmap, addr, len);
	}
	struct ckt_guard_frame gf;
	ckt_guard_mark(t, &gf, __builtin_frame_address(0));
	uintptr_t a = (uintptr_t)addr, page = (uintptr_t)sysconf(_SC_PAGESIZE);
	int rc, release = len >= CKT_NOSAMPLE_MIN; /* see ckt_nosample_begin */
	if (release)
		nosample_open(t, len);
	if (len >= CKT_MUNMAP_EARLY && !(a & (page - 1)) && a < CKT_USER_TOP && len <= CKT_USER_TOP - a) {
		ckt_emit(t, CKT_EV_MUNMAP, 0, ckt_stamp(t), a, len, 0);
		ckt_guard_call(t, 1);
		rc = ckt_ownmaps_munmap_around(real, addr, len);
		ckt_guard_call(t, 0);
		if (CKT_UNLIKELY(rc != 0)) {
			int err = errno;
			munmap_failed(addr, len, err);
			errno = err;
		}
	} else {
		uint64_t before = ckt_stamp(t);
		ckt_guard_call(t, 1);
		rc = ckt_ownmaps_munmap_around(real, addr, len);
		ckt_guard_call(t, 0);
		if (rc == 0)
			ckt_emit(t, CKT_EV_MUNMAP, 0, before, a, len, 0);
		else
			ckt_done(t);
	}
	if (release)
		nosample_close(t);
	ckt_guard_unmark(t, &gf);
	return rc;
}

/* A failed mprotect may still have changed part of its range: the kernel changes one mapping
 * after the other from the start and stops at a hole (ENOMEM) or at a mapping that cannot take
 * the protection (EACCES), keeping what it changed. What changed is found in /proc/self/maps
 * (failures are rare; raw system calls, a buffer on the stack, no allocation): the run of
 * adjacent mappings from addr on that now have the protection asked for, up to the first hole
 * or other protection. Mappings past that are as they were, whatever their protection. A first
 * mapping that had the protection already is recorded too, which changes nothing. The event
 * stamped `before` (a release, bits 0) or now (an opening) ends the busy mark. */
struct maps_run {
	unsigned bits;
	uintptr_t hi; /* the run so far is [s, hi); 0: none yet */
};

int ckt_maps_walk(char *buf, size_t cap, int (*line)(void *ctx, const char *p, const char *end, int whole),
		  void *ctx)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t have = 0;
	bool ok = fd >= 0, skip = false, done = false; /* skip: the rest of a line longer than buf */
	while (ok && !done) {
		ssize_t n = syscall(SYS_read, fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		have += (size_t)n;
		char *p = buf, *nl;
		while (!done && (nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			if (!skip)
				done = line(ctx, p, nl, 1) != 0;
			skip = false;
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (!done && have == cap) { /* a long path: its range and protection come first */
			if (!skip)
				done = line(ctx, buf, buf + have, 0) != 0;
			skip = true;
			have = 0;
		}
	}
	if (fd >= 0)
		syscall(SYS_close, fd);
	return ok ? 0 : -1;
}

const char *ckt_maps_range(const char *p, const char *end, uintptr_t v[2])
{
	for (int k = 0; k < 2; k++) {
		v[k] = 0;
		for (; p < end && *p != '-' && *p != ' '; p++) {
			unsigned c = (unsigned char)*p, d = c - '0' < 10 ? c - '0' : (c | 32) - 'a' + 10;
			if (d > 15)
				return NULL;
			v[k] = v[k] << 4 | d;
		}
		if (p >= end)
			return NULL;
		p++;
	}
	return p;
}

/* One line of /proc/self/maps, "lo-hi rwxp ...", in address order, against [s, e): 1 once the
 * run has ended (the rest need not be read). */
static int maps_line(struct maps_run *m, const char *p, const char *end, uintptr_t s, uintptr_t e)
{
	uintptr_t v[2];
	if (!(p = ckt_maps_range(p, end, v)))
		return 1;
	if (end - p < 3)
		return 1;
	if (v[1] <= s)
		return 0; /* before the range */
	unsigned prot = (p[0] == 'r' ? 1u : 0u) | (p[1] == 'w' ? 2u : 0u) | (p[2] == 'x' ? 4u : 0u);
	if (v[0] > (m->hi ? m->hi : s) || prot != m->bits)
		return 1; /* a hole, or a mapping the call did not change */
	m->hi = v[1] < e ? v[1] : e;
	return m->hi >= e;
}

struct protect_walk {
	struct maps_run m;
	uintptr_t s, e;
};

static int protect_line(void *ctx, const char *p, const char *end, int whole)
{
	struct protect_walk *w = ctx;
	(void)whole; /* the range and protection are all it reads */
	return maps_line(&w->m, p, end, w->s, w->e);
}

static CKT_NOINLINE void protect_partial(struct ckt_tls *t, uintptr_t addr, size_t len,
					 unsigned bits, uint64_t before)
{
	static atomic_int warned;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct protect_walk w = {{bits, 0}, addr, (addr + len + page - 1) & ~(page - 1)};
	char buf[4096];
	bool ok = ckt_maps_walk(buf, sizeof(buf), protect_line, &w) == 0;
	if (w.m.hi)
		ckt_put(t, CKT_EV_MPROTECT, (uint8_t)bits, bits ? ckt_stamp(t) : before, w.s, w.m.hi - w.s, 0);
	ckt_done(t);
	if (!ok && !atomic_exchange(&warned, 1))
		ckt_log("warning: an mprotect failed partway and /proc/self/maps cannot be read: "
			"mapped and reserved figures may be off by the part it changed", NULL, NULL,
			NULL);
}

struct growsdown_walk {
	uintptr_t s, e, lo; /* lo: the start of the first mapping that reaches into [s, e); 0: none */
};

static int growsdown_line(void *ctx, const char *p, const char *end, int whole)
{
	struct growsdown_walk *w = ctx;
	uintptr_t v[2];
	(void)whole;
	if (!ckt_maps_range(p, end, v) || v[0] >= w->e)
		return 1; /* past the range: none reaches into it */
	if (v[1] <= w->s)
		return 0;
	w->lo = v[0];
	return 1;
}

/* mprotect(addr, len, prot | PROT_GROWSDOWN) changes the range from the start of the
 * downward-growing mapping that holds addr (a stack, MAP_GROWSDOWN), or of the first one above
 * addr within the range, up to its end, not from addr (until 0.2.59 the range asked was
 * recorded: 1 MiB of a 2 MiB stack closed from its start read as the 4 KiB asked for). The
 * start is read back from /proc/self/maps after the call (a rare call: raw system calls, a
 * buffer on the stack, no allocation) and returned; addr where none is found; 0 where the file
 * cannot be read (the caller records the range asked, then says so once: ckt_log may block,
 * so not while a release's stamp holds the SYNC horizon). */
static CKT_NOINLINE uintptr_t growsdown_start(uintptr_t addr, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct growsdown_walk w = {addr, (addr + len + page - 1) & ~(page - 1), 0};
	char buf[4096];
	if (ckt_maps_walk(buf, sizeof(buf), growsdown_line, &w) != 0)
		return 0;
	return w.lo ? w.lo : addr;
}

/* mprotect and pkey_mprotect: a range's protection decides whether it is memory or only
 * reserved address space (PROT_NONE: the CUDA driver reserves gigabytes so), so changes are
 * recorded (format version 5). As for the rest of the family: closing a range (PROT_NONE) is a
 * release, stamped before the real call; opening one is stamped after it. No stack: the
 * bytes stay with the mapping's own. */
static int protect(void *addr, size_t len, int prot, bool use_pkey, int pkey)
{
	struct ckt_tls *t = &ckt_tls;
	int (*real)(void *, size_t, int) = ckt_real.mprotect;
	int (*real_pkey)(void *, size_t, int, int) = ckt_real.pkey_mprotect;
	if (CKT_UNLIKELY(use_pkey ? !real_pkey : !real) || !hook_enter(t, __builtin_frame_address(0))) {
		ckt_passed(t, __builtin_return_address(0));
		if (use_pkey)
			return real_pkey ? real_pkey(addr, len, prot, pkey)
					 : (int)syscall(SYS_pkey_mprotect, addr, len, prot, pkey);
		return real ? real(addr, len, prot) : (int)syscall(SYS_mprotect, addr, len, prot);
	}
	struct ckt_guard_frame gf;
	ckt_guard_mark(t, &gf, __builtin_frame_address(0));
	unsigned bits = (unsigned)prot & 7;
	uint64_t before = bits ? 0 : ckt_stamp(t);
	ckt_guard_call(t, 1);
	int rc = use_pkey ? real_pkey(addr, len, prot, pkey) : real(addr, len, prot);
	ckt_guard_call(t, 0);
	if (rc == 0) {
		uintptr_t a = (uintptr_t)addr;
		bool unread = false; /* /proc/self/maps could not be read */
		/* (a release's stamp holds the SYNC horizon over the maps' read: a rare call) */
		if (CKT_UNLIKELY(prot & PROT_GROWSDOWN) && len) {
			uintptr_t lo = growsdown_start(a, len);
			unread = !lo;
			if (lo && lo != a) {
				len = lo < a ? len + (a - lo) : len - (lo - a);
				a = lo;
			}
		}
		ckt_emit(t, CKT_EV_MPROTECT, (uint8_t)bits, bits ? ckt_stamp(t) : before, a, len, 0);
		static atomic_int warned;
		if (CKT_UNLIKELY(unread) && !atomic_exchange(&warned, 1))
			ckt_log("warning: an mprotect with PROT_GROWSDOWN changed a stack's protection from its "
				"start, and /proc/self/maps cannot be read: mapped and reserved figures may be off "
				"by the part below the range it was asked for", NULL, NULL, NULL);
	} else if ((errno == ENOMEM || errno == EACCES) && len &&
		   (uintptr_t)addr + len > (uintptr_t)addr) { /* a range that wraps changes nothing */
		int saved = errno;
		/* the kernel stops at the first hole, and what is recorded is the run that starts
		 * at the range's start: with its first page not mapped there is none, and reading
		 * /proc/self/maps (up to 35 ms with 64,000 mappings) would find nothing. (With
		 * PROT_GROWSDOWN the kernel may have changed a mapping above; neither way records
		 * it.) */
		unsigned char v;
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		if (saved == ENOMEM && syscall(SYS_mincore, (uintptr_t)addr & ~(page - 1), 1, &v) < 0 &&
		    errno == ENOMEM) {
			if (!bits)
				ckt_done(t);
		} else {
			protect_partial(t, (uintptr_t)addr, len, bits, before);
		}
		errno = saved;
	} else if (!bits) {
		ckt_done(t);
	}
	ckt_guard_unmark(t, &gf);
	return rc;
}

/* Advice that drops the contents of pages goes around the tracer's own mappings (ownmaps.c);
 * the rest, and every other advice, is the program's call as it is. Nothing is recorded. */
CKT_EXPORT int madvise(void *addr, size_t len, int advice)
{
	int (*real)(void *, size_t, int) = ckt_real.madvise;
	if (CKT_UNLIKELY(!real))
		return (int)syscall(SYS_madvise, addr, len, advice);
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_REMOVE:
	case 24:  /* MADV_DONTNEED_LOCKED (Linux 5.18) */
	case 100: /* MADV_HWPOISON */
	case 102: /* MADV_GUARD_INSTALL (Linux 6.13): accesses fault */
		return ckt_ownmaps_madvise_around(real, addr, len, advice);
	default:
		return real(addr, len, advice);
	}
}

/* mlockall(MCL_CURRENT) populates and locks every mapping of the process, and the tracer's
 * reservations are mappings: the 4 GiB of address space for call stacks, touched only as
 * stacks fill it, became 4 GiB of locked memory (a program that locks itself at start, as
 * cryptsetup and real-time audio do, was killed by the out-of-memory killer in a memory cgroup
 * of 1 GiB, where untraced it locks 2 MiB). So everything mapped is locked as its pages are
 * touched (MCL_ONFAULT: what is resident now, the tracer's used pages among it, is locked at
 * once), then the program's own mappings are populated and locked, area by area, with mlock
 * (ownmaps.c goes around the tracer's), and MCL_FUTURE is set last, without MCL_ONFAULT, as
 * asked. The program's memory ends as untraced: resident and locked; areas that cannot be
 * populated (PROT_NONE, I/O mappings) are locked unpopulated, as mlockall leaves them. An
 * area another thread maps meanwhile is locked as its pages are touched. A kernel without
 * MCL_ONFAULT (before 4.4) gets the call as it is. Not the hot path: raw system calls, a
 * buffer on the stack. */
static int lock_line(void *ctx, const char *p, const char *end, int whole)
{
	uintptr_t v[2];
	(void)ctx;
	(void)whole; /* the range is all it reads */
	if (!ckt_maps_range(p, end, v))
		return 1;
	if (v[0] < v[1])
		ckt_ownmaps_mlock_around(v[0], v[1]);
	return 0;
}

CKT_EXPORT int mlockall(int flags)
{
	int (*real)(int) = ckt_real.mlockall;
	if (CKT_UNLIKELY(!real))
		return (int)syscall(SYS_mlockall, flags);
	if (!(flags & MCL_CURRENT) || (flags & MCL_ONFAULT))
		return real(flags);
	int saved = errno;
	if (real(flags | MCL_ONFAULT) != 0) {
		if (errno != EINVAL)
			return -1; /* the limit (ENOMEM, EPERM), as the call itself would fail */
		errno = saved;
		return real(flags);
	}
	char buf[4096];
	if (ckt_maps_walk(buf, sizeof(buf), lock_line, NULL) < 0) {
		/* no /proc (a mount namespace without it, no descriptor free): the areas cannot be
		 * told apart, and locking all as untraced would make the tracer's reservations
		 * resident: what is mapped now stays locked as its pages are touched */
		int e = errno;
		ckt_log("warning: mlockall(MCL_CURRENT): cannot read /proc/self/maps (", strerrordesc_np(e),
			"); memory mapped now is locked as its pages are touched, not made resident at once",
			NULL);
	}
	if (flags & MCL_FUTURE)
		(void)real(flags & ~(MCL_CURRENT | MCL_ONFAULT));
	errno = saved;
	return 0;
}

/* An address-space limit (RLIMIT_AS) the program sets on itself after start counts the
 * tracer's reservations, the 4 GiB for call stacks first, which it never touches: a limit the
 * untraced program lives under (a script's `ulimit -v 4000000`, Python's resource.setrlimit)
 * refused its next allocation traced. After such a call succeeds, the reservation shrinks as
 * a limit set before start would have sized it (ckt_stacks_fit_limit), in the traced process
 * or a forked child with memory of its own (its atfork handler says so, with no system call;
 * kcmp for a _Fork or clone child); not in a vfork child of the traced process, whose memory
 * is the parent's (one of an untraced forked child may give that child's back: it records
 * nothing). The call's struct is read by nothing of ours (a bad pointer is the call's EFAULT,
 * not a fault here): the limit is asked of the kernel after the call, for this process (pid
 * 0, its pid, or one of its threads' ids), which also covers prlimit's new and old limits in
 * one struct. Before the tracer started it sizes the reservation from the limit itself. errno
 * is left as the call left it. A raw system call is not seen. Not the hot path. */
static void as_limit_set(pid_t pid, int resource, const void *rl)
{
	__asm__("" : "+r"(rl)); /* glibc's header declares it nonnull; NULL sets nothing */
	if (resource != RLIMIT_AS || !rl)
		return;
	int saved = errno;
	pid_t me = getpid();
	struct rlimit now;
	if ((pid == 0 || pid == me || syscall(SYS_tgkill, me, pid, 0) == 0) &&
	    syscall(SYS_prlimit64, 0, RLIMIT_AS, NULL, &now) == 0 && now.rlim_cur != RLIM_INFINITY &&
	    ckt_stacks_would_shrink(now.rlim_cur) &&
	    (ckt_exec_own_memory() || ckt_thread_child_memory() == CKT_CHILD_OWN))
		ckt_stacks_fit_limit(now.rlim_cur);
	errno = saved;
}

CKT_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *rl)
{
	int rc = ckt_real.setrlimit ? ckt_real.setrlimit(resource, rl)
				    : (int)syscall(SYS_prlimit64, 0, (int)resource, rl, NULL);
	if (rc == 0)
		as_limit_set(0, (int)resource, rl);
	return rc;
}

/* the same function in glibc on 64-bit systems, struct rlimit64 being struct rlimit */
_Static_assert(sizeof(struct rlimit64) == sizeof(struct rlimit), "struct rlimit64 is struct rlimit");
CKT_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rl)
{
	return setrlimit(resource, (const struct rlimit *)(const void *)rl);
}

CKT_EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *rl, struct rlimit *old)
{
	int rc = ckt_real.prlimit ? ckt_real.prlimit(pid, resource, rl, old)
				  : (int)syscall(SYS_prlimit64, pid, (int)resource, rl, old);
	if (rc == 0)
		as_limit_set(pid, (int)resource, rl);
	return rc;
}

CKT_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *rl, struct rlimit64 *old)
{
	return prlimit(pid, resource, (const struct rlimit *)(const void *)rl, (struct rlimit *)(void *)old);
}

CKT_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	return protect(addr, len, prot, false, 0);
}

CKT_EXPORT int pkey_mprotect(void *addr, size_t len, int prot, int pkey)
{
	return protect(addr, len, prot, true, pkey);
}

CKT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	__typeof__(mremap) *real = ckt_real.mremap;
	struct ckt_tls *t = &ckt_tls;
	if (CKT_UNLIKELY(!real) || !hook_enter(t, __builtin_frame_address(0))) {
		ckt_passed(t, __builtin_return_address(0));
		return real ? real(old, old_len, new_len, flags, new_addr)
			    : (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	}
	struct ckt_guard_frame gf;
	ckt_guard_mark(t, &gf, __builtin_frame_address(0));
	uint32_t st = ckt_stacks_capture(t);
	size_t release = old_len >= CKT_NOSAMPLE_MIN ? old_len : 0; /* see ckt_nosample_begin */
	if (release)
		nosample_open(t, release);
	uint64_t before = ckt_stamp(t);
	ckt_guard_call(t, 1);
	void *p = real(old, old_len, new_len, flags, new_addr);
	ckt_guard_call(t, 0);
	if (p == MAP_FAILED) {
		ckt_done(t);
	} else {
		/* old_len 0 duplicates a shared mapping, MREMAP_DONTUNMAP leaves the old range in
		 * place: the old range stays, so nothing is released, and the new range takes the
		 * old one's attributes (file-backed or anonymous) from the reader's own map */
		size_t released = flags & MREMAP_DONTUNMAP ? 0 : old_len;
		/* released before the call, the new range there after it (format version 3) */
		ckt_emit2(t, CKT_EV_MREMAP, 0, before, (uint64_t)(uintptr_t)old, released, ckt_now(),
			  (uint64_t)(uintptr_t)p, new_len, st);
	}
	if (release) /* after the new range's stamp */
		nosample_close(t);
	ckt_guard_unmark(t, &gf);
	return p;
}

/* Our own definition, for bootstrap.c (see hooks_malloc.c). */
extern __typeof__(mmap) ckt_self_mmap __attribute__((alias("mmap"), copy(mmap)));
