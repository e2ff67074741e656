/* clonens.c: makes a child by a raw clone(CLONE_NEWPID) system call (no fork handlers run),
 * which execs argv[1], waits for it and prints its status. Run as pid 1 of a namespace (under
 * `unshare -pf`), the child is pid 1 too, in a namespace of its own, with this process's
 * memory: its exec is not this process's (it waited for good for a writer thread the child
 * does not have). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	keep = malloc(100000);
	memset(keep, 1, 100);
	char *av[] = {argv[1], NULL};
	pid_t c = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
	if (c < 0) {
		perror("clone");
		return 1;
	}
	if (c == 0) {
		execv(av[0], av);
		_exit(127);
	}
	int st;
	waitpid(c, &st, 0);
	printf("clonens: child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
