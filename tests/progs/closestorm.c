/* closestorm.c: one thread closes every descriptor above 2 in a loop (close_range) while two
 * others allocate and free, for MS milliseconds (default 1500); prints "closestorm: done".
 *   closestorm [MS]
 * The tracer reopens its trace again and again; it must keep tracing to the end
 * (tests/integration/t_lifecycle.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int stop;

static void *churn(void *a)
{
	while (!stop) {
		void *volatile p = malloc(1000);
		free(p);
	}
	return a;
}

static void *closer(void *a)
{
	while (!stop)
		syscall(SYS_close_range, 3, ~0U, 0);
	return a;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 1500;
	pthread_t t[3];
	pthread_create(&t[0], NULL, churn, NULL);
	pthread_create(&t[1], NULL, churn, NULL);
	pthread_create(&t[2], NULL, closer, NULL);
	usleep((useconds_t)ms * 1000);
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("closestorm: done\n");
	return 0;
}
