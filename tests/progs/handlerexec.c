/* handlerexec.c: a 200 us timer whose handler execs a path that does not exist (legal: execve
 * is async-signal-safe; it fails with ENOENT and the handler returns) while the main thread
 * renames itself 300,000 times, each rename queueing a record in the tracer's own memory.
 * The handler's exec copies the environment there too: when it interrupted the thread inside
 * that memory's lock, it spun on it for good (the program hung). Prints "handlerexec: done".
 * (At 50 us, as first written, a traced exec attempt, some 15 system calls of the tracer's
 * checks, 30 to 60 us on a busy VM, left the main thread next to no time between signals: over
 * 60 s, no hang but no progress either.) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

extern char **environ;

static void on_alarm(int sig)
{
	(void)sig;
	char *av[] = {"nope", NULL};
	execve("/nonexistent/helper", av, environ);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &it, NULL);
	char name[16];
	for (long i = 0; i < 300000; i++) {
		snprintf(name, sizeof(name), "w%ld", i % 100000);
		pthread_setname_np(pthread_self(), name);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("handlerexec: done\n");
	return 0;
}
