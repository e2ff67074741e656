/* memalignfail.c: a posix_memalign that fails (ENOMEM) on a pointer set to 0x1234 beforehand;
 * prints the result and what the call left in the pointer (glibc leaves it, its debug library
 * libc_malloc_debug.so sets NULL: the traced program must see what the untraced one does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	void *p = (void *)0x1234;
	free(malloc(16)); /* the debug library past its start-up */
	/* through a pointer: gcc's builtin knowledge of posix_memalign kept p in a register */
	int (*volatile pm)(void **, size_t, size_t) = posix_memalign;
	int r = pm(&p, 4096, SIZE_MAX - 100);
	printf("posix_memalign %d %p\n", r, p);
	return 0;
}
