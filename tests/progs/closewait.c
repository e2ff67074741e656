/* closewait.c: the main thread waits, inside its own dl_iterate_phdr callback (the loader's
 * write lock held), for a second thread's dlclose of a library that is still open by another
 * handle: glibc's dlclose then takes only the load lock and returns, and the callback ends.
 * Prints "closewait: ok". (A dlclose hook that walked the loaded objects waited for the write
 * lock: both threads waited for good.) */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int in_callback, closed;
static void *handle;

static int wait_for_close(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(void)data;
	atomic_store(&in_callback, 1);
	while (!atomic_load(&closed))
		;
	return 1;
}

static void *closer(void *arg)
{
	(void)arg;
	while (!atomic_load(&in_callback))
		;
	dlclose(handle);
	atomic_store(&closed, 1);
	return NULL;
}

int main(void)
{
	handle = dlopen("libm.so.6", RTLD_NOW);
	if (!handle || !dlopen("libm.so.6", RTLD_NOW)) /* a second reference: nothing unloads */
		return 2;
	pthread_t t;
	if (pthread_create(&t, NULL, closer, NULL))
		return 2;
	dl_iterate_phdr(wait_for_close, NULL);
	pthread_join(t, NULL);
	puts("closewait: ok");
	return 0;
}
