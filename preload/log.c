/* log.c: the capture library's only way to speak: one line on stderr, assembled in a fixed
 * buffer and written with write(2). Never stdio (it allocates and takes locks), never malloc:
 * these run inside hooks, in the writer thread and after fork. */
#include "ckt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Where lines go. Programs close stderr at exit (coreutils' close_stdout) or close every
 * descriptor at start-up and reuse the numbers (daemons). So at init we note what fd 2 is and
 * keep a private duplicate; a line goes to fd 2 if it is still that file, else to the
 * duplicate if it is, else nowhere: never into a descriptor the program reused. */
static int saved_fd = -1;
static enum { LOG_BEFORE_INIT, LOG_KNOWN, LOG_NO_STDERR } known;
static dev_t err_dev;
static ino_t err_ino;

/* Descriptors the tracer keeps live at a high number: a program that closes every descriptor
 * and opens new ones gets the lowest free numbers, so it does not reuse ours by accident.
 * At start-up (ckt_fd_start_window), where the hard limit allows, the number is at or above
 * the program's soft limit, which the kernel never hands out while that limit holds: the
 * program keeps every number of its own (a program run with a soft limit of 8 failed to open
 * its files: the tracer held 7 of them). The soft limit is raised for the moment of the dup
 * only, and put back unless the program changed it meanwhile: only while the process is
 * single-threaded, before main, for a thread of the program that reads the limit and sets it
 * again in that window would keep the raised one for good (descriptors reopened later, after
 * a close-all, made a program's soft limit climb from 64 to 1792). Else, and later, near the
 * top of the program's range. Up to 64 numbers above a soft limit of at most 65536 (a bigger
 * one is not run out of, and a descriptor table grown to a number past it costs memory).
 * Returns the new descriptor (the old one is closed), or fd itself if it cannot be moved. Only
 * for a descriptor we opened a moment ago: closing a number is safe only while it is ours. */
#define CKT_FD_ABOVE 64

static atomic_int fd_start_window;

void ckt_fd_start_window(int open)
{
	atomic_store(&fd_start_window, open);
}

int ckt_fd_start_window_open(void)
{
	return atomic_load(&fd_start_window);
}

static int ckt_fd_above_limit(int fd, const struct rlimit *rl)
{
	if (rl->rlim_cur > 65536 ||
	    (rl->rlim_max != RLIM_INFINITY && rl->rlim_max < rl->rlim_cur + CKT_FD_ABOVE))
		return -1;
	struct rlimit up = {rl->rlim_cur + CKT_FD_ABOVE, rl->rlim_max}, now;
	if (setrlimit(RLIMIT_NOFILE, &up) != 0)
		return -1;
	int h = fcntl(fd, F_DUPFD_CLOEXEC, (int)rl->rlim_cur);
	if (getrlimit(RLIMIT_NOFILE, &now) == 0 && now.rlim_cur == up.rlim_cur &&
	    now.rlim_max == up.rlim_max)
		(void)setrlimit(RLIMIT_NOFILE, rl);
	return h;
}

int ckt_unw_pair[2] = {-1, -1};

int ckt_unw_handed(int fd)
{
	return fd >= 0 && (fd == ckt_unw_pair[0] || fd == ckt_unw_pair[1]);
}

/* the lowest free number from start on that is not libunwind's, as a copy of fd; -1 when none */
static int dup_not_unw(int fd, int start)
{
	for (;;) {
		int n = fcntl(fd, F_DUPFD_CLOEXEC, start);
		if (n < 0 || !ckt_unw_handed(n))
			return n;
		syscall(SYS_close, n);
		start = n + 1;
	}
}

/* Where fstat is refused: every descriptor the tracer keeps is close-on-exec (the program's
 * stderr, which is not, is told by kcmp: is_stderr) */
int ckt_fd_is(int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0)
		return st.st_dev == dev && st.st_ino == ino;
	int fl = ckt_stat_refused(errno) ? fcntl(fd, F_GETFD) : -1;
	return fl >= 0 && (fl & FD_CLOEXEC);
}

/* a and b are one open file description (kcmp): 1, 0, or -1 where kcmp is refused too */
static int same_description(int a, int b)
{
	pid_t me = getpid();
	long r = syscall(SYS_kcmp, me, me, KCMP_FILE, a, b);
	return r == 0 ? 1 : r > 0 ? 0 : -1;
}

