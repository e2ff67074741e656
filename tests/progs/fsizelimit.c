/* fsizelimit.c: sets its file-size limit (RLIMIT_FSIZE) to argv[1] bytes, allocates, exits 0.
 * Run with stderr appended to a file already larger than the limit and the trace going to a
 * file that stays under it: the tracer's exit line cannot be written there, and must not end
 * the program by SIGXFSZ (it did: status 153). */
#include <stdlib.h>
#include <sys/resource.h>

static void *volatile keep[100];

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	struct rlimit rl = {(rlim_t)atol(argv[1]), (rlim_t)atol(argv[1])};
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 3;
	for (int i = 0; i < 100; i++)
		keep[i] = malloc(32);
	return 0;
}
