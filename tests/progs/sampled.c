/* sampled.c: 20 blocks of 600 KiB from one line, all live at once, then freed. Traced with
 * CUZKTRACE_SAMPLE=1048576 each block is small (under the rate) and is sampled with probability
 * 1 - exp(-600/1024) = 0.44, standing for 2.2553 blocks; each block alone moves the thread's
 * running total past the 64 KiB step, so every allocation sends the total at once. */
#include <stdlib.h>

static void *volatile keep[20];

int main(void)
{
	for (int i = 0; i < 20; i++)
		keep[i] = malloc(600 * 1024);
	for (int i = 0; i < 20; i++)
		free(keep[i]);
	return 0;
}
