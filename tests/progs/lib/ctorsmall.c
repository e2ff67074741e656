/* ctorsmall.c: a library that allocates 8 blocks (100 to 7,100 bytes) in its constructor and
 * frees them in its destructor: stackrace.c opens and closes it in a loop, its blocks
 * recorded while the loader holds its locks. */
#include <stdlib.h>
#include <string.h>

static void *held[8];

__attribute__((constructor)) static void make(void)
{
	for (int i = 0; i < 8; i++) {
		held[i] = malloc(100 + 1000 * (size_t)i);
		if (held[i])
			memset(held[i], i, 100);
	}
}

__attribute__((destructor)) static void unmake(void)
{
	for (int i = 0; i < 8; i++) {
		free(held[i]);
		held[i] = NULL;
	}
}
