/* bigframes.c: 40 threads of exact, known heap work that fill the writer's 1 MiB frames, so
 * that frames end in the middle of a thread's events (the encoder then starts the thread's
 * group and its address model again). Each thread makes 20,000 short-lived blocks of 16..63
 * bytes, keeps 200 blocks of 1,000 bytes, then (after a barrier) one block of 1 MiB; the peak,
 * with every thread holding everything, is 40 x (200,000 + 1,048,576) = 49,943,040 bytes above
 * the process's own noise (glibc's per-thread blocks). `bigframes noise` creates the same
 * threads and does only the barriers. Writes nothing until everything is freed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 40
#define SHORT 20000
#define KEEP 200

static pthread_barrier_t all_kept, all_big;
static int noise;
static void *volatile sink;

static void *worker(void *arg)
{
	(void)arg;
	void *keep[KEEP];
	int k = 0;
	if (!noise) {
		for (int i = 0; i < SHORT; i++) {
			char *p = malloc(16 + (size_t)(i % 48));
			p[0] = (char)i;
			sink = p;
			free(p);
			if (i % (SHORT / KEEP) == 0)
				keep[k++] = malloc(1000);
		}
	}
	pthread_barrier_wait(&all_kept);
	char *big = noise ? NULL : malloc(1 << 20);
	if (big)
		big[0] = 1;
	pthread_barrier_wait(&all_big); /* the peak: every thread holds all its blocks */
	pthread_barrier_wait(&all_kept);
	free(big);
	for (int i = 0; i < k; i++)
		free(keep[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	noise = argc > 1 && !strcmp(argv[1], "noise");
	pthread_t th[NT];
	pthread_barrier_init(&all_kept, NULL, NT);
	pthread_barrier_init(&all_big, NULL, NT);
	for (int t = 0; t < NT; t++)
		if (pthread_create(&th[t], NULL, worker, NULL))
			return 1;
	for (int t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	printf("bigframes: done\n");
	return 0;
}
