/* ctorpop.c: linked against libctorpush.so, whose constructor pushed "init" before tracing
 * started; main pops it, then allocates 2,000,000 bytes (held). The pop finds nothing pushed
 * that the tracer saw: it is that push's, not one of another thread, and says nothing (since
 * 0.2.40). */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>
#include <string.h>

extern void *volatile ctorpush_block;
static void *volatile keep;

int main(void)
{
	if (cuzktrace_phase_pop)
		cuzktrace_phase_pop();
	keep = malloc(2000000);
	memset(keep, 1, 64);
	return ctorpush_block ? 0 : 1;
}
