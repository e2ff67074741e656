/* exitblock.c: keeps 1,000 x 32 bytes; main calls exit(0), and its exit blocks for 30 s
 * before the tracer's destructor: in an atexit handler (exitblock handler), or in the
 * program's own destructor (exitblock dtor), which runs from glibc's _dl_fini, the exit
 * handler that runs the tracer's destructor too. 200 ms in, a second thread calls exit(0).
 * glibc 2.36 lets that second exit end the process; the tracer makes it wait for the trace
 * to be finished (at most 10 s while nothing finishes it), then it finishes the trace itself.
 * Before, it said "left incomplete" and the trace was complete (handler), or its exit ended
 * the process with the trace cut short (dtor: _dl_fini was the first exit's). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[1000];
static int in_dtor;

static void block(void)
{
	sleep(30);
}

__attribute__((destructor)) static void program_dtor(void)
{
	if (in_dtor)
		block();
}

static void *other(void *a)
{
	usleep(200000);
	exit(0);
	return a;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(32);
	in_dtor = argc > 1 && strcmp(argv[1], "dtor") == 0;
	if (!in_dtor)
		atexit(block);
	pthread_t t;
	if (pthread_create(&t, NULL, other, NULL))
		return 2;
	exit(0);
}
