/* tidreuse.c [GAP_US]: the kernel gives a thread id again. Thread "alpha" allocates 1 MiB and
 * frees it, and ends; after GAP_US microseconds (default 0) main writes
 * /proc/sys/kernel/ns_last_pid so that the next thread, "beta", gets alpha's id, and beta
 * allocates 2 MiB and keeps them. Run as pid 1 of a pid namespace of its own (unshare --pid
 * --fork, as root: ns_last_pid is the namespace's). Prints "reused" when beta got alpha's
 * id, else "not reused" (the id was taken, or the write refused), and exits 0. The program
 * never holds more than 2 MiB and a little of the heap. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void *volatile sink;
static pid_t tids[2];

static void *alpha(void *arg)
{
	(void)arg;
	tids[0] = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "alpha");
	char *p = malloc(1 << 20);
	memset(p, 1, 1 << 20);
	sink = p;
	free(p);
	return NULL;
}

static void *beta(void *arg)
{
	(void)arg;
	tids[1] = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "beta");
	char *p = malloc(2 << 20);
	memset(p, 2, 2 << 20);
	sink = p;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (pthread_create(&t, NULL, alpha, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	if (argc > 1)
		usleep((useconds_t)atol(argv[1]));
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d", (int)tids[0] - 1);
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, buf, (size_t)n) != n)
			tids[0] = -1;
		close(fd);
	}
	if (pthread_create(&t, NULL, beta, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	puts(tids[0] == tids[1] ? "reused" : "not reused");
	return 0;
}
