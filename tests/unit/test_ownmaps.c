/* test_ownmaps.c: the table of the tracer's own mappings (preload/ownmaps.c, built here with 8
 * slots) and the munmap hook's split around them. The "real" munmap is a recorder: it unmaps
 * nothing, so the pieces and their order can be checked exactly. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ckt.h"

#define MIB ((uintptr_t)1 << 20)

static struct {
	uintptr_t addr, len;
} calls[16];
static int ncalls, fail_at = -1, fail_errno;

/* records the call; the fail_at-th call (0-based) fails with fail_errno */
static int fake_munmap(void *addr, size_t len)
{
	int i = ncalls++;
	if (i < 16) {
		calls[i].addr = (uintptr_t)addr;
		calls[i].len = len;
	}
	if (i == fail_at) {
		errno = fail_errno;
		return -1;
	}
	return 0;
}

static void reset(void)
{
	ncalls = 0;
	fail_at = -1;
	fail_errno = 0;
}

static size_t page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* a mapping of one page: the table reserves room around it up to 2 MiB, in whole pages each
 * side (so one page more); lo its start, the page in its middle */
static uintptr_t reservation(const char *p, uintptr_t *hi)
{
	uintptr_t pad = ((2 * MIB - page()) / 2 + page() - 1) & ~(uintptr_t)(page() - 1);
	*hi = (uintptr_t)p + page() + pad;
	return (uintptr_t)p - pad;
}

/* A range over two mappings of ours: the last piece, the first, then the one between; the
 * tracer's mappings, pads included, are never passed on. */
static void test_pieces_in_order(void **state)
{
	(void)state;
	char *m1 = ckt_ownmaps_map(100, 0), *m2 = ckt_ownmaps_map(page(), 0);
	assert_non_null(m1);
	assert_non_null(m2);
	m1[99] = 1; /* writable */
	uintptr_t hi1, hi2, lo1 = reservation(m1, &hi1), lo2 = reservation(m2, &hi2);
	assert_int_equal(hi1 - lo1, page() + 2 * MIB); /* 1 MiB each side, in whole pages */
	assert_true(hi1 - lo1 >= 2 * MIB);
	if (lo2 > lo1) { /* order them by address */
		uintptr_t t = lo1, u = hi1;
		lo1 = lo2, hi1 = hi2, lo2 = t, hi2 = u;
	}
	/* the range from 3 pages below both to 2 pages above: the last piece, the first, then the
	 * one between them when the kernel left a gap between the two */
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(lo2 - 3 * page()), hi1 - lo2 + 5 * page()), 0);
	assert_int_equal(ncalls, lo1 > hi2 ? 3 : 2);
	assert_int_equal(calls[0].addr, hi1);
	assert_int_equal(calls[0].len, 2 * page());
	assert_int_equal(calls[1].addr, lo2 - 3 * page());
	assert_int_equal(calls[1].len, 3 * page());
	if (lo1 > hi2) {
		assert_int_equal(calls[2].addr, hi2);
		assert_int_equal(calls[2].len, lo1 - hi2);
	}
	/* from below the lower one into it: one piece */
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(lo2 - 3 * page()), 4 * page()), 0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].addr, lo2 - 3 * page());
	assert_int_equal(calls[0].len, 3 * page());
	/* a range inside our own mapping: nothing of the program's to unmap */
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, m2, page()), 0);
	assert_int_equal(ncalls, 0);
	/* not ours: passed on as it is */
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(hi1 + 16 * MIB), page()), 0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].addr, hi1 + 16 * MIB);
	ckt_ownmaps_unmap(m1, 100);
	ckt_ownmaps_unmap(m2, page());
	/* gone from the table: a range over them is passed on whole */
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)lo2, hi2 - lo2), 0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].len, hi2 - lo2);
}

/* The first failure stops the rest (the kernel unmaps all or nothing: the last piece goes first,
 * so a range past the user address space fails before anything went); its errno is the
 * caller's. A length that wraps, or an unaligned start, goes to the kernel as it is. */
