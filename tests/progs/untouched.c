/* untouched.c: a buffer allocated and never touched, as a prover's calloc'd table before it is
 * filled: 64 MiB from calloc (a fresh mapping of zero pages: not resident) beside 1 MiB written
 * in full. At the peak RSS the untouched buffer's site holds more bytes than the RSS; the
 * report says they are allocated, not all resident. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile keep[2];
static volatile int reserved;

__attribute__((noinline)) static void *reserve_table(void)
{
	void *p = calloc(1, (size_t)64 << 20);
	reserved++; /* not a tail call: the frame stays on the stack */
	return p;
}

__attribute__((noinline)) static void *fill_rows(void)
{
	char *p = malloc((size_t)1 << 20);
	if (p)
		memset(p, 1, (size_t)1 << 20);
	return p;
}

int main(void)
{
	keep[0] = reserve_table();
	keep[1] = fill_rows();
	usleep(100000); /* RSS samples while both are live */
	return keep[0] && keep[1] ? 0 : 1;
}
