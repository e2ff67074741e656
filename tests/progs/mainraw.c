/* mainraw.c: a program whose main thread ends without exit, keeping 1,000 blocks of 100 bytes:
 *   mainraw raw       the raw exit system call (status 3);
 *   mainraw seccomp   a seccomp filter that kills the thread calling getppid
 *                     (SECCOMP_RET_KILL_THREAD: the process ends killed by SIGSYS, status 159
 *                     in a shell);
 *   mainraw outlived  the raw exit system call while another thread runs on, prints
 *                     "mainraw: thread done" 1.6 s later and returns (the kernel reports the
 *                     last thread's status: 0);
 *   mainraw thrd      C11 thrd_exit, glibc's thread exit without the pthread_exit symbol: glibc
 *                     ends the process with exit(0) (its atexit handler prints "mainraw: atexit",
 *                     after the buffered "mainraw: buffered");
 *   mainraw cancel    another thread cancels the main thread, prints "mainraw: thread done"
 *                     and returns: exit(0) too, with the atexit line.
 * The tracer's helper threads kept the first two alive for good before 0.2.10, every signal
 * blocked, SIGTERM too; a first fix ended the last two itself, their atexit lines lost. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <threads.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile keep[1000];

static pthread_t main_thread;

static void at_exit(void)
{
	printf("mainraw: atexit\n");
}

static void *other(void *arg)
{
	usleep(100000);
	if (arg)
		pthread_cancel(main_thread);
	/* outlived: long enough that the writer, which looks every 100 ms, sees the main thread
	 * gone while this one still runs, even on a loaded machine */
	usleep(arg ? 200000 : 1500000);
	printf("mainraw: thread done\n");
	fflush(stdout);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(100);
	if (strcmp(argv[1], "raw") == 0)
		syscall(SYS_exit, 3);
	if (strcmp(argv[1], "thrd") == 0) {
		atexit(at_exit);
		printf("mainraw: buffered\n");
		thrd_exit(7);
	}
	if (strcmp(argv[1], "outlived") == 0 || strcmp(argv[1], "cancel") == 0) {
		pthread_t th;
		bool cancel = argv[1][0] == 'c';
		main_thread = pthread_self();
		if (cancel)
			atexit(at_exit);
		pthread_create(&th, NULL, other, cancel ? (void *)1 : NULL);
		if (!cancel)
			syscall(SYS_exit, 3);
		for (;;)
			pause();
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {sizeof(f) / sizeof(f[0]), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) != 0) {
		perror("mainraw: seccomp");
		return 1;
	}
	getppid();
	return 0;
}
