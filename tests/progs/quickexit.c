/* quickexit.c: quick_exit beside another thread's exit. Each mode keeps 12,345 bytes.
 *   quickexit race: a thread calls exit(4) 500 us in, main quick_exit(3) 1 ms in: the thread's
 *     exit is in the tracer's destructor, finishing the trace, when main's quick_exit runs the
 *     at_quick_exit handlers; _dl_fini's __cxa_finalize of the tracer had removed the tracer's
 *     handler there, and the quick_exit ended the process in the middle of that final flush.
 *   quickexit block: with libquickblock.so preloaded after the tracer (its at_quick_exit
 *     handler runs after the tracer's, then blocks), main calls quick_exit(3) 50 ms in; a thread
 *     waits for that handler, then 100 ms later calls exit(4), which untraced ends the
 *     process with 4.
 *   quickexit setid N: a thread sleeps while main makes N set-ID calls, each with its
 *     CAP_SETUID toggled first, so that each pauses the tracer's threads; prints "setid N". */
#include <dlfcn.h>
#include <linux/capability.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile keep;

static void *exit_soon(void *a)
{
	usleep(500);
	exit(4);
	return a;
}

static void *exit_after_handler(void *a)
{
	sem_t *s = dlsym(RTLD_DEFAULT, "quickblock_sem");
	if (!s)
		_exit(2);
	sem_wait(s);
	usleep(100000);
	exit(4);
	return a;
}

static void *sleeper(void *a)
{
	sleep(100);
	return a;
}

static int toggle_setuid_cap(int on)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d))
		return -1;
	if (on)
		d[0].effective |= 1u << CAP_SETUID;
	else
		d[0].effective &= ~(1u << CAP_SETUID);
	return (int)syscall(SYS_capset, &h, d);
}

int main(int argc, char **argv)
{
	pthread_t t;
	keep = malloc(12345);
	if (argc > 1 && !strcmp(argv[1], "race")) {
		pthread_create(&t, NULL, exit_soon, NULL);
		usleep(1000);
		quick_exit(3);
	}
	if (argc > 1 && !strcmp(argv[1], "block")) {
		pthread_create(&t, NULL, exit_after_handler, NULL);
		usleep(50000);
		quick_exit(3);
	}
	if (argc > 2 && !strcmp(argv[1], "setid")) {
		int n = atoi(argv[2]);
		pthread_create(&t, NULL, sleeper, NULL);
		for (int i = 0; i < n; i++) {
			toggle_setuid_cap(i & 1);
			if (setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1))
				return 1;
		}
		printf("setid %d\n", n);
		return 0;
	}
	return 2;
}
