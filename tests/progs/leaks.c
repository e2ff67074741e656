/* leaks.c: blocks left live at exit from known sites, for the report's "live at exit" list.
 * keep_rows leaks 3 x 1000 bytes called from main and 2 x 5000 from a thread (13,000 bytes
 * in 5 blocks, two callers: 10,000 through the thread's function); grow_table leaks one block
 * grown by realloc to 20,000 bytes (the block belongs to the realloc's stack); scratch
 * allocates and frees 1 MiB, live at the peak heap but not at exit; keep_empty leaks two
 * blocks of 0 bytes (malloc(0) returns a block all the same: a leak of 0 bytes, 2 blocks). Nothing is printed (stdio
 * would leave its buffer live). With "fixed", grow_table's block is freed before the end. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *volatile sink[10];

__attribute__((noinline)) static void *keep_rows(size_t n)
{
	char *p = malloc(n);
	memset(p, 1, n);
	return p;
}

__attribute__((noinline)) static void *grow_table(void)
{
	char *p = malloc(100);
	memset(p, 2, 100);
	p = realloc(p, 20000);
	memset(p, 3, 20000);
	return p;
}

__attribute__((noinline)) static void scratch(void)
{
	char *p = malloc(1 << 20);
	memset(p, 4, 1 << 20);
	sink[7] = p;
	free(p);
}

static volatile int empties;

__attribute__((noinline)) static void *keep_empty(void)
{
	void *p = malloc(0);
	empties++; /* not a tail call: the frame stays on the stack */
	return p;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 3; i < 5; i++)
		sink[i] = keep_rows(5000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	scratch();
	for (int i = 0; i < 3; i++)
		sink[i] = keep_rows(1000);
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	sink[5] = grow_table();
	for (int i = 8; i < 10; i++)
		sink[i] = keep_empty();
	if (argc > 1 && argv[1][0] == 'f') /* "fixed": the table is freed */
		free(sink[5]);
	return 0;
}
