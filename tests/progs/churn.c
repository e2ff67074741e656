/* churn.c: allocates and frees continuously for argv[1] milliseconds (default 500) and at
 * least argv[2] thousand times (default 0), keeping nothing; used to fill the writer with many
 * flushes (disk-full, SIGKILL and stuck-writer tests). */
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
	long thousands = argc > 2 ? atol(argv[2]) : 0;
	for (long k = 0; k < thousands || now_ms() < end; k++)
		for (int i = 0; i < 1000; i++) {
			keep = malloc(32 + (size_t)(i & 255));
			free(keep);
		}
	return 0;
}
