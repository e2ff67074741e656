/* userns.c: keeps 1,000,000 bytes, enters a new user namespace with unshare(CLONE_NEWUSER)
 * (which the kernel allows only in a single-threaded process) 20 times in a row, each nested
 * in the last (mapping its ids so the next is allowed), each after four short threads of its
 * own (whose stacks glibc caches: the tracer stopping and starting its threads must not free the
 * TLS blocks of cached stacks out of sight), then has a thread keep 2,000,000 bytes more.
 * Prints "userns: ok" or the first call's error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[2];
/* threads not the program's that may be listed: the tracer's writer and RSS sampler when
 * traced (they stop for the call themselves) */
#define OTHERS (getenv("LD_PRELOAD") ? 2 : 0)

static void *worker(void *arg)
{
	(void)arg;
	keep[1] = malloc(2000000);
	return NULL;
}

static void *churn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		void *volatile p = malloc(64);
		free(p);
	}
	return NULL;
}

/* a joined thread may still be leaving the kernel's thread group for a moment, and the call
 * needs it gone: wait (1 s at most) until this process lists only its own threads */
static void wait_alone(int others)
{
	for (int t = 0; t < 1000; t++) {
		DIR *d = opendir("/proc/self/task");
		int n = 0;
		struct dirent *e;
		while (d && (e = readdir(d)))
			n += e->d_name[0] != '.';
		if (d)
			closedir(d);
		if (n <= 1 + others)
			return;
		usleep(1000);
	}
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, text, strlen(text));
		close(fd);
	}
}

int main(void)
{
	keep[0] = malloc(1000000);
	for (int i = 0; i < 20; i++) {
		uid_t u = geteuid();
		gid_t g = getegid();
		pthread_t c[4]; /* 4 stacks of 8 MiB in glibc's cache, over its 40 MiB with ours */
		for (int k = 0; k < 4; k++)
			pthread_create(&c[k], NULL, churn, NULL);
		for (int k = 0; k < 4; k++)
			pthread_join(c[k], NULL);
		wait_alone(OTHERS);
		void *volatile p = malloc(1000 + (size_t)i);
		if (unshare(CLONE_NEWUSER) != 0) {
			printf("userns: unshare %d: %s\n", i, strerror(errno));
			return 1;
		}
		free(p);
		char map[64];
		put("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)u);
		put("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)g);
		put("/proc/self/gid_map", map);
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	puts("userns: ok");
	return 0;
}
