/* mtraced.c: glibc's mtrace under LD_PRELOAD=libc_malloc_debug.so (which defines malloc and
 * its kin as non-default symbol versions only): 100 blocks of 1,000 to 1,099 bytes, the first
 * 50 freed; then "done" on stdout (its 4,096-byte buffer stays live). Live at exit: the 50
 * blocks of 1,050 to 1,099 bytes (53,725) and the buffer: 57,821 bytes in 51 blocks. */
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[100];

int main(void)
{
	mtrace();
	for (int i = 0; i < 100; i++)
		keep[i] = malloc(1000 + (size_t)i);
	for (int i = 0; i < 50; i++)
		free(keep[i]);
	muntrace();
	return puts("done") < 0;
}
