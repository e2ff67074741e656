/* ctorpush.c: a library whose constructor calls into the tracer before anything has
 * allocated: a balanced push and pop of "probe", then a begin of the process-wide phase
 * "setup" and a push of "init", then 1,000,000 bytes (held, in "init"). The program's main
 * pops "init" (tests/progs/ctorpop.c). Since 0.2.51 the first of these calls starts the tracer,
 * as a first malloc does; before, all four were dropped: "setup" never began, and the pop of
 * "probe", made before tracing, was not counted, so that a later pop with nothing pushed passed
 * without its line. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>

void *volatile ctorpush_block;

__attribute__((constructor)) static void ctorpush_init(void)
{
	CUZKTRACE_PHASE_PUSH("probe");
	CUZKTRACE_PHASE_POP();
	CUZKTRACE_PHASE_BEGIN("setup");
	CUZKTRACE_PHASE_PUSH("init");
	ctorpush_block = malloc(1000000);
}
