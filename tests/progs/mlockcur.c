/* mlockcur.c: mlockall(MCL_CURRENT | MCL_FUTURE), as real-time and key-handling programs do at
 * start (cryptsetup, jackd), with a 32 MiB block allocated and never touched before it, and a
 * 16 MiB one after it. Both must be resident then (MCL_CURRENT populates what is mapped,
 * MCL_FUTURE what is mapped later), and the process's resident memory must stay that of the
 * program: traced, MCL_CURRENT also populated and locked the tracer's 4 GiB reservation for
 * call stacks (a memory cgroup of 1 GiB killed the program). Needs CAP_IPC_LOCK (root) or a
 * locked-memory limit above the process's address space. Prints what it found, one line each. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile keep[2];

/* MiB of [p, p + n) resident */
static size_t resident_mib(void *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = n / page, in = 0;
	uintptr_t a = (uintptr_t)p & ~(page - 1);
	unsigned char *v = malloc(pages + 1);
	if (!v || mincore((void *)a, pages * page, v) != 0)
		return (size_t)-1;
	for (size_t i = 0; i < pages; i++)
		in += v[i] & 1;
	free(v);
	return in * page >> 20;
}

static long rss_mib(void)
{
	long pages = -1, size;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f && fscanf(f, "%ld %ld", &size, &pages) != 2)
		pages = -1;
	if (f)
		fclose(f);
	return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE) / (1 << 20);
}

int main(void)
{
	keep[0] = malloc(32 << 20);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
		printf("mlockall: %s\n", strerror(errno));
		return 1;
	}
	keep[1] = malloc(16 << 20);
	printf("mlockall: 0\n");
	printf("block before: %zu MiB of 32 resident\n", resident_mib(keep[0], 32 << 20));
	printf("block after: %zu MiB of 16 resident\n", resident_mib(keep[1], 16 << 20));
	long rss = rss_mib();
	printf("resident: %s\n", rss < 0 ? "unknown" : rss < 256 ? "under 256 MiB" : "256 MiB or more");
	if (rss >= 256)
		fprintf(stderr, "mlockcur: %ld MiB resident\n", rss);
	return 0;
}
