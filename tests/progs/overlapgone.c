/* overlapgone.c: process-wide phases that overlap before the peak heap, not at it.
 * The main thread, with nothing pushed, begins "synthesis", then "prove" (the two overlap),
 * makes 4 MiB (counted under prove, begun last, though its work is synthesis), ends "prove",
 * makes 8 MiB more (synthesis), and holds both: the peak heap, 12 MiB, comes with synthesis
 * alone active, a third of its bytes under prove. With "freed": the 4 MiB are freed before
 * the 8 MiB are made, so no byte of the overlap is live at any peak. With "second": "prove"
 * begins and ends with nothing made, then "aggregate" overlaps synthesis and gets the 4 MiB:
 * the second overlap's bytes, under a phase other than the first overlap's. With "after":
 * "synthesis" ends with "prove", before the 8 MiB are made: the peaks come during no phase,
 * holding prove's 4 MiB made in the overlap. Prints
 * "overlapgone: done". Run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[2];

int main(int argc, char **argv)
{
	int freed = argc > 1 && !strcmp(argv[1], "freed");
	int second = argc > 1 && !strcmp(argv[1], "second");
	int after = argc > 1 && !strcmp(argv[1], "after");
	CUZKTRACE_PHASE_BEGIN("synthesis");
	CUZKTRACE_PHASE_BEGIN("prove");
	if (second) {
		CUZKTRACE_PHASE_END("prove");
		CUZKTRACE_PHASE_BEGIN("aggregate");
	}
	keep[0] = memset(malloc(4 << 20), 1, 4 << 20);
	if (second)
		CUZKTRACE_PHASE_END("aggregate");
	else
		CUZKTRACE_PHASE_END("prove");
	if (after)
		CUZKTRACE_PHASE_END("synthesis");
	if (freed) {
		free(keep[0]);
		keep[0] = NULL;
	}
	keep[1] = memset(malloc(8 << 20), 2, 8 << 20);
	usleep(50000); /* RSS samples see both */
	free(keep[1]);
	free(keep[0]);
	if (!after)
		CUZKTRACE_PHASE_END("synthesis");
	puts("overlapgone: done");
	return 0;
}
