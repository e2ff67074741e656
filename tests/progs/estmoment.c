/* estmoment.c: one line allocates 20,000 blocks of 1,000 bytes, each freed at once, then keeps 4
 * blocks of 1 MiB, all from one line (as a Vec that grows from small to large). In the
 * default mode the small blocks are sampled and the large ones recorded one by one: at the
 * peak and at exit the site holds the large blocks alone, exact, and its row must not be
 * marked as an estimate (it was, for any site that had had a sample). */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[4];

int main(void)
{
	/* one line for all: 20,000 blocks of 1,000 bytes, each freed at once, then 4 of 1 MiB */
	for (int i = 0; i < 20004; i++) {
		void *p = keep[i % 4] = malloc(i < 20000 ? 1000 : 1 << 20);
		if (i < 20000)
			free(p);
	}
	printf("estmoment: done\n");
	return 0;
}
