/* stderrfd.c: programs that treat descriptor 2 unusually.
 *   stderrfd open FILE   opens FILE (with stderr closed by the caller it gets number 2),
 *                        writes "fd=N" to it, allocates and exits
 *   stderrfd close       closes stderr, allocates and exits (as coreutils programs do)
 * Uses write(2) only. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "open") == 0) {
		int fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			return 2;
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "fd=%d\n", fd);
		if (write(fd, buf, (size_t)n) != n)
			return 2;
		keep = malloc(100000);
		free(keep);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "close") == 0) {
		close(2);
		keep = malloc(100000);
		free(keep);
		return 0;
	}
	(void)!write(1, "usage: stderrfd open FILE | close\n", 34);
	return 2;
}
