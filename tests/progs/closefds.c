/* closefds.c: behaves like a daemon: closes every descriptor above 2, then opens a pipe that
 * may reuse the trace's descriptor number, allocates, and checks that the pipe carries only
 * what it wrote itself. Prints "pipe ok" or "pipe CORRUPTED"; exit 0 or 1.
 * closefds range: after a first allocation, closes them with close_range(3, ~0U, 0) (every
 * number, however high: the tracer's private ones too), and at the end allocates 4096 bytes
 * from deeper in the stack than before.
 * closefds unwpipe: after a first allocation, closes them all, raises its soft descriptor limit
 * to the hard one and puts a pipe of its own (dup2) on the number of the tracer's only pipe
 * (the write end libunwind was handed before, found in /proc/self/fd), then allocates from new
 * stack pages, which libunwind checks by writing bytes of them into its pipe with a raw system
 * call: "pipe ok" when the program's pipe holds nothing, else "pipe CORRUPTED (<n> extra
 * bytes)" (before 0.2.10; from a review).
 * closefds race ROUNDS: ROUNDS times, 16 threads (made beforehand, waiting on a barrier) allocate
 * at once from new stack pages right after a close-all: several of them find the tracer's
 * private pipe gone and make it again at once. Prints the pipe descriptors the process holds
 * then: more than 2 (run with no pipe on stdin, stdout or stderr), or bytes piling up in one,
 * is a race (pipes were leaked, libunwind handed the ends of two). */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

static void *volatile keep;

/* an allocation from deeper in the stack than anything before */
static __attribute__((noinline)) void deep(int n)
{
	volatile char pad[8192];
	pad[0] = (char)n;
	if (n > 0)
		deep(n - 1);
	else
		keep = malloc(4096);
	pad[1] = pad[0];
}

/* The pipe descriptors the process holds: their count in *n (if n), the most bytes waiting in
 * one in *queued (if queued); returns the highest number (the tracer's private pipe's write
 * end, when it holds the only pipe), -1 when none. */
static int scan_pipes(int *n, int *queued)
{
	int w = -1, c = 0, most = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char l[64], p[300];
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(p, l, sizeof(l) - 1);
		if (len <= 0)
			continue;
		l[len] = 0;
		if (strncmp(l, "pipe:", 5) != 0)
			continue;
		int fd = atoi(e->d_name), q = 0;
		c++;
		if (fd > w)
			w = fd;
		if (ioctl(fd, FIONREAD, &q) == 0 && q > most)
			most = q;
	}
	if (d)
		closedir(d);
	if (n)
		*n = c;
	if (queued)
		*queued = most;
	return w;
}

#define RACERS 16
static pthread_barrier_t go, ready;

static void *racer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	deep(6);
	return NULL;
}

static int race(int rounds)
{
	deep(6);
	keep = malloc(100);
	usleep(100000);
	for (int r = 0; r < rounds; r++) {
		pthread_t t[RACERS];
		pthread_barrier_init(&go, NULL, RACERS + 1);
		pthread_barrier_init(&ready, NULL, RACERS + 1);
		for (int i = 0; i < RACERS; i++)
			pthread_create(&t[i], NULL, racer, NULL);
		pthread_barrier_wait(&ready);
		close_range(3, ~0U, 0);
		pthread_barrier_wait(&go);
		for (int i = 0; i < RACERS; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&go);
		pthread_barrier_destroy(&ready);
	}
	int n, queued;
	scan_pipes(&n, &queued);
	printf("pipes after %d rounds: %d (2 expected); most bytes waiting in one: %d\n", rounds, n, queued);
	return 0;
}

static int unwpipe(void)
{
	keep = malloc(100);
	usleep(150000);
	int w = scan_pipes(NULL, NULL);
	if (w < 0) {
		puts("no pipe found");
		return 2;
	}
	close_range(3, ~0U, 0);
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	int pp[2];
	if (pipe2(pp, O_NONBLOCK) < 0 || dup2(pp[1], w) != w) {
		puts("setup failed");
		return 2;
	}
	close(pp[1]);
	deep(6);
	char buf[64];
	ssize_t n = read(pp[0], buf, sizeof(buf));
	if (n > 0)
		printf("pipe CORRUPTED (%zd extra bytes)\n", n);
	else
		puts("pipe ok");
	return n > 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "unwpipe") == 0)
		return unwpipe();
	if (argc > 2 && strcmp(argv[1], "race") == 0)
		return race(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "range") == 0) {
		keep = malloc(100);
		usleep(150000); /* the tracer's descriptors are all open by now */
		if (close_range(3, ~0U, 0) < 0)
			return 2;
	} else {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	}
	int p[2];
	if (pipe(p) < 0)
		return 2;
	const char msg[] = "hello through the pipe";
	if (write(p[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return 2;
	for (int i = 0; i < 100; i++) { /* give the tracer something to flush */
		keep = malloc(1000 + i);
		free(keep);
		usleep(5000);
	}
	keep = malloc(2000000);
	usleep(300000);
	close(p[1]);
	char buf[4096];
	ssize_t n = read(p[0], buf, sizeof(buf));
	int ok = n == (ssize_t)sizeof(msg) && !memcmp(buf, msg, sizeof(msg));
	char end;
	ok = ok && read(p[0], &end, 1) == 0;
	if (argc > 1)
		deep(6); /* libunwind checks stack memory it has not seen: its pipe, after the reopen */
	const char *r = ok ? "pipe ok\n" : "pipe CORRUPTED\n";
	if (write(1, r, strlen(r)) < 0)
		return 2;
	return ok ? 0 : 1;
}
