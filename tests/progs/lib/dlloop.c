/* libdlloop.so: preloaded ahead of the tracer, its constructor starts a thread that opens and
 * closes the library named by DLLOOP_LIB in a loop, all signals blocked (the program's own
 * are not disturbed), for the life of the process: a dlopen running on another thread while
 * the tracer starts. The loader's locks are then taken in dlopen's order (load lock, then the
 * write lock that adds the object) beside the tracer's start, which looked up a non-PIE
 * program's allocator stubs by opening objects inside dl_iterate_phdr's callback (the write
 * lock held, then the load lock): a deadlock, 1 start in 4 (tests/progs/nopieaddr.c). */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

static const char *lib;

static void *loop(void *arg)
{
	(void)arg;
	for (;;) {
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (h)
			dlclose(h);
	}
	return NULL;
}

__attribute__((constructor)) static void dlloop_start(void)
{
	lib = getenv("DLLOOP_LIB");
	if (!lib)
		return;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_t t;
	if (pthread_create(&t, NULL, loop, NULL) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
