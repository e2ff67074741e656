/* mchecked.c: built with -lmcheck (glibc's mcheck, served by libc_malloc_debug.so, which puts a
 * header of its own before each block): 1,000 blocks of 100 bytes kept, then freed, then
 * 200,000 malloc(100)/free pairs; prints the usable size glibc's debug library reports for a
 * 100-byte block (the request, under mcheck). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	static void *keep[1000];
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(100);
	printf("usable %zu\n", malloc_usable_size(keep[0]));
	for (int i = 0; i < 1000; i++)
		free(keep[i]);
	for (long i = 0; i < 200000; i++) {
		void *volatile p = malloc(100);
		free(p);
	}
	puts("done");
	return 0;
}
