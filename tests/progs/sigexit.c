/* sigexit.c: allocates and frees in a loop (1,024 blocks of varied sizes kept in turn) until a
 * SIGALRM handler calls exit(0) after 50 ms: the exit handlers, the tracer's destructor among
 * them, then run inside the interrupted malloc or free, whose arena lock is held. The tracer
 * must not join its helper threads there (a join frees the thread's TLS through that lock: it
 * hung in about half the runs); it waits for its writer's last flush instead.
 * sigexit threads N: N threads allocate and free in the same loop; after 30 ms main sends each
 * a SIGTERM whose handler calls exit(7), most of them inside the tracer's hooks. The exit hook
 * skipped its claim there, and a third such exit ended the process under the final flush of
 * the one running the tracer's destructor: the trace cut short, without a word (4 threads:
 * 20 runs of 20). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
	exit(0);
}

static void on_term(int sig)
{
	(void)sig;
	exit(7);
}

static void *churn(void *arg)
{
	void *k[64] = {0};
	for (unsigned i = 0;; i++) {
		free(k[i & 63]);
		k[i & 63] = malloc(16 + (i % 400));
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "threads")) {
		int n = atoi(argv[2]);
		pthread_t t[64];
		signal(SIGTERM, on_term);
		for (int i = 0; i < n && i < 64; i++)
			pthread_create(&t[i], NULL, churn, NULL);
		usleep(30000);
		for (int i = 0; i < n && i < 64; i++)
			pthread_kill(t[i], SIGTERM);
		for (;;)
			pause();
	}
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 0}, {0, 50000}};
	setitimer(ITIMER_REAL, &it, NULL);
	static void *k[1024];
	for (unsigned i = 0;; i++) {
		free(k[i & 1023]);
		k[i & 1023] = malloc(16 + (i % 4000));
	}
}
