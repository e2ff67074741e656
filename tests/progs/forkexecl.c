/* forkexecl.c LIB: a thread dlopens LIB (whose constructor sleeps: the loader's lock held),
 * and meanwhile main makes a child with _Fork (no atfork handlers: the child's copy of that
 * lock stays taken), which calls execl("/bin/true"). Prints whether the child ended within
 * 1.5 s, and its status (it is killed after 5 s). The exec hooks asked the loader which file
 * the tracer is (dladdr, which takes that lock): the child hung for good. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern pid_t _Fork(void);

static const char *lib;

static void *opener(void *arg)
{
	dlopen(lib, RTLD_NOW);
	return arg;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	lib = argv[1];
	pthread_t t;
	pthread_create(&t, NULL, opener, NULL);
	usleep(300000); /* the thread is in the constructor */
	double t0 = now();
	pid_t c = _Fork();
	if (c == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int st = 0, done = 0;
	while (!done && now() - t0 < 5)
		if (waitpid(c, &st, WNOHANG) == c)
			done = 1;
		else
			usleep(10000);
	if (!done) {
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
	}
	printf("child %s, status %d\n", done && now() - t0 < 1.5 ? "ended at once" : "hung", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	pthread_join(t, NULL);
	return 0;
}