static void test_failure_stops(void **state)
{
	(void)state;
	char *m = ckt_ownmaps_map(page(), 0);
	assert_non_null(m);
	uintptr_t hi, lo = reservation(m, &hi);
	reset();
	fail_at = 0;
	fail_errno = EINVAL;
	errno = 0;
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(lo - page()), (size_t)1 << 62), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].addr, hi);
	reset();
	fail_at = 1;
	fail_errno = EPERM;
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(lo - page()), hi - lo + 2 * page()), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ncalls, 2);
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(lo - page()), SIZE_MAX - page()), 0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].len, SIZE_MAX - page());
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, (void *)(lo + 1), page()), 0);
	assert_int_equal(ncalls, 1);
	ckt_ownmaps_unmap(m, page());
}

/* Past the table's slots a mapping has no room around it and no protection, and still works;
 * a slot freed serves the next mapping. */
static void test_table_full(void **state)
{
	(void)state;
	char *m[10];
	for (int i = 0; i < 10; i++) {
		m[i] = ckt_ownmaps_map(page(), 0);
		assert_non_null(m[i]);
		m[i][0] = (char)i;
	}
	for (int i = 0; i < 10; i++) {
		reset();
		assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, m[i] - page(), 3 * page()), 0);
		if (i < 8) /* in the table: inside its own 2 MiB, nothing to pass on */
			assert_int_equal(ncalls, 0);
		else /* not: the range goes whole */
			assert_int_equal(ncalls, 1);
	}
	ckt_ownmaps_unmap(m[3], page());
	char *again = ckt_ownmaps_map(page(), 0);
	assert_non_null(again);
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, again, page()), 0);
	assert_int_equal(ncalls, 0); /* it took the freed slot */
	for (int i = 0; i < 10; i++)
		if (i != 3)
			ckt_ownmaps_unmap(m[i], page());
	ckt_ownmaps_unmap(again, page());
}

/* A mapping's tail given back (ckt_ownmaps_shrink, for an address-space limit set after start):
 * the table holds the shorter range, so a munmap over the old tail goes to the kernel whole and
 * one over the kept part does not; the tail is unmapped for real (mincore: ENOMEM), the kept
 * part still mapped. A shrink that would grow it changes nothing in the table. */
static void test_shrink(void **state)
{
	(void)state;
	char *m = ckt_ownmaps_map(8 * MIB, MAP_NORESERVE);
	assert_non_null(m);
	m[0] = 1;
	m[8 * MIB - 1] = 1;
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, m + 3 * MIB, MIB), 0);
	assert_int_equal(ncalls, 0); /* ours, whole */
	ckt_ownmaps_shrink(m, 8 * MIB, 2 * MIB);
	unsigned char vec[1];
	errno = 0;
	assert_int_equal(mincore(m + 3 * MIB, page(), vec), -1);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mincore(m + 2 * MIB - page(), page(), vec), 0);
	m[2 * MIB - 1] = 2; /* still writable */
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, m + 3 * MIB, MIB), 0);
	assert_int_equal(ncalls, 1); /* the program's range now */
	assert_int_equal(calls[0].addr, (uintptr_t)m + 3 * MIB);
	assert_int_equal(calls[0].len, MIB);
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, m + MIB, 2 * MIB), 0);
	assert_int_equal(ncalls, 1); /* the part past the kept 2 MiB only */
	assert_int_equal(calls[0].addr, (uintptr_t)m + 2 * MIB);
	assert_int_equal(calls[0].len, MIB);
	ckt_ownmaps_unmap(m, 2 * MIB);
	reset();
	assert_int_equal(ckt_ownmaps_munmap_around(fake_munmap, m, 2 * MIB), 0);
	assert_int_equal(ncalls, 1); /* gone from the table */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_in_order),
		cmocka_unit_test(test_failure_stops),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_shrink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
