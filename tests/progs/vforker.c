/* vforker.c: vfork + exec, the way posix_spawn-like code does it by hand. The child shares the
 * parent's memory until it execs: the tracer's exec hook must not finish the parent's trace
 * there. The parent then allocates 3,000,000 bytes; its trace must hold them and end at exit. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	pid_t pid = vfork();
	if (pid == 0) {
		char *av[] = {argv[1], NULL};
		execv(argv[1], av);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	keep = malloc(3000000);
	memset(keep, 1, 64);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
