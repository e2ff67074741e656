/* ctorpush.c: a library whose constructor pushes the phase "init" before anything has called
 * into the tracer (its first call, before any allocation: tracing has not started, so the
 * push is not recorded), then allocates 1,000,000 bytes (held). The program's main pops it
 * (tests/progs/ctorpop.c). */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>

void *volatile ctorpush_block;

__attribute__((constructor)) static void ctorpush_init(void)
{
	if (cuzktrace_phase_push)
		cuzktrace_phase_push("init");
	ctorpush_block = malloc(1000000);
}
