/* ownjem.c: a program whose allocator is linked in under its own names, as Rust's
 * tikv-jemallocator links jemalloc: it allocates through _rjem_malloc (the test double
 * tests/progs/lib/rjem.c, whose chunks _rjem_je_pages_map maps through libc's mmap), never
 * malloc, for most of its memory: 64 MiB in 16,384 blocks of 4096 bytes (16 chunks of 4 MiB,
 * written), and 100 blocks of 1000 bytes through malloc. It holds them 150 ms (RSS is sampled
 * meanwhile), then frees them all and unmaps the chunks. Prints the blocks' bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *_rjem_malloc(size_t n);
void _rjem_free(void *p);
void _rjem_je_pages_unmap(void);

#define BLOCK 4096
#define NBLOCKS 16384
#define NSMALL 100

static void *volatile blocks[NBLOCKS];
static void *volatile small[NSMALL];

int main(void)
{
	for (int i = 0; i < NBLOCKS; i++) {
		blocks[i] = _rjem_malloc(BLOCK);
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
		_rjem_free(blocks[i]);
	for (int i = 0; i < NSMALL; i++)
		free(small[i]);
	_rjem_je_pages_unmap();
	printf("ownjem: %d bytes through _rjem_malloc\n", NBLOCKS * BLOCK);
	return 0;
}
