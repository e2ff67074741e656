/* temps.c: heap blocks freed as temporaries (freed by their thread before it allocates again),
 * from known sites, for "top sites by temporary allocations":
 *   churn_one:   1000 blocks of 100 bytes, each freed at once: 1000 temporaries;
 *   pair_outer, pair_inner: 500 times a block of 200 bytes, then one of 8, then both freed
 *                in that order: pair_inner's 500 are temporaries, pair_outer's none (a block
 *                was allocated after each of them);
 *   grow_start, grow_step: 300 times a block of 50 bytes grown by realloc to 5000, then freed:
 *                the realloc's 300 blocks are temporaries, the malloc's none (realloc released
 *                them, no free did);
 *   zeroed:      100 calloc blocks of 64 bytes freed at once: 100;
 *   handoff_make: a thread allocates 200 blocks that main frees: none (another thread's);
 *   own_block:   a thread allocates one block, main allocates one (main_between, kept), then
 *                the thread frees its block: 1 (per thread; a process-wide "nothing allocated
 *                since" would not count it);
 *   held_peak:   4 threads each allocate 1 MiB, all wait at a barrier (the peak heap), then
 *                each frees its block: none (since 0.2.38: live at the peak, they cost memory).
 *                churn_one's first block made a peak of its time too (100 bytes) and is a
 *                temporary: the heap rose again after it.
 * In all 1901 from these sites. Nothing is printed (stdio would allocate). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *volatile sink;
static void *handed[200];
static volatile int calls; /* after each call: no tail call, the site's frame stays */
static pthread_barrier_t b1, b2, b3;

__attribute__((noinline)) static void *churn_one(void)
{
	void *p = malloc(100);
	calls++;
	return p;
}

__attribute__((noinline)) static void *pair_outer(void)
{
	void *p = malloc(200);
	calls++;
	return p;
}

__attribute__((noinline)) static void *pair_inner(void)
{
	void *p = malloc(8);
	calls++;
	return p;
}

__attribute__((noinline)) static void *grow_start(void)
{
	void *p = malloc(50);
	calls++;
	return p;
}

__attribute__((noinline)) static void *grow_step(void *old)
{
	void *p = realloc(old, 5000);
	calls++;
	return p;
}

__attribute__((noinline)) static void *zeroed(void)
{
	void *p = calloc(1, 64);
	calls++;
	return p;
}

__attribute__((noinline)) static void *handoff_make(void)
{
	void *p = malloc(32);
	calls++;
	return p;
}

__attribute__((noinline)) static void *own_block(void)
{
	void *p = malloc(48);
	calls++;
	return p;
}

__attribute__((noinline)) static void *main_between(void)
{
	void *p = malloc(24);
	calls++;
	return p;
}

__attribute__((noinline)) static void *held_peak(void)
{
	void *p = malloc(1 << 20);
	calls++;
	return p;
}

static void *holder(void *arg)
{
	(void)arg;
	void *p = held_peak();
	sink = p;
	pthread_barrier_wait(&b3);
	free(p);
	return NULL;
}

static void *maker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		handed[i] = handoff_make();
	return NULL;
}

static void *owner(void *arg)
{
	(void)arg;
	void *p = own_block();
	sink = p;
	pthread_barrier_wait(&b1); /* main allocates now */
	pthread_barrier_wait(&b2);
	free(p);
	return NULL;
}

int main(void)
{
	for (int i = 0; i < 1000; i++) {
		void *p = churn_one();
		sink = p;
		free(p);
	}
	for (int i = 0; i < 500; i++) {
		void *a = pair_outer(), *b = pair_inner();
		sink = a;
		sink = b;
		free(a);
		free(b);
	}
	for (int i = 0; i < 300; i++) {
		void *p = grow_step(grow_start());
		sink = p;
		free(p);
	}
	for (int i = 0; i < 100; i++) {
		void *p = zeroed();
		sink = p;
		free(p);
	}
	pthread_t t;
	if (pthread_create(&t, NULL, maker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	for (int i = 0; i < 200; i++)
		free(handed[i]);
	if (pthread_barrier_init(&b1, NULL, 2) != 0 || pthread_barrier_init(&b2, NULL, 2) != 0 ||
	    pthread_create(&t, NULL, owner, NULL) != 0)
		return 1;
	pthread_barrier_wait(&b1);
	sink = main_between(); /* kept: freed, it would be main's temporary */
	pthread_barrier_wait(&b2);
	if (pthread_join(t, NULL) != 0 || pthread_barrier_init(&b3, NULL, 4) != 0)
		return 1;
	pthread_t h[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&h[i], NULL, holder, NULL) != 0)
			return 1;
	for (int i = 0; i < 4; i++)
		if (pthread_join(h[i], NULL) != 0)
			return 1;
	return 0;
}
