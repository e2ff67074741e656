/* churn.c: allocates and frees continuously for argv[1] milliseconds (default 500), keeping
 * nothing; used to fill the writer with many flushes (disk-full and SIGKILL tests). */
#include <stdlib.h>
#include <time.h>

static void *volatile keep;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500, end = now_ms() + ms;
	while (now_ms() < end)
		for (int i = 0; i < 1000; i++) {
			keep = malloc(32 + (size_t)(i & 255));
			free(keep);
		}
	return 0;
}
