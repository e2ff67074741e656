/* vforkfirst.c: thread T's first traced event happens in its vfork child, so its event ring
 * is taken there, under the child's tid, which the kernel soon reports gone (another
 * process): the writer must not free the ring while T goes on using it (T then waited for
 * good on a ring nobody drained, or its events were lost). T keeps 50 x 1,000 bytes, U
 * 70 x 3,000; both free 200,000 more blocks each. With argument "dtor", T does its part in a
 * key destructor of the program's, which runs after the tracer's (the ring is marked ended
 * then, and was freed under T as well). Prints "done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
static void *volatile sink;
static void loop(int n, size_t sz)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(sz);
		sink = p;
		free(p);
	}
}
static pthread_key_t key;
static int in_dtor;

static void t_work(void *a)
{
	(void)a;
	struct timespec ts = {0, 400000000}; /* idle flushes: the writer finds "the thread" gone */
	nanosleep(&ts, NULL);
	for (int k = 0; k < 50; k++) { sink = malloc(1000); } /* T keeps 50 x 1000 */
	loop(200000, 48);
}

static void *t_main(void *a)
{
	pid_t c = vfork();
	if (c < 0)
		exit(2);
	if (c == 0) {
		sink = malloc(100); /* first event of T's TLS: attach with the child's tid */
		_exit(0);
	}
	waitpid(c, NULL, 0);
	if (in_dtor)
		pthread_setspecific(key, (void *)1);
	else
		t_work(NULL);
	return a;
}

static void *u_main(void *a)
{
	for (int k = 0; k < 70; k++) { sink = malloc(3000); } /* U keeps 70 x 3000 */
	loop(200000, 64);
	return a;
}
int main(int argc, char **argv)
{
	in_dtor = argc > 1 && !strcmp(argv[1], "dtor");
	pthread_key_create(&key, t_work);
	pthread_t t, u;
	pthread_create(&t, NULL, t_main, NULL);
	struct timespec ts = {0, 600000000};
	nanosleep(&ts, NULL);
	pthread_create(&u, NULL, u_main, NULL);
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	printf("done\n");
	return 0;
}
