/* sigprof.c (from a review of 0.2.10): a SIGPROF sampling profiler that walks stacks with
 * libunwind (as gperftools' does when built with libunwind) every 100 us of CPU, and a
 * daemon-like loop: close every descriptor, then two new threads allocate from new stack
 * pages. The profiler's handler comes through the tracer's hooks for libunwind's pipe; landing
 * on a thread that held the tracer's lock on that pipe, it spun for good (2 of 4 runs of 3,000
 * rounds). Usage: sigprof ROUNDS; prints "done ROUNDS rounds, N samples" on stderr.
 * sigprof pipe: closes every descriptor above 2 (libunwind's pipe, made by the tracer's first
 * captures, goes), unwinds once as the handler does on a new thread (whose stack pages libunwind
 * has not checked yet), then prints the pipes among its descriptors
 * above 2 ("pipe fds: N N ..." in the order of their numbers: libunwind's, read end first)
 * and which end each is. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <fcntl.h>
#include <unistd.h>
int close_range(unsigned, unsigned, int);
static void *volatile keep;
static volatile long samples;
static void handler(int s)
{
	(void)s;
	unw_context_t uc; unw_cursor_t c;
	unw_getcontext(&uc);
	unw_init_local(&c, &uc);
	int n = 0;
	while (n < 64 && unw_step(&c) > 0) n++;
	samples++;
}
static __attribute__((noinline)) void deep(int n)
{
	volatile char pad[8192]; pad[0] = (char)n;
	if (n > 0) deep(n - 1); else keep = malloc(4096);
	pad[1] = pad[0];
}
static void *worker(void *a) { (void)a; for (int i = 0; i < 4; i++) deep(6); return NULL; }
static void *unwinder(void *a) { handler(0); return a; }
static int show_pipes(void)
{
	close_range(3, ~0U, 0);
	pthread_t t;
	pthread_create(&t, NULL, unwinder, NULL);
	pthread_join(t, NULL);
	struct rlimit rl;
	int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1 << 21 ? (int)rl.rlim_cur : 1 << 21;
	printf("pipe fds:");
	for (int fd = 3; fd < top; fd++) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
			printf(" %d:%s", fd, (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY ? "r" : "w");
	}
	printf("\n");
	return 0;
}
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "pipe"))
		return show_pipes();
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_RESTART};
	sigaction(SIGPROF, &sa, 0);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_PROF, &it, 0);
	deep(6);
	for (int r = 0; r < rounds; r++) {
		close_range(3, ~0U, 0);
		pthread_t t[2];
		for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
	}
	fprintf(stderr, "done %d rounds, %ld samples\n", rounds, samples);
	return 0;
}
