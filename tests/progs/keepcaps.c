/* keepcaps.c: as root, drops to nobody keeping its capabilities, then drops its groups, as
 * `setpriv --reuid=nobody --clear-groups` and libcap-ng's capng_change_id do:
 * prctl(PR_SET_KEEPCAPS), setresuid, capset (effective = permitted again), setgroups,
 * setresgid. glibc runs setresuid, setgroups and setresgid in every thread of the process and
 * aborts it when their results differ; PR_SET_KEEPCAPS and capset act on the calling thread
 * alone. Untraced the program is one thread and runs; the tracer's threads must not make it
 * abort. Keeps 1,000,000 bytes before the drop and 2,000,000 after; writes "dropped <uid>
 * <gid> <groups>" and ends with status 0 (1 when a step fails).
 * "keepcaps thread": a second thread of the program takes the same per-thread steps as main
 * (so untraced it runs as well) and keeps 300,000 bytes after them.
 * "keepcaps init": initgroups("nobody", 65534) instead of setgroups (glibc's initgroups calls
 * its internal setgroups, which no hook sees: it aborted as setgroups did). */
#include <linux/capability.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile keep[3];
static pthread_barrier_t bar;

static int effective_again(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	return (int)syscall(SYS_capset, &h, d);
}

static void *worker(void *a)
{
	int bad = prctl(PR_SET_KEEPCAPS, 1) != 0;
	pthread_barrier_wait(&bar); /* main's setresuid comes next */
	pthread_barrier_wait(&bar);
	bad |= effective_again() != 0;
	keep[2] = malloc(300000);
	pthread_barrier_wait(&bar); /* main's setgroups and setresgid come next */
	return bad ? a : NULL;
}

int main(int argc, char **argv)
{
	int threaded = argc > 1 && strcmp(argv[1], "thread") == 0;
	int init = argc > 1 && strcmp(argv[1], "init") == 0;
	pthread_t t;
	keep[0] = malloc(1000000);
	if (threaded && (pthread_barrier_init(&bar, NULL, 2) || pthread_create(&t, NULL, worker, &bar)))
		return 1;
	if (prctl(PR_SET_KEEPCAPS, 1) != 0)
		return 1;
	if (threaded)
		pthread_barrier_wait(&bar);
	if (setresuid(65534, 65534, 65534) != 0 || effective_again() != 0)
		return 1;
	if (threaded) {
		pthread_barrier_wait(&bar);
		pthread_barrier_wait(&bar);
	}
	if ((init ? initgroups("nobody", 65534) : setgroups(0, NULL)) != 0 || setresgid(65534, 65534, 65534) != 0)
		return 1;
	void *r = NULL;
	if (threaded && (pthread_join(t, &r) || r))
		return 1;
	keep[1] = malloc(2000000);
	char line[64];
	int n = snprintf(line, sizeof(line), "dropped %d %d %d\n", (int)getuid(), (int)getgid(),
			 getgroups(0, NULL));
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
