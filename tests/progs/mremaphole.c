/* mremaphole.c: mremap of a range with a hole in it (a part the program unmapped before).
 *   shrink: 16 read-write pages with pages 4-7 unmapped, shrunk in place to 12 pages: the
 *           kernel unmaps pages 12-15 and leaves the rest as it is, hole and all (8 pages
 *           mapped, not 12).
 *   move:   16 read-write pages with pages 4-7 unmapped, moved as they are (MREMAP_FIXED, same
 *           size) onto a part of a PROT_NONE reservation: Linux 6.17 and later move the two
 *           areas one by one, and the reservation's 4 pages under the hole stay reserved
 *           (12 pages mapped there, 4 reserved); earlier kernels refuse (EFAULT).
 *   copy:   the same, copied with MREMAP_DONTUNMAP (Linux 6.17 and later): the old range stays,
 *           the new one is 12 pages mapped and 4 reserved.
 *   dup:    a memfd of 16 pages mapped shared 4 pages long, then mapped again by mremap with
 *           an old size of 0 and a new one of 16 pages: the kernel makes one area of 16 pages
 *           (20 mapped in all), which the trace knows only 4 pages of.
 * Prints "mremaphole: shrink ok|refused, move moved|refused, copy copied|refused", then
 * "mremaphole: anon <bytes> reserved <bytes>", what /proc/self/maps shows in its windows at the
 * end (read-write anonymous pages, PROT_NONE pages), then "mremaphole: dup <bytes>", the
 * memfd's mapped bytes there (or "dup refused"). Nothing is unmapped at exit. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#define PG 4096ul

static char *win[2];

/* the bytes of mappings of the file named /memfd:<name> (deleted) */
static unsigned long memfd_bytes(const char *name)
{
	char l[512], want[64];
	unsigned long n = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	snprintf(want, sizeof(want), "/memfd:%s ", name);
	if (!f)
		return 0;
	while (fgets(l, sizeof(l), f)) {
		unsigned long s, e;
		if (sscanf(l, "%lx-%lx", &s, &e) == 2 && strstr(l, want))
			n += e - s;
	}
	fclose(f);
	return n;
}
static const unsigned long win_pages[2] = { 64, 32 };

static void count(unsigned long *anon, unsigned long *resv)
{
	char l[512];
	FILE *f = fopen("/proc/self/maps", "r");
	*anon = *resv = 0;
	if (!f)
		return;
	while (fgets(l, sizeof(l), f)) {
		unsigned long s, e;
		char perm[8];
		if (sscanf(l, "%lx-%lx %7s", &s, &e, perm) != 3)
			continue;
		for (int w = 0; w < 2; w++) {
			unsigned long lo = (unsigned long)win[w], hi = lo + win_pages[w] * PG;
			unsigned long a = s > lo ? s : lo, b = e < hi ? e : hi;
			if (a < b)
				*(strncmp(perm, "---", 3) ? anon : resv) += b - a;
		}
	}
	fclose(f);
}

static char *rw(char *at, unsigned long pages)
{
	return mmap(at, pages * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

int main(void)
{
	for (int w = 0; w < 2; w++) {
		win[w] = mmap(NULL, win_pages[w] * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (win[w] == MAP_FAILED)
			return 1;
	}
	char *a = win[0], *b = win[0] + 16 * PG, *c = win[1];
	if (rw(a, 16) == MAP_FAILED || rw(b, 16) == MAP_FAILED || rw(c, 16) == MAP_FAILED)
		return 1;
	memset(a, 1, 16 * PG);
	memset(b, 2, 16 * PG);
	memset(c, 3, 16 * PG);
	munmap(a + 4 * PG, 4 * PG);
	munmap(b + 4 * PG, 4 * PG);
	munmap(c + 4 * PG, 4 * PG);
	int shrunk = mremap(a, 16 * PG, 12 * PG, 0) != MAP_FAILED;
	int moved = mremap(b, 16 * PG, 16 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, win[0] + 48 * PG) != MAP_FAILED;
	int copied = mremap(c, 16 * PG, 16 * PG, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			    c + 16 * PG) != MAP_FAILED;
	unsigned long anon, resv;
	count(&anon, &resv);
	printf("mremaphole: shrink %s, move %s, copy %s\nmremaphole: anon %lu reserved %lu\n",
	       shrunk ? "ok" : "refused", moved ? "moved" : "refused", copied ? "copied" : "refused", anon, resv);
	int fd = memfd_create("ckt-dup", 0);
	char *d = fd >= 0 && ftruncate(fd, 16 * PG) == 0 ? mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
							 : MAP_FAILED;
	if (d != MAP_FAILED && mremap(d, 0, 16 * PG, MREMAP_MAYMOVE) != MAP_FAILED)
		printf("mremaphole: dup %lu\n", memfd_bytes("ckt-dup"));
	else
		printf("mremaphole: dup refused\n");
	return 0;
}
