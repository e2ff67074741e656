/* doublefork.c: a program started by a fork whose forking process has ended before the
 * program runs, so that the kernel has given it to pid 1 (or a subreaper). Prints "traced
 * <its pid>" and "exec <pid>" for the process that execs argv[2]. doublefork single PROG
 * [ARG...]: forks a child that waits until this process has ended, then execs PROG (a shell's
 * last command put in the background). doublefork double PROG [ARG...]: forks a child that
 * forks a grandchild and ends at once (waited for here); the grandchild waits until the child
 * has ended, then execs PROG (a daemon's double fork). Both execs are execvp's, through the
 * tracer's hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the process that forked this one has ended (10 s at most), then PROG */
static void exec_orphan(pid_t forker, char **argv)
{
	for (int i = 0; i < 10000 && getppid() == forker; i++)
		usleep(1000);
	execvp(argv[0], argv);
	_exit(127);
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "single") && strcmp(argv[1], "double")))
		return 2;
	int dbl = !strcmp(argv[1], "double");
	pid_t me = getpid();
	dprintf(1, "traced %d\n", (int)me);
	pid_t c = fork();
	if (c < 0)
		return 3;
	if (c == 0 && !dbl)
		exec_orphan(me, argv + 2);
	if (c == 0) {
		pid_t mid = getpid(), g = fork();
		if (g == 0)
			exec_orphan(mid, argv + 2);
		if (g > 0)
			dprintf(1, "exec %d\n", (int)g);
		_exit(g > 0 ? 0 : 4);
	}
	if (!dbl) {
		dprintf(1, "exec %d\n", (int)c);
		return 0;
	}
	int st;
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 5;
}
