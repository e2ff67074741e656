/* munmaphole.c MODE: a program punches a hole in a range of its own, starts threads (the tracer
 * maps memory for them: the kernel may place it in the hole), then takes the whole range again;
 * legal, untraced nothing is in the hole (the threads are started before the hole exists, and
 * allocate for the first time after). The tracer's memory must survive it (its writer's page
 * was taken: the program died with SIGSEGV). Prints whether something was mapped in the hole
 * then ("hole filled", "hole empty"), and "hole ok".
 *   one:   5 pages, the middle one unmapped, then munmap of the 5 (the default)
 *   many:  the same 200 times
 *   fixed: 5 pages, the middle one unmapped, then mmap MAP_FIXED over the 5 (the tracer's
 *          mappings take gaps of 2 MiB or more: they fit in no such hole)
 *   seal:  as one, but the last page is sealed first (mseal, Linux 6.10): the kernel refuses the
 *          munmap whole (EPERM) and unmaps nothing; unmapped around the tracer's page in
 *          pieces, the first pieces went before the sealed one failed. Prints "hole ok (EPERM)",
 *          or "hole ok (no mseal)" where the kernel has none
 *   madvise: as one, but madvise(MADV_DONTNEED) over the 5 pages first: untraced it fails with
 *          ENOMEM for the hole and zeroes the 4 pages; traced it must not zero the tracer's
 *          mapping in the hole (a thread's ring: its events were lost without a word). Prints
 *          "madvise ENOMEM, zeroed" when it went as untraced
 *   top:   munmap(p, 2^47 - p) of a range of its own: the kernel refuses it whole (EINVAL,
 *          past the user address space); cut around the tracer's mappings, every mapping
 *          below them went. Prints "top ok (EINVAL)" when p is still there
 * Under an address-space limit the tracer leaves no room around its mappings: then the munmap
 * hook unmaps around them (one, many, seal). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void ms(int n)
{
	struct timespec t = { n / 1000, (n % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

static pthread_barrier_t go;

/* started before the hole exists (its stack is not in it), its first allocation after: the
 * tracer maps the thread's ring then */
static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	free(malloc(100));
	ms(30);
	return NULL;
}

/* a range of `pages` pages, its pages [hole, hole + holen) unmapped, threads, then the range
 * taken again (fixed: mapped over, then unmapped) */
static int sealed; /* seal: 1 sealed, -1 no mseal here */
static int advise; /* madvise: 1 asked for, 2 as untraced (ENOMEM, the program's pages zeroed) */
static int filled; /* something was mapped in the hole (the first round's, /proc/self/maps) */

static int mapped_in(uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[512];
	int r = 0;
	while (f && fgets(l, sizeof(l), f)) {
		unsigned long a, b;
		if (sscanf(l, "%lx-%lx", &a, &b) == 2 && a < hi && b > lo)
			r = 1;
	}
	if (f)
		fclose(f);
	return r;
}

static int round_(size_t pg, size_t pages, size_t hole, size_t holen, int threads, int wait_ms, int fixed)
{
	pthread_t t[8];
	pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	char *a = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return 1;
	memset(a, 1, pages * pg);
	if (munmap(a + hole * pg, holen * pg) != 0)
		return 1;
	pthread_barrier_wait(&go);
	ms(wait_ms);
	static int first = 1;
	if (first)
		filled = mapped_in((uintptr_t)(a + hole * pg), (uintptr_t)(a + (hole + holen) * pg));
	first = 0;
	if (fixed && mmap(a, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != a)
		return 1;
	if (fixed)
		memset(a, 2, pages * pg);
	if (advise) {
		int r = madvise(a, pages * pg, MADV_DONTNEED);
		advise = r == -1 && errno == ENOMEM && a[0] == 0 && a[(pages - 1) * pg] == 0 ? 2 : 1;
	}
	if (sealed) {
		sealed = syscall(462 /* mseal */, a + (pages - 1) * pg, pg, 0UL) == 0 ? 1 : -1;
		if (sealed > 0) {
			if (munmap(a, pages * pg) == 0 || errno != EPERM)
				return 1;
			a[0] = 3; /* still there */
			for (int i = 0; i < threads; i++)
				pthread_join(t[i], NULL);
			pthread_barrier_destroy(&go);
			return 0;
		}
	}
	if (munmap(a, pages * pg) != 0)
		return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
	free(malloc(100));
	return 0;
}

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	const char *mode = argc > 1 ? argv[1] : "one";
	int rc;
	if (strcmp(mode, "many") == 0) {
		rc = 0;
		for (int r = 0; r < 200 && !rc; r++)
			rc = round_(pg, 5, 2, 1, 2, 5, 0);
	} else if (strcmp(mode, "top") == 0) {
		size_t gib = (size_t)1 << 30;
		char *p = mmap(NULL, gib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		p[0] = 1;
		uintptr_t top = (uintptr_t)1 << 47;
		if ((uintptr_t)p >= top || munmap(p, top - (uintptr_t)p) == 0 || errno != EINVAL)
			return 1;
		p[0] = 2; /* still there */
		puts("top ok (EINVAL)");
		return 0;
	} else {
		sealed = strcmp(mode, "seal") == 0;
		advise = strcmp(mode, "madvise") == 0;
		rc = round_(pg, 5, 2, 1, 4, 250, strcmp(mode, "fixed") == 0);
	}
	if (rc)
		return rc;
	ms(250); /* the writer flushes with what it mapped in the hole */
	puts(filled ? "hole filled" : "hole empty");
	if (advise)
		puts(advise == 2 ? "madvise ENOMEM, zeroed" : "madvise not as untraced");
	puts(sealed > 0 ? "hole ok (EPERM)" : sealed < 0 ? "hole ok (no mseal)" : "hole ok");
	return 0;
}
