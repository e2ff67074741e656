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
 * Prints "mremapmulti: pieces moved" or "... refused" (or "... not tried"), so the test knows
 * the figures. Nothing is unmapped at exit. */
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

static __attribute__((noinline)) char *reserve(size_t len)
{
	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

int main(int argc, char **argv)
{
	/* 8 pages of address space for the two mappings, with a guard page on either side so
	 * that the kernel merges them with nothing else */
	char *hole = reserve(10 * PG);
	munmap(hole + PG, 8 * PG);
	char *src = hole + PG;
	char *dst = reserve(64 * PG);
	cuzktrace_phase_begin("A");
	if (site_a(src) != src)
		_exit(4);
	cuzktrace_phase_end("A");
	cuzktrace_phase_begin("B");
	if (site_b(src + PG) != src + PG)
		_exit(4);
	cuzktrace_phase_end("B");
	if (mremap(src, 8 * PG, 64 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst) != dst)
		_exit(5);
	memset(dst, 1, 64 * PG);

	const char *pieces = "not tried";
	if (argc > 1 && strcmp(argv[1], "pieces") == 0) {
		char *a = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *d = reserve(4 * PG);
		if (a == MAP_FAILED || mprotect(a + PG, PG, PROT_NONE))
			_exit(6);
		pieces = mremap(a, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, d) == d ? "moved" : "refused";
	}
	printf("mremapmulti: pieces %s\n", pieces);
	return 0;
}
