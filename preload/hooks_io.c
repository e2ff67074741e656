/* hooks_io.c: the interposed write, writev (phase markers in what the program writes to
 * stdout and stderr), pthread_setname_np and prctl (thread names). Everything else is
 * passed through untouched. Only writes that reach the dynamic `write`/`writev` symbols are
 * seen: glibc's stdio (printf, fprintf) writes through an internal alias and is not. */
#include "ckt.h"

#include <sched.h>
#include <signal.h>

#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static inline int scan_wanted(int fd)
{
	return ckt_phase_rules_on && (fd == 1 || fd == 2) && !ckt_tls.guard &&
	       atomic_load_explicit(&ckt_active, memory_order_relaxed);
}

/* ---- libunwind's memory checks ----
 * To test whether an address is readable, libunwind writes one byte from it into a pipe it
 * opened once (and reads it back), keeping the pipe's descriptor numbers in a static array. A
 * daemon that closes every descriptor and opens new ones hands those numbers to its own pipes
 * and sockets, and libunwind would then read from and write into them (seen: a program's pipe
 * lost bytes and got others). So libunwind's pipe/pipe2 (the return address inside it) get a
 * private pipe at high descriptor numbers, and its reads, writes and closes on those numbers
 * during our stack capture (in_unwind: a signal handler of the program that runs meanwhile is
 * left alone) go to it (or do nothing, for close). If the program closed it meanwhile, it is
 * made again. The pipe is libunwind's, not the program's, even when the program's own
 * unwinding made it (a profiler's handler): its pipe at the lowest free numbers, read end
 * first, met a close-all between a check's read and write in our capture on another thread,
 * whose write then found no reader: SIGPIPE (sigprof beside 3,000 close-alls, 5 runs in 50). */
static int unw_pipe[2] = {-1, -1};
static ino_t unw_pipe_ino;
/* The numbers libunwind holds are ckt_unw_pair (log.c, where ckt_fd_high keeps off them): the
 * pair the last pipe/pipe2 handed it. When the program closed our pipe and we made a new one,
 * libunwind still holds the old numbers until it asks again, and it closes them (when its
 * check fails, and at exit): by then a number may be one of the program's, so such closes do
 * nothing. */

static inline int in_libunwind(const void *ra)
{
	return ckt_from_out(CKT_OUT_UNWIND, ra);
}

static inline int from_libunwind(const void *ra)
{
	return CKT_UNLIKELY(ckt_tls.in_unwind) && in_libunwind(ra);
}

static inline int unw_known_fd(int fd)
{
	return fd >= 0 && (fd == unw_pipe[0] || fd == unw_pipe[1] || ckt_unw_handed(fd));
}

/* libunwind's read or write, during our capture, on a descriptor of a pipe we handed it (other
 * files it opens itself, to read debug frames, are its own business and pass through) */
static inline int unw_pipe_fd(const void *ra, int fd)
{
	return from_libunwind(ra) && unw_known_fd(fd);
}

/* Threads capture at once: the pipe is made again and handed over under a lock (only then:
 * checking it takes none), or two threads made two pipes, leaked one, and handed libunwind the
 * read end of one and the write end of the other (its check bytes piled up in a pipe nobody
 * read until every check failed). */
static atomic_int unw_lock;
static ino_t unw_pipe_ino1;
static dev_t unw_pipe_dev;

/* Every signal is blocked while the lock is held: a program's handler that unwinds with the
 * same libunwind (a SIGPROF profiler, a crash reporter) comes through these hooks, and landing
 * on the thread that holds the lock it spun for good (2 of 4 runs of a profiler's handler
 * beside close-alls). Costs two system calls, only when the pipe is made or handed over. */
static void unw_lock_take(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	int free_ = 0;
	while (!atomic_compare_exchange_weak(&unw_lock, &free_, 1)) {
		free_ = 0;
		sched_yield();
	}
}

