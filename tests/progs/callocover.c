/* callocover.c: calloc whose count times size overflows, with errno 12345 before it. Prints
 * "callocover: null errno=<errno after>" (or "not null" where it returned a block). The
 * allocator's own answer stands traced: glibc sets ENOMEM, tcmalloc and mimalloc leave errno
 * as it was. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	volatile size_t n = SIZE_MAX / 2, size = 3;
	errno = 12345;
	void *p = calloc(n, size);
	int e = errno;
	printf("callocover: %s errno=%d\n", p ? "not null" : "null", e);
	free(p);
	return 0;
}
