/* sigend.c: ends by a signal's default action with 12 MiB live (a Ctrl-C, timeout's SIGTERM, a
 * crash): the tracer holds the action and finishes the trace first. sigend MODE [SIGNAL]:
 *   raise N   raise(N) (a number)
 *   segv      a write through a null pointer: SIGSEGV at the instruction
 *   altsegv   the same with a 4 KiB alternate signal stack set (a guard page under it): the
 *             tracer's handler runs there, and finishes the trace on a stack of its own
 *   wait      says "ready" on stdout, then waits for a signal from outside
 *   pipe      writes into a pipe whose reading end is closed: SIGPIPE
 *   threads   four threads allocate and free without end; main raises SIGTERM
 *   fork      a forked child raises SIGTERM; the parent prints the child's status, exits 0
 *   handler   a SIGTERM handler of the program's that says so and calls _exit(5)
 *   view      prints the actions the program reads back after setting them (the same traced
 *             and untraced), ignores SIGHUP and raises it, and exits 0 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_term(int sig)
{
	(void)sig;
	static const char msg[] = "sigend: handled\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(5);
}

static void on_int(int sig)
{
	(void)sig;
}

static void *churn(void *arg)
{
	(void)arg;
	for (;;) {
		void *volatile p = malloc(64);
		free(p);
	}
	return NULL;
}

static const char *name_of(void (*h)(int))
{
	return h == SIG_DFL ? "SIG_DFL" : h == SIG_IGN ? "SIG_IGN" : h == on_int ? "on_int" : h == SIG_ERR ? "SIG_ERR" : "other";
}

/* the action as the program reads it back: handler, flags, and whether SIGUSR2 is masked */
static void show(const char *what, int sig)
{
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa) != 0) {
		printf("%s: error\n", what);
		return;
	}
	printf("%s: %s flags %#x usr2 %d\n", what, name_of(sa.sa_handler), (unsigned)sa.sa_flags,
	       sigismember(&sa.sa_mask, SIGUSR2));
}

static void view(void)
{
	show("TERM at start", SIGTERM);
	printf("signal(INT, on_int) returned %s\n", name_of(signal(SIGINT, on_int)));
	show("INT", SIGINT);
	printf("signal(INT, SIG_DFL) returned %s\n", name_of(signal(SIGINT, SIG_DFL)));
	show("INT", SIGINT);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGQUIT, &sa, &old);
	printf("QUIT before: %s flags %#x\n", name_of(old.sa_handler), (unsigned)old.sa_flags);
	show("QUIT", SIGQUIT);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	siginterrupt(SIGINT, 1);
#pragma GCC diagnostic pop
	printf("signal(INT, on_int) returned %s\n", name_of(signal(SIGINT, on_int)));
	show("INT after siginterrupt", SIGINT);
	printf("sysv_signal(ALRM, on_int) returned %s\n", name_of(sysv_signal(SIGALRM, on_int)));
	show("ALRM", SIGALRM);
	printf("signal(HUP, SIG_IGN) returned %s\n", name_of(signal(SIGHUP, SIG_IGN)));
	raise(SIGHUP);
	printf("SIGHUP ignored\n");
	printf("signal(KILL, SIG_DFL) returned %s\n", name_of(signal(SIGKILL, SIG_DFL)));
	printf("signal(0, SIG_DFL) returned %s\n", name_of(signal(0, SIG_DFL)));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char *p = malloc((size_t)12 << 20);
	if (!p)
		return 1;
	memset(p, 1, (size_t)12 << 20);
	if (!strcmp(mode, "raise") && argc > 2)
		raise(atoi(argv[2]));
	if (!strcmp(mode, "altsegv")) {
		char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) != 0)
			return 1;
		stack_t ss = {.ss_sp = m + 4096, .ss_size = 4096, .ss_flags = 0};
		if (sigaltstack(&ss, NULL) != 0)
			return 1;
		mode = "segv";
	}
	if (!strcmp(mode, "segv"))
		*(volatile int *)(argc > 99 ? p : NULL) = 1;
	if (!strcmp(mode, "wait")) {
		if (write(1, "ready\n", 6) != 6)
			return 1;
		for (;;)
			pause();
	}
	if (!strcmp(mode, "pipe")) {
		int fd[2];
		if (pipe(fd) != 0)
			return 1;
		close(fd[0]);
		if (write(fd[1], "x", 1) < 0)
			return 2;
	}
	if (!strcmp(mode, "threads")) {
		pthread_t t;
		for (int i = 0; i < 4; i++)
			pthread_create(&t, NULL, churn, NULL);
		usleep(50000);
		raise(SIGTERM);
	}
	if (!strcmp(mode, "fork")) {
		pid_t c = fork();
		if (c == 0) {
			free(malloc(1000));
			raise(SIGTERM);
			_exit(9);
		}
		int st = 0;
		waitpid(c, &st, 0);
		printf("child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	if (!strcmp(mode, "handler")) {
		signal(SIGTERM, on_term);
		raise(SIGTERM);
	}
	if (!strcmp(mode, "view")) {
		view();
		return 0;
	}
	return 3;
}
