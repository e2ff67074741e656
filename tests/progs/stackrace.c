/* stackrace.c LIB MS: two threads allocate from the same new call stack at the same moment,
 * round after round (a barrier between rounds), while a third opens and closes the library LIB
 * in a loop; main calls exit after MS ms. The first thread to capture a stack publishes it, then
 * looks up the module map with dl_iterate_phdr, where it may wait for the loader's lock (held by
 * the dlopen or dlclose); the other thread finds it published and records its event. An exit
 * then must still write that stack (before 0.2.56 a complete trace could name a stack it never
 * defined: 2 to 5 runs of 100). Prints nothing. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_barrier_t round_start;
static const char *lib;

static __attribute__((noinline)) void *leaf(unsigned k)
{
	void *p = malloc(32 + (k & 7));
	__asm__ volatile("" ::: "memory");
	return p;
}

/* a call stack of d frames of two functions, chosen by k's bits: one of 2^d stacks */
static __attribute__((noinline)) void *pick_b(unsigned k, int d);
static __attribute__((noinline)) void *pick_a(unsigned k, int d)
{
	void *p = d ? ((k >> d) & 1 ? pick_b(k, d - 1) : pick_a(k, d - 1)) : leaf(k);
	__asm__ volatile("" ::: "memory");
	return p;
}

static __attribute__((noinline)) void *pick_b(unsigned k, int d)
{
	void *p = d ? ((k >> d) & 1 ? pick_b(k, d - 1) : pick_a(k, d - 1)) : leaf(k);
	__asm__ volatile("" ::: "memory");
	return p;
}

static void *twin(void *arg)
{
	for (unsigned k = 0;; k++) {
		pthread_barrier_wait(&round_start);
		free(pick_a(k, 16));
	}
	return arg;
}

static void *opener(void *arg)
{
	for (;;) {
		void *h = dlopen(lib, RTLD_NOW);
		if (h)
			dlclose(h);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	lib = argv[1];
	long ms = atol(argv[2]);
	pthread_t t;
	pthread_barrier_init(&round_start, NULL, 2);
	if (pthread_create(&t, NULL, twin, NULL) || pthread_create(&t, NULL, twin, NULL) ||
	    pthread_create(&t, NULL, opener, NULL))
		return 1;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
	exit(0);
}
