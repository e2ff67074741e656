/* sigexit.c: allocates and frees in a loop (1,024 blocks of varied sizes kept in turn) until a
 * SIGALRM handler calls exit(0) after 50 ms: the exit handlers, the tracer's destructor among
 * them, then run inside the interrupted malloc or free, whose arena lock is held. The tracer
 * must not join its helper threads there (a join frees the thread's TLS through that lock: it
 * hung in about half the runs); it waits for its writer's last flush instead. */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
	exit(0);
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 0}, {0, 50000}};
	setitimer(ITIMER_REAL, &it, NULL);
	static void *k[1024];
	for (unsigned i = 0;; i++) {
		free(k[i & 1023]);
		k[i & 1023] = malloc(16 + (i % 4000));
	}
}
