/* unwind_switch.c: the tracer's two unwinders give the same stacks. Two threads allocate
 * 1000-byte blocks through one call path (worker -> level1 -> common_site -> malloc) and keep
 * them: A makes 1000 at full speed (the tracer steps the first stacks, then switches to
 * unw_backtrace), B makes 5 (all stepped: far from 125 us of stepping). Every block must land
 * on one stack. With unwcount.so preloaded after the tracer, prints how each thread's stacks
 * were taken. With mapwatch.so preloaded after the tracer instead, thread A looks at the 256 KiB
 * private anonymous mappings made so far (libunwind's trace caches: the main thread's, mapped
 * when the tracer starts, and A's own) and prints "A: 256 KiB mappings N, most pages resident
 * K of 64": the tracer drops a cache's pages once libunwind has filled them, so only those its
 * lookups wrote since come back (mincore). Prints "unwind_switch: done". */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *volatile keep[1005];
static volatile int next;
static unsigned counts[2][2];

static __attribute__((noinline)) void *common_site(size_t n)
{
	void *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

static __attribute__((noinline)) void *level1(size_t n)
{
	void *p = common_site(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

struct job {
	int id, n;
};

static int caches, resident; /* (mapwatch) 256 KiB mappings, the most pages any has resident */

static void look_at_caches(void)
{
	int (*get)(void ***) = (int (*)(void ***))dlsym(RTLD_DEFAULT, "mapwatch_get");
	void **list;
	unsigned char vec[64];
	if (!get)
		return;
	caches = get(&list);
	for (int k = 0; k < caches; k++) {
		int n = 0;
		if (mincore(list[k], sizeof vec * 4096, vec) != 0)
			n = -1;
		else
			for (int i = 0; i < (int)sizeof vec; i++)
				n += vec[i] & 1;
		if (n > resident || n < 0)
			resident = n;
	}
}

static void *worker(void *arg)
{
	const struct job *j = arg;
	for (int i = 0; i < j->n; i++) {
		void *p = level1(1000);
		memset(p, 1, 1000);
		keep[__atomic_fetch_add(&next, 1, __ATOMIC_RELAXED)] = p;
	}
	void (*get)(unsigned *, unsigned *) = (void (*)(unsigned *, unsigned *))dlsym(RTLD_DEFAULT, "unwcount_get");
	if (get)
		get(&counts[j->id][0], &counts[j->id][1]);
	if (j->id == 0)
		look_at_caches();
	return NULL;
}

int main(void)
{
	static struct job jobs[2] = {{0, 1000}, {1, 5}};
	for (int k = 0; k < 2; k++) { /* one at a time: their counts are their own */
		pthread_t t;
		pthread_create(&t, NULL, worker, &jobs[k]);
		pthread_join(t, NULL);
	}
	if (dlsym(RTLD_DEFAULT, "unwcount_get"))
		printf("A fast %u stepped %u; B fast %u stepped %u\n", counts[0][0], counts[0][1],
		       counts[1][0], counts[1][1]);
	if (dlsym(RTLD_DEFAULT, "mapwatch_get"))
		printf("A: 256 KiB mappings %d, most pages resident %d of 64\n", caches, resident);
	printf("unwind_switch: done\n");
	return 0;
}
