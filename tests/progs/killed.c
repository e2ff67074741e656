/* killed.c: allocates 5 x 10,000,000 bytes, says "ready" on stdout, then sleeps until killed.
 * The test sends SIGKILL: the trace must read as truncated with those 50,000,000 bytes live. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[5];

int main(void)
{
	for (int i = 0; i < 5; i++) {
		keep[i] = malloc(10000000);
		memset(keep[i], 1, 4096);
	}
	if (write(1, "ready\n", 6) != 6)
		return 1;
	for (;;)
		pause();
}
