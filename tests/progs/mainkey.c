/* mainkey.c: main keeps 10 x 7 bytes and calls pthread_exit; a key destructor of the
 * program's then runs on the main thread, sleeps 200 ms, keeps 50 x 1,000 bytes, and returns
 * (argument "r") or calls exit(0) ("x"). The main thread is not gone until its destructors
 * are done: the tracer must not finish the trace before (it did, and those 50,000 bytes were
 * missing from a trace that said nothing was lost). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static void *volatile sink;
static pthread_key_t key;
static int do_exit;
static void dtor(void *a)
{
	(void)a;
	struct timespec ts = {0, 200000000};
	nanosleep(&ts, NULL);
	for (int k = 0; k < 50; k++) sink = malloc(1000);
	if (do_exit) exit(0);
}
int main(int argc, char **argv)
{
	do_exit = argc > 1 && !strcmp(argv[1], "x");
	pthread_key_create(&key, dtor);
	pthread_setspecific(key, (void *)1);
	for (int k = 0; k < 10; k++) sink = malloc(7);
	pthread_exit(NULL);
}
