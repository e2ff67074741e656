/* mremapmulti.c: mremap of a range that the tracer saw as several mappings or pieces.
 *   merged: two adjacent anonymous mappings, 1 page from site_a in phase "A" and 7 pages from
 *           site_b in phase "B", which the kernel merges into one area (untouched, alike in all
 *           it sees); moved with mremap onto a 64-page reservation and grown to 64 pages there.
 *           Each piece keeps its owner: A 1 page, B 7 + 56 pages (the area grows at its end);
 *           the reservation is replaced, so nothing is reserved at exit.
 *   pieces: (argument "pieces") 4 read-write pages with page 1 closed by mprotect (3 areas),
 *           moved as one onto another 4-page reservation with MREMAP_FIXED: Linux 6.17 and later
 *           move several areas at once, earlier kernels refuse (EFAULT). Moved: 3 pages mapped
 *           and 1 reserved at the destination; refused: the same at the source, the destination
 *           still reserved (4 pages more).
 *   dontunmap: (argument "dontunmap") two more merged mappings, 1 page in phase "C" and 7 in
 *           phase "D", copied with MREMAP_DONTUNMAP onto an 8-page reservation: the old range
 *           stays, the new one is C 1 page, D 7 pages (C 2 pages and D 14 in all).
 * Prints "mremapmulti: pieces moved" or "... refused" (or "... not tried"), then
 * "mremapmulti: dontunmap done" (or "refused", "not tried"), so the test knows the figures.
 * Nothing is unmapped at exit. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG 4096ul

static __attribute__((noinline)) char *site_a(char *at)
{
	return mmap(at, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

static __attribute__((noinline)) char *site_b(char *at)
{
	return mmap(at, 7 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* 8 pages of address space with a guard page on either side, so that the kernel merges the
 * mappings made there with nothing else */
static char *hole8(void);

static __attribute__((noinline)) char *reserve(size_t len)
{
	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

static char *hole8(void)
{
	char *hole = reserve(10 * PG);
	munmap(hole + PG, 8 * PG);
	return hole + PG;
}

/* phase `a` 1 page at src, phase `b` 7 pages after it: one area in the kernel */
static void two_merged(char *src, const char *a, const char *b)
{
	cuzktrace_phase_begin(a);
	if (site_a(src) != src)
		_exit(4);
	cuzktrace_phase_end(a);
	cuzktrace_phase_begin(b);
	if (site_b(src + PG) != src + PG)
		_exit(4);
	cuzktrace_phase_end(b);
}

static int has_arg(int argc, char **argv, const char *what)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], what) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	char *src = hole8();
	char *dst = reserve(64 * PG);
	two_merged(src, "A", "B");
	if (mremap(src, 8 * PG, 64 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst) != dst)
		_exit(5);
	memset(dst, 1, 64 * PG);

	const char *pieces = "not tried";
	if (has_arg(argc, argv, "pieces")) {
		char *a = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *d = reserve(4 * PG);
		if (a == MAP_FAILED || mprotect(a + PG, PG, PROT_NONE))
			_exit(6);
		pieces = mremap(a, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, d) == d ? "moved" : "refused";
	}
	printf("mremapmulti: pieces %s\n", pieces);

	const char *dontunmap = "not tried";
	if (has_arg(argc, argv, "dontunmap")) {
		char *c = hole8(), *d = reserve(8 * PG);
		two_merged(c, "C", "D");
		dontunmap = mremap(c, 8 * PG, 8 * PG, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, d) == d
				    ? "done"
				    : "refused";
	}
	printf("mremapmulti: dontunmap %s\n", dontunmap);
	return 0;
}
