/* fdtake.c: programs that take the descriptors the tracer's RSS sampler reads /proc with, under
 * a limit of 64 set here (below the 128 under which the tracer keeps no descriptor of /proc).
 *   closeall: closes every descriptor from 3 up (the tracer's among them), then touches
 *             64 MiB for 300 ms: the sampler must open its files again, and RSS shows the block
 *   gap:      closes the sampler's statm descriptor (found in /proc/self/fd) once every number
 *             under the limit is taken, touches 64 MiB for 300 ms, then gives the numbers back
 *             and lives 200 ms more: the samples in between are missing (one line says so), the
 *             trace itself is complete
 * Prints "fdtake: <mode> done" with write(2). */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep; /* the block escapes: its memset is not optimized away */

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void touch_64mib(void)
{
	char *p = malloc(64 << 20);
	keep = p;
	memset(p, 1, 64 << 20);
	nap_ms(300);
	free(p);
}

/* the descriptor whose link is /proc/<pid>/task/<tid>/statm, or -1 */
static int statm_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	int found = -1;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char link[300], target[256];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n > 0) {
			target[n] = 0;
			if (!fnmatch("/proc/*/task/*/statm", target, 0))
				found = atoi(e->d_name);
		}
	}
	if (d)
		closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	struct rlimit rl = {64, 64};
	if (argc != 2 || getrlimit(RLIMIT_NOFILE, &rl) || (rl.rlim_cur = 64, setrlimit(RLIMIT_NOFILE, &rl)))
		return 2;
	if (!strcmp(argv[1], "closeall")) {
		if (syscall(SYS_close_range, 3u, ~0u, 0u))
			return 4;
		touch_64mib();
	} else if (!strcmp(argv[1], "gap")) {
		nap_ms(50); /* the sampler has read statm */
		int s = statm_fd();
		if (s < 0)
			return 3;
		static int fds[64];
		int n = 0;
		while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
			n++;
		close(s);
		touch_64mib();
		for (int i = 0; i < n; i++)
			close(fds[i]);
		nap_ms(200);
	} else {
		return 2;
	}
	char line[64];
	int len = snprintf(line, sizeof line, "fdtake: %s done\n", argv[1]);
	return write(1, line, (size_t)len) == len ? 0 : 1;
}
