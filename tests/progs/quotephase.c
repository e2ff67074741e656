/* quotephase.c: a phase named "" (empty) holds 1,000,000 bytes, one named `""` (two quote
 * characters) 2,000,000; both freed. The report shows the empty name as "" and the other one
 * quoted once more, """" (since 0.2.60 both read "", two phases under one name), and a
 * --phase-rule naming "" reaches the empty one. Prints "quotephase: done". Run it only with
 * the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[2];

int main(void)
{
	cuzktrace_phase_push("");
	keep[0] = malloc(1000000);
	memset(keep[0], 1, 1000000);
	cuzktrace_phase_pop();
	cuzktrace_phase_push("\"\"");
	keep[1] = malloc(2000000);
	memset(keep[1], 1, 2000000);
	cuzktrace_phase_pop();
	free(keep[0]);
	free(keep[1]);
	/* not stdio: its buffer would be a block of no phase */
	return write(1, "quotephase: done\n", 17) == 17 ? 0 : 1;
}
