/* ctorpop.c: linked against libctorpush.so, whose constructor began "setup" and pushed "init"
 * before anything allocated (tests/progs/lib/ctorpush.c); main pops "init" (no line: its push
 * was recorded), allocates 2,000,000 bytes (held, in "setup"), ends "setup", allocates 500,000
 * (held, of no phase), and pops once more with nothing pushed: the one warning line. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>
#include <string.h>

extern void *volatile ctorpush_block;
static void *volatile keep, *volatile keep2;

int main(void)
{
	CUZKTRACE_PHASE_POP();
	keep = malloc(2000000);
	memset(keep, 1, 64);
	CUZKTRACE_PHASE_END("setup");
	keep2 = malloc(500000);
	memset(keep2, 1, 64);
	CUZKTRACE_PHASE_POP();
	return ctorpush_block ? 0 : 1;
}
