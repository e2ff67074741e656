/* aslate.c: caps its own address space (setrlimit(RLIMIT_AS)) at what it uses now plus 64 MiB,
 * after the tracer has started, fills it with mappings of 1 MiB (never touched) until one is
 * refused, as a program that allocates until it is out of memory does, then makes 400,000 heap
 * blocks of 32 bytes, each freed at once (its heap needs no new memory): in exact mode the
 * trace's frames are many and full, and the tracer's writer must not need a new mapping for
 * them (zstd's workspace grew with the first full frame, and the trace stopped there, empty). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "asutil.h"

static void *volatile sink;

int main(int argc, char **argv)
{
	unsigned long vm = vm_bytes();
	struct rlimit rl;
	if (!vm || getrlimit(RLIMIT_AS, &rl) != 0)
		return 2;
	(void)argc;
	(void)argv;
	rl.rlim_cur = vm + (64ul << 20);
	if (setrlimit(RLIMIT_AS, &rl) != 0) {
		perror("setrlimit");
		return 2;
	}
	while (mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
		;
	unsigned long got = 0;
	for (int i = 0; i < 400000; i++) {
		void *p = malloc(32);
		got += p != NULL;
		sink = p;
		free(p);
	}
	printf("aslate: %lu of 400000 blocks\n", got);
	return 0;
}