int ckt_fd_same(int a, int b)
{
	struct stat sa, sb;
	if (fstat(a, &sa) == 0 && fstat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (!ckt_stat_refused(errno))
		return 0;
	int d = same_description(a, b);
	/* neither can tell: b was just copied from a (ckt_fd_high); a close-all that put a
	 * program's file on a in between is the one case taken wrongly */
	return d >= 0 ? d : fcntl(a, F_GETFD) >= 0 && fcntl(b, F_GETFD) >= 0;
}

static int fd_high(int fd, int top_range);

int ckt_fd_high(int fd)
{
	return fd_high(fd, 1);
}

int ckt_fd_high_only(int fd)
{
	return fd_high(fd, 0);
}

/* top_range: under a limit of 64 or less, the top of the range will do */
static int fd_high(int fd, int top_range)
{
	struct rlimit rl;
	long base = 512, top = 0;
	if (fd < 0)
		return fd;
	int h = -1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		top = (long)rl.rlim_cur;
		if (atomic_load(&fd_start_window))
			h = ckt_fd_above_limit(fd, &rl);
		if ((long)rl.rlim_cur - 128 > base)
			base = (long)rl.rlim_cur - 128;
	}
	if (base > 1 << 20)
		base = 1 << 20;
	if (h < 0)
		h = fcntl(fd, F_DUPFD_CLOEXEC, (int)base);
	if (h < 0)
		h = fcntl(fd, F_DUPFD_CLOEXEC, 64);
	/* under a limit of 64 or less (ulimit -n sets the hard limit too: no room above it), the
	 * top of the range: the 8 below the limit, or its upper half under 16. The program's first
	 * descriptors are then 3, 4, ... as untraced (they were 8 and up under ulimit -n 16) */
	if (h < 0 && top_range && top > 3 && fd < top - (top > 16 ? 8 : top / 2))
		h = fcntl(fd, F_DUPFD_CLOEXEC, (int)(top > 16 ? top - 8 : top / 2 > 3 ? top / 2 : 3));
	/* never a number libunwind holds for its memory checks: it writes a byte of the memory it
	 * checks into it with a raw system call, which no hook sees. When the program had closed
	 * that pipe (a daemon's close-all), the trace reopened on its write end took those bytes
	 * (a corrupt frame: tests/progs/closefds.c, 5 runs in 30 once another kept file moved
	 * the numbers). Skipped numbers are left free: libunwind's write there fails (EBADF) and
	 * it takes the address as unreadable. */
	if (h >= 0 && ckt_unw_handed(h)) {
		syscall(SYS_close, h);
		h = dup_not_unw(fd, h + 1);
	}
	if (h < 0 && ckt_unw_handed(fd)) {
		/* no higher number to move to (a limit of 64 or less), and this one is
		 * libunwind's: the lowest free one that is not */
		h = dup_not_unw(fd, 3);
		if (h < 0) {
			syscall(SYS_close, fd);
			errno = EMFILE;
			return -1;
		}
	}
	if (h < 0)
		return fd;
	/* not through our close hook, which may be redirecting; and only when the number still
	 * holds what was copied: a program's close-all may have closed it since and opened a file
	 * of its own there (a reopen of the trace closed the program's file: 2 runs in 6 of a
	 * close-all loop) */
	if (ckt_fd_same(fd, h))
		syscall(SYS_close, fd);
	return h;
}

void ckt_log_init(void)
{
	struct stat st;
	if (fstat(2, &st) < 0) {
		/* no stderr at start: whatever later gets number 2 is the program's file */
		known = LOG_NO_STDERR;
		return;
	}
	err_dev = st.st_dev;
	err_ino = st.st_ino;
	known = LOG_KNOWN;
	int dup = fcntl(2, F_DUPFD_CLOEXEC, 10);
	if (dup < 0) /* a descriptor limit of 10 or less */
		dup = fcntl(2, F_DUPFD_CLOEXEC, 3);
	saved_fd = ckt_fd_high(dup);
}

