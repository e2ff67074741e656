/* execer.c: allocates 4,000,000 bytes, then replaces itself with argv[1] (execv). The trace of
 * this image must end with an end record (reason exec) holding those bytes. */
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
	execv(argv[1], argv + 1);
	return 3;
}
