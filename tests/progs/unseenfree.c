/* unseenfree.c: frees blocks the tracer did not see allocated: 20,000 of 1,000 bytes from
 * glibc's __libc_malloc (which some allocator shims call, out of the hooks' sight), freed with
 * free; then 20,000 blocks of 1,000 bytes from malloc, kept (19.5 MiB at exit). The default
 * mode's running totals subtract every small free: those frees drove the heap to 0, and the
 * report said 164 KiB at the peak for 19.5 MiB live, without a word. Prints "ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t n);

static void *volatile keep[20000];

int main(void)
{
	for (int i = 0; i < 20000; i++)
		keep[i] = __libc_malloc(1000);
	for (int i = 0; i < 20000; i++)
		free(keep[i]);
	for (int i = 0; i < 20000; i++)
		keep[i] = malloc(1000);
	printf("ok\n");
	return 0;
}
