/* overrun.c K: a program with a heap overrun glibc never notices: it writes K bytes past the end
 * of a 100-byte block, into the block after it, which it never uses or frees again, and goes
 * on (allocations, a pause past the writer's flush interval), then prints "overrun: survived".
 * Untraced it ends with status 0. The tracer's own records came from the same heap, right
 * after the program's first blocks: the overrun wrote over one, and the writer thread crashed
 * on its link (status 139, or 134 for K = 32). Its records now live in mappings of its own.
 * The block after is allocated after the tracer started, as a program's blocks are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *volatile first, *volatile next;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int k = atoi(argv[1]);
	char *p = first = malloc(100);
	next = malloc(100);
	memset(p, 0x41, 100 + (size_t)k);
	for (int i = 0; i < 1000; i++) {
		void *volatile t = malloc(64);
		free(t);
	}
	usleep(200000);
	printf("overrun: survived\n");
	return 0;
}
