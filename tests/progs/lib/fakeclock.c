/* fakeclock.c: a time-faking preload, as libfaketime with a speed factor is: clock_gettime
 * reads the kernel's clock and makes it run 1000 times faster, nanosleep returns at once.
 * Preloaded before or after libcuzktrace, it must change nothing in the trace: the tracer
 * reads the vDSO's clock and sleeps by the system call (before 0.2.15 it took this
 * clock_gettime: a run of 40 ms read 40 s). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
	struct timespec real;
	int rc = (int)syscall(SYS_clock_gettime, id, &real);
	if (rc == 0) {
		unsigned long long ns = ((unsigned long long)real.tv_sec * 1000000000ull + real.tv_nsec) * 1000ull;
		ts->tv_sec = (time_t)(ns / 1000000000ull);
		ts->tv_nsec = (long)(ns % 1000000000ull);
	}
	return rc;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)req;
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}
