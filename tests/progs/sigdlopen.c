/* sigdlopen.c: a SIGUSR1 handler that opens and closes libz.so.1 with dlopen (the loader
 * allocates, through malloc and calloc), then 200 blocks of 100 bytes made and freed. Run with
 * libmmapalloc.so behind the tracer and CKT_MMAPALLOC_RAISE=1, whose 50th malloc raises the
 * signal inside the tracer's malloc hook: the handler's allocations cannot be recorded and are
 * counted lost, with the tracer's line. Prints "sigdlopen: <handled> <opened>". */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t handled, opened;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
	void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		opened++;
		dlclose(h);
	}
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 200; i++) {
		void *volatile p = malloc(100);
		free(p);
	}
	printf("sigdlopen: %d %d\n", (int)handled, (int)opened);
	return 0;
}
