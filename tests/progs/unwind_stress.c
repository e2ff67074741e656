/* unwind_stress.c: stack capture under pressure. Four threads allocate at recursion depths up
 * to 80 frames while a fifth dlopens and dlcloses a library in a loop (dlopen allocates under
 * the loader's lock, and the unwinder looks up unwind tables under the same lock). Must finish
 * (no deadlock, no recursion into the hooks) with exact totals: each worker keeps 100 blocks of
 * 10,000 bytes (4,000,000 in all) and frees everything else. Prints "stress: done". */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[4][100];
static volatile int stop;
static char libpath[4096];

static __attribute__((noinline)) void *deep(int depth, size_t n)
{
	if (depth == 0)
		return malloc(n);
	void *p = deep(depth - 1, n);
	__asm__ volatile("" ::: "memory"); /* not a tail call: every level stays on the stack */
	return p;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 20000; i++) {
		void *p = deep(i % 80, 64 + (size_t)(i % 13) * 8);
		memset(p, 1, 8);
		free(p);
		if (i % 200 == 0) {
			keep[id][i / 200] = deep(i % 40, 10000);
			memset(keep[id][i / 200], 2, 8);
		}
	}
	return NULL;
}

static void *loader(void *arg)
{
	(void)arg;
	while (!stop) {
		void *h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			if (write(2, "stress: cannot dlopen libplainlib.so\n", 37) < 0)
				_exit(3);
			_exit(2);
		}
		dlclose(h);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argc;
	snprintf(libpath, sizeof(libpath), "%s", argv[0]);
	char *slash = strrchr(libpath, '/');
	snprintf(slash ? slash + 1 : libpath, sizeof(libpath) - (size_t)(slash ? slash + 1 - libpath : 0),
		 "libplainlib.so");
	pthread_t w[4], l;
	pthread_create(&l, NULL, loader, NULL);
	for (long i = 0; i < 4; i++)
		pthread_create(&w[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	stop = 1;
	pthread_join(l, NULL);
	if (write(1, "stress: done\n", 13) != 13)
		return 1;
	return 0;
}
