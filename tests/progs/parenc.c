/* parenc.c: argv[1] threads (default 4) make argv[2] rounds (default 40) of 8,192 allocations
 * each, of 16 to 520 bytes, freeing every block at the round's end; then each thread i keeps
 * one block of 100,000 + i bytes to the end (keep_one). Enough events at once, on 4 threads, for
 * the writer to encode a flush with its encoder helpers (CUZKTRACE_ENCODERS); the numbers are
 * the same whoever encodes them. Prints "parenc: done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rounds = 40;
static void *volatile kept[64];

static __attribute__((noinline)) void keep_one(int i)
{
	kept[i] = malloc(100000 + (size_t)i);
}

static void *work(void *arg)
{
	int i = (int)(long)arg;
	static __thread void *blocks[8192];
	for (int r = 0; r < rounds; r++) {
		for (int j = 0; j < 8192; j++)
			blocks[j] = malloc(16 + (size_t)((j * 7 + i) % 64) * 8);
		for (int j = 0; j < 8192; j++)
			free(blocks[j]);
	}
	keep_one(i);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (n < 1 || n > 64)
		return 2;
	pthread_t th[64];
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, work, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("parenc: done\n");
	return 0;
}
