/* execexit.c: keeps 50,000 x 40 bytes, then main calls exit(0) while another thread calls
 * execv("/bin/true") at the same moment. Whichever comes first, the trace of this image must
 * survive: an exec that came while exit was finishing the trace ran unhooked, and /bin/true's
 * trace, opened at the same path, wiped it (3 runs in 10). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t b;
static void *volatile k[50000];

static void *th(void *a)
{
	pthread_barrier_wait(&b);
	char *argv[] = {"/bin/true", NULL};
	execv("/bin/true", argv);
	return a;
}

int main(void)
{
	for (int i = 0; i < 50000; i++)
		k[i] = malloc(40);
	pthread_barrier_init(&b, NULL, 2);
	pthread_t t;
	if (pthread_create(&t, NULL, th, NULL))
		return 2;
	pthread_barrier_wait(&b);
	exit(0);
}
