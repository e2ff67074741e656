/* noring.c: a thread that the tracer cannot give an event buffer (the address space is capped
 * just above what the process uses when it starts) makes 1,000 allocations and frees; then the
 * cap is lifted and the main thread allocates 3,000,000 bytes. The tracer must say so once and
 * count the thread's 2,000 events as lost, and the program must run on (exit 0). */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "asutil.h"

static void *volatile keep;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		keep = malloc(64);
		free(keep);
	}
	return NULL;
}

int main(void)
{
	mallopt(M_ARENA_MAX, 1); /* the worker allocates from the main arena: no new heap to map */
	keep = malloc(1 << 20);  /* room in the main arena for the worker's blocks */
	free(keep);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	struct rlimit old, cap;
	if (getrlimit(RLIMIT_AS, &old))
		return 2;
	cap = old;
	/* the stack fits, with room for the tracer's own buffers growing meanwhile; a 516 KiB
	 * ring does not */
	cap.rlim_cur = vm_bytes() + (384 << 10);
	if (raw_setrlimit(RLIMIT_AS, &cap))
		return 3;
	pthread_t th;
	int rc = pthread_create(&th, &attr, worker, NULL);
	/* the tracer's own threads may map memory meanwhile (a flush's buffers): a little more
	 * room, twice at most, still well under a ring (on a loaded machine the thread itself
	 * did not fit, now and then, untraced too) */
	for (int k = 0; k < 2 && rc == EAGAIN; k++) {
		cap.rlim_cur = vm_bytes() + (384 << 10);
		if (raw_setrlimit(RLIMIT_AS, &cap))
			return 3;
		rc = pthread_create(&th, &attr, worker, NULL);
	}
	if (rc == 0)
		pthread_join(th, NULL);
	if (raw_setrlimit(RLIMIT_AS, &old))
		return 4;
	if (rc)
		return 5;
	keep = malloc(3000000);
	memset(keep, 1, 64);
	return 0;
}
