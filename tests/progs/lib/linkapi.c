/* linkapi.c: a program linked against libcuzktrace.so itself (-lcuzktrace, no rpath), the way
 * cuzktrace.h's third route and README's Rust #[link(name = "cuzktrace")] do it. Run with the
 * library in LD_PRELOAD only: the loader must take the preloaded library for the program's
 * NEEDED entry (its SONAME), or the program does not start ("cannot open shared object
 * file"). Keeps 1000 bytes in phase "linked" and frees 500 bytes allocated outside it. */
#include <stdio.h>
#include <stdlib.h>
#include "cuzktrace.h"

static void *volatile keep, *volatile other;

int main(void)
{
	other = malloc(500);
	cuzktrace_phase_push("linked");
	keep = malloc(1000);
	cuzktrace_phase_pop();
	free(other);
	printf("linkapi: done\n");
	return 0;
}
