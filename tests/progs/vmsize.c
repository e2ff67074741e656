/* vmsize.c: prints the process's address space at the start of main, in KiB (what a tracer
 * that could not start leaves mapped shows against the untraced figure). */
#include <stdio.h>

#include "asutil.h"

int main(void)
{
	printf("%lu\n", vm_bytes() >> 10);
	return 0;
}
