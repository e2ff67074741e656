/* nomemfd.c: a kernel or sandbox without memfd_create, preloaded into cuzktrace-report: its
 * syscall(SYS_memfd_create, ...) fails with ENOSYS; every other number goes to the C library's
 * syscall. (The reader reaches memfd_create through syscall(): glibc 2.27's wrapper is newer
 * than some of the C libraries it builds against.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long n, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_memfd_create) {
		errno = ENOSYS;
		return -1;
	}
	long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
