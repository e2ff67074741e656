/* asfill.c: under an address-space limit (ulimit -v), allocates blocks of 64 MiB (never
 * touched: address space, not memory) until malloc fails; prints "asfill: N blocks" with
 * write(2). The tracer's own reservations count against the same limit. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep[4096];

int main(void)
{
	int n = 0;
	while (n < 4096 && (keep[n] = malloc(64u << 20)) != NULL)
		n++;
	char line[48];
	int k = snprintf(line, sizeof(line), "asfill: %d blocks\n", n);
	return write(1, line, (size_t)k) == k ? 0 : 1;
}
