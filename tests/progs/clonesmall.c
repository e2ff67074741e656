/* clonesmall.c: a child made by clone(CLONE_VM | CLONE_VFORK) on a stack of its own of argv[1]
 * KiB (a guard page under it) execs /bin/true with the program's environment. Prints
 * "clonesmall: exit N" or "clonesmall: signal N" for the child. The tracer's exec hooks run
 * on that stack: 8 KiB held them until 0.2.44 took 4 KiB more there (SIGSEGV). */

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int child(void *arg)
{
	(void)arg;
	char *argv[] = { "/bin/true", NULL };
	execve(argv[0], argv, environ);
	_exit(127);
}

int main(int argc, char **argv)
{
	size_t sz = (argc > 1 ? strtoul(argv[1], NULL, 10) : 8) << 10;
	char *m = mmap(NULL, sz + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) != 0)
		return 1;
	pid_t pid = clone(child, m + 4096 + sz, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	printf("clonesmall: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return 0;
}
