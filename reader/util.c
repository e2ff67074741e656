/* util.c: error recording and number formatting shared by decode, replay and the reports.
 * Nothing here prints to a stream; main.c and the report writers decide where text goes.
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "util.h"

#include "ckt_format.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int ckt_util_err(struct ckt_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

char *ckt_util_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	double v = (double)bytes;

	if (bytes < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", bytes);
		return buf;
	}
	/* a value that would print as "1024" of a unit is the next unit's "1.00" */
	while (v >= 1023.5 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	/* Pick the precision from the value as it will round, so 9.996 prints "10.0" not "10.00". */
	if (v < 9.995)
		snprintf(buf, n, "%.2f %s", v, units[u]);
	else if (v < 99.95)
		snprintf(buf, n, "%.1f %s", v, units[u]);
	else
		snprintf(buf, n, "%.0f %s", v, units[u]);
	return buf;
}

char *ckt_util_fmt_sbytes(char *buf, size_t n, int64_t bytes)
{
	if (bytes >= 0)
		return ckt_util_fmt_bytes(buf, n, (uint64_t)bytes);
	if (n < 2) {
		if (n)
			buf[0] = '\0';
		return buf;
	}
	buf[0] = '-';
	/* negate in unsigned arithmetic: -INT64_MIN does not fit in int64_t */
	ckt_util_fmt_bytes(buf + 1, n - 1, 0 - (uint64_t)bytes);
	return buf;
}

char *ckt_util_fmt_secs(char *buf, size_t n, uint64_t ns, int decimals)
{
	uint64_t scale = 1000000000ull, unit = 1;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	for (int i = decimals; i < 9; i++)
		unit *= 10;
	/* round half up to `unit` ns without overflowing near UINT64_MAX */
	uint64_t q = ns / unit + (ns % unit >= (unit + 1) / 2 && unit > 1 ? 1 : 0);
	uint64_t per_sec = scale / unit;
	if (decimals == 0)
		snprintf(buf, n, "%" PRIu64, q);
	else
		snprintf(buf, n, "%" PRIu64 ".%0*" PRIu64, q / per_sec, decimals, q % per_sec);
	return buf;
}

char *ckt_util_fmt_secs_nz(char *buf, size_t n, uint64_t ns)
{
	return ckt_util_fmt_secs(buf, n, ns, !ns || ns >= 500000 ? 3 : ns >= 500 ? 6 : 9);
}

uint64_t ckt_util_hash_key;

