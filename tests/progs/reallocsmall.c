/* reallocsmall.c: 1,000 times a 100-byte block grown by realloc to 200 bytes, each kept to the
 * end. In the default mode both sizes are under the sampling rate, counted in running totals:
 * a realloc takes the old block out of the count as it puts the new one in, so the blocks
 * live at exit are the exact mode's (1,000 and the few of glibc). Prints "reallocsmall: done". */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[1000];

int main(void)
{
	for (int i = 0; i < 1000; i++) {
		void *p = malloc(100);
		keep[i] = realloc(p, 200);
	}
	puts("reallocsmall: done");
	return 0;
}
