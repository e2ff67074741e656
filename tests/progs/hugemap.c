/* hugemap.c: MAP_HUGETLB mappings are whole huge pages. 1 MiB asked with the default size maps
 * one page (2 MiB here), touched; its munmap of the 1 MiB asked fails (EINVAL), so it stays to
 * the end. Then 3 MiB asked with MAP_HUGE_2MB maps 4 MiB, unmapped whole. Status 3 (and
 * "hugemap: no huge pages") where none are reserved (/proc/sys/vm/nr_hugepages). The first
 * mapping is made by a thread with a cancel pending: mmap is no cancellation point, so it
 * returns (a tracer that read the huge page size through glibc's open and read, which are,
 * cancelled the thread inside it: "hugemap: cancelled inside mmap"). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

static const size_t mib = 1 << 20;

static void *first(void *arg)
{
	(void)arg;
	pthread_cancel(pthread_self()); /* deferred: pending until a cancellation point */
	return mmap(NULL, mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
}

int main(void)
{
	pthread_t th;
	void *got = NULL;
	if (pthread_create(&th, NULL, first, NULL) || pthread_join(th, &got))
		return 2;
	if (got == PTHREAD_CANCELED) {
		printf("hugemap: cancelled inside mmap\n");
		return 4;
	}
	char *a = got;
	if (a == MAP_FAILED) {
		printf("hugemap: no huge pages\n");
		return 3;
	}
	memset(a, 1, mib);
	int bad = munmap(a, mib) == 0; /* fails: not a whole page */
	char *b = mmap(NULL, 3 * mib, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	if (b == MAP_FAILED) {
		printf("hugemap: no huge pages\n");
		return 3;
	}
	memset(b, 1, 3 * mib);
	bad |= munmap(b, 4 * mib) != 0;
	printf("hugemap: %s\n", bad ? "unexpected munmap results" : "done");
	return bad;
}