static void unw_lock_give(const sigset_t *old)
{
	atomic_store(&unw_lock, 0);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* fd is the end of the pipe we made whose inode is ino (a program's file of the same inode
 * number on another file system is not) */
static int unw_ours(int fd, ino_t ino)
{
	return ckt_fd_is(fd, unw_pipe_dev, ino); /* (the pipes' file system holds only pipes) */
}

/* both ends still the pipe we made (the program may have closed either) */
static int private_pipe_ok(void)
{
	return unw_ours(unw_pipe[0], unw_pipe_ino) && unw_ours(unw_pipe[1], unw_pipe_ino1);
}

/* with the lock held */
static int private_pipe_locked(void)
{
	if (private_pipe_ok())
		return 0;
	/* an end the program left open is still ours: closed, not leaked (numbers libunwind
	 * holds are left alone by ckt_fd_high until it asks again) */
	if (unw_ours(unw_pipe[0], unw_pipe_ino))
		syscall(SYS_close, unw_pipe[0]);
	if (unw_ours(unw_pipe[1], unw_pipe_ino1))
		syscall(SYS_close, unw_pipe[1]);
	int p[2];
	unw_pipe[0] = unw_pipe[1] = -1;
	if (syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	/* the write end below the read end (see the top): a close-all goes up the numbers, so
	 * it closes the write end first, and a check write in between fails (EBADF) instead of
	 * meeting a pipe with no reader (SIGPIPE); libunwind takes the address as unreadable */
	int w = ckt_fd_high(p[1]), r = ckt_fd_high(p[0]);
	for (int up = w + 1; r >= 0 && w >= 0 && r < w;) {
		int n = fcntl(r, F_DUPFD_CLOEXEC, up);
		if (n < 0)
			break; /* no room above (a low limit): as it is */
		if (ckt_unw_handed(n)) { /* a number libunwind still holds: never ours */
			syscall(SYS_close, n);
			up = n + 1;
			continue;
		}
		syscall(SYS_close, r);
		r = n;
	}
	struct stat st;
	if (r < 0 || w < 0 || fstat(r, &st) != 0) {
		if (r >= 0)
			syscall(SYS_close, r);
		if (w >= 0)
			syscall(SYS_close, w);
		return -1;
	}
	unw_pipe_ino = st.st_ino;
	unw_pipe_dev = st.st_dev;
	unw_pipe_ino1 = fstat(w, &st) == 0 ? st.st_ino : 0;
	unw_pipe[0] = r;
	unw_pipe[1] = w;
	return 0;
}

static int private_pipe(void)
{
	if (private_pipe_ok())
		return 0;
	sigset_t old;
	unw_lock_take(&old);
	int rc = private_pipe_locked();
	unw_lock_give(&old);
	return rc;
}

/* libunwind asks for its pipe. Without one (no descriptor free) it gets -1 for both numbers,
 * not the old ones it still holds: it writes there with a raw system call, and the program's
 * file on such a number took its check bytes. */
static int give_private_pipe(int fds[2])
{
	sigset_t old;
	unw_lock_take(&old);
	int rc = private_pipe_locked();
	fds[0] = ckt_unw_pair[0] = rc ? -1 : unw_pipe[0];
	fds[1] = ckt_unw_pair[1] = rc ? -1 : unw_pipe[1];
	unw_lock_give(&old);
	if (rc)
		errno = EMFILE;
	return rc;
}

CKT_EXPORT int pipe2(int fds[2], int flags)
{
	if (in_libunwind(__builtin_return_address(0)))
		return give_private_pipe(fds);
	return ckt_real.pipe2 ? ckt_real.pipe2(fds, flags) : (int)syscall(SYS_pipe2, fds, flags);
}

CKT_EXPORT int pipe(int fds[2])
{
	if (in_libunwind(__builtin_return_address(0)))
		return give_private_pipe(fds);
	return ckt_real.pipe ? ckt_real.pipe(fds) : (int)syscall(SYS_pipe2, fds, 0);
}

/* libunwind's closes of numbers we handed it do nothing, in a capture or not (at exit) */
CKT_EXPORT int close(int fd)
{
	if (CKT_UNLIKELY(ckt_unw_pair[0] >= 0) && unw_known_fd(fd) &&
	    in_libunwind(__builtin_return_address(0)))
		return 0;
	/* libunwind keeps one pipe for the whole process: the program's own unwinding (a
	 * profiler's handler) makes one of its own there when it finds ours gone (a close-all),
	 * and our capture's libunwind then closed that pipe as stale, under the other thread's
	 * check write: SIGPIPE (status 141, sigprof beside 3,000 close-alls, 1 to 7 runs in 10).
	 * A pipe our capture's libunwind closes that is not ours is left to its owner. */
	if (CKT_UNLIKELY(ckt_tls.in_unwind) && in_libunwind(__builtin_return_address(0)) && !unw_known_fd(fd)) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
			return 0;
	}
	return ckt_real.close ? ckt_real.close(fd) : (int)syscall(SYS_close, fd);
}

/* libunwind's memory checks through our pipe are raw system calls: glibc's read and write are
 * cancellation points, and a capture inside malloc must not make malloc one (a thread
 * cancelled there was unwound from inside the hook, its new block lost: 30-40% of 240
 * cancellations of threads that only test for cancellation between allocations). */
CKT_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	if (unw_pipe_fd(__builtin_return_address(0), fd)) {
		if (private_pipe() < 0)
			return -1;
		/* the pipe was made again (the program closed it): libunwind still holds the old
		 * numbers and writes into them with a raw system call, which no hook sees (a stack
		 * check then failed for every address it had not seen, and a program file given
		 * such a number got the checked bytes). EBADF makes it ask for a pipe again, and
		 * the new numbers are handed to it. */
		if (ckt_unw_pair[0] != unw_pipe[0] || ckt_unw_pair[1] != unw_pipe[1]) {
			errno = EBADF;
			return -1;
		}
		return syscall(SYS_read, unw_pipe[0], buf, n);
	}
	return ckt_real.read ? ckt_real.read(fd, buf, n) : syscall(SYS_read, fd, buf, n);
}

