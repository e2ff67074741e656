/* phdralloc.c [MS]: one thread walks the loaded objects with dl_iterate_phdr over and over, its
 * callback allocating (as Rust's backtrace collects the objects' names), while 3 threads
 * allocate from ever new call stacks; after MS ms (default 300) all stop. dl_iterate_phdr
 * holds the loader's lock across the callback: under the tracer, whose stack captures look
 * frames up through dl_iterate_phdr behind a lock of libunwind's, the program hung for good in
 * 5 runs of 10 before 0.2.56. Prints "phdralloc: done". */
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int stop;

/* depth n over the same code: a new call stack for each n */
static __attribute__((noinline)) void *nested(int n, size_t size)
{
	void *p = n ? nested(n - 1, size) : malloc(size);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return p;
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	int *k = data;
	free(nested((*k)++ % 37, strlen(info->dlpi_name) + 1));
	return 0;
}

static void *walker(void *arg)
{
	int k = 0;
	while (!stop)
		dl_iterate_phdr(collect, &k);
	return arg;
}

static void *allocator(void *arg)
{
	for (int i = 0; !stop; i++)
		free(nested((int)(long)arg * 7 + i % 41, 64));
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	if (pthread_create(&t[0], NULL, walker, NULL))
		return 1;
	for (long i = 1; i < 4; i++)
		if (pthread_create(&t[i], NULL, allocator, (void *)i))
			return 1;
	long ms = argc > 1 ? atol(argv[1]) : 300;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("phdralloc: done\n");
	return 0;
}
