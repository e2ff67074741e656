/* phdrhold.c: one thread stays inside dl_iterate_phdr's callback (the loader's lock held) until
 * main has allocated from call stacks never seen before, in functions never unwound before:
 * main's 8 blocks of 1 MiB + 1..8 bytes (recorded with their stacks in either mode), each from
 * level<k> called by main, k = 1..8. Untraced nothing waits for the loader's lock. A tracer
 * whose stack capture looks at the loader's list (libunwind's lookup of a frame, the
 * module-map check of a new stack) waits for good: the callback waits for main. First a
 * dlclose that unloads nothing (of libc, opened again): a tracer that took any dlclose for a
 * changed set of objects answered no lookup after it. Prints "phdrhold: done". */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static sem_t inside, release;
static void *keep[8];

static int holding(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info, (void)size, (void)data;
	sem_post(&inside);
	sem_wait(&release);
	return 1;
}

static void *walker(void *arg)
{
	dl_iterate_phdr(holding, NULL);
	return arg;
}

#define LEVEL(k)                                                                                 \
	static __attribute__((noinline)) void level##k(void)                                     \
	{                                                                                        \
		keep[k - 1] = malloc((1 << 20) + k);                                                  \
		__asm__ volatile("" ::: "memory"); /* no tail call */                            \
	}
LEVEL(1) LEVEL(2) LEVEL(3) LEVEL(4) LEVEL(5) LEVEL(6) LEVEL(7) LEVEL(8)

int main(void)
{
	pthread_t w;
	void *libc = dlopen("libc.so.6", RTLD_NOW);
	if (libc)
		dlclose(libc);
	if (sem_init(&inside, 0, 0) || sem_init(&release, 0, 0) || pthread_create(&w, NULL, walker, NULL))
		return 1;
	sem_wait(&inside);
	level1(), level2(), level3(), level4(), level5(), level6(), level7(), level8();
	sem_post(&release);
	pthread_join(w, NULL);
	printf("phdrhold: done\n");
	for (int k = 0; k < 8; k++)
		free(keep[k]);
	return 0;
}