static int is_stderr(int fd)
{
	struct stat st;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0)
		return st.st_dev == err_dev && st.st_ino == err_ino;
	/* fstat refused (a seccomp filter): fd 2 is stderr while it is one description with our
	 * copy of it; a file the program opened on 2 is not (the exit line went into it) */
	if (!ckt_stat_refused(errno))
		return 0;
	return fd == saved_fd ? fcntl(fd, F_GETFD) >= 0 : saved_fd >= 0 && same_description(fd, saved_fd) == 1;
}

/* Running untraced after a failed setup: the copy of stderr goes back to the program (under
 * `ulimit -n 5` it held one of the two numbers the program had for its files). Lines from
 * here on go to fd 2 while it is still stderr, as before init. */
void ckt_log_drop_copy(void)
{
	if (saved_fd >= 0 && is_stderr(saved_fd))
		close(saved_fd);
	saved_fd = -1;
}

/* A child forked without exec runs untraced, and its lines go to its fd 2 while that is still
 * stderr, else to the traced process through the relay below. The copy made at start stays
 * with the traced process: in the child it held the caller's stderr open. A background
 * subshell or a daemon that had put /dev/null on 0, 1 and 2 kept `out=$(prog 2>&1)`,
 * `prog 2>&1 | tee log` or Python's capture_output waiting until it ended (for good for a
 * daemon; before 0.2.56). */
void ckt_log_after_fork_child(void)
{
	if (saved_fd >= 0)
		syscall(SYS_close, saved_fd);
	saved_fd = -1;
}

static int pick_fd(void)
{
	if (known == LOG_BEFORE_INIT)
		return 2;
	if (known == LOG_NO_STDERR)
		return -1;
	if (is_stderr(2))
		return 2;
	if (is_stderr(saved_fd))
		return saved_fd;
	return -1;
}

/* Bytes of s that would break the line or drive a terminal (paths come from the environment
 * and may hold anything): C0 controls and DEL; C1 controls, line and paragraph separators and
 * bidirectional overrides in UTF-8 (as the reader cleans them). 0, or how many bytes to show
 * as one '?'. */
static size_t line_control(const unsigned char *s, size_t n)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (n >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] < 0xa0)
		return 2;
	if (n >= 3 && s[0] == 0xe2 && ((s[1] == 0x80 && s[2] >= 0xa8 && s[2] <= 0xae) ||
				       (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 3;
	return 0;
}

static void line_put(struct ckt_line *l, const char *s, size_t n)
{
	size_t cap = sizeof(l->buf) - 1; /* room for the newline */
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n && l->len < cap;) {
		size_t c = line_control(u + i, n - i);
		l->buf[l->len++] = c ? '?' : s[i];
		i += c ? c : 1;
	}
}

/* A piece longer than CKT_LINE_PIECE bytes (only a path is: PATH_MAX is 4096, a line 1024)
 * keeps its start and its end around "...", so that what follows it (the reason) survives. */
#define CKT_LINE_PIECE 400
void ckt_line_str(struct ckt_line *l, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n <= CKT_LINE_PIECE) {
		line_put(l, s, n);
		return;
	}
	/* between UTF-8 characters (since 0.2.51: a path cut inside one made the line invalid
	 * UTF-8) */
	size_t head = ckt_utf8_cut(s, n, 150), tail = 240;
	tail -= ckt_utf8_skip(s + n - tail, tail);
	line_put(l, s, head);
	line_put(l, "...", 3);
	line_put(l, s + n - tail, tail);
}

void ckt_line_u64(struct ckt_line *l, uint64_t v)
{
	char tmp[21];
	int i = 20;
	tmp[i] = 0;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ckt_line_str(l, tmp + i);
}

void ckt_line_hex(struct ckt_line *l, uint64_t v)
{
	char tmp[19];
	int i = 18;
	tmp[i] = 0;
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	ckt_line_str(l, tmp + i);
}

/* Three significant digits, binary units, e.g. "512 B", "1.50 GiB", "12.3 MiB", rounded to
 * nearest the way the reader's ckt_util_fmt_bytes does (printf's %.2f/%.1f/%.0f), in integer
 * arithmetic: no stdio here. */
