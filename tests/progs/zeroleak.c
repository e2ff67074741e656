/* zeroleak.c: two sites leak blocks of 0 bytes: a_one 1 block, b_three 3 blocks. Live at exit
 * they hold equal bytes (0): the list orders them by their count of blocks, b_three first. */
#include <stdlib.h>

static void *volatile sink[8];

__attribute__((noinline)) static void a_one(int i)
{
	sink[i] = malloc(0); /* stored, not returned: a tail call would lose this frame */
}

__attribute__((noinline)) static void b_three(int i)
{
	sink[i + 4] = malloc(0); /* not a_one's code: the compiler would fold the two into one */
}

int main(void)
{
	a_one(0);
	for (int i = 1; i <= 3; i++)
		b_three(i);
	return 0;
}
