/* ringmany.c: many threads recording at once, all alive together. Each of THREADS threads makes
 * EVENTS/2 allocations of 100 bytes, each freed at once (EVENTS records: more than a ring's
 * first 64 KiB window holds, so every window is written through and wraps). At a barrier where
 * all have recorded and none has ended, the main thread sums the resident kilobytes of the
 * process's private anonymous mappings of 520 to 528 KiB (the tracer's event rings; nothing
 * else in this program has that size) and prints "rings <count> <KiB>", then lets the threads end.
 * Usage: ringmany THREADS EVENTS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int events;
static pthread_barrier_t recorded, leave;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < events / 2; i++) {
		char *volatile p = malloc(100); /* volatile: the pair is not optimized away */
		free(p);
	}
	pthread_barrier_wait(&recorded);
	pthread_barrier_wait(&leave);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int n = atoi(argv[1]);
	events = atoi(argv[2]);
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
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 4;
	char line[512];
	unsigned long lo, hi, rss, kib = 0, count = 0;
	int ring = 0;
	while (fgets(line, sizeof line, f)) {
		char perms[8];
		int path = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &path) == 3) {
			unsigned long size = (hi - lo) >> 10;
			ring = size >= 520 && size <= 528 && perms[3] == 'p' && (line[path] == '\n' || line[path] == 0);
			count += (unsigned long)ring;
		} else if (ring && sscanf(line, "Rss: %lu kB", &rss) == 1) {
			kib += rss;
		}
	}
	fclose(f);
	printf("rings %lu %lu\n", count, kib);
	fflush(stdout);
	pthread_barrier_wait(&leave);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