void ckt_line_signal(struct ckt_line *l, int sig)
{
	/* SIGIO, as kill -l and the README name it: glibc's abbreviation is its alias POLL (the
	 * same number; it read SIGPOLL before 0.2.59) */
	const char *abbrev = sig == SIGIO ? "IO" : sigabbrev_np(sig);
	ckt_line_str(l, "SIG");
	ckt_line_str(l, abbrev ? abbrev : "?");
}

void ckt_line_bytes(struct ckt_line *l, uint64_t bytes)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	unsigned u = 0;
	uint64_t scale = 1;
	/* up a unit from where the value would round to 1024 of it: "1.00 MiB", not "1024 KiB" */
	while (u < 5 && (unsigned __int128)bytes * 2 >= (unsigned __int128)scale * 2047) {
		scale *= 1024;
		u++;
	}
	if (u == 0) {
		ckt_line_u64(l, bytes);
	} else {
		unsigned __int128 b = bytes;
		/* value x 100, rounded; the precision follows the rounded value (9.996 -> "10.0") */
		uint64_t c = (uint64_t)((b * 100 + scale / 2) / scale);
		unsigned decimals = c < 1000 ? 2 : c < 10000 ? 1 : 0;
		uint64_t m = decimals == 2 ? 100 : decimals == 1 ? 10 : 1;
		uint64_t r = (uint64_t)((b * m + scale / 2) / scale);
		if (decimals == 1 && r >= 1000) { /* 99.95 to 99.995: "100", not "100.0" */
			decimals = 0;
			m = 1;
			r = (uint64_t)((b + scale / 2) / scale);
		}
		ckt_line_u64(l, r / m);
		if (decimals) {
			ckt_line_str(l, ".");
			if (decimals == 2 && r % m < 10)
				ckt_line_str(l, "0");
			ckt_line_u64(l, r % m);
		}
	}
	ckt_line_str(l, " ");
	ckt_line_str(l, unit[u]);
}

static const int sigwrite_sigs[2] = { SIGXFSZ, SIGPIPE };

void ckt_sigwrite_begin(struct ckt_sigwrite *sw)
{
	sigset_t block, pend;
	sigemptyset(&block);
	sigaddset(&block, SIGXFSZ);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &sw->old);
	for (int i = 0; i < 2; i++)
		sw->had[i] = sigpending(&pend) == 0 && sigismember(&pend, sigwrite_sigs[i]);
}

void ckt_sigwrite_end(struct ckt_sigwrite *sw)
{
	sigset_t pend;
	for (int i = 0; i < 2; i++)
		if (!sw->had[i] && sigpending(&pend) == 0 && sigismember(&pend, sigwrite_sigs[i])) {
			sigset_t one;
			struct timespec none = {0, 0};
			sigemptyset(&one);
			sigaddset(&one, sigwrite_sigs[i]);
			(void)sigtimedwait(&one, NULL, &none);
		}
	pthread_sigmask(SIG_SETMASK, &sw->old, NULL);
}

/* Lines a child of the traced process could not write: forked or vforked, before its exec, it
 * may have closed every descriptor but 0, 1 and 2 (Python's subprocess does, close_fds=True),
 * the tracer's copy of stderr among them, with 2 a pipe its parent reads (capture_output) or
 * /dev/null: its lines ("... is started with an environment whose LD_PRELOAD does not name the
 * tracer", a statically linked program's) went nowhere, and the program it started went
 * untraced without a word. They wait here, in a page shared with every such child (made at
 * start: a vforked child shares the traced process's memory, a forked one inherits the
 * mapping), for the traced process's writer, which writes them to its own stderr
 * (ckt_child_relay_drain, at each flush). A slot is claimed (0 -> 1), filled, then published
 * (2); the writer writes it and frees it (0). With every slot full for 200 ms, a line is
 * counted lost and the count said. */
#define CKT_RELAY_SLOTS 256 /* 256 KiB of address space, a page touched per line */
struct child_relay {
	/* the slots' states together, in the first page: each flush reads them, where one in
	 * each slot had it read 64 pages, which a process's first flush faulted in (256 KiB of
	 * RSS, and some 6% of the CPU time of a traced /bin/true, before 0.2.61) */
	atomic_int state[CKT_RELAY_SLOTS];
	_Atomic uint64_t lost, lost_said;
	struct {
		uint32_t len;
		char text[1024];
	} slot[CKT_RELAY_SLOTS];
};
static struct child_relay *relay;
static pid_t relay_owner; /* the traced process, which made the page */

