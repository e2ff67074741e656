/* forkwork.c: forks children that do not exec. "big": three children, one after the other,
 * each allocate a 4 MiB block (and touch it) and _exit(0); "small": the same with 100 KiB
 * blocks; then, in both modes, a child that allocates 100 KiB and execs /bin/true. The parent
 * waits for each and prints "forkwork: <mode> done". Usage: forkwork big|small */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "big") && strcmp(argv[1], "small")))
		return 2;
	size_t n = strcmp(argv[1], "big") ? 100 << 10 : 4 << 20;
	for (int i = 0; i < 4; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 3;
		if (pid == 0) {
			sink = malloc(i < 3 ? n : 100 << 10);
			memset(sink, 1, i < 3 ? n : 100 << 10);
			if (i == 3) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			_exit(0);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 4;
	}
	printf("forkwork: %s done\n", argv[1]);
	return 0;
}
