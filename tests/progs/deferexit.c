/* deferexit.c: a marker a longer one could still become ("PROVE" of "PROVE_DONE"), written
 * alone by a thread, waits for that thread's next write, its exit or the process's exit:
 *   deferexit busy   the thread writes "PROVE" and ends while another thread writes 4 MiB
 *                    lines to stderr (/dev/null) without pause (the scan is busy); main keeps
 *                    1 MiB: prove's (the thread's exit acted on the marker)
 *   deferexit alive  the thread writes "PROVE" and waits; main keeps 1 MiB and calls exit:
 *                    the marker acts at the process's exit (prove begins, with 0 bytes) */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

static void *prover(void *a)
{
	if (write(1, "PROVE", 5) != 5)
		return NULL;
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
	pthread_create(&p, NULL, prover, (void *)1);
	usleep(100000);
	keep_mib();
	exit(0);
}
