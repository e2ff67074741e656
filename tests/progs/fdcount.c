/* fdcount.c: allocates, then opens /dev/null until it fails, and prints how many opens
 * succeeded and the error ("fdcount: 28 EMFILE"). Traced, the count must be what it is
 * untraced: the tracer's own descriptors sit above the soft limit when the hard limit allows
 * (they took 7 of the program's numbers: with a limit of 8, a program could not open its
 * files). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	void *volatile p = malloc(100);
	free(p);
	int n = 0;
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	printf("fdcount: %d %s\n", n, errno == EMFILE ? "EMFILE" : "other");
	return 0;
}
