/* exitcode.c: prints a fixed text, allocates a little, exits with status 3. Used to show that
 * a tracer that cannot trace leaves output and exit status untouched. */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep;

int main(void)
{
	keep = malloc(12345);
	printf("output line one\noutput line two\n");
	return 3;
}
