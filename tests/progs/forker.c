/* forker.c: the parent allocates 4,000,000 bytes, forks a child that allocates and frees
 * memory and exits, waits for it, then allocates 1,000,000 more. The parent's trace must be
 * complete and exact; the child (which does not exec) runs untraced and exits 7. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep[3];

int main(void)
{
	keep[0] = malloc(4000000);
	memset(keep[0], 1, 4096);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 1000; i++) {
			keep[2] = malloc(50000);
			free(keep[2]);
		}
		_exit(7);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	keep[1] = malloc(1000000);
	memset(keep[1], 1, 4096);
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 1;
}