CKT_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	if (unw_pipe_fd(__builtin_return_address(0), fd)) {
		if (private_pipe() < 0)
			return -1;
		return syscall(SYS_write, unw_pipe[1], buf, n);
	}
	ssize_t rc = ckt_real.write ? ckt_real.write(fd, buf, n) : syscall(SYS_write, fd, buf, n);
	if (rc > 0 && CKT_UNLIKELY(scan_wanted(fd))) {
		ckt_tls.guard = CKT_GUARD_HOOK;
		ckt_phase_scan(fd, buf, (size_t)rc);
		ckt_tls.guard = 0;
	}
	return rc;
}

CKT_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	ssize_t rc = ckt_real.writev ? ckt_real.writev(fd, iov, cnt) : syscall(SYS_writev, fd, iov, cnt);
	if (rc > 0 && CKT_UNLIKELY(scan_wanted(fd))) {
		/* (a buffer of the pieces joined, 8 KiB on the stack of every writev, crashed
		 * programs whose signal handlers write on small alternate stacks) */
		ckt_tls.guard = CKT_GUARD_HOOK;
		ckt_phase_scan_iov(fd, iov, cnt, (size_t)rc);
		ckt_tls.guard = 0;
	}
	return rc;
}

CKT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	if (!ckt_real.pthread_setname_np && atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!ckt_real.pthread_setname_np)
		return ENOSYS; /* only while another thread is resolving symbols, or without it */
	int rc = ckt_real.pthread_setname_np(th, name);
	struct ckt_tls *t = &ckt_tls;
	if (rc == 0 && atomic_load_explicit(&ckt_active, memory_order_relaxed) && !t->guard) {
		t->guard = CKT_GUARD_HOOK;
		if (pthread_equal(th, pthread_self())) {
			if (ckt_thread_ring(t))
				ckt_thread_name_record(t, name);
		} else {
			ckt_thread_name_record_other((unsigned long)th, name);
		}
		t->guard = 0;
	}
	return rc;
}

CKT_EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long),
		      a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	int rc = ckt_real.prctl ? ckt_real.prctl(option, a2, a3, a4, a5)
				: (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
	if (rc == 0 && option == PR_SET_TSC && a2 == PR_TSC_SIGSEGV)
		ckt_clock_use_syscall(); /* see ckt_clock_get */
	struct ckt_tls *t = &ckt_tls;
	if (rc == 0 && option == PR_SET_NAME && !t->guard &&
	    atomic_load_explicit(&ckt_active, memory_order_relaxed)) {
		char name[17];
		strncpy(name, (const char *)a2, 16);
		name[16] = 0;
		t->guard = CKT_GUARD_HOOK;
		if (ckt_thread_ring(t))
			ckt_thread_name_record(t, name);
		t->guard = 0;
	}
	return rc;
}
