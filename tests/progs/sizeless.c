/* sizeless.c: run with tests/progs/lib/sizeless.c's allocator behind the tracer (an allocator
 * without malloc_usable_size): 1,000 blocks of 100 to 1,099 bytes, the first 500 freed, the
 * last one grown by realloc from 1,099 to 2,000 bytes. Live at exit: the 500 blocks of 600 to
 * 1,098 bytes and the 2,000 (423,651 + 2,000 = 425,651 bytes in 500 blocks); the peak, before
 * the frees: 599,500 bytes. Writes "sizeless: done" with write(2), no stdio buffer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[1000];

int main(void)
{
	for (int i = 0; i < 1000; i++) {
		keep[i] = malloc(100 + i);
		if (!keep[i])
			return 1;
		memset(keep[i], 1, 100 + i);
	}
	for (int i = 0; i < 500; i++)
		free(keep[i]);
	keep[999] = realloc(keep[999], 2000);
	if (!keep[999])
		return 1;
	static const char msg[] = "sizeless: done\n";
	return write(1, msg, sizeof(msg) - 1) == (ssize_t)sizeof(msg) - 1 ? 0 : 1;
}
