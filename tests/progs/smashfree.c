/* smashfree.c: a heap overflow writes over the header of a 2 MiB block in the main heap, then
 * the block is freed: glibc's free finds the size absurd and aborts ("double free or corruption
 * (out)", status 134). The tracer reads the same header first, to tell whether the free
 * trims the heap, and must not fault on the next chunk's header, which lies far past the
 * heap's end (it did: status 139, glibc's message unsaid). */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20); /* the block in the main heap */
	char *p = malloc((size_t)2 << 20);
	if (!p)
		return 1;
	memset(p, 1, (size_t)2 << 20);
	size_t bad = (size_t)0x4141414141414140ull | 1; /* main arena, previous chunk in use */
	char *h = p;
	__asm__ volatile("" : "+r"(h)); /* the header lies before the block */
	memcpy(h - sizeof(bad), &bad, sizeof(bad));
	__asm__ volatile("" : : "r"(p) : "memory");
	free(p);
	return 0;
}