void ckt_util_hash_init(void)
{
	uint64_t k = 0;
	if (getrandom(&k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k = ((uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	}
	ckt_util_hash_key = k;
}

/* Under an address-space limit (ulimit -v) the main thread's stack grows into the limit as any
 * mapping does: a call chain that went deeper than before when the reader's memory was nearly
 * all taken met a stack that could not grow, and the reader died by SIGSEGV where it would have
 * said "out of memory" (libdw's out-of-memory handler formatting that very line, 170 KiB down;
 * 3 of 1,100 limits from 8 to 64 MB). The stack is grown at start to CKT_UTIL_STACK (the
 * reader's deepest chains here use under 200 KiB), where the limit leaves room for it and
 * twice as much besides: its pages are then the reader's from the start. Without a limit,
 * nothing is done (no page touched that the run does not need). */
#define CKT_UTIL_STACK (512u << 10)

static __attribute__((noinline)) void ckt_util_stack_touch(size_t n)
{
	volatile char *p = __builtin_alloca(n);
	for (size_t off = n; off >= 4096; off -= 4096)
		p[off - 1] = 0; /* from the top down: each page next to the stack's end */
	p[0] = 0;
}

/* A small stack limit (`ulimit -s 128`) is raised, to CKT_UTIL_STACK_WANT where the hard
 * limit lets it: the main thread's stack grows up to the limit the kernel reads at each fault,
 * and libdw's line tables recursed past 128 KiB (SIGSEGV, no line). The limit it is left
 * at, in bytes, when that is under CKT_UTIL_STACK; else 0. */
#define CKT_UTIL_STACK_WANT (8ull << 20)

static rlim_t ckt_util_stack_raise(void)
{
	struct rlimit stk;
	if (getrlimit(RLIMIT_STACK, &stk) != 0 || stk.rlim_cur == RLIM_INFINITY || stk.rlim_cur >= CKT_UTIL_STACK_WANT)
		return 0;
	rlim_t want = stk.rlim_max == RLIM_INFINITY || stk.rlim_max > CKT_UTIL_STACK_WANT ? CKT_UTIL_STACK_WANT
											    : stk.rlim_max;
	if (want > stk.rlim_cur) {
		struct rlimit n = { want, stk.rlim_max };
		if (setrlimit(RLIMIT_STACK, &n) == 0)
			stk.rlim_cur = want;
	}
	return stk.rlim_cur < CKT_UTIL_STACK ? stk.rlim_cur : 0;
}

uint64_t ckt_util_stack_reserve(void)
{
	rlim_t small = ckt_util_stack_raise();
	struct rlimit as, stk;
	if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY || getrlimit(RLIMIT_STACK, &stk) != 0 ||
	    (stk.rlim_cur != RLIM_INFINITY && stk.rlim_cur < 2 * CKT_UTIL_STACK))
		return small;
	/* the address space in use now (statm's first field, in pages), read without stdio */
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	char buf[128];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return small;
	buf[n] = '\0';
	unsigned long long pages = strtoull(buf, NULL, 10);
	long pg = sysconf(_SC_PAGESIZE);
	if (!pages || pg <= 0 || pages * (unsigned long long)pg + 3ull * CKT_UTIL_STACK > as.rlim_cur)
		return small;
	ckt_util_stack_touch(CKT_UTIL_STACK);
	return small;
}

bool ckt_util_kernel_file(const char *path)
{
	struct statfs fs;
	return statfs(path, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC ||
					  fs.f_type == DEBUGFS_MAGIC || fs.f_type == TRACEFS_MAGIC ||
					  fs.f_type == CGROUP_SUPER_MAGIC || fs.f_type == CGROUP2_SUPER_MAGIC);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if s does not start one. */
size_t ckt_util_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		if (c == 0xed)
			hi = 0x9f; /* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

size_t ckt_util_clean_len(const unsigned char *s, size_t n)
{
	size_t len = ckt_util_utf8_len(s, n);
	if (len == 1 && (s[0] < 0x20 || s[0] == 0x7f))
		return 0; /* C0 controls and DEL */
	if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0; /* C1 controls (U+0080..U+009F: CSI is U+009B) */
	if (len == 3 && s[0] == 0xe2 && ((s[1] == 0x80 && s[2] >= 0xa8 && s[2] <= 0xae) ||
					 (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 0; /* line and paragraph separators, bidirectional overrides and isolates */
	return len;
}

void ckt_util_put_clean_sep(FILE *out, const char *str, char sep, const char *as)
{
	for (;;) {
		const char *q = strchr(str, sep);
		size_t n = q ? (size_t)(q - str) : strlen(str);
		ckt_util_put_clean(out, str, n);
		if (!q)
			break;
		fputs(as, out);
		str = q + 1;
	}
}

void ckt_util_put_csv_inner(FILE *out, const char *str)
{
	ckt_util_put_clean_sep(out, str, '"', "\"\"");
}

void ckt_util_put_csv(FILE *out, const char *str, bool always)
{
	bool quote = always || strpbrk(str, ",\"") != NULL;
	if (quote)
		fputc('"', out);
	ckt_util_put_csv_inner(out, str);
	if (quote)
		fputc('"', out);
}

size_t ckt_util_unclean_len(const unsigned char *s, size_t n)
{
	size_t len = ckt_util_utf8_len(s, n);
	return len ? len : 1;
}

size_t ckt_util_clean(char *s, size_t n)
{
	size_t j = 0;
	for (size_t i = 0; i < n;) {
		size_t len = ckt_util_clean_len((const unsigned char *)s + i, n - i);
		if (len == 0) {
			i += ckt_util_unclean_len((const unsigned char *)s + i, n - i); /* before s[j] */
			s[j++] = '?';
		} else {
			memmove(s + j, s + i, len);
			j += len;
			i += len;
		}
	}
	return j;
}

size_t ckt_util_put_clean(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t chars = 0;
	for (size_t i = 0; i < n; chars++) {
		size_t len = ckt_util_clean_len(s + i, n - i);
		if (len == 0) {
			fputc('?', out);
			i += ckt_util_unclean_len(s + i, n - i);
		} else {
			fwrite(s + i, 1, len, out);
			i += len;
		}
	}
	return chars;
}

/* ---- outputs written whole or not at all (util.h) ---- */
/* The name a link that leads nowhere yet leads to (links followed up to 8 deep), malloc'ed;
 * NULL when path is no such link. */
char *ckt_util_link_target(const char *path)
{
	char *cur = strdup(path), link[PATH_MAX];
	for (int hops = 0; cur && hops < 8; hops++) {
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		if (n <= 0)
			return hops ? cur : (free(cur), NULL);
		link[n] = '\0';
		const char *slash = strrchr(cur, '/');
		size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
		char *next = malloc(dir + (size_t)n + 1);
		if (next) {
			memcpy(next, cur, dir);
			memcpy(next + dir, link, (size_t)n + 1);
		}
		free(cur);
		cur = next;
	}
	free(cur);
	return NULL;
}

/* The directory of the temporary a "-" output was put together in (one "-" output a run), and
 * whether writing the temporary itself failed (a full $TMPDIR; not the copy to stdout, not an
 * error of the report's own, such as running out of memory) */
static char *ckt_util_stage_dir;
static bool ckt_util_stage_failed;

const char *ckt_util_out_stage_failed(void)
{
	return ckt_util_stage_failed ? ckt_util_stage_dir : NULL;
}

/* The temporaries of file outputs still open: what ckt_util_out_abandon removes when the
 * reader must end at once (libdw out of memory: symbolize.c). A handful at most (one per
 * output option); past the slots a temporary is not noted (left behind, as by a kill). */
static const char *ckt_util_tmps[8];

static void ckt_util_tmp_note(const char *tmp, bool open)
{
	for (size_t i = 0; i < sizeof(ckt_util_tmps) / sizeof(ckt_util_tmps[0]); i++)
		if (open ? !ckt_util_tmps[i] : ckt_util_tmps[i] == tmp) {
			ckt_util_tmps[i] = open ? tmp : NULL;
			return;
		}
}

void ckt_util_out_abandon(void)
{
	for (size_t i = 0; i < sizeof(ckt_util_tmps) / sizeof(ckt_util_tmps[0]); i++)
		if (ckt_util_tmps[i])
			unlink(ckt_util_tmps[i]);
}

/* "-": standard output, whole or not at all too: the output goes to an unnamed temporary
 * (in $TMPDIR, else /tmp; where neither takes one, a file in memory), copied to stdout when it
 * is complete (with none, it went straight to stdout, and a trace found corrupt midway left
 * half a CSV in a pipeline without a word). Where not even a file in memory can be made (a
 * kernel or sandbox without memfd_create), straight to stdout, with one warning that says so
 * and why each place refused. */
static int ckt_util_out_stdout(struct ckt_util_out *o)
{
	const char *env = getenv("TMPDIR");
	const char *dirs[2] = { env && *env ? env : "/tmp", "/tmp" };
	int fd = -1, errs[3] = { 0, 0, 0 };
	const char *dir = NULL;
	struct stat s0, s1;
	/* /tmp once, however $TMPDIR names it ("/tmp/", "/tmp/."): by the directory itself */
	bool same = strcmp(dirs[0], dirs[1]) == 0 ||
		    (stat(dirs[0], &s0) == 0 && stat(dirs[1], &s1) == 0 && s0.st_dev == s1.st_dev && s0.st_ino == s1.st_ino);
	for (int i = 0; i < 2 && fd < 0; i++) {
		if (i == 1 && same)
			break;
		size_t n = strlen(dirs[i]) + sizeof("/cuzktrace-report.XXXXXX");
		char *tmp = malloc(n);
		if (!tmp)
			return -ENOMEM;
		snprintf(tmp, n, "%s/cuzktrace-report.XXXXXX", dirs[i]);
		if ((fd = mkstemp(tmp)) >= 0) {
			unlink(tmp);
			dir = dirs[i];
		} else {
			errs[i] = errno;
		}
		free(tmp);
	}
	if (fd < 0) {
		if ((fd = (int)syscall(SYS_memfd_create, "cuzktrace-report", 1u /* MFD_CLOEXEC */)) >= 0)
			dir = ""; /* in memory */
		else
			errs[2] = errno;
	}
	free(ckt_util_stage_dir);
	ckt_util_stage_dir = dir ? strdup(dir) : NULL;
	ckt_util_stage_failed = false;
	if (fd >= 0) {
		if ((o->f = fdopen(fd, "w+"))) {
			o->to_stdout = true;
			return 0;
		}
		int e = errno;
		close(fd);
		ckt_util_stage_failed = true; /* the temporary, not the standard output */
		return -e;
	}
	fd = dup(1);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return -e;
	}
	/* said once the standard output is known to take it (closed, the caller says that) */
	fprintf(stderr, "cuzktrace-report: warning: no temporary file to put the output given as '-' together "
		"in ('%s': %s; %s%s%s%smemory: %s): it is written straight to standard output, and a trace "
		"found corrupt midway leaves part of it there\n", dirs[0], strerror(errs[0]),
		errs[1] ? "'/tmp': " : "", errs[1] ? strerror(errs[1]) : "", errs[1] ? "; " : "",
		"in ", strerror(errs[2]));
	return 0;
}

int ckt_util_out_open(struct ckt_util_out *o, const char *path)
{
	*o = (struct ckt_util_out){ 0 };
	if (strcmp(path, "-") == 0)
		return ckt_util_out_stdout(o);
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (!exists && errno == ELOOP) /* links that lead round: no file to write */
		return -ELOOP;
	if (exists && !S_ISREG(st.st_mode))
		goto in_place;
	/* the file itself: an existing one is written over in place at the end (its inode, links,
	 * owner and ACLs stay), a new one is the temporary renamed, where a link leads */
	o->dst = exists ? strdup(path) : ckt_util_link_target(path);
	if (!exists && !o->dst)
		o->dst = strdup(path);
	o->exists = exists;
	if (!o->dst)
		goto in_place;
	const char *slash = strrchr(o->dst, '/');
	size_t dir = slash ? (size_t)(slash - o->dst) + 1 : 0;
	if (!(o->tmp = malloc(strlen(o->dst) + 16)))
		goto in_place;
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dir, o->dst, o->dst + dir);
	int fd = mkstemp(o->tmp); /* 0600 while written: its mode is given just before a rename */
	if (fd < 0 && errno == ENAMETOOLONG) { /* a name of 248 bytes or more: a short temporary */
		sprintf(o->tmp, "%.*s.ckt.XXXXXX", (int)dir, o->dst);
		fd = mkstemp(o->tmp);
	}
	if (fd < 0) /* a directory we may not write (or whose name leaves no room) */
		goto in_place;
	if (!(o->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		free(o->dst);
		*o = (struct ckt_util_out){ 0 };
		return -e;
	}
	ckt_util_tmp_note(o->tmp, true);
	return 0;
in_place:
	free(o->tmp);
	free(o->dst);
	*o = (struct ckt_util_out){ 0 };
	o->f = fopen(path, "w");
	return o->f ? 0 : -errno;
}

/* in's bytes from where it stands to its end written to out. 0 or an errno. */
static int ckt_util_copy_fd(int in, int out)
{
	char *buf = malloc(1 << 16);
	int e = buf ? 0 : ENOMEM;
	ssize_t n = 0;
	while (!e && (n = read(in, buf, 1 << 16)) > 0)
		for (ssize_t off = 0; !e && off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w > 0)
				off += w;
			else if (!(w < 0 && errno == EINTR))
				e = w < 0 ? errno : EIO;
		}
	if (!e && n < 0)
		e = errno;
	free(buf);
	return e;
}

/* The finished temporary copied over dst: its room reserved first (fallocate), so that
 * a full disk leaves dst as it was; then written from the start and cut to its size. 0 or
 * -errno. */
static int ckt_util_copy_over(const char *tmp, const char *dst, bool create)
{
	int in = open(tmp, O_RDONLY | O_CLOEXEC), e = 0;
	int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
	struct stat st;
	if (in < 0 || out < 0 || fstat(in, &st) != 0)
		e = errno;
	/* the kernel's fallocate itself, keeping the size (glibc's posix_fallocate emulates it
	 * where the file system has none by reading the file, which this descriptor cannot) */
	while (!e && st.st_size > 0 &&
	       syscall(SYS_fallocate, out, FALLOC_FL_KEEP_SIZE, (off_t)0, (off_t)st.st_size) != 0) {
		if (errno == EINTR)
			continue;
		if (errno != EOPNOTSUPP && errno != ENOSYS)
			e = errno;
		break; /* no way to reserve it here: written as it comes */
	}
	if (!e)
		e = ckt_util_copy_fd(in, out);
	if (!e && ftruncate(out, st.st_size) != 0)
		e = errno;
	if (out >= 0 && close(out) != 0 && !e)
		e = errno;
	if (in >= 0)
		close(in);
	return -e;
}


int ckt_util_out_close(struct ckt_util_out *o, bool ok)
{
	int e = 0;
	if (!o->f)
		return 0;
	/* "-": a write into the temporary failed (ckt_util_out_stage_failed) */
	bool stage_bad = o->to_stdout && ferror(o->f);
	if (ferror(o->f))
		e = EIO; /* the writer's own record of the error says more */
	if (o->to_stdout && ok && !e) {
		if (fflush(o->f) != 0 || lseek(fileno(o->f), 0, SEEK_SET) != 0) {
			e = errno ? errno : EIO;
			stage_bad = true;
		} else {
			e = ckt_util_copy_fd(fileno(o->f), 1);
		}
	}
	if (o->to_stdout)
		ckt_util_stage_failed = stage_bad;
	errno = 0;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	if (o->tmp) {
		bool renamed = false;
		ckt_util_tmp_note(o->tmp, false);
		if (ok && !e) {
			/* a new file is the temporary renamed, with the mode a new file gets; where that
			 * cannot be (a sticky directory, a file another user may replace), and over an
			 * existing file, a copy */
			mode_t mask = umask(0);
			umask(mask);
			renamed = !o->exists && chmod(o->tmp, 0666 & ~mask) == 0 && rename(o->tmp, o->dst) == 0;
			if (!renamed)
				e = -ckt_util_copy_over(o->tmp, o->dst, !o->exists);
		}
		if (!renamed)
			unlink(o->tmp);
	}
	free(o->tmp);
	free(o->dst);
	*o = (struct ckt_util_out){ 0 };
	return -e;
}

bool ckt_util_dec_u64(const char *s, uint64_t *v)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || strspn(s, "0123456789") != n)
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, NULL, 10);
	if (errno)
		return false;
	*v = x;
	return true;
}

