/* threadpeaks.c: thread "early" allocates 8 MiB, writes it and frees it 50 ms later (the peak
 * heap); then thread "late" maps 32 MiB anonymous, writes it and holds it 100 ms (the peak RSS,
 * no heap). With --by thread the peak heap's split names early with 8,388,608 bytes, the peak
 * RSS's names late with 33,554,432. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile sink;

static void *early(void *a)
{
	pthread_setname_np(pthread_self(), "early");
	char *p = malloc(8 << 20);
	if (p)
		memset(p, 1, 8 << 20);
	sink = p;
	usleep(50000);
	free(p);
	return a;
}

static void *late(void *a)
{
	pthread_setname_np(pthread_self(), "late");
	char *p = mmap(NULL, 32 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return a;
	memset(p, 2, 32 << 20);
	usleep(100000);
	munmap(p, 32 << 20);
	return a;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, early, NULL) || pthread_join(t, NULL))
		return 1;
	if (pthread_create(&t, NULL, late, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
