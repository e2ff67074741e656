/* usable.c: heap blocks whose usable sizes (what glibc sets aside) are far above the requested
 * ones: 20,000 blocks of 1 byte (24 usable each), a 200,000-byte block (an mmapped chunk, a
 * page-rounded usable size), a block grown by realloc, a 64 KiB-aligned block. At the peak it
 * writes "usable U requested R" (sums of malloc_usable_size and of the requests), then frees
 * everything. Writes with write(2) only: stdio's buffer would be a heap block of its own. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 20000
static void *volatile blocks[N + 3];

int main(void)
{
	size_t usable = 0, requested = 0;
	for (int i = 0; i < N; i++) {
		blocks[i] = malloc(1);
		usable += malloc_usable_size(blocks[i]);
		requested += 1;
	}
	blocks[N] = malloc(200000);
	usable += malloc_usable_size(blocks[N]);
	requested += 200000;
	void *g = malloc(100);
	g = realloc(g, 3000);
	g = realloc(g, 150000);
	blocks[N + 1] = g;
	usable += malloc_usable_size(g);
	requested += 150000;
	void *al = NULL;
	if (posix_memalign(&al, 65536, 5000))
		return 1;
	blocks[N + 2] = al;
	usable += malloc_usable_size(al);
	requested += 5000;
	char line[96];
	int n = snprintf(line, sizeof(line), "usable %zu requested %zu\n", usable, requested);
	if (write(1, line, (size_t)n) != n)
		return 1;
	for (int i = 0; i < N + 3; i++)
		free(blocks[i]);
	return 0;
}