void ckt_child_relay_init(void)
{
	relay_owner = getpid();
	relay = ckt_ownmaps_map(sizeof(*relay), MAP_SHARED);
}

int ckt_child_relay(const char *text, size_t len)
{
	struct child_relay *r = relay;
	if (!r || getpid() == relay_owner)
		return 0;
	/* every slot taken: a few naps for the writer to empty some (the child is about to exec,
	 * or to end) */
	static const struct timespec nap = { 0, 20000000 };
	for (int round = 0; round < 10; round++, syscall(SYS_nanosleep, &nap, NULL))
		for (int i = 0; i < CKT_RELAY_SLOTS; i++) {
			int free_slot = 0;
			if (atomic_compare_exchange_strong(&r->state[i], &free_slot, 1)) {
				if (len > sizeof(r->slot[i].text))
					len = sizeof(r->slot[i].text);
				memcpy(r->slot[i].text, text, len);
				r->slot[i].len = (uint32_t)len;
				atomic_store_explicit(&r->state[i], 2, memory_order_release);
				return 1;
			}
		}
	atomic_fetch_add(&r->lost, 1);
	return 1;
}

void ckt_child_relay_drain(void)
{
	struct child_relay *r = relay;
	if (!r || getpid() != relay_owner)
		return;
	for (int i = 0; i < CKT_RELAY_SLOTS; i++) {
		if (atomic_load_explicit(&r->state[i], memory_order_acquire) != 2)
			continue;
		struct ckt_line l = {.len = 0};
		size_t n = r->slot[i].len < sizeof(l.buf) - 1 ? r->slot[i].len : sizeof(l.buf) - 1;
		memcpy(l.buf, r->slot[i].text, n); /* a line of ckt_line_str's: cleaned already */
		l.len = n;
		atomic_store_explicit(&r->state[i], 0, memory_order_release);
		ckt_line_emit(&l);
	}
	uint64_t lost = atomic_load(&r->lost), said = atomic_load(&r->lost_said);
	if (lost > said && atomic_compare_exchange_strong(&r->lost_said, &said, lost)) {
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: warning: ");
		ckt_line_u64(&l, lost - said);
		ckt_line_str(&l, lost - said == 1 ? " line" : " lines");
		ckt_line_str(&l, " of processes this one started, which could not write them to stderr, "
				 "were lost (more than 256 waited at once)");
		ckt_line_emit(&l);
	}
}

void ckt_line_emit(struct ckt_line *l)
{
	int saved = errno;
	l->buf[l->len++] = '\n';
	const char *p = l->buf;
	size_t n = l->len;
	int fd = pick_fd();
	/* stderr may be a file past the program's file-size limit, or a pipe nobody reads any
	 * more: the write then raises SIGXFSZ or SIGPIPE, whose default action ends the program
	 * (a line of ours killed it: status 153, tests/progs/fsizelimit.c; status 141 before
	 * main, or in the exit handlers with the program's stdout unflushed, `2> >(head -1)`,
	 * tests/progs/stderrgone.c). The line is lost, as the program's own writes there fail
	 * (EFBIG, EPIPE) once it ignores the signal. */
	if (fd < 0 && known != LOG_NO_STDERR && ckt_child_relay(l->buf, l->len - 1)) {
		l->len = 0; /* a child's line: the traced process writes it */
		errno = saved;
		return;
	}
	struct ckt_sigwrite sw;
	ckt_sigwrite_begin(&sw);
	while (n && fd >= 0) {
		ssize_t w = syscall(SYS_write, fd, p, n); /* not glibc's: no cancellation point */
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
	ckt_sigwrite_end(&sw);
	l->len = 0;
	errno = saved;
}

void ckt_log(const char *a, const char *b, const char *c, const char *d)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: ");
	ckt_line_str(&l, a);
	ckt_line_str(&l, b);
	ckt_line_str(&l, c);
	ckt_line_str(&l, d);
	ckt_line_emit(&l);
}

void ckt_log_process(const char *msg)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: process ");
	ckt_line_u64(&l, (uint64_t)getpid());
	ckt_line_str(&l, msg);
	ckt_line_emit(&l);
}
