/* aggphase.c: the default mode's running totals and phases. Phase A (process-wide) makes an
 * 8 MiB block (recorded on its own), then 50 blocks of 1,000 bytes (under the sampling rate:
 * counted in the thread's running total, not yet sent: under its 64 KiB step), and holds them;
 * A ends, B begins, and B frees the 8 MiB block after 100 ms. The heap is at its peak from the
 * last small block, in A, to that free: the peak heap is during A. The thread's running total
 * goes out at the end of A (a phase call sends the caller's pending total, since 0.2.19); held
 * back to the free, it was counted in B, which then owned the peak and its time. Prints
 * "aggphase: done". Run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[51];

int main(void)
{
	CUZKTRACE_PHASE_BEGIN("A");
	keep[50] = malloc(8 << 20);
	memset(keep[50], 1, 8 << 20);
	for (int i = 0; i < 50; i++)
		keep[i] = malloc(1000);
	usleep(100000);
	CUZKTRACE_PHASE_END("A");
	CUZKTRACE_PHASE_BEGIN("B");
	usleep(100000);
	free(keep[50]);
	usleep(50000);
	CUZKTRACE_PHASE_END("B");
	for (int i = 0; i < 50; i++)
		free(keep[i]);
	printf("aggphase: done\n");
	return 0;
}
