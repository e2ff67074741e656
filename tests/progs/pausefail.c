/* pausefail.c: limits the file size to the trace's current size plus 64 bytes, allocates
 * 1,000 blocks, then calls unshare(CLONE_NEWUSER): the writer's flush before the pause fails
 * (the file is too large), and the program goes on and exits. Prints the call's result. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static void *volatile keep[1000];

int main(void)
{
	struct stat st;
	const char *out = getenv("CUZKTRACE_OUT");
	if (!out || stat(out, &st) != 0)
		return 2;
	struct rlimit rl = {(rlim_t)st.st_size + 64, RLIM_INFINITY};
	setrlimit(RLIMIT_FSIZE, &rl);
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(100 + (size_t)i);
	int rc = unshare(CLONE_NEWUSER);
	printf("pausefail: unshare: %s\n", rc ? strerror(errno) : "ok");
	return 0;
}
