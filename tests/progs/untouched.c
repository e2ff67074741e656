/* untouched.c: allocates 64 MiB on the heap and never touches it (a Vec's capacity reserved
 * and not filled), and 8 MiB it fills (the RSS's highest while both are live), holds them
 * 100 ms so that RSS samples see them, then frees both. The heap then holds 64 MiB the RSS
 * does not: the peak RSS's unexplained remainder is below 0. Prints "untouched: done". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void)
{
	char *volatile p = malloc((size_t)64 << 20);
	char *volatile q = malloc((size_t)8 << 20);
	if (!p || !q)
		return 2;
	for (size_t i = 0; i < ((size_t)8 << 20); i += 4096) /* each page touched, a store the
							       * compiler keeps */
		((volatile char *)q)[i] = 1;
	struct timespec ts = { 0, 100000000L };
	nanosleep(&ts, NULL);
	free(q);
	free(p);
	puts("untouched: done");
	return 0;
}
