/* ringmany.c: many threads recording at once, all alive together. Each of THREADS threads makes
 * EVENTS/2 allocations of 100 bytes, each freed at once (EVENTS records: more than a ring's
 * first 64 KiB window holds, so every window is written through and wraps). At a barrier where
 * all have recorded and none has ended, the main thread sums the resident kilobytes of the
 * process's private anonymous mappings of 1032 to 1040 KiB that were not there before the
 * threads started (the tracer's event rings are of that size; so is the writer's output buffer,
 * and the main thread's and the RSS sampler's rings are there before: all three left out) and
 * prints "rings <count> <KiB> <count of 64 KiB or more>", then lets the threads end.
 * With VFORKS, first that many threads, one after the other, each make a vfork child that
 * allocates before it _exits, as the thread's first traced call: each child takes a ring of
 * its own (never recycled), which must not count in the rings' first windows. The threads then
 * record at a moderate rate (500 records, then 20 ms of sleep), so that no window grows: a ring
 * that started on 64 KiB has 64 KiB resident, one that started small less.
 * Usage: ringmany THREADS EVENTS [VFORKS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static int events, pace;

/* Calls fn(lo, resident KiB) for each private anonymous mapping of a ring's size. */
static int each_ring(void (*fn)(unsigned long lo, unsigned long kib))
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	unsigned long lo = 0, hi, rss;
	int ring = 0;
	while (fgets(line, sizeof line, f)) {
		char perms[8];
		int path = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &path) == 3) {
			unsigned long size = (hi - lo) >> 10;
			ring = size >= 1032 && size <= 1040 && perms[3] == 'p' && (line[path] == '\n' || line[path] == 0);
		} else if (ring && sscanf(line, "Rss: %lu kB", &rss) == 1) {
			fn(lo, rss);
		}
	}
	fclose(f);
	return 0;
}

static unsigned long before[64], nbefore, kib, count, big;

static void note_before(unsigned long lo, unsigned long rss)
{
	(void)rss;
	if (nbefore < 64)
		before[nbefore++] = lo;
}

static void count_new(unsigned long lo, unsigned long rss)
{
	for (unsigned long i = 0; i < nbefore; i++)
		if (before[i] == lo)
			return;
	count++;
	kib += rss;
	big += rss >= 64;
}
static pthread_barrier_t recorded, leave;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < events / 2; i++) {
		char *volatile p = malloc(100); /* volatile: the pair is not optimized away */
		free(p);
		if (pace && i % 250 == 249) {
			struct timespec ts = {0, 20000000};
			nanosleep(&ts, NULL);
		}
	}
	pthread_barrier_wait(&recorded);
	pthread_barrier_wait(&leave);
	return NULL;
}

static void *vforker(void *arg)
{
	(void)arg;
	pid_t c = vfork();
	if (c == 0) {
		char *volatile p = malloc(100);
		free(p);
		_exit(0);
	}
	return c > 0 && waitpid(c, NULL, 0) == c ? (void *)1 : NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	int n = atoi(argv[1]);
	events = atoi(argv[2]);
	pace = argc == 4;
	if (each_ring(note_before) < 0)
		return 4;
	for (int i = 0, v = argc == 4 ? atoi(argv[3]) : 0; i < v; i++) {
		pthread_t t;
		void *ok = NULL;
		if (pthread_create(&t, NULL, vforker, NULL) != 0 || pthread_join(t, &ok) != 0 || !ok)
			return 5;
	}
	pthread_t *th = calloc((size_t)n, sizeof *th);
	pthread_barrier_init(&recorded, NULL, (unsigned)n + 1);
	pthread_barrier_init(&leave, NULL, (unsigned)n + 1);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 << 10);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], &at, worker, NULL) != 0)
			return 3;
	pthread_barrier_wait(&recorded);
	if (each_ring(count_new) < 0)
		return 4;
	printf("rings %lu %lu %lu\n", count, kib, big);
	fflush(stdout);
	pthread_barrier_wait(&leave);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
