/* samename.c: two functions of one name in two source files, for --diff.
 *   samename [swap]
 * A static helper() here and another in tests/progs/lib/samename2.c (linked into this program),
 * each making one block: 2 MiB here and 6 MiB there, or with "swap" 6 MiB here and 2 MiB
 * there. The peak heap is 8 MiB either way; 4 MiB moved from one helper to the other, which
 * --diff read as "no change" for one function "helper". The other file's block is freed
 * before the end: at exit only this file's helper holds any. Prints "samename: done".
 * Run it only with the tracer preloaded. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *samename2_make(size_t n);

static void *volatile keep[2];

__attribute__((noinline)) static void *helper(size_t n)
{
	return memset(malloc(n), 1, n);
}

int main(int argc, char **argv)
{
	int swap = argc > 1 && !strcmp(argv[1], "swap");
	keep[0] = helper((size_t)(swap ? 6 : 2) << 20);
	keep[1] = samename2_make((size_t)(swap ? 2 : 6) << 20);
	free(keep[1]);
	return write(1, "samename: done\n", 15) == 15 ? 0 : 1;
}
