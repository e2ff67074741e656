/* slowunmap.c: run with tests/progs/lib/slowmunmap.so preloaded after the tracer and
 * SLOWMUNMAP_MS set. A thread unmaps 32 MiB (the call takes SLOWMUNMAP_MS); 300 ms into it the
 * main thread allocates a marker block of 12,345 bytes, joins, frees the marker. Then it tries
 * to unmap 48 MiB of a 64 MiB mapping, which fails (ENOMEM, nothing unmapped), and prints
 * "unmap failed: errno 12" when it did; then a munmap of 2^62 bytes, which the kernel refuses
 * (EINVAL; the tracer must not record it: "huge unmap failed: errno 22").
 * slowunmap hold: the thread unmaps 8 MiB instead (under the tracer's early-record size, so the
 * munmap's stamp holds the trace's time order back for the whole call); 50 ms into the call
 * the main thread makes 200,000 malloc(100)/free pairs, then the marker, joins and exits with
 * the marker live. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <stdatomic.h>
#include <string.h>

static void *volatile keep, *volatile churn;
static size_t len = (size_t)32 << 20;
static atomic_int inside;

static void *unmapper(void *p)
{
	atomic_store(&inside, 1);
	munmap(p, len);
	return NULL;
}

int main(int argc, char **argv)
{
	int hold = argc > 1 && strcmp(argv[1], "hold") == 0;
	if (hold)
		len = (size_t)8 << 20;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	pthread_t th;
	if (pthread_create(&th, NULL, unmapper, p) != 0)
		return 1;
	struct timespec d = {0, (hold ? 50 : 300) * 1000000L};
	while (!atomic_load(&inside))
		;
	nanosleep(&d, NULL);
	for (int i = 0; hold && i < 200000; i++) {
		churn = malloc(100);
		free(churn);
	}
	keep = malloc(12345);
	pthread_join(th, NULL);
	if (hold)
		return 0;
	free(keep);

	char *q = mmap(NULL, (size_t)64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return 1;
	if (munmap(q, (size_t)48 << 20) != 0)
		printf("unmap failed: errno %d\n", errno);
	/* a length past the user address space: refused (EINVAL) before anything is unmapped */
	if (munmap(q + ((size_t)48 << 20), (size_t)1 << 62) != 0)
		printf("huge unmap failed: errno %d\n", errno);
	return 0;
}
