/* renames.c: renames its thread 1,000,000 times (names w0 .. w99999), as fast as it can. Each
 * rename queues a THREAD_NAME record for the writer; the records waiting between two flushes
 * took 1 KiB of room each, 217 MiB of RSS in all (33 MiB now; untraced 1.3 MiB). */
#include <pthread.h>
#include <stdio.h>

int main(void)
{
	char name[16];
	for (long i = 0; i < 1000000; i++) {
		snprintf(name, sizeof(name), "w%ld", i % 100000);
		pthread_setname_np(pthread_self(), name);
	}
	printf("renames: done\n");
	return 0;
}
