/* grabone.c: allocates argv[1] bytes in main, kept to the end; for --diff of two runs with
 * different sizes. Prints "grabone: done". */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	keep = malloc(strtoul(argv[1], NULL, 0));
	puts("grabone: done");
	return 0;
}
