/* forksig.c: forksig fork|_Fork N: a thread reads SIGPIPE's action without end while main makes
 * N children with fork (or _Fork, which runs no atfork handlers), each of which sets SIGPIPE's
 * action and exits; prints how many did not exit within 2 s (killed then). The tracer's
 * hooks of sigaction take a lock of its own: a child made while the parent's thread held it
 * found it taken for good, and spun there with every signal blocked. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern pid_t _Fork(void);

static atomic_int stop;

static void *reader(void *arg)
{
	(void)arg;
	struct sigaction old;
	while (!atomic_load(&stop))
		sigaction(SIGPIPE, NULL, &old);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int plain = !strcmp(argv[1], "fork"), n = atoi(argv[2]), hung = 0;
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	for (int i = 0; i < n; i++) {
		pid_t c = plain ? fork() : _Fork();
		if (c == 0) {
			signal(SIGPIPE, SIG_IGN);
			_exit(0);
		}
		int st, done = 0;
		for (int k = 0; k < 200 && !done; k++)
			if (waitpid(c, &st, WNOHANG) == c)
				done = 1;
			else
				usleep(10000);
		if (!done) {
			hung++;
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
		}
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("%d of %d children hung\n", hung, n);
	return 0;
}
