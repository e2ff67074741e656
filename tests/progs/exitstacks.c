/* exitstacks.c [THREADS] [MS]: THREADS threads (default 2) allocate from many distinct call
 * stacks (a random walk of two mutually recursive functions, 20 deep: up to a million paths)
 * until main exits the process after MS milliseconds (default 300), while they still run. The
 * tracer's last flush must define every stack the events it writes name: its first tables
 * were written before the threads' last events, and stacks one thread published after an id
 * another was still publishing waited for a flush that never came. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int stop;

__attribute__((noinline)) static void *walk_a(unsigned r, int d);
__attribute__((noinline)) static void *walk_b(unsigned r, int d);

static void *walk_a(unsigned r, int d)
{
	if (!d)
		return malloc(16 + (r & 63));
	void *p = r & 1 ? walk_a(r >> 1, d - 1) : walk_b(r >> 1, d - 1);
	__asm__ volatile("");
	return p;
}

static void *walk_b(unsigned r, int d)
{
	if (!d)
		return malloc(32 + (r & 31));
	void *p = r & 1 ? walk_b(r >> 1, d - 1) : walk_a(r >> 1, d - 1);
	__asm__ volatile("");
	return p;
}

static void *work(void *arg)
{
	unsigned s = (unsigned)(long)arg * 2654435761u;
	void *keep[64] = { 0 };
	for (unsigned i = 0; !stop; i++) {
		s = s * 1103515245u + 12345u;
		free(keep[i & 63]);
		keep[i & 63] = walk_a(s >> 8, 20);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, ms = argc > 2 ? atoi(argv[2]) : 300;
	pthread_t t;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, work, (void *)(long)(i + 1)))
			return 3;
	usleep((useconds_t)ms * 1000);
	puts("exitstacks: exit");
	fflush(stdout);
	exit(0);
}
