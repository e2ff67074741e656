/* ringchurn.c: 20,000 short threads, 8 at a time, each allocating and freeing 16 blocks. Each
 * thread that records holds an event ring (64 KiB) until the writer has drained it and seen the
 * thread gone; the tracer's memory must not grow with the threads started in a flush interval
 * (it held 55 MiB here before ending threads woke the writer). With argument "raw" each thread
 * ends with the exit system call, skipping glibc's thread exit and the tracer's destructor:
 * the writer must find such threads gone by itself, or keep their rings for good (they held
 * 150 MiB here), and then prints its peak RSS (VmHWM, kB) too: raw exits leak glibc's own
 * per-thread memory, which the test takes from the same run untraced. Prints "ringchurn: done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int raw;

static void *worker(void *arg)
{
	void *volatile p[16];
	for (int i = 0; i < 16; i++)
		p[i] = malloc(64 + (size_t)i);
	for (int i = 0; i < 16; i++)
		free(p[i]);
	if (raw)
		syscall(SYS_exit, 0); /* the kernel still wakes pthread_join (CLONE_CHILD_CLEARTID) */
	return arg;
}

int main(int argc, char **argv)
{
	raw = argc > 1 && !strcmp(argv[1], "raw");
	for (int i = 0; i < 20000; i += 8) {
		pthread_t t[8];
		for (int k = 0; k < 8; k++)
			if (pthread_create(&t[k], NULL, worker, NULL))
				return 1;
		for (int k = 0; k < 8; k++)
			pthread_join(t[k], NULL);
	}
	printf("ringchurn: done\n");
	char line[256];
	FILE *f = raw ? fopen("/proc/self/status", "r") : NULL;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			printf("hwm %ld\n", strtol(line + 6, NULL, 10));
	return 0;
}
