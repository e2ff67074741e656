/* phases_shim.c: marking phases with the header-only shim (cuzktrace_shim.h): no link-time
 * reference to the tracer at all; the calls find it with dlsym and do nothing without it.
 *   LD_PRELOAD=build/libcuzktrace.so build/examples/phases_shim   # traced, phases recorded
 *   build/examples/phases_shim                                    # runs the same, untraced */
#include "cuzktrace_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep[2];

int main(void)
{
	cuzktrace_shim_phase_begin("setup");
	keep[0] = malloc(1 << 20);
	memset(keep[0], 1, 1 << 20);
	cuzktrace_shim_phase_end("setup");

	cuzktrace_shim_phase_push("work");
	keep[1] = malloc(4 << 20);
	memset(keep[1], 2, 4 << 20);
	cuzktrace_shim_phase_pop();

	free(keep[1]);
	free(keep[0]);
	printf("phases_shim: done\n");
	return 0;
}