uint64_t ckt_util_hash_bytes(const uint8_t *s, size_t n)
{
	uint64_t h = ckt_util_hash64(n);
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = ckt_util_hash64(h ^ w);
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	return ckt_util_hash64(h ^ w);
}

/* ---- big tables ---- */

#define CKT_UTIL_BIG ((size_t)2 << 20)
#define CKT_UTIL_PAGE ((size_t)4096) /* the smallest page on x86-64 and arm64 */

/* A big table's mapping starts on a huge page's boundary: the kernel backs only the aligned
 * 2 MiB runs of a mapping with huge pages, and mmap returns 4 KiB alignment (a queue of 5 MiB
 * got one huge page, or none, and faulted in the rest a page at a time). It ends on one too
 * where that adds at most a quarter (5 MiB take 6), else at a page's end, the tail in small
 * pages: a queue of 2.5 MiB rounded to 4 MiB took all 4 once touched, and 64 busy threads'
 * queues took 75 MB more. */
static size_t ckt_util_big_len(size_t bytes)
{
	size_t len = (bytes + CKT_UTIL_BIG - 1) & ~(CKT_UTIL_BIG - 1);
	if (len >= bytes && len - bytes <= bytes / 4)
		return len;
	return (bytes + CKT_UTIL_PAGE - 1) & ~(CKT_UTIL_PAGE - 1);
}

