/* bigrelease.c: releases big blocks whose pages the kernel frees during the call, while the
 * RSS sampler runs: bigrelease MODE MIB ROUNDS, each round making a block of MIB MiB, touching
 * every page, and releasing it:
 *   free     malloc, then free (glibc unmaps the block)
 *   munmap   an anonymous mmap, then munmap
 *   realloc  malloc, then realloc to 64 bytes (glibc shrinks the mapping with mremap)
 *   populate an anonymous mmap with MAP_POPULATE (the kernel makes every page during the
 *            call, which the trace records after it), then munmap
 * The trace stamps each release before its call; a sample read during the call counted the
 * pages still there while the trace had released them (RSS up to MIB above heap and
 * mappings: a 256 MiB free takes about 16 ms); the same during a populating mmap. Nothing
 * else of size is live. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	const char *mode = argv[1];
	size_t n = strtoul(argv[2], NULL, 10) << 20;
	int rounds = atoi(argv[3]);
	for (int r = 0; r < rounds; r++) {
		int map = strcmp(mode, "munmap") == 0 || strcmp(mode, "populate") == 0;
		int pop = strcmp(mode, "populate") == 0 ? MAP_POPULATE : 0;
		char *p = map ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | pop, -1, 0)
			      : malloc(n);
		if (!p || p == MAP_FAILED)
			return 1;
		memset(p, r + 1, n);
		__asm__ volatile("" : : "r"(p) : "memory"); /* the pages are touched, kept */
		if (map) {
			munmap(p, n);
		} else if (strcmp(mode, "realloc") == 0) {
			char *q = realloc(p, 64);
			__asm__ volatile("" : : "r"(q) : "memory");
			free(q);
		} else {
			free(p);
		}
	}
	return 0;
}
