/* tidchain.c [N]: a chain of N threads (2 to 16, default 8) of one thread id, one after the
 * other: main writes /proc/sys/kernel/ns_last_pid before each after the first. Thread i is
 * named "w" and the i-th letter ("wa", "wb", ...: names the report does not group, as it
 * groups w0, w1, ... into w*) and keeps (i + 1) x 10 blocks of 1,000 bytes. The whole chain runs within
 * the trace's last flush, which writes the threads' names after all their ends. Run as pid 1
 * of a pid namespace of its own (unshare --pid --fork, as root). Prints "reused <bytes>"
 * (the bytes the threads keep) when every thread got the first one's id, else "not reused". */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void *volatile sink;
static pid_t tids[16];

static void *run(void *arg)
{
	long i = (long)arg;
	tids[i] = (pid_t)syscall(SYS_gettid);
	char name[16];
	snprintf(name, sizeof name, "w%c", (char)('a' + i));
	pthread_setname_np(pthread_self(), name);
	for (long k = 0; k < (i + 1) * 10; k++) {
		char *p = malloc(1000);
		memset(p, 1, 1000);
		sink = p;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	if (n < 2 || n > 16)
		return 2;
	long kept = 0;
	for (long i = 0; i < n; i++) {
		if (i) {
			char b[32];
			int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY), l = snprintf(b, sizeof b, "%d", tids[0] - 1);
			if (fd >= 0) {
				if (write(fd, b, (size_t)l) != l)
					tids[0] = -1;
				close(fd);
			}
		}
		pthread_t t;
		if (pthread_create(&t, NULL, run, (void *)i) != 0 || pthread_join(t, NULL) != 0)
			return 1;
		kept += (i + 1) * 10 * 1000;
	}
	int same = 1;
	for (int i = 1; i < n; i++)
		same &= tids[i] == tids[0];
	if (same)
		printf("reused %ld\n", kept);
	else
		printf("not reused\n");
	return 0;
}
