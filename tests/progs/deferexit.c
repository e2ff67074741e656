/* deferexit.c: a marker a longer one could still become ("PROVE" of "PROVE_DONE"), written
 * alone by a thread, waits for that thread's next write, its exit or the process's exit:
 *   deferexit busy   the thread writes "PROVE" and ends while another thread writes 4 MiB
 *                    lines to stderr (/dev/null) without pause (the scan is busy); main keeps
 *                    1 MiB: prove's (the thread's exit acted on the marker)
 *   deferexit alive  the thread writes "PROVE" and waits; main keeps 1 MiB and calls exit:
 *                    the marker acts at the process's exit (prove begins, with 0 bytes)
 *   deferexit again  the thread writes "PROVE", waits for main's exit to begin, then 200 us
 *                    later writes "\n" (main made 200,000 allocations, so the exit's last
 *                    flush takes a while): the marker acts once (a first build acted it at
 *                    the exit and again at that write, 18 runs in 30) */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static void *volatile keep;
static char big[4 << 20];

static void *noisy(void *a)
{
	(void)a;
	while (!atomic_load(&stop))
		if (write(2, big, sizeof(big)) < 0)
			break;
	return NULL;
}

static atomic_int go;
/* the thread wrote its marker: main waits for it (on a busy machine the thread ran first after
 * main's exit had begun once, its marker then after the trace's end: no note) */
static atomic_int written;

static void *again(void *a)
{
	(void)a;
	if (write(1, "PROVE", 5) != 5)
		return NULL;
	atomic_store(&written, 1);
	while (!atomic_load(&go))
		;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 200000);
	if (write(1, "\n", 1) != 1)
		return NULL;
	for (;;)
		pause();
}

static void *prover(void *a)
{
	if (write(1, "PROVE", 5) != 5)
		return NULL;
	atomic_store(&written, 1);
	if (a)
		pause();
	return NULL;
}

static void keep_mib(void)
{
	char *m = malloc(1 << 20);
	memset(m, 1, 1 << 20);
	keep = m;
}

int main(int argc, char **argv)
{
	pthread_t n, p;
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "busy")) {
		memset(big, 'x', sizeof(big));
		big[sizeof(big) - 1] = '\n';
		/* stderr to /dev/null: each write returns at once, so the scan of the next one
		 * holds the scan's lock nearly all the time */
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, 2) != 2)
			return 3;
		pthread_create(&n, NULL, noisy, NULL);
		usleep(20000);
		pthread_create(&p, NULL, prover, NULL);
		pthread_join(p, NULL);
		atomic_store(&stop, 1);
		pthread_join(n, NULL);
		keep_mib();
		return write(1, "\n", 1) == 1 ? 0 : 1;
	}
	if (!strcmp(argv[1], "again")) {
		pthread_create(&p, NULL, again, NULL);
		while (!atomic_load(&written))
			usleep(1000);
		usleep(20000);
		for (int i = 0; i < 200000; i++)
			free(malloc(64));
		atomic_store(&go, 1);
		exit(0);
	}
	pthread_create(&p, NULL, prover, (void *)1);
	while (!atomic_load(&written))
		usleep(1000);
	usleep(100000);
	keep_mib();
	exit(0);
}
