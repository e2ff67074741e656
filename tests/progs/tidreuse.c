/* tidreuse.c [GAP_US [N]]: the kernel gives a thread id again. N threads (2 to 4, default 2)
 * run one after the other with the same id: main writes /proc/sys/kernel/ns_last_pid before
 * each after the first, GAP_US microseconds (default 0) after the one before it ended.
 * "alpha" allocates 1 MiB and frees it; "beta" 2 MiB, "gamma" 4 MiB, "delta" 8 MiB, each
 * freed but the last thread's, which is kept. Run as pid 1 of a pid namespace of its own
 * (unshare --pid --fork, as root: ns_last_pid is the namespace's). Prints "reused" when every
 * thread got the first one's id, else "not reused" (the id was taken, or the write refused),
 * and exits 0 at once. The program never holds more than the last block and a little. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void *volatile sink;
static pid_t tids[4];
static const char *const names[4] = { "alpha", "beta", "gamma", "delta" };

struct job {
	int i, keep;
};

static void *run(void *arg)
{
	const struct job *j = arg;
	tids[j->i] = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), names[j->i]);
	size_t n = (size_t)1 << (20 + j->i);
	char *p = malloc(n);
	if (!p)
		return NULL;
	memset(p, j->i + 1, n);
	sink = p;
	if (!j->keep)
		free(p);
	return NULL;
}

int main(int argc, char **argv)
{
	long gap = argc > 1 ? atol(argv[1]) : 0;
	int n = argc > 2 ? atoi(argv[2]) : 2;
	if (n < 2 || n > 4)
		return 2;
	int reused = 1;
	for (int i = 0; i < n; i++) {
		if (i) {
			if (gap)
				usleep((useconds_t)gap);
			char buf[32];
			int len = snprintf(buf, sizeof(buf), "%d", (int)tids[0] - 1);
			int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
			if (fd < 0 || write(fd, buf, (size_t)len) != len)
				reused = 0;
			if (fd >= 0)
				close(fd);
		}
		struct job j = { i, i == n - 1 };
		pthread_t t;
		if (pthread_create(&t, NULL, run, &j) != 0 || pthread_join(t, NULL) != 0)
			return 1;
		reused &= tids[i] == tids[0];
	}
	puts(reused ? "reused" : "not reused");
	return 0;
}
