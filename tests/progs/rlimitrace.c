/* rlimitrace.c: two threads read the descriptor limit and set it again, over and over, while
 * main closes every descriptor from 3 up (close_range) 3,000 times, allocating between (the
 * tracer reopens its own descriptors then). Prints "rlimitrace: start=S end=E changed=N":
 * the soft limit must stay S, never seen otherwise (the tracer raised it for a moment at each
 * reopen; a thread that read it then and set it again kept it: 64 grew to 1792). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static atomic_int stop;
static rlim_t start;
static atomic_long changed;

static void *again(void *a)
{
	while (!atomic_load(&stop)) {
		struct rlimit r;
		if (getrlimit(RLIMIT_NOFILE, &r) != 0)
			break;
		if (r.rlim_cur != start)
			atomic_fetch_add(&changed, 1);
		(void)setrlimit(RLIMIT_NOFILE, &r);
	}
	return a;
}

int main(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) != 0)
		return 2;
	start = r.rlim_cur;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, again, NULL))
			return 3;
	for (int i = 0; i < 3000; i++) {
		close_range(3, ~0U, 0);
		char *volatile p = malloc(1 << 20);
		p[0] = 1;
		free(p);
		usleep(300);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (getrlimit(RLIMIT_NOFILE, &r) != 0)
		return 4;
	printf("rlimitrace: start=%lu end=%lu changed=%ld\n", (unsigned long)start,
	       (unsigned long)r.rlim_cur, atomic_load(&changed));
	return 0;
}
