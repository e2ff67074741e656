/* mialloc.c: a program that allocates most of its memory through mimalloc's own entry point
 * (mi_malloc, as Rust's mimalloc crate does), not malloc: 64 MiB in 16,384 blocks of 4096
 * bytes (written), and 100 blocks of 1000 bytes through malloc; holds them 150 ms (RSS is
 * sampled meanwhile), then frees them all. With "malloc": the 64 MiB through malloc too,
 * which the library serves (it exports malloc, and comes after the tracer). Linked with the
 * system's libmimalloc.so.2 (libmimalloc-dev; the Makefile leaves this program out where it
 * is not installed). Prints how it allocated the 64 MiB. */
#include <mimalloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096
#define NBLOCKS 16384
#define NSMALL 100

static void *volatile blocks[NBLOCKS];
static void *volatile small[NSMALL];

int main(int argc, char **argv)
{
	int by_malloc = argc > 1 && strcmp(argv[1], "malloc") == 0;
	for (int i = 0; i < NBLOCKS; i++) {
		blocks[i] = by_malloc ? malloc(BLOCK) : mi_malloc(BLOCK);
		if (!blocks[i])
			return 1;
		memset(blocks[i], (i & 0x7f) | 1, BLOCK);
	}
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(1000);
		if (!small[i])
			return 1;
		memset(small[i], 1, 1000);
	}
	usleep(150000);
	for (int i = 0; i < NBLOCKS; i++)
		if (by_malloc)
			free(blocks[i]);
		else
			mi_free(blocks[i]);
	for (int i = 0; i < NSMALL; i++)
		free(small[i]);
	printf("mialloc: %d bytes through %s\n", NBLOCKS * BLOCK, by_malloc ? "malloc" : "mi_malloc");
	return 0;
}