size_t ckt_util_big_size(size_t bytes)
{
	size_t len = ckt_util_big_len(bytes);
	return bytes < CKT_UTIL_BIG || len < bytes ? bytes : len;
}

void *ckt_util_big_alloc(size_t bytes)
{
	if (bytes < CKT_UTIL_BIG)
		return calloc(1, bytes);
	size_t len = ckt_util_big_len(bytes);
	if (len < bytes || len + CKT_UTIL_BIG < len)
		return NULL;
	char *m = mmap(NULL, len + CKT_UTIL_BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	char *p = (char *)(((uintptr_t)m + CKT_UTIL_BIG - 1) & ~(uintptr_t)(CKT_UTIL_BIG - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	munmap(p + len, (size_t)(m + CKT_UTIL_BIG - p)); /* the tail: never empty */
	(void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without it the table only runs slower */
	return p;
}

void ckt_util_big_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < CKT_UTIL_BIG)
		free(p);
	else
		munmap(p, ckt_util_big_len(bytes));
}

/* A big table made bigger keeps its pages: the old mapping is moved, page tables and all
 * (huge pages whole: both ends are on a huge page's boundary), onto the new one's place and
 * grown there by the kernel in the same call, so only the new part is fresh memory and the
 * table stays one mapping (moved onto a part of the new one, it left the rest a mapping of
 * its own, and a second growth then asked to move a range across two mappings: refused
 * before Linux 6.17, after the kernel had unmapped the destination). Copying into a fresh
 * table had the kernel zero the new table's pages before the copy wrote over them, the old
 * and the new resident together: a live table grown from 256 to 512 MiB cleared 768 MiB,
 * where it now clears 256. */
void *ckt_util_big_extend(void *p, size_t bytes, size_t new_bytes)
{
	void *q = ckt_util_big_alloc(new_bytes);
	if (!q || !p)
		return q;
	if (bytes >= CKT_UTIL_BIG && new_bytes >= CKT_UTIL_BIG) {
		size_t len = ckt_util_big_len(bytes), new_len = ckt_util_big_len(new_bytes);
		if (len <= new_len && mremap(p, len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, q) == q)
			return q;
		/* the kernel would not (out of mappings): a copy, into a new table, for a failed
		 * call may have unmapped the destination already */
		ckt_util_big_free(q, new_bytes);
		q = ckt_util_big_alloc(new_bytes);
		if (!q)
			return NULL;
	}
	memcpy(q, p, bytes); /* small tables, or after a refusal */
	ckt_util_big_free(p, bytes);
	return q;
}

int ckt_util_big_grow(void **p, size_t *cap, size_t elem, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	if (c < *cap || c > SIZE_MAX / elem)
		return CKT_ENOMEM;
	void *q = ckt_util_big_extend(*p, *cap * elem, c * elem);
	if (!q)
		return CKT_ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* ---- small maps ---- */

static size_t ckt_util_map_slot(const struct ckt_util_map *m, uint64_t key)
{
	size_t i = ckt_util_home(key, m->cap);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

bool ckt_util_map_get(const struct ckt_util_map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap)
		return false;
	size_t i = ckt_util_map_slot(m, key);
	if (!m->vals[i])
		return false;
	*val = m->vals[i] - 1;
	return true;
}

int ckt_util_map_put(struct ckt_util_map *m, uint64_t key, uint64_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct ckt_util_map g = { .cap = m->cap ? m->cap * 2 : 64 };
		g.keys = calloc(g.cap, sizeof(*g.keys));
		g.vals = calloc(g.cap, sizeof(*g.vals));
		if (!g.keys || !g.vals) {
			free(g.keys);
			free(g.vals);
			return CKT_ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->vals[i]) {
				size_t k = ckt_util_map_slot(&g, m->keys[i]);
				g.keys[k] = m->keys[i];
				g.vals[k] = m->vals[i];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = ckt_util_map_slot(m, key);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val + 1;
	return 0;
}

void ckt_util_map_free(struct ckt_util_map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct ckt_util_map){ 0 };
}

size_t ckt_util_sans_abi_tags(const char *name, size_t len, char *buf, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < len;) {
		const char *close;
		if (len - i > 5 && memcmp(name + i, "[abi:", 5) == 0 && (close = memchr(name + i, ']', len - i))) {
			i = (size_t)(close - name) + 1;
			continue;
		}
		if (w + 1 >= n)
			return (size_t)-1;
		buf[w++] = name[i++];
	}
	if (!n)
		return (size_t)-1;
	buf[w] = 0;
	return w;
}

size_t ckt_util_sans_generics(const char *name, size_t len)
{
	if (len < 3 || name[len - 1] != '>')
		return len;
	size_t depth = 0, i = len;
	while (i-- > 0) {
		if (name[i] == '>' && !(i > 0 && name[i - 1] == '-'))
			depth++;
		else if (name[i] == '<' && --depth == 0)
			break;
	}
	return i == (size_t)-1 || i == 0 ? len : i;
}

bool ckt_util_end_signal_name(uint64_t reason, char *buf, size_t size)
{
	int sig = ckt_end_signal(reason);
	if (!sig)
		return false;
	/* SIGIO, not glibc's POLL for the same number (as the tracer's exit line: ckt_line_signal) */
	const char *abbrev = sig == SIGIO ? "IO" : sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
	return true;
}

bool ckt_util_being_written(const char *path)
{
	struct stat sb;
	if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return false;
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return false;
	char line[256], want[64];
	snprintf(want, sizeof(want), " %02x:%02x:%llu ", major(sb.st_dev), minor(sb.st_dev),
		 (unsigned long long)sb.st_ino);
	bool held = false;
	while (!held && fgets(line, sizeof(line), f))
		held = strstr(line, " FLOCK ") && strstr(line, " WRITE ") && strstr(line, want);
	fclose(f);
	return held;
}

void *ckt_util_grow(void *v, size_t *cap, size_t elem, size_t first)
{
	size_t n = *cap ? 2 * *cap : first;
	if (n < *cap || n > SIZE_MAX / elem)
		return NULL;
	void *w = realloc(v, n * elem);
	if (w)
		*cap = n;
	return w;
}
