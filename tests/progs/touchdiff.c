/* touchdiff.c: one 64 MiB heap block of which MIB MiB are written, kept 200 ms (the peak RSS
 * sample falls then), then freed.
 *   touchdiff MIB
 * Two runs with other MIB allocate the same bytes: only their resident pages differ, which a
 * --diff shows in the peak RSS's "unexplained" row, the rows by phase and function reading
 * no change (t_reader.sh). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	size_t touch = strtoul(argv[1], NULL, 10) << 20;
	char *p = malloc((size_t)64 << 20);
	if (!p || touch > ((size_t)64 << 20))
		return 1;
	memset(p, 1, touch);
	/* the writes are used: not a dead store before the free */
	__asm__ volatile("" : : "r"(p) : "memory");
	usleep(200000);
	free(p);
	return 0;
}
