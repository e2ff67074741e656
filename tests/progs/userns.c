/* userns.c: keeps 1,000,000 bytes, enters a new user namespace with unshare(CLONE_NEWUSER)
 * (which the kernel allows only in a single-threaded process) 20 times in a row, each nested
 * in the last (mapping its ids so the next is allowed), then has a thread keep 2,000,000
 * bytes more. Prints "userns: ok" or the first call's error. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[2];

static void *worker(void *arg)
{
	(void)arg;
	keep[1] = malloc(2000000);
	return NULL;
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
