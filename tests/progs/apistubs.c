/* apistubs.c: a program that exports fallbacks of the phase API itself (weak definitions,
 * linked with -rdynamic), so that it runs where the tracer is absent. The tracer took such a
 * program for a second copy of itself, ahead of it, and stayed idle: nothing was traced. It
 * allocates 1,000 bytes, keeps them, marks a phase and prints "ok". */
#include <stdio.h>
#include <stdlib.h>

__attribute__((weak)) void cuzktrace_phase_begin(const char *name)
{
	(void)name;
}

static void *volatile keep;

int main(void)
{
	keep = malloc(1000);
	cuzktrace_phase_begin("work");
	puts("ok");
	return 0;
}
