/* smallmany.c: 200,000 blocks of 100 bytes, all live at the end, allocated in phase "small"
 * (pushed on the main thread), then one 1,000,000-byte block in phase "big". Every 100-byte
 * block has a usable size of 104 bytes in glibc. Used by the default-mode test: the heap total
 * must be exact to within the stated bound, and the sampled estimate for "small" (20,000,000
 * requested bytes) must be within a few standard deviations. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>
#include <string.h>

#define N 200000
static void *volatile keep[N + 1];

int main(void)
{
	cuzktrace_phase_push("small");
	for (int i = 0; i < N; i++) {
		keep[i] = malloc(100);
		memset(keep[i], 1, 8);
	}
	cuzktrace_phase_pop();
	cuzktrace_phase_push("big");
	keep[N] = malloc(1000000);
	memset(keep[N], 1, 8);
	cuzktrace_phase_pop();
	return 0;
}
