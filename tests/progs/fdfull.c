/* fdfull.c: takes every descriptor number its limit allows (dup2 of stdout onto each number
 * from 3 up, the tracer's among them when the hard limit leaves it no room above), allocates
 * for 500 ms, then closes them all and prints "fdfull: done" with write(2). With the tracer,
 * its trace descriptor is gone and no number is free to open the trace again. */
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

int main(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 4096)
		return 2;
	int n = (int)rl.rlim_cur;
	for (int fd = 3; fd < n; fd++)
		dup2(1, fd);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++) {
			keep = malloc(64 + (size_t)i);
			free(keep);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 500);
	for (int fd = 3; fd < n; fd++)
		close(fd);
	return write(1, "fdfull: done\n", 13) == 13 ? 0 : 1;
}
