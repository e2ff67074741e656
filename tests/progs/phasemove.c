/* phasemove.c: one block moves from one phase to another, for --diff in the default mode.
 *   phasemove load|msm
 * Phase "load" makes an 8 MiB block (with "load"); phase "msm" makes 20,000 blocks of 1,000
 * bytes, under the default mode's sampling rate, so its bytes by phase are an estimate, and
 * the 8 MiB block (with "msm"), recorded on its own, exact. Everything is kept to the end:
 * the peak heap. Between the two runs msm holds 8 MiB more, exactly, whatever its small
 * blocks' estimate says: --diff showed "+5.21 MiB ... within sampling noise" for such a move.
 * Prints "phasemove: done". Run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[20001];

int main(int argc, char **argv)
{
	int in_msm = argc > 1 && !strcmp(argv[1], "msm");
	CUZKTRACE_PHASE_PUSH("load");
	if (!in_msm)
		keep[20000] = memset(malloc(8 << 20), 1, 8 << 20);
	CUZKTRACE_PHASE_POP();
	CUZKTRACE_PHASE_PUSH("msm");
	if (in_msm)
		keep[20000] = memset(malloc(8 << 20), 1, 8 << 20);
	for (int i = 0; i < 20000; i++)
		keep[i] = memset(malloc(1000), 2, 1000);
	CUZKTRACE_PHASE_POP();
	return write(1, "phasemove: done\n", 16) == 16 ? 0 : 1;
}
