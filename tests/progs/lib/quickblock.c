/* libquickblock.so: a library whose constructor registers an at_quick_exit handler. Loaded
 * after the tracer in LD_PRELOAD, it is initialized before it, so its handler runs after the
 * tracer's (at_quick_exit handlers run newest first). The handler posts quickblock_sem, for a
 * thread of the program that then calls exit, and blocks for good: untraced, that exit ends
 * the process (tests/progs/quickexit.c block). */
#include <semaphore.h>
#include <stdlib.h>
#include <unistd.h>

sem_t quickblock_sem;

static void handler(void)
{
	sem_post(&quickblock_sem);
	for (;;)
		pause();
}

__attribute__((constructor)) static void init(void)
{
	sem_init(&quickblock_sem, 0, 0);
	at_quick_exit(handler);
}
