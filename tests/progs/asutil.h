/* asutil.h: the test programs' helpers for their own address space: its size (VmSize) in
 * bytes, 0 where /proc/self/statm cannot be read; and a limit set by a raw system call, which
 * the tracer does not see (a setrlimit would shrink its reservation for call stacks,
 * hooks_mmap.c, where the cap is meant to leave the tracer no room). */
#ifndef TESTS_PROGS_ASUTIL_H
#define TESTS_PROGS_ASUTIL_H
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline unsigned long vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (unsigned long)sysconf(_SC_PAGESIZE);
}

static inline int raw_setrlimit(int resource, const struct rlimit *rl)
{
	return (int)syscall(SYS_prlimit64, 0, resource, rl, NULL);
}
#endif
