/* ctorlib.c: a library whose constructor allocates 777,777 bytes before main, and before
 * (or right after) the tracer's own constructor: the block must be in the trace. */
#include <stdlib.h>
#include <string.h>

void *volatile ctorlib_block;

__attribute__((constructor)) static void ctorlib_init(void)
{
	ctorlib_block = malloc(777777);
	memset(ctorlib_block, 1, 64);
}
