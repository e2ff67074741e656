/* memalignfail.c: a posix_memalign that fails (ENOMEM) on a pointer set to 0x1234 beforehand;
 * prints the result and what the call left in the pointer (glibc leaves it, its debug library
 * libc_malloc_debug.so sets NULL: the traced program must see what the untraced one does).
 * argv[1] "zero": a posix_memalign of 0 bytes instead (glibc gives a block; POSIX lets an
 * allocator succeed with a null pointer, as tests/progs/lib/mmapalloc.c does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	void *p = (void *)0x1234;
	free(malloc(16)); /* the debug library past its start-up */
	/* through a pointer: gcc's builtin knowledge of posix_memalign kept p in a register */
	int (*volatile pm)(void **, size_t, size_t) = posix_memalign;
	int r = pm(&p, 4096, argc > 1 ? 0 : SIZE_MAX - 100);
	printf("posix_memalign %d %p\n", r, p);
	return 0;
}
