/* stderrgone.c: keeps a 100,000-byte block, prints "stderrgone: start" (flushed), waits until
 * the file GO exists (30 s at most), prints "stderrgone: end" (left in stdio's buffer until
 * exit) and returns 0. It never writes to stderr itself: untraced, a pipe on stderr whose
 * reader is gone changes nothing for it. Usage: stderrgone GO */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	keep = malloc(100000);
	printf("stderrgone: start\n");
	fflush(stdout);
	for (int i = 0; i < 3000 && access(argv[1], F_OK) != 0; i++)
		usleep(10000);
	printf("stderrgone: end\n");
	return 0;
}
