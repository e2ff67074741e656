/* lowfd.c: for 1 s, opens /dev/null and closes it, expecting the lowest free number (3) each
 * time, as the close(0); open("/dev/null") idiom of daemons does; prints the misses. The
 * tracer's own files are opened at start and kept at high numbers: a file it opened for a
 * moment while the program ran took that number from it. */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	long n = 0, miss = 0;
	do {
		for (int i = 0; i < 1000; i++, n++) {
			int f = open("/dev/null", O_RDONLY);
			if (f != 3)
				miss++;
			close(f);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec < 1);
	printf("lowfd: %ld opens, %ld not the lowest number\n", n, miss);
	return miss != 0;
}
