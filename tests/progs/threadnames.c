/* threadnames.c: named threads. rayon-synth-1, -2 and -17 allocate 1,000,000 each (folded as
 * rayon-synth-*: 3,000,000), gpu-worker 2,000,000 (named via prctl), and a thread renamed by
 * main to io-7 allocates 500,000 after the rename. Nothing is freed before exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *volatile keep[8];
static pthread_barrier_t renamed;

static void *synth(void *arg)
{
	long i = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "rayon-synth-%ld", i == 2 ? 17L : i);
	pthread_setname_np(pthread_self(), name);
	keep[i] = malloc(1000000);
	return NULL;
}

static void *gpu(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "gpu-worker", 0, 0, 0);
	keep[4] = malloc(2000000);
	return NULL;
}

static void *io(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&renamed);
	keep[5] = malloc(500000);
	return NULL;
}

int main(void)
{
	pthread_t t[5];
	pthread_barrier_init(&renamed, NULL, 2);
	for (long i = 0; i < 3; i++) {
		pthread_create(&t[i], NULL, synth, (void *)(i + 0));
		pthread_join(t[i], NULL);
	}
	pthread_create(&t[3], NULL, gpu, NULL);
	pthread_join(t[3], NULL);
	pthread_create(&t[4], NULL, io, NULL);
	pthread_setname_np(t[4], "io-7");
	pthread_barrier_wait(&renamed);
	pthread_join(t[4], NULL);
	return 0;
}
