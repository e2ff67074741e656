/* ownerlast.c: keeps 100,000 blocks (32 to 95 bytes), makes 300,000 malloc/free pairs, then
 * main calls exit(0): it owns the exit. Its exit handler starts a second thread's exit(0)
 * and waits until that thread is inside _dl_fini (the program's destructor runs there, just
 * before the tracer's, which finishes the trace), then USEC microseconds more (ownerlast
 * USEC, default 1,000), and returns: main then takes the tracer's last exit handler while
 * the other thread is in the final flush (slow with CUZKTRACE_ZSTD_LEVEL=19), and must wait
 * there (it went on, found no handler left and ended the process: the trace cut short, every
 * time, without a word). */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static sem_t go;
static int delay_us = 1000;
static atomic_int in_dtor;
static pthread_t main_thread;
static void *volatile keep[100000];

__attribute__((destructor)) static void program_dtor(void)
{
	if (!pthread_equal(pthread_self(), main_thread))
		atomic_store(&in_dtor, 1);
}

static void handler(void)
{
	sem_post(&go);
	while (!atomic_load(&in_dtor))
		usleep(100);
	usleep((useconds_t)delay_us);
}

static void *other(void *a)
{
	sem_wait(&go);
	exit(0);
	return a;
}

int main(int argc, char **argv)
{
	main_thread = pthread_self();
	if (argc > 1)
		delay_us = atoi(argv[1]);
	sem_init(&go, 0, 0);
	for (int i = 0; i < 100000; i++)
		keep[i] = malloc(32 + (size_t)(i & 63));
	for (int i = 0; i < 300000; i++) {
		void *volatile p = malloc(16 + (size_t)(i & 255));
		free(p);
	}
	atexit(handler);
	pthread_t t;
	if (pthread_create(&t, NULL, other, NULL))
		return 2;
	exit(0);
}
