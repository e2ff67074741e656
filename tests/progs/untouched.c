/* untouched.c: a buffer allocated and never touched, as a prover's calloc'd table before it is
 * filled: 64 MiB from calloc (a fresh mapping of zero pages: not resident) beside 1 MiB written
 * in full. At the peak RSS the untouched buffer's site holds more bytes than the RSS; the
 * report says they are allocated, not all resident.
 * With the argument "madvise": a 64 MiB scratch mapping written in full and given back with
 * madvise(MADV_DONTNEED) (mapped still, no longer resident), then 80 MiB of heap written in
 * full: the peak RSS counts the mapping's 64 MiB, which are not in it. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *volatile keep[2];
static volatile int reserved;

__attribute__((noinline)) static void *reserve_table(void)
{
	void *p = calloc(1, (size_t)64 << 20);
	reserved++; /* not a tail call: the frame stays on the stack */
	return p;
}

__attribute__((noinline)) static void *fill_rows(void)
{
	char *p = malloc((size_t)1 << 20);
	if (p)
		memset(p, 1, (size_t)1 << 20);
	return p;
}

__attribute__((noinline)) static void *scratch(void)
{
	char *p = mmap(NULL, (size_t)64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 1, (size_t)64 << 20);
	madvise(p, (size_t)64 << 20, MADV_DONTNEED);
	return p;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "madvise")) {
		keep[0] = scratch();
		char *h = malloc((size_t)80 << 20);
		if (h)
			memset(h, 2, (size_t)80 << 20);
		keep[1] = h;
		usleep(100000); /* RSS samples while both are live */
		return keep[0] && keep[1] ? 0 : 1;
	}
	keep[0] = reserve_table();
	keep[1] = fill_rows();
	usleep(100000); /* RSS samples while both are live */
	return keep[0] && keep[1] ? 0 : 1;
}
