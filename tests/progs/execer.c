/* execer.c: allocates 4,000,000 bytes, then replaces itself with the first of its arguments
 * that execv accepts (as execvp-like loops do over PATH). The trace of this image must end with
 * an end record (reason exec) holding those bytes, failed attempts or not. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	keep = malloc(4000000);
	memset(keep, 1, 64);
	for (int i = 1; i < argc; i++) {
		char *av[] = {argv[i], NULL};
		execv(argv[i], av);
	}
	return 3;
}
