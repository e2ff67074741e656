/* classcap.c: heap blocks of 2016..2040 bytes, across the address model's last size class
 * (requests of 2025..2031 bytes round up to a chunk of class 128, one past the model's 128
 * lists, and are capped into the last class). 51 rounds allocate and free one block of each
 * of the 25 sizes at once (released from the model's recent list into the freed lists), then
 * allocate 6 blocks of each size and free them newest first, so that later rounds get freed
 * blocks back from the allocator (model hits). All 150 are live at the top of each round:
 * peak heap 6 x (2016 + ... + 2040) = 304,200 bytes. Writes with write(2) only: stdio's
 * buffer would be a heap block of its own. */
#include <stdlib.h>
#include <unistd.h>

#define K 6
#define LO 2016
#define HI 2040
static void *volatile blocks[(HI - LO + 1) * K];

static void round_trip(void)
{
	/* freed at once: the model's recent list hands each to its class's freed list */
	for (int s = LO; s <= HI; s++) {
		blocks[0] = malloc((size_t)s);
		free(blocks[0]);
	}
	int n = 0;
	for (int s = LO; s <= HI; s++)
		for (int k = 0; k < K; k++)
			blocks[n++] = malloc((size_t)s);
	while (n > 0)
		free(blocks[--n]);
}

int main(void)
{
	for (int r = 0; r < 51; r++)
		round_trip();
	(void)!write(1, "classcap: done\n", 15);
	return 0;
}
