/* hooks_exec.c: execve and its non-variadic relatives, and the namespace calls that need a
 * single-threaded process (unshare, setns; see the end). An exec replaces the image without
 * running exit handlers: before it, the trace is finished with an END record (reason exec) and
 * the exit line; the new image, traced by its own copy of the library, is told which file the
 * old image wrote (CUZKTRACE_EXEC_FROM), so that a CUZKTRACE_OUT naming the same file for both
 * (it has %p but not %e) does not truncate it. glibc's execl* call its internal execve and are
 * not seen: after those, the old trace ends at its last flush and reads as truncated. */
#include "ckt.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <ucontext.h>
#include <unistd.h>

extern char **environ;

static int finished_here; /* an exec finished the trace; it may have failed and be retried */

/* a page shared with forked children (child_note_prepare): one of them has said it is not
 * traced; what those that ended had allocated in all */
struct child_note {
	atomic_int said;
	_Atomic uint64_t ended_bytes;
};
static _Atomic(struct child_note *) child_note;
atomic_int ckt_child_untraced; /* this process is such a child and has not said it yet */
static _Atomic uint64_t child_bytes; /* allocated by this process since it was forked */

/* 1 if this is the traced process itself: a vfork child shares our memory, and finishing the
 * trace there would end the parent's. */
/* mem_pid: the process whose memory this is, a fork of the traced process's (0: the traced
 * process's own); fork_parent: the process that forked it (see child_env below) */
static pid_t mem_pid, fork_parent;

static int is_tracer_process(void)
{
	/* not ckt_writer_running: the writer is down during a pause (an exec from a signal
	 * handler then) or after a write error, and the trace is still this process's; and not a
	 * forked child that has the traced process's pid in a pid namespace of its own (both pid
	 * 1: nested `unshare -pf`; since 0.2.51 its exec was taken for the traced process's own) */
	return (ckt_writer_tracing() || finished_here || ckt_writer_finishing()) &&
	       getpid() == ckt_writer_pid() && !mem_pid && ckt_writer_same_pid_ns();
}

/* Whether an exec of path may find a file it can run. Not when the exec is sure to fail at
 * once: no such file (ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG, or a directory on the way that may
 * not be searched), not a regular file, or no permission to execute it ("try this, else that"
 * and execvp-like loops over PATH); then the trace goes on instead of being finished for it (it
 * said "ended by exec" and lost the rest of the run). Any other answer, a check that itself
 * fails (a seccomp filter that refuses faccessat2 with EPERM), counts as runnable: the trace is
 * finished as before, and an exec that then fails (ENOEXEC, E2BIG) says so in the warning
 * below. No permission is only what two checks agree on (below). Not the hot path: a few
 * system calls per exec. */
static int script_interp(const char *path, int fd, char *out, size_t cap);

/* A `#!` script whose interpreter is not there (a missing interpreter; `#!/bin/sh\r` of a
 * script saved with CRLF line ends, which names "/bin/sh\r"): the kernel's exec fails with
 * ENOENT and starts nothing. 0 then; interpreters that are scripts themselves are followed as
 * the kernel follows them (five scripts at most, the script itself among them: a sixth fails
 * with ELOOP, 0 too). 1 otherwise, also when it cannot be told (since
 * 0.2.43: such an exec said "ended by exec" and the rest of the run was lost). No allocation:
 * a vfork child runs this. */
/* Whether the process holds CAP_DAC_OVERRIDE in its effective set (1 also when it cannot be
 * told), which lets it execute a file with any execute bit. */
static int dac_override(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		return 1;
	return (d[0].effective >> CAP_DAC_OVERRIDE) & 1;
}

/* Whether the kernel could open an interpreter to execute it: 0 where it refuses whoever asks
 * (not a regular file, no execute bit at all, a noexec mount), since 0.2.51 (such an
 * interpreter failed the exec with EACCES after the trace had ended), and where the kernel's own
 * check with the process's effective ids and capabilities (faccessat2 with AT_EACCESS, Linux 5.8)
 * says this process may not; where that check is not there (an older kernel, a seccomp filter),
 * not by permission at all: glibc's emulation of it checks the real ids, or the effective ones
 * without capabilities, and an exec that worked by either was taken for one that cannot start,
 * its trace left without its end. */
static int interp_openable(const char *path)
{
	struct stat st;
	struct statfs fs; /* (statvfs may read /proc/mounts on old kernels: not in a vfork child) */
	if (stat(path, &st) != 0)
		return !(errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG);
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return 0;
	/* f_flags holds the mount's flags where the kernel sets 0x20 (ST_VALID, Linux 2.6.36) */
	if (statfs(path, &fs) == 0 && (fs.f_flags & 0x20) && (fs.f_flags & ST_NOEXEC))
		return 0;
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
	if (syscall(SYS_faccessat2, AT_FDCWD, path, X_OK, AT_EACCESS) == 0)
		return 1;
	if (errno == EACCES)
		return 0;
	/* no faccessat2 (a kernel before 5.8): access checks the real ids without capabilities,
	 * which are the exec's where they are the effective ones and no capability overrides
	 * the file's permissions (the usual case, a user's script naming an interpreter it may not
	 * run) */
	return errno != ENOSYS || getuid() != geteuid() || getgid() != getegid() || dac_override() ||
	       !(access(path, X_OK) != 0 && errno == EACCES);
}

static int interp_present(const char *path)
{
	char cur[256], next[256];
	if (!script_interp(path, -1, cur, sizeof(cur)))
		return 1;
	for (int depth = 1;; depth++) {
		if (!interp_openable(cur))
			return 0;
		if (!script_interp(cur, -1, next, sizeof(next)))
			return 1;
		/* a sixth script in the chain (one that names itself, or two that name each
		 * other): the kernel's ELOOP */
		if (depth == 5)
			return 0;
		memcpy(cur, next, sizeof(cur));
	}
}

/* Whether the kernel would open path to execute it: 0 when it would refuse (no such file, not
 * a regular file, no permission to execute it, a noexec mount), 1 when it would or the checks
 * cannot tell. */
static int may_exec_at(int dirfd, const char *path, int flags)
{
	struct stat st;
	if (!path || !*path)
		return 0; /* ENOENT */
	if (fstatat(dirfd, path, &st, flags & AT_SYMLINK_NOFOLLOW) != 0)
		return !(errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG ||
			 errno == EACCES || errno == EBADF); /* (EBADF: execveat's dirfd) */
	if (!S_ISREG(st.st_mode))
		return 0; /* EACCES (ELOOP: a link, for execveat's AT_SYMLINK_NOFOLLOW) */
	/* EACCES from both checks: with the effective ids (faccessat2 counts capabilities; glibc's
	 * emulation on kernels before 5.8 ignores ACLs) and with the real ones (access: ACLs, but
	 * no capabilities for a non-root real uid) */
	return faccessat(dirfd, path, X_OK, AT_EACCESS) == 0 || errno != EACCES ||
	       !(faccessat(dirfd, path, X_OK, 0) != 0 && errno == EACCES);
}

static int runnable_at(int dirfd, const char *path, int flags)
{
	/* a path of execveat's relative to its directory: its script is not looked into */
	return may_exec_at(dirfd, path, flags) && (dirfd != AT_FDCWD || interp_present(path));
}

static int runnable(const char *path)
{
	return runnable_at(AT_FDCWD, path, 0);
}

/* A statically linked program (an ELF executable, ET_EXEC, without a PT_INTERP header) has no
 * dynamic loader to read LD_PRELOAD: it runs untraced, and no library of ours could say so in
 * it. 1 when the file (path, or fd when path is NULL) is one; 0 when it is not or cannot be
 * read (a script runs its interpreter, which is looked at when it is exec'd itself). No
 * allocation: a vfork child runs this too. */
/* Whether the dynamic section at off (size bytes) of f holds DT_FLAGS_1 with DF_1_PIE: 1, or 0
 * (none, or it cannot be read). Read 16 entries at a time, 512 at most. */
static int dyn_pie(int f, int c64, uint64_t off, uint64_t size)
{
	union {
		Elf64_Dyn d64[16];
		Elf32_Dyn d32[16];
	} d;
	size_t esz = c64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t n = size / esz;
	for (uint64_t i = 0; i < n && i < 512; i += 16) {
		size_t k = n - i < 16 ? (size_t)(n - i) : 16;
		if (pread(f, &d, k * esz, (off_t)(off + i * esz)) != (ssize_t)(k * esz))
			return 0;
		for (size_t j = 0; j < k; j++) {
			uint64_t tag = c64 ? (uint64_t)d.d64[j].d_tag : (uint64_t)d.d32[j].d_tag;
			uint64_t val = c64 ? d.d64[j].d_un.d_val : d.d32[j].d_un.d_val;
			if (tag == DT_NULL)
				return 0;
			if (tag == DT_FLAGS_1)
				return (val & DF_1_PIE) != 0;
		}
	}
	return 0;
}

static int is_static_elf(const char *path, int fd)
{
	union {
		unsigned char id[EI_NIDENT];
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;
	int f = path ? open(path, O_RDONLY | O_CLOEXEC) : fd;
	if (f < 0)
		return 0;
	int is = 0;
	if (pread(f, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.id, ELFMAG, SELFMAG) &&
	    (h.id[EI_CLASS] == ELFCLASS64 || h.id[EI_CLASS] == ELFCLASS32)) {
		int c64 = h.id[EI_CLASS] == ELFCLASS64;
		uint16_t type = c64 ? h.e64.e_type : h.e32.e_type;
		uint64_t off = c64 ? h.e64.e_phoff : h.e32.e_phoff;
		unsigned n = c64 ? h.e64.e_phnum : h.e32.e_phnum, sz = c64 ? h.e64.e_phentsize : h.e32.e_phentsize;
		/* ET_DYN without PT_INTERP: the loader itself (ld.so PROGRAM, ldd), which reads
		 * LD_PRELOAD, or a static-pie program (Rust's crt-static, gcc -static-pie), which
		 * does not: told apart by DF_1_PIE in its DT_FLAGS_1, which the loader has not
		 * (since 0.2.51; it ran untraced without a word) */
		if ((type == ET_EXEC || type == ET_DYN) && n && n < 256 &&
		    sz >= (c64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr))) {
			is = 1;
			uint64_t dyn_off = 0, dyn_size = 0;
			for (unsigned i = 0; i < n && is; i++) {
				union {
					Elf64_Phdr p64;
					Elf32_Phdr p32;
				} ph;
				size_t want = c64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
				if (pread(f, &ph, want, (off_t)(off + (uint64_t)i * sz)) != (ssize_t)want) {
					is = 0; /* cannot tell */
				} else if ((c64 ? ph.p64.p_type : ph.p32.p_type) == PT_INTERP) {
					is = 0;
				} else if ((c64 ? ph.p64.p_type : ph.p32.p_type) == PT_DYNAMIC) {
					dyn_off = c64 ? ph.p64.p_offset : ph.p32.p_offset;
					dyn_size = c64 ? ph.p64.p_filesz : ph.p32.p_filesz;
				}
			}
			if (is && type == ET_DYN)
				is = dyn_pie(f, c64, dyn_off, dyn_size);
		}
	}
	if (path)
		close(f);
	return is;
}

/* An exec of a program that gains privileges by its set-user-ID or set-group-ID bit (an owner
 * or group other than the caller's, on a mount that honours the bits) or by file capabilities
 * (for a caller whose real uid is not root: root's exec gains none) is a secure execution: the
 * loader ignores LD_PRELOAD there, and the new image runs untraced, which nothing would say.
 * One line before the exec (st: the program's stat; what: its path, or NULL for the descriptor
 * fd); not under PR_SET_NO_NEW_PRIVS, where neither does anything, nor on a nosuid mount. The
 * same for a statically linked program (is_static_elf), since 0.2.33, and since 0.2.37 for a
 * script whose interpreter is one (static_interp: the kernel starts the interpreter, and no
 * hook sees it: a `#!/bin/sh` script where /bin/sh is a static busybox ran untraced without a
 * word). Where defer_line is set (posix_spawn: the line once the program has started), the
 * line goes there. */
static __thread struct ckt_line *defer_line;

/* The interpreter a `#!` script (path, or fd when path is NULL) names, into out (cap bytes):
 * 1, or 0 when the file is not such a script. The kernel's rule: the first line, spaces and
 * tabs skipped after `#!`, the path up to the next space, tab or end of line. No allocation. */
static int script_interp(const char *path, int fd, char *out, size_t cap)
{
	char b[256];
	int f = path ? open(path, O_RDONLY | O_CLOEXEC) : fd;
	if (f < 0)
		return 0;
	ssize_t n = pread(f, b, sizeof(b) - 1, 0);
	if (path)
		close(f);
	if (n < 3 || b[0] != '#' || b[1] != '!')
		return 0;
	b[n] = 0;
	const char *p = b + 2 + strspn(b + 2, " \t");
	size_t k = strcspn(p, " \t\n");
	if (!k || k >= cap)
		return 0;
	memcpy(out, p, k);
	out[k] = 0;
	return 1;
}

/* The statically linked interpreter a `#!` script ends in, into out (cap bytes): 1, or 0. An
 * interpreter that is a script itself is followed as the kernel follows it (five interpreters
 * at most: past them the exec fails with ELOOP and starts nothing). */
static int static_interp(const char *path, int fd, char *out, size_t cap)
{
	char next[256];
	if (!script_interp(path, fd, out, cap))
		return 0;
	for (int depth = 1;; depth++) {
		if (is_static_elf(out, -1))
			return 1;
		if (depth == 5 || !script_interp(out, -1, next, sizeof(next)) || strlen(next) >= cap)
			return 0;
		strcpy(out, next);
	}
}

/* the end of the line for a statically linked program, after its quoted path */
#define CKT_STATIC_LINE "' is statically linked: no loader reads LD_PRELOAD in it, so the program it starts is not traced"

/* Valgrind's launcher (valgrind, or Debian's valgrind.bin behind a script) starting its tool
 * (`<dir>/valgrind/memcheck-amd64-linux`, statically linked): the tool loads the program it is
 * given itself, with LD_PRELOAD for a dynamically linked one, which is then traced and says
 * so. Called for a static `tool` when the process is the launcher (valgrind_launcher): 0 for
 * another program; else 1, with l the line about the program the tool runs (the launcher's
 * first argument not an option, searched in PATH as valgrind does) where that one is static,
 * or emptied. Out of line: its buffers stay off the stack of every other exec (a clone child
 * on an 8 KiB stack of its own execs). */
static const char *path_found(const char *file, char *buf, size_t cap);

static int valgrind_launcher(void)
{
	return !strcmp(program_invocation_short_name, "valgrind") ||
	       !strcmp(program_invocation_short_name, "valgrind.bin");
}

static CKT_NOINLINE int valgrind_tool_line(const char *tool, struct ckt_line *l)
{
	const char *base = tool ? strrchr(tool, '/') : NULL;
	size_t bl = base ? strlen(base) : 0;
	if (!base || base - tool < 9 || strncmp(base - 9, "/valgrind", 9) || bl < 7 || strcmp(base + bl - 6, "-linux"))
		return 0;
	char args[4096], buf[PATH_MAX];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, args, sizeof(args) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	args[n] = 0;
	const char *a = args + strlen(args) + 1; /* past the launcher's own name */
	while (a < args + n && *a == '-')
		a += strlen(a) + 1;
	const char *client = a < args + n ? path_found(a, buf, sizeof(buf)) : NULL;
	if (!client)
		return 0;
	l->len = 0;
	if (is_static_elf(client, -1)) {
		ckt_line_str(l, "cuzktrace: warning: '");
		ckt_line_str(l, client);
		ckt_line_str(l, CKT_STATIC_LINE);
	}
	return 1;
}

static void say_if_secure(const struct stat *st, const char *what, int fd)
{
	char interp[256];
	struct statvfs vfs;
	int uid = (st->st_mode & S_ISUID) && st->st_uid != getuid();
	int gid = (st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid();
	if (!S_ISREG(st->st_mode))
		return;
	int caps = !uid && !gid && getuid() != 0 &&
		   (what ? getxattr(what, "security.capability", NULL, 0)
			 : fgetxattr(fd, "security.capability", NULL, 0)) > 0;
	int secure = (uid || gid || caps) && syscall(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 && /* the bits do nothing */
		     !((what ? statvfs(what, &vfs) : fstatvfs(fd, &vfs)) == 0 && (vfs.f_flag & ST_NOSUID));
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: '");
	ckt_line_str(&l, what ? what : "(a descriptor)");
	if (secure) {
		ckt_line_str(&l, uid ? "' is set-user-ID" : gid ? "' is set-group-ID" : "' has file capabilities");
		ckt_line_str(&l, ": the loader ignores LD_PRELOAD for it, so the program it starts is not traced");
	} else if (is_static_elf(what, fd)) {
		/* valgrind's tool: the line is about the program it runs, if that is static */
		if (valgrind_launcher() && valgrind_tool_line(what, &l)) {
			if (!l.len)
				return;
		} else {
			ckt_line_str(&l, CKT_STATIC_LINE);
		}
	} else if (static_interp(what, fd, interp, sizeof(interp))) {
		ckt_line_str(&l, "' is a script whose interpreter '");
		ckt_line_str(&l, interp);
		ckt_line_str(&l, CKT_STATIC_LINE);
	} else {
		return;
	}
	if (defer_line)
		*defer_line = l;
	else
		ckt_line_emit(&l);
}

static void say_if_secure_path(const char *path)
{
	struct stat st;
	if (path && stat(path, &st) == 0)
		say_if_secure(&st, path, -1);
}

/* The same for execvp's search: file itself when it holds a '/', else the first runnable
 * file of that name in the directories of PATH (glibc's default when unset; an empty entry is
 * the working directory). The set-user-ID line is said for the file found (path_found: that
 * file, NULL when none; buf holds a name found in PATH). */
static const char *path_found(const char *file, char *buf, size_t cap)
{
	if (!file || !*file)
		return NULL;
	if (strchr(file, '/'))
		return runnable(file) ? file : NULL;
	const char *p = getenv("PATH");
	size_t flen = strlen(file);
	for (p = p ? p : "/bin:/usr/bin";; p++) {
		const char *c = strchrnul(p, ':');
		size_t n = (size_t)(c - p);
		if (n + flen + 2 <= cap) {
			memcpy(buf, p, n);
			buf[n] = '/';
			memcpy(buf + n + (n ? 1 : 0), file, flen + 1);
			if (runnable(buf))
				return buf;
		}
		if (!*c)
			return NULL;
		p = c;
	}
}

static int runnable_in_path(const char *file)
{
	char buf[4096];
	const char *found = path_found(file, buf, sizeof(buf));
	if (!found)
		return 0;
	say_if_secure_path(found);
	return 1;
}

/* fexecve's descriptor: a regular file with an execute bit */
static int runnable_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* ---- CUZKTRACE_CHILDREN=0: this process alone ----
 * The tracer takes itself out of LD_PRELOAD in the process's environment as it starts (in
 * place: the value only gets shorter, empty at worst), so that the programs it starts
 * by any route (fork and exec, posix_spawn, system, popen) run untraced and print no line of
 * ours into output the program may read. own_preload keeps the variable as it was, which this
 * process's own exec gets back (with_exec_from_guarded): it is the same process. */
static char own_preload[4096];
static int children_off;
static const char *stripped; /* the environment's entry shortened in place */

/* tok (n bytes of LD_PRELOAD) names this library: a path to the same file, or a bare name
 * the loader looked up (in LD_LIBRARY_PATH, its cache, the default directories; never the
 * working directory) and found as the file it loaded us from (loaded: that file's name).
 * any_copy: or another copy of it, a regular file of this library's file name elsewhere
 * (another build, another install), which traces the program too: the "not traced" line was
 * said of a program that was (since 0.2.44). No allocation: a vfork child runs this; one
 * path buffer, for a child made by clone on a small stack of its own (a second one, 4 KiB
 * more, ended one on an 8 KiB stack by SIGSEGV). */
static int names_tracer(const char *tok, size_t n, const struct stat *self, const char *loaded, int any_copy)
{
	char path[PATH_MAX];
	struct stat st;
	if (n >= sizeof(path))
		return 0;
	memcpy(path, tok, n);
	path[n] = '\0';
	const char *base = strrchr(loaded, '/'), *tb = strrchr(path, '/');
	base = base ? base + 1 : loaded;
	if (!tb)
		return strcmp(base, path) == 0;
	if (stat(path, &st) != 0)
		return 0;
	if (st.st_dev == self->st_dev && st.st_ino == self->st_ino)
		return 1;
	return any_copy && S_ISREG(st.st_mode) && strcmp(tb + 1, base) == 0;
}

static int names_us(const char *tok, size_t n, const struct stat *self, const char *loaded)
{
	return names_tracer(tok, n, self, loaded, 0);
}

/* This library's file, found as the tracer starts (ckt_children_off): an exec hook in a child
 * made without fork's handlers (_Fork, clone) must not ask the loader (dladdr takes its lock,
 * which another thread of the parent may have held: the child's execl hung for good). Asked
 * there only before the tracer has started (a library's constructor that execs). */
static char self_name[PATH_MAX];
static struct stat self_st;
static int self_known;

static int know_self(void)
{
	Dl_info info;
	if (!self_known && dladdr((void *)know_self, &info) && info.dli_fname &&
	    strlen(info.dli_fname) < sizeof(self_name) && stat(info.dli_fname, &self_st) == 0) {
		strcpy(self_name, info.dli_fname);
		self_known = 1;
	}
	return self_known;
}

/* A relative path to this library in LD_PRELOAD (LD_PRELOAD=build/libcuzktrace.so) names it
 * from the directory the program started in: a command it runs after a cd (`bash -c 'cd sub &&
 * prog'`, posix_spawn with a chdir action) got the loader's "cannot be preloaded" line and ran
 * untraced, its trace missing from the run. The entry is passed on anchored to the directory
 * at start, as CUZKTRACE_OUT is (anchor_out in writer.c); other entries stay as they are. The
 * environment's pointer is replaced, not the string grown or setenv called: a thread an earlier
 * constructor started reads either whole string, and the old one is never freed. Bare names
 * (looked up in the library path, not the working directory) stay. Before ckt_children_off's
 * copy, which an exec of the process itself passes on. */
static char anchored_preload[4096 + PATH_MAX];

/* environ[i], an LD_PRELOAD entry, with its relative names of the tracer made absolute into
 * buf (cap bytes) and put in its place where any was */
static void anchor_entry(size_t i, char *buf, size_t cap)
{
	char cwd[PATH_MAX];
	const char *v = environ[i];
	size_t n = 11, changed = 0, cl = 0;
	memcpy(buf, v, 11);
	for (const char *s = v + 11; *s;) {
		size_t sep = strspn(s, " :"), tl = strcspn(s + sep, " :"), need = sep + tl;
		const char *tok = s + sep;
		int rel = tl && tok[0] != '/' && memchr(tok, '/', tl) && names_us(tok, tl, &self_st, self_name);
		if (rel && !cl) {
			if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
				return; /* no line: the loader found us relative to here, so can the rest */
			cl = strlen(cwd);
		}
		if (rel)
			need += cl + 1;
		if (n + need + 1 > cap)
			return;
		memcpy(buf + n, s, sep);
		n += sep;
		if (rel) {
			memcpy(buf + n, cwd, cl);
			n += cl;
			if (cl > 1)
				buf[n++] = '/';
			changed = 1;
		}
		const char *t = tok;
		while (rel && t[0] == '.' && t[1] == '/') /* "./lib.so": not "/job/./lib.so" */
			for (t += 2; *t == '/';)
				t++;
		memcpy(buf + n, t, tl - (size_t)(t - tok));
		n += tl - (size_t)(t - tok);
		s = tok + tl;
	}
	buf[n] = '\0';
	if (changed)
		environ[i] = buf;
}

/* The entry the loader reads (the last of an environment that holds two) and the one getenv
 * finds, which a copy of the environment made through it keeps (since 0.2.51 both; the first
 * alone was) */
static void anchor_preload(void)
{
	static char first_buf[4096 + PATH_MAX];
	size_t i = 0, first = SIZE_MAX, last = SIZE_MAX;
	for (; self_known && environ && environ[i]; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) == 0) {
			first = first == SIZE_MAX ? i : first;
			last = i;
		}
	if (last != SIZE_MAX)
		anchor_entry(last, anchored_preload, sizeof(anchored_preload));
	if (first != last)
		anchor_entry(first, first_buf, sizeof(first_buf));
}

static int env_preloads_us(char *const envp[], int any_copy);
static int preloaded_by_env; /* this process's LD_PRELOAD named the tracer as it started */

/* /etc/ld.so.preload names this library: the loader preloads it in every program, whatever
 * the environment (its names split at spaces, tabs, line ends and colons, as the loader's).
 * Read once, as the tracer starts. */
static int file_preloads_us(void)
{
	char b[4096];
	int f = open("/etc/ld.so.preload", O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	ssize_t n = read(f, b, sizeof(b) - 1);
	close(f);
	if (n <= 0)
		return 0;
	b[n] = 0;
	for (const char *v = b; *v;) {
		v += strspn(v, " \t\n:");
		size_t k = strcspn(v, " \t\n:");
		if (k && names_us(v, k, &self_st, self_name))
			return 1;
		v += k;
	}
	return 0;
}

/* The LD_PRELOAD entry of envp the loader reads: the last one (an environment made by a
 * program's own execve can hold two; getenv finds the first). NULL: none. Since 0.2.51 (the
 * first was taken: a child was said traced, or left traced, by an entry its loader ignores). */
static char *last_preload(char *const envp[])
{
	char *last = NULL;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0)
			last = envp[i];
	return last;
}

void ckt_children_off(void)
{
	know_self();
	anchor_preload();
	/* (not where /etc/ld.so.preload preloads it too: a program started with any environment
	 * is traced then) */
	preloaded_by_env = self_known && env_preloads_us(environ, 0) && !file_preloads_us();
	if (ckt_config.children)
		return;
	if (!self_known) {
		ckt_log("warning: CUZKTRACE_CHILDREN=0: cannot find the tracer's own file; programs this one "
			"starts are traced too", NULL, NULL, NULL);
		return;
	}
	char *v = last_preload(environ);
	if (v) {
		size_t len = strlen(v);
		if (len >= sizeof(own_preload)) {
			ckt_log("warning: CUZKTRACE_CHILDREN=0: LD_PRELOAD is longer than 4 KiB; programs this "
				"one starts are traced too", NULL, NULL, NULL);
			return;
		}
		memcpy(own_preload, v, len + 1);
		/* the other libraries stay, in their order, separated by ':' */
		char *src = v + 11, *dst = v + 11;
		while (*src) {
			src += strspn(src, " :");
			size_t n = strcspn(src, " :");
			if (!n)
				break;
			if (!names_us(src, n, &self_st, self_name)) {
				if (dst != v + 11)
					*dst++ = ':';
				memmove(dst, src, n);
				dst += n;
			}
			src += n;
		}
		/* nothing else preloaded: the variable stays, empty (the loader takes that as none;
		 * taking the entry out of the array would leave a second NULL where code that walks
		 * past the environment looks for the auxiliary vector) */
		*dst = '\0';
		stripped = v;
		children_off = 1;
		return;
	}
}

/* envp's LD_PRELOAD names this library (any_copy: or another copy of it, names_tracer): the
 * image an exec with it starts would be traced */
static int env_preloads_us(char *const envp[], int any_copy)
{
	if (!self_known && (ckt_writer_pid() || !know_self()))
		return 0;
	const char *v = last_preload(envp);
	for (v = v ? v + 11 : ""; *v;) {
		v += strspn(v, " :");
		size_t n = strcspn(v, " :");
		if (!n)
			break;
		if (names_tracer(v, n, &self_st, self_name, any_copy))
			return 1;
		v += n;
	}
	return 0;
}

/* The set-user-ID line for the program an exec starts. path: the program; file: execvp's name
 * to search PATH for; fd: fexecve's descriptor (-1 none). */
static void say_if_secure_any(const char *path, const char *file, int fd)
{
	struct stat st;
	if (path)
		say_if_secure_path(path);
	else if (file)
		runnable_in_path(file);
	else if (fd >= 0 && fstat(fd, &st) == 0)
		say_if_secure(&st, NULL, fd);
}

/* An exec in a process that is not the traced one (a forked child of it, whose image the
 * trace does not follow; a vfork child): the line too, when the environment it passes would
 * trace the new image (since 0.2.27: through a shell, make or any fork and exec, such a
 * program ran untraced with no line; the traced process's own exec said it) */
/* An exec (or spawn) whose environment does not preload the tracer, where this process's did
 * (CUZKTRACE_CHILDREN=1): the program it starts runs untraced, its memory in no trace. A
 * harness's own environment for a command (Python's subprocess with env={...}, Rust's
 * Command::env_clear, env -i, a program that unsets LD_PRELOAD) did that without a word, so
 * that a run's report listed every trace but one process was simply missing (since 0.2.43).
 * Said for a program that exists and may be run (a search of PATH, or Python's loop of execve
 * over PATH's directories, says nothing for the names that are not there). No allocation: a
 * vfork child runs this. */
static CKT_NOINLINE void say_env_line(const char *path, const char *file, int fd)
{
	char buf[4096];
	const char *what = path ? (runnable(path) ? path : NULL) : file ? path_found(file, buf, sizeof(buf)) : NULL;
	if (!what && !(!path && !file && fd >= 0 && runnable_fd(fd)))
		return;
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: '");
	ckt_line_str(&l, what ? what : "(a descriptor)");
	ckt_line_str(&l, "' is started with an environment whose LD_PRELOAD does not name the tracer, "
			 "so the program it starts is not traced");
	if (defer_line)
		*defer_line = l;
	else
		ckt_line_emit(&l);
}

static void say_if_env_untraced(const char *path, const char *file, int fd, char *const envp[])
{
	if (ckt_config.children && preloaded_by_env && !env_preloads_us(envp, 1))
		say_env_line(path, file, fd); /* (its buffer not on the stack with env_preloads_us's) */
}

static void say_if_secure_child(const char *path, const char *file, int fd, char *const envp[])
{
	if (env_preloads_us(envp, 1))
		say_if_secure_any(path, file, fd);
	else
		say_if_env_untraced(path, file, fd, envp);
}

/* This process's exec passes on the entry the tracer shortened in place: LD_PRELOAD as it
 * was goes back, the new image being this process. An environment the program made otherwise
 * (env -i's cleared one, its own LD_PRELOAD for what it runs, a shell's own strings) is left as
 * it is. */
static int restore_preload(char *const envp[])
{
	for (size_t i = 0; children_off && envp && envp[i]; i++)
		if (envp[i] == stripped)
			return 1;
	return 0;
}

/* ---- the traced process a forked child's new image descends from (since 0.2.37) ----
 * The new image's tracer names its parent from /proc as it starts; when the process that
 * forked it has ended by then (a daemon's double fork, a shell's last command put in the
 * background, a launcher that forks and leaves), the kernel has given it to pid 1 or a
 * subreaper, which /proc names instead: its report read `started by pid 1`. So the exec of a
 * process that is not the traced one (a fork of it that did not exec, or a fork of such a
 * fork) passes CUZKTRACE_FORKED_BY=<pid>.<start>:<forker>:<key> (writer.c takes it): the
 * exec'ing process itself (a copy inherited by another process later is not its own), the
 * process that forked it, and the traced process's key. mem_pid: the process whose memory this
 * is, a fork of the traced process's (0: the traced process's own); fork_parent: the process
 * that forked it. A child made without fork's handlers (vfork, _Fork, clone) has the memory of
 * the process that made it. */
/* Room for the environment passed, on the stack: the exec of a vfork child may not allocate,
 * and a mapping of its own would stay in the parent's memory at each exec that succeeds. A
 * forked child has its own memory, and maps the room for a longer one. 1 KiB of pointers: a
 * child made by clone on a small stack of its own execs through these hooks too. */
#define CKT_CHILD_ENV_SMALL 128
struct child_env {
	size_t mapped; /* the entries of a mapping of ours (0: none) */
	char **v;
	char var[192];
	char *small[CKT_CHILD_ENV_SMALL];
};

/* envp, or a copy of it with CUZKTRACE_FORKED_BY in place of inherited ones when the exec of
 * this process, not the traced one, would trace the new image. No allocation, and nothing of
 * the tracer's written: a vfork child runs this in the parent's memory. Any failure passes
 * envp as it is (the new image names the parent /proc shows, as before). */
static char *const *child_env(struct child_env *ce, char *const envp[])
{
	const char *key = ckt_writer_process_key();
	pid_t me = getpid(), traced = ckt_writer_pid(), mine = mem_pid ? mem_pid : traced;
	ce->mapped = 0;
	ce->v = NULL;
	/* the traced process itself: its own pid, in its own memory (a fork's child in a pid
	 * namespace of its own can have the traced one's number, 1, as in nested `unshare -pf`;
	 * since 0.2.51) */
	if (!traced || (me == traced && !mem_pid) || !key[0] || strlen(key) > 72 || !env_preloads_us(envp, 0) ||
	    !ckt_exec_child_prefix(ce->var + 20, me))
		return envp;
	pid_t forker = me == mine ? fork_parent : mine;
	memcpy(ce->var, "CUZKTRACE_FORKED_BY=", 20);
	struct ckt_line l = {.len = 0};
	ckt_line_u64(&l, (uint64_t)forker);
	size_t at = strlen(ce->var);
	memcpy(ce->var + at, l.buf, l.len);
	ce->var[at + l.len] = ':';
	strcpy(ce->var + at + l.len + 1, key);
	size_t n = 0;
	while (envp && envp[n])
		n++;
	ce->v = ce->small;
	if (n + 2 > CKT_CHILD_ENV_SMALL) {
		long m = me == mine ? syscall(SYS_mmap, NULL, (n + 2) * sizeof(char *), PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
				    : -1;
		if (m == -1)
			return envp;
		ce->v = (char **)m;
		ce->mapped = n + 2;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "CUZKTRACE_FORKED_BY=", 20))
			ce->v[k++] = envp[i];
	ce->v[k++] = ce->var;
	ce->v[k] = NULL;
	return ce->v;
}

/* The exec with child_env's copy failed: the mapping goes, errno kept. 1 when the exec should
 * be tried again with envp as the program passed it (E2BIG: the added variable may be what
 * went over the kernel's limit). */
static int child_env_failed(struct child_env *ce)
{
	int e = errno;
	if (ce->mapped)
		syscall(SYS_munmap, ce->v, ce->mapped * sizeof(char *));
	errno = e;
	return ce->v && e == E2BIG;
}

/* The exec failed (the program may try another path: execvp-like loops do). Frees the
 * environment copy from exec_begin. */
static void after_failed_exec(char **e, int finished)
{
	static int said;
	if (e) { /* its last entries are ours (with_exec_from_guarded), their count after the NULL */
		size_t n = 0;
		while (e[n])
			n++;
		size_t ours = (size_t)(uintptr_t)e[n + 1];
		for (size_t k = n - ours; k < n; k++)
			ckt_free(e[k]);
		ckt_free(e);
	}
	if (finished_here && finished && !said++) {
		int err = errno;
		ckt_writer_await_helpers_gone(); /* ended without a join: gone before the program goes on */
		errno = err;
		ckt_log("warning: exec failed after the trace was finished; the rest of this process "
			"is not traced", NULL, NULL, NULL);
	}
}

/* envp plus CUZKTRACE_EXEC_FROM=<path> and CUZKTRACE_EXEC_PID=<pid>.<start>:<written>,
 * replacing inherited ones; NULL if out of memory. <path> is the name CUZKTRACE_OUT gives, not
 * the one we may have fallen back to: the new image compares it with its own expansion.
 * <written> is the file this image wrote, which the new image keeps (and names its own after:
 * a chain of execs keeps every trace). <pid> and <start> (its start time) are this process's,
 * which the new image keeps: a shell keeps the variables in its own copy of the environment
 * and passes them to every child it forks, and those replaced no image. (Two variables: a
 * tracer before 0.2.6 reads EXEC_FROM as the path alone.) CUZKTRACE_FORKED_BY (child_env), when
 * this process's tracer took one at start, goes on too. A copy, made before anything else:
 * the process's environment is never changed (a setenv here would free the array the caller
 * passed when it is environ itself, grown by the program's setenv). */
static char **with_exec_from_guarded(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	int restore = restore_preload(envp);
	/* CUZKTRACE_CHILDREN=0 and an environment of the program's making: the new image is not
	 * traced, and gets nothing of ours (the hooks pass envp as it is) */
	if (children_off && !restore)
		return NULL;
	/* nor an environment that does not preload the tracer (env -i, the program's own) where
	 * the environment is what preloaded it: the new image is not traced, and the variables
	 * would only be passed on to what it runs (since 0.2.51; env -i env printed two) */
	if (!restore && preloaded_by_env && !env_preloads_us(envp, 1))
		return NULL;
	char **e = ckt_malloc((n + 6) * sizeof(*e));
	const char *path = ckt_writer_requested_path(), *wrote = ckt_writer_path(), *fb = ckt_writer_forked_by();
	char *var = ckt_malloc(strlen(path) + 32), *pvar = ckt_malloc(strlen(wrote) + 80);
	char *pre = restore ? ckt_malloc(sizeof(own_preload)) : NULL;
	char *fvar = fb[0] ? ckt_malloc(strlen(fb) + 21) : NULL;
	if (!e || !var || !pvar || (restore && !pre) || (fb[0] && !fvar)) {
		ckt_free(e);
		ckt_free(var);
		ckt_free(pvar);
		ckt_free(pre);
		ckt_free(fvar);
		return NULL;
	}
	if (pre)
		strcpy(pre, own_preload);
	/* the process the tracer named after it at start (writer.c): its next image is the same
	 * process, and names it too */
	if (fvar) {
		strcpy(fvar, "CUZKTRACE_FORKED_BY=");
		strcat(fvar, fb);
	}
	strcpy(var, "CUZKTRACE_EXEC_FROM=");
	strcat(var, path);
	strcpy(pvar, "CUZKTRACE_EXEC_PID=");
	ckt_exec_pid_prefix(pvar + strlen(pvar), getpid());
	strcat(pvar, wrote);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "CUZKTRACE_EXEC_FROM=", 20) && strncmp(envp[i], "CUZKTRACE_EXEC_PID=", 19) &&
		    strncmp(envp[i], "CUZKTRACE_FORKED_BY=", 20) && (!pre || envp[i] != stripped))
			e[k++] = envp[i];
	if (pre) /* CUZKTRACE_CHILDREN=0: this process's next image is traced, as LD_PRELOAD was */
		e[k++] = pre;
	e[k++] = var;
	e[k++] = pvar;
	if (fvar)
		e[k++] = fvar;
	e[k] = NULL;
	e[k + 1] = (char *)(uintptr_t)(2 + !!pre + !!fvar); /* for after_failed_exec */
	return e;
}

/* Before the real exec: the environment copy (with_exec_from_guarded) and, when the exec may
 * start (finish), the trace finished (END record with reason exec, exit line). Every signal is
 * held meanwhile, the guard raised: a signal handler that ended the process (_exit, as a timer's
 * or SIGTERM's may) in that span found the guard raised, could not finish the trace, and the
 * trace was cut at its last flush (10 runs of 10 with a 1 ms timer and 100,000 environment
 * variables, tests/progs/sigflush.c). Held signals come when the mask is given back, before the
 * exec: the trace is complete by then. */
static char **exec_begin(char *const envp[], int finish)
{
	sigset_t old;
	ckt_hold_signals(&old); /* the copy is the tracer's: not the program's memory */
	char **e = with_exec_from_guarded(envp);
	if (finish && !finished_here) {
		/* without joining the tracer's threads, as at exit: a join frees a thread's stack
		 * under glibc's stack lock, which a set-ID call on another thread holds while it
		 * waits for every thread (seen: an exec stuck for good there, 2 runs in 39 of a
		 * program calling setuid on one thread and starting threads on others; and one
		 * stuck for 8.6 s); the exec ends them, and one that fails leaves them ended but
		 * not joined */
		ckt_writer_note_helpers();
		ckt_final_flush(CKT_END_EXEC, 1);
		finished_here = 1;
	}
	ckt_release_signals(&old);
	return e;
}

/* Each hook below: an exec that fails with E2BIG (arguments and environment over the kernel's
 * limit) may fail only for the two variables exec_begin adds, where the program's own call
 * would start: it is tried again as the program made it (the new image then finds this
 * image's trace by the process its header names, holds_this_process in writer.c). */

/* The real function may not be resolved yet: a library constructor can exec before anything
 * else called into us. Resolve them then; if one is still missing, fail as the call would. */
#define CKT_EXEC_REAL(name) CKT_REAL_OR(name, errno = ENOSYS; return -1)
/* the same, `fail` the statement that returns as the call would without the function */
#define CKT_REAL_OR(name, fail)                                                                    \
	do {                                                                                      \
		if (!ckt_real.name && atomic_load(&ckt_boot_state) == 0)                          \
			ckt_bootstrap();                                                          \
		if (!ckt_real.name) {                                                             \
			fail;                                                                     \
		}                                                                                 \
	} while (0)

CKT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	CKT_EXEC_REAL(execve);
	if (!is_tracer_process()) {
		struct child_env ce;
		say_if_secure_child(path, NULL, -1, envp);
		int rc = ckt_real.execve(path, argv, child_env(&ce, envp));
		return child_env_failed(&ce) ? ckt_real.execve(path, argv, envp) : rc;
	}
	int finish = runnable(path);
	if (finish) {
		say_if_secure_path(path);
		say_if_env_untraced(path, NULL, -1, envp);
	}
	char **e = exec_begin(envp, finish);
	int rc = ckt_real.execve(path, argv, e ? e : envp);
	if (e && rc < 0 && errno == E2BIG)
		rc = ckt_real.execve(path, argv, envp);
	after_failed_exec(e, finish);
	return rc;
}

CKT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	CKT_EXEC_REAL(execvpe);
	if (!is_tracer_process()) {
		struct child_env ce;
		say_if_secure_child(NULL, file, -1, envp);
		int rc = ckt_real.execvpe(file, argv, child_env(&ce, envp));
		return child_env_failed(&ce) ? ckt_real.execvpe(file, argv, envp) : rc;
	}
	int finish = runnable_in_path(file);
	if (finish)
		say_if_env_untraced(NULL, file, -1, envp);
	char **e = exec_begin(envp, finish);
	int rc = ckt_real.execvpe(file, argv, e ? e : envp);
	if (e && rc < 0 && errno == E2BIG)
		rc = ckt_real.execvpe(file, argv, envp);
	after_failed_exec(e, finish);
	return rc;
}

/* p is NULL, asked of an argument glibc's header declares nonnull: the compiler would drop
 * a plain test (and warns that it does), so p passes through an empty asm it cannot see into */
static int is_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

CKT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	CKT_EXEC_REAL(fexecve);
	/* glibc refuses these itself, before any exec (EINVAL): passed on untouched. Given the
	 * tracer's variables in place of a NULL envp, the call went through and ran the program
	 * the untraced call refuses; a NULL argv finished the trace before glibc refused it, and
	 * the process ran on untraced (tracer 0.2.49 and before) */
	if (fd < 0 || is_null(argv) || is_null(envp))
		return ckt_real.fexecve(fd, argv, envp);
	if (!is_tracer_process()) {
		struct child_env ce;
		say_if_secure_child(NULL, NULL, fd, envp);
		int rc = ckt_real.fexecve(fd, argv, child_env(&ce, envp));
		return child_env_failed(&ce) ? ckt_real.fexecve(fd, argv, envp) : rc;
	}
	int finish = runnable_fd(fd);
	struct stat st;
	if (finish && fstat(fd, &st) == 0)
		say_if_secure(&st, NULL, fd);
	if (finish)
		say_if_env_untraced(NULL, NULL, fd, envp);
	char **e = exec_begin(envp, finish);
	int rc = ckt_real.fexecve(fd, argv, e ? e : envp);
	if (e && rc < 0 && errno == E2BIG)
		rc = ckt_real.fexecve(fd, argv, envp);
	after_failed_exec(e, finish);
	return rc;
}

/* execveat: as execve for a path (relative to dirfd), as fexecve for the descriptor itself
 * (AT_EMPTY_PATH and an empty path). glibc's is the system call: not through the hooks above */
static int exec_self(const char *path, int flags)
{
	return (flags & AT_EMPTY_PATH) && path && !*path;
}

/* the file path names, for the set-user-ID line: path itself when absolute or relative to the
 * working directory, else through /proc's link to dirfd (in buf); NULL when none fits */
static const char *exec_at_path(int dirfd, const char *path, char *buf, size_t cap)
{
	if (!path || !*path)
		return NULL;
	if (*path == '/' || dirfd == AT_FDCWD)
		return path;
	int n = snprintf(buf, cap, "/proc/self/fd/%d/%s", dirfd, path);
	return n > 0 && (size_t)n < cap ? buf : NULL;
}

CKT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	CKT_EXEC_REAL(execveat);
	char buf[PATH_MAX];
	int itself = exec_self(path, flags);
	const char *named = itself ? NULL : exec_at_path(dirfd, path, buf, sizeof(buf));
	if (!is_tracer_process()) {
		struct child_env ce;
		say_if_secure_child(named, NULL, itself ? dirfd : -1, envp);
		int rc = ckt_real.execveat(dirfd, path, argv, child_env(&ce, envp), flags);
		return child_env_failed(&ce) ? ckt_real.execveat(dirfd, path, argv, envp, flags) : rc;
	}
	int finish = itself ? runnable_fd(dirfd) : runnable_at(dirfd, path, flags);
	if (finish) {
		say_if_secure_any(named, NULL, itself ? dirfd : -1);
		say_if_env_untraced(named, NULL, itself ? dirfd : -1, envp);
	}
	char **e = exec_begin(envp, finish);
	int rc = ckt_real.execveat(dirfd, path, argv, e ? e : envp, flags);
	if (e && rc < 0 && errno == E2BIG)
		rc = ckt_real.execveat(dirfd, path, argv, envp, flags);
	after_failed_exec(e, finish);
	return rc;
}

/* execv and execvp: environ, with our variable, through execve and execvpe */
CKT_EXPORT int execv(const char *path, char *const argv[])
{
	CKT_EXEC_REAL(execv);
	if (!is_tracer_process() || !ckt_real.execve) {
		struct child_env ce;
		say_if_secure_child(path, NULL, -1, environ);
		char *const *e = ckt_real.execve ? child_env(&ce, environ) : environ;
		if (e == environ)
			return ckt_real.execv(path, argv);
		int rc = ckt_real.execve(path, argv, e);
		return child_env_failed(&ce) ? ckt_real.execv(path, argv) : rc;
	}
	int finish = runnable(path);
	if (finish) {
		say_if_secure_path(path);
		say_if_env_untraced(path, NULL, -1, environ);
	}
	char **e = exec_begin(environ, finish);
	int rc = ckt_real.execve(path, argv, e ? e : environ);
	if (e && rc < 0 && errno == E2BIG)
		rc = ckt_real.execve(path, argv, environ);
	after_failed_exec(e, finish);
	return rc;
}

CKT_EXPORT int execvp(const char *file, char *const argv[])
{
	CKT_EXEC_REAL(execvp);
	if (!is_tracer_process() || !ckt_real.execvpe) {
		struct child_env ce;
		say_if_secure_child(NULL, file, -1, environ);
		char *const *e = ckt_real.execvpe ? child_env(&ce, environ) : environ;
		if (e == environ)
			return ckt_real.execvp(file, argv);
		int rc = ckt_real.execvpe(file, argv, e);
		return child_env_failed(&ce) ? ckt_real.execvp(file, argv) : rc;
	}
	int finish = runnable_in_path(file);
	if (finish)
		say_if_env_untraced(NULL, file, -1, environ);
	char **e = exec_begin(environ, finish);
	int rc = ckt_real.execvpe(file, argv, e ? e : environ);
	if (e && rc < 0 && errno == E2BIG)
		rc = ckt_real.execvpe(file, argv, environ);
	after_failed_exec(e, finish);
	return rc;
}

/* posix_spawn and posix_spawnp (Rust's Command, many C++ libraries): glibc makes the child and
 * its exec inside itself, out of the hooks' sight, so a statically linked or set-user-ID
 * program started so ran untraced without the line an exec of it says (until 0.2.37). The
 * line is said here, in the caller, as for a forked child's exec: when the environment passed
 * would trace the new program (say_if_secure_child), once the spawn has started it.
 * posix_spawnp searches the caller's PATH, as glibc does. The program is a child: this process
 * and its trace go on. The caller's errno is kept (the look at the file opens it). Not seen: a
 * file action that changes directory before a relative path is run
 * (posix_spawn_file_actions_addchdir_np): the path is looked at from the caller's directory.
 * spawn_line: the line for the program a spawn starts (path or PATH's file), into l. */
static void spawn_line(struct ckt_line *l, const char *path, const char *file, char *const envp[])
{
	int saved_errno = errno;
	struct ckt_line *was = defer_line; /* (a spawn from a signal handler inside another) */
	defer_line = l;
	say_if_secure_child(path, file, -1, envp);
	defer_line = was;
	errno = saved_errno;
}

/* ... said once the program has started (glibc returns 0 only then): a spawn that fails, by a
 * file action or the exec, starts nothing (since the second build of 0.2.37) */
static int spawn_said(int rc, struct ckt_line *l)
{
	int saved_errno = errno;
	if (rc == 0 && l->len)
		ckt_line_emit(l);
	errno = saved_errno;
	return rc;
}

CKT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *acts,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	CKT_REAL_OR(posix_spawn, return ENOSYS); /* (an error number, errno untouched) */
	struct ckt_line l = {.len = 0};
	spawn_line(&l, path, NULL, envp);
	return spawn_said(ckt_real.posix_spawn(pid, path, acts, attr, argv, envp), &l);
}

CKT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *acts,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	CKT_REAL_OR(posix_spawnp, return ENOSYS);
	struct ckt_line l = {.len = 0};
	spawn_line(&l, NULL, file, envp);
	return spawn_said(ckt_real.posix_spawnp(pid, file, acts, attr, argv, envp), &l);
}

/* execl, execle, execlp: glibc's gather their arguments and call its internal execve (and
 * execvpe), out of the hooks' reach: the old image's trace was cut at its last flush, without
 * its END (a short run's held no event). Gathered here as glibc does, and passed to the hooks
 * above: into `small` (CKT_EXECL_SMALL entries on the caller's stack; glibc's array is on the
 * stack too), or past that into a mapping of its own (a system call: execl is async-signal-
 * safe, and may run in a child made without fork's handlers; in a vfork child the mapping
 * stays in the parent when the exec succeeds); NULL, errno set, when it cannot be made. For
 * execle, *envp the environment after the arguments' NULL. */
#define CKT_EXECL_SMALL 64
static char **execl_argv(const char *arg, va_list ap, char ***envp, char **small, size_t *count)
{
	va_list c;
	size_t n = 1;
	va_copy(c, ap);
	while (va_arg(c, const char *))
		n++;
	va_end(c);
	char **argv = small;
	if (n >= CKT_EXECL_SMALL) {
		long m = syscall(SYS_mmap, NULL, (n + 1) * sizeof(*argv), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == -1) /* (errno set) */
			return NULL;
		argv = (char **)m;
	}
	argv[0] = (char *)arg;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char **);
	*count = n;
	return argv;
}

/* the exec failed: a mapping for its array of n + 1 goes, errno kept */
static int execl_failed(char **argv, char **small, size_t n, int rc)
{
	int e = errno;
	if (argv != small)
		syscall(SYS_munmap, argv, (n + 1) * sizeof(*argv));
	errno = e;
	return rc;
}

/* name(first, arg, ...): the arguments gathered (and for execle the environment after them,
 * WITH_ENV), then `call`, which sees first, argv and envp */
#define CKT_EXECL_HOOK(name, first, with_env, call)                                               \
	CKT_EXPORT int name(const char *first, const char *arg, ...)                              \
	{                                                                                         \
		va_list ap;                                                                       \
		char **envp = environ, *small[CKT_EXECL_SMALL];                                   \
		size_t n;                                                                         \
		va_start(ap, arg);                                                                \
		char **argv = execl_argv(arg, ap, with_env ? &envp : NULL, small, &n);           \
		va_end(ap);                                                                       \
		return argv ? execl_failed(argv, small, n, call) : -1;                            \
	}
CKT_EXECL_HOOK(execl, path, 0, execve(path, argv, envp))
CKT_EXECL_HOOK(execle, path, 1, execve(path, argv, envp))
CKT_EXECL_HOOK(execlp, file, 0, execvp(file, argv))

/* One pause at a time, whatever thread asks (two threads that stopped the helpers at once
 * joined one writer twice, or waited for good for a pause the other had ended): the owner's
 * tid, held from before the helpers stop until they run again. A signal handler on the
 * owner's thread does not wait for it; an owner thread that is gone (it ended by pthread_exit
 * from a handler in the middle) is taken over; a forked child starts with none. (A handler's
 * siglongjmp out of a paused call leaves it held: see README, Limits.) Cancellation is off while held: the pause's sleeps and join are
 * cancellation points the real calls do not have, and a cancelled owner left the writer
 * stopped for good and every later pause waiting. */
static _Atomic pid_t pause_owner;

struct pause_hold {
	int held, paused, cancel;
};

void ckt_exec_after_fork_child(void)
{
	atomic_store(&pause_owner, 0);
	atomic_store(&child_bytes, 0);
	atomic_store(&ckt_child_untraced, atomic_load(&child_note) != NULL);
	fork_parent = mem_pid ? mem_pid : ckt_writer_pid(); /* (child_env) */
	mem_pid = getpid();
}

int ckt_exec_own_memory(void)
{
	pid_t me = getpid();
	/* (a child that shares the memory in a pid namespace of its own can have the traced
	 * process's pid number: pid 1 of a container, CLONE_VM|CLONE_NEWPID) */
	return mem_pid ? me == mem_pid : me == ckt_writer_pid() && ckt_writer_same_pid_ns();
}

static int pause_take(struct pause_hold *h)
{
	int e = errno;
	pid_t me = (pid_t)syscall(SYS_gettid), owner = 0;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &h->cancel);
	while (!atomic_compare_exchange_weak(&pause_owner, &owner, me)) {
		if (owner == me) {
			pthread_setcancelstate(h->cancel, NULL);
			errno = e;
			return 0;
		}
		if (owner && syscall(SYS_tgkill, getpid(), owner, 0) != 0 && errno == ESRCH)
			continue; /* gone: the next try takes it over from owner */
		owner = 0;
		ckt_nap(100000);
	}
	h->held = 1;
	errno = e;
	return 1;
}

static void pause_give(struct pause_hold *h)
{
	if (!h->held)
		return;
	h->held = 0;
	atomic_store(&pause_owner, 0);
	pthread_setcancelstate(h->cancel, NULL);
}

/* unshare of a user namespace (and of what only one thread may unshare) and setns into a user
 * or mount namespace, or of a type the kernel finds out from the descriptor, fail with EINVAL
 * in a process with several threads, and the tracer's threads make every process one: when
 * the program has no thread of its own besides the caller, they stop for the call (after
 * writing what was recorded) and start again (ckt_helpers_pause). Not from inside a hook of ours (a signal handler that interrupted one, perhaps
 * inside the real malloc with its arena locked: the join and the new thread allocate), nor in
 * a process that is not the traced one (a forked child). No guard raised meanwhile: a signal
 * handler that allocates is traced (or counted lost while the writer is down);
 * ckt_helpers_resume raises it where threads are created. */
static void single_threaded_call(struct pause_hold *h)
{
	if (ckt_tls.guard || !is_tracer_process() || !pause_take(h))
		return;
	h->paused = ckt_helpers_pause(1);
	if (!h->paused)
		pause_give(h);
}

static void after_single_threaded_call(struct pause_hold *h)
{
	int e = errno;
	if (h->paused)
		ckt_helpers_resume();
	pause_give(h);
	errno = e;
}

/* A set-ID call that needs the capability cap: the helpers stop for it when their effective
 * cap is not the caller's. Nothing is held when nothing differs and no pause is under way (a
 * handler's siglongjmp out of the call would leave the hold behind, every other thread's next
 * set-ID call waiting for good); a pause under way is waited for, then looked at again (its
 * old writer may still run, with other capabilities, while ckt_helpers_creds_differ, seeing
 * the writer stopped, says none differ: glibc aborted). */
static void setxid_begin(int cap, struct pause_hold *h)
{
	if (ckt_tls.guard || !is_tracer_process() ||
	    (!atomic_load(&pause_owner) && !ckt_helpers_creds_differ(cap)) || !pause_take(h))
		return;
	h->paused = ckt_helpers_creds_differ(cap) && ckt_helpers_pause(0);
	if (!h->paused)
		pause_give(h);
}

CKT_EXPORT int unshare(int flags)
{
	CKT_EXEC_REAL(unshare);
	if (!(flags & (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)))
		return ckt_real.unshare(flags);
	struct pause_hold h = {0};
	single_threaded_call(&h);
	int rc = ckt_real.unshare(flags);
	after_single_threaded_call(&h);
	return rc;
}

CKT_EXPORT int setns(int fd, int nstype)
{
	CKT_EXEC_REAL(setns);
	if (nstype && !(nstype & (CLONE_NEWUSER | CLONE_NEWNS)))
		return ckt_real.setns(fd, nstype);
	struct pause_hold h = {0};
	single_threaded_call(&h);
	int rc = ckt_real.setns(fd, nstype);
	after_single_threaded_call(&h);
	return rc;
}

/* glibc makes setuid, setgid and their kin, and setgroups, act in every thread of the process
 * (its SIGSETXID broadcast: credentials are per thread in the kernel) and aborts the process
 * when the threads' results differ. Capabilities are per thread too, and so is
 * PR_SET_KEEPCAPS: a program that keeps its capabilities across setresuid and then calls
 * setgroups (setpriv --reuid=nobody --clear-groups, libcap-ng's capng_change_id) left the
 * tracer's threads without the capability its own thread had kept, and glibc aborted it
 * (SIGABRT; single-threaded untraced, it ran). When a tracer thread's capabilities are not the
 * caller's, they stop for the call (after writing what was recorded) and start again from
 * the caller, with its credentials. Program threads of other credentials are the program's
 * own (untraced, glibc would abort the same). */
#define CKT_SETXID(name, cap, params, args)                                                       \
	CKT_EXPORT int name params                                                                \
	{                                                                                         \
		CKT_EXEC_REAL(name);                                                              \
		struct pause_hold h = {0};                                                        \
		setxid_begin(cap, &h);                                                            \
		int rc = ckt_real.name args;                                                      \
		after_single_threaded_call(&h);                                                   \
		return rc;                                                                        \
	}
CKT_SETXID(setuid, CAP_SETUID, (uid_t u), (u))
CKT_SETXID(setgid, CAP_SETGID, (gid_t g), (g))
CKT_SETXID(seteuid, CAP_SETUID, (uid_t u), (u))
CKT_SETXID(setegid, CAP_SETGID, (gid_t g), (g))
CKT_SETXID(setreuid, CAP_SETUID, (uid_t r, uid_t e), (r, e))
CKT_SETXID(setregid, CAP_SETGID, (gid_t r, gid_t e), (r, e))
CKT_SETXID(setresuid, CAP_SETUID, (uid_t r, uid_t e, uid_t s), (r, e, s))
CKT_SETXID(setresgid, CAP_SETGID, (gid_t r, gid_t e, gid_t s), (r, e, s))
CKT_SETXID(setgroups, CAP_SETGID, (size_t n, const gid_t *list), (n, list))
/* glibc's initgroups calls its internal setgroups, which no hook sees */
CKT_SETXID(initgroups, CAP_SETGID, (const char *user, gid_t group), (user, group))

/* _exit and _Exit end the process without exit handlers, so without the tracer's destructor:
 * the usual end of a shell (dash, Debian's /bin/sh, ends so), of Python's os._exit and of
 * many forked workers. The trace was cut at its last flush, up to CUZKTRACE_FLUSH_MS of events
 * lost and no END record; it is finished here first, as exit does, also from a signal handler
 * that interrupted one of our hooks (see before_fast_exit for the exceptions), and not in a
 * vfork child or a child that is not traced (ckt_finish_exit: the trace is the parent's).
 * _exit is async-signal-safe, so this path joins no thread (pthread_join takes
 * glibc's thread-stack lock, which the interrupted code may hold: that hung for good) and
 * waits for the writer's last flush instead; if the interrupted code held a lock the writer
 * needs, the writer's 10 s progress limit ends the wait. Signals are blocked meanwhile: the
 * process is ending, and a handler must not run inside the final flush. */
/* The process ends: the trace is finished with every signal blocked (a handler must not run
 * inside the final flush); the mask stays so for the rest of the process's end. */
static void finish_signals_blocked(int reason)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	ckt_finish_process(reason);
}

/* The final flush needs more stack than a crash handler's alternate signal stack may have
 * (4 KiB is common; it took over 6.5 KiB): from one, an abort or _exit there, or a failed
 * assert's handler (SA_ONSTACK), ended with SIGSEGV and an empty trace. So the flush of a
 * process that ends by _exit, abort or assert runs on a stack of the tracer's own, mapped
 * then (the process is ending), whatever stack the thread is on: a stack set with
 * SS_AUTODISARM reads as none inside its handler. Each thread that ends the process so gets
 * its own (two at once: the one that lost a shared one flushed on its 4 KiB, SIGSEGV), with
 * its two contexts at the stack's base; every signal is blocked before the contexts are
 * taken (a signal let in as the flush returned wrote its frame over the interrupted
 * handler's on the alternate stack, and the process looped for good). */
struct fin_switch {
	ucontext_t back, ctx;
	int reason;
};
/* One such stack mapped ahead, on a program's own stack, once a thread sets an alternate
 * signal stack (the sigaltstack hook) or fails an assert (assert_arm): the first thread to
 * end the process takes it, and its handler's path maps nothing. On a CPU with AVX-512 the
 * kernel's signal frame takes 3.2 KiB of a 4 KiB alternate stack, and the handler's frames
 * with the map's call did not fit in the rest (assertonstack, and a crash handler's stack
 * under SIGSEGV: SIGSEGV at the stack's guard page, an empty trace). Address space only:
 * its pages are touched when it is used. */
static struct fin_switch *_Atomic fin_spare;
enum { FIN_STACK = 1 << 20 };

void ckt_finish_stack_ready(void)
{
	if (atomic_load(&fin_spare))
		return;
	struct fin_switch *m = ckt_ownmaps_map(FIN_STACK, 0), *none = NULL;
	if (m && !atomic_compare_exchange_strong(&fin_spare, &none, m))
		ckt_ownmaps_unmap(m, FIN_STACK);
}

/* Every signal but glibc's own two (a set-ID call's, a cancellation's), as sigfillset and
 * pthread_sigmask have it, in the kernel's 8 bytes: no 128-byte sigset_t in the frames of a
 * handler on a small alternate stack. */
static void block_signals_small(void)
{
	uint64_t all = ~(uint64_t)0 & ~((uint64_t)3 << 31);
	(void)syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
}


#if defined(__x86_64__)
static int finish_on_side(void *reason)
{
	finish_signals_blocked((int)(intptr_t)reason);
	return 0;
}
#endif

#if !defined(__x86_64__)
static __thread struct fin_switch *fin_cur;

static void finish_entry(void)
{
	finish_signals_blocked(fin_cur->reason);
}

/* On w's stack by ucontext (where there is no ckt_side_call); 0 when it could not switch. */
static CKT_NOINLINE int finish_by_context(struct fin_switch *w, int reason)
{
	if (getcontext(&w->ctx) != 0)
		return 0;
	w->reason = reason;
	w->ctx.uc_stack.ss_sp = w + 1;
	w->ctx.uc_stack.ss_size = FIN_STACK - sizeof(*w);
	w->ctx.uc_link = &w->back;
	makecontext(&w->ctx, finish_entry, 0);
	fin_cur = w;
	return swapcontext(&w->back, &w->ctx) == 0;
}
#endif

/* On x86_64 the switch is ckt_side_call's (stacks.c): a few bytes of the small stack, where
 * makecontext's frame alone did not fit under AVX-512's signal frame (altsegv: SIGSEGV). */
static void finish_any_stack(int reason)
{
	block_signals_small();
	struct fin_switch *w = atomic_exchange(&fin_spare, NULL);
	if (!w)
		w = ckt_ownmaps_map(FIN_STACK, 0);
#if defined(__x86_64__)
	if (w) {
		ckt_side_call(finish_on_side, (void *)(intptr_t)reason, (char *)w + FIN_STACK);
		return; /* signals stay blocked: the process is ending */
	}
#else
	if (w && finish_by_context(w, reason))
		return; /* signals stay blocked: the process is ending */
#endif
	finish_signals_blocked(reason);
}

/* apart from before_fast_exit: its line's buffer (1 KiB) must not be in that frame, which a
 * crash handler's 4 KiB alternate stack holds (assertonstack: SIGSEGV there) */
static CKT_NOINLINE void say_signal_in_lock(int sig)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: ");
	ckt_line_signal(&l, sig);
	ckt_line_str(&l, " ends the process while the tracer holds a lock of its own on that "
			 "thread: '");
	ckt_line_str(&l, ckt_writer_path());
	ckt_line_str(&l, "' ends at its last flush (it reads as truncated)");
	ckt_line_emit(&l);
}

/* reason: the END record's (CKT_END_ABORT: abort's, CKT_END_SIGNAL + n a signal's, else
 * _exit's) */
static CKT_NOINLINE void before_fast_exit(int reason)
{
	/* the traced process itself (not a vfork child), even when another thread has begun to
	 * finish the trace: ckt_finish_exit then waits for it, or this exit would cut it short */
	if (getpid() != ckt_writer_pid()) {
		ckt_child_untraced_exit(); /* a forked process that did not exec (its thread dead) */
		return;
	}
	if (ckt_tls.dead == 1 || finished_here)
		return;
	/* From a signal handler that interrupted one of our hooks (a SIGTERM handler calling
	 * _exit, the async-signal-safe way out, in a program that allocates all the time): the
	 * trace is finished as by exit (exit_claim): the event the hook was recording is lost,
	 * and it only held the horizon back. Before, the exit went on at once, the trace ending
	 * at its last flush without a word (9 runs in 10 of such a program). Not while the
	 * thread holds one of the tracer's mutexes, which finishing may need: then one line; nor
	 * inside the tracer's constructor (its own _exit under CUZKTRACE_STRICT=1, or a handler
	 * there), whose writer may be half started: as before, nothing. */
	if (ckt_tls.guard && !ckt_tls.awaiting_exit && ckt_fd_start_window_open())
		return;
	if (ckt_tls.guard && !ckt_tls.awaiting_exit && ckt_tls.mutexes) {
		if (atomic_load(&ckt_active) && ckt_end_signal((uint64_t)reason)) {
			say_signal_in_lock(ckt_end_signal((uint64_t)reason));
		} else if (atomic_load(&ckt_active)) {
			ckt_log(reason == CKT_END_ABORT ? "warning: abort from a signal handler that "
				"interrupted the tracer while it held a lock of its own: '" : "warning: _exit "
				"from a signal handler that interrupted the tracer while it held a lock of its "
				"own: '", ckt_writer_path(), "' ends at its last flush (it reads as truncated)",
				NULL);
		}
		return;
	}
	finish_any_stack(reason);
}

static __attribute__((noreturn)) void fast_exit(void (*real)(int), int status)
{
	ckt_end_here_or_wait();
	before_fast_exit(CKT_END_EXIT);
	if (real)
		real(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

CKT_EXPORT void _exit(int status)
{
	fast_exit(ckt_real._exit, status);
}

CKT_EXPORT void _Exit(int status)
{
	fast_exit(ckt_real._Exit, status);
}

/* abort ends the process by SIGABRT, which skips exit's handlers: a Rust program built with
 * panic = "abort" ends so at any panic, a C++ program at std::terminate. The trace ended at
 * its last flush, up to CUZKTRACE_FLUSH_MS of events lost (all of a short run's: "the trace
 * holds no event"). It is finished first, as _exit does, with END's reason CKT_END_ABORT,
 * once SIGABRT's action is to end the process (the default, or ignored: abort then restores
 * the default), after the program's handler, if it has one, ran and returned (below): the
 * trace must not stop while the program may go on (a longjmp out of the handler, a test
 * harness's). glibc's own aborts call its internal abort, which no hook sees: an assert's
 * is caught below; a heap check's (malloc_printerr) is not, and reads as truncated. */
/* SIGABRT's action as the program set it (the default while the tracer holds it) */
static int program_abrt(struct sigaction *sa)
{
	if (ckt_signal_held(SIGABRT, sa))
		return 0;
	return ckt_real_sigaction(SIGABRT, NULL, sa);
}

/* see ckt.h: from the handler of a signal whose default action ends the process */
void ckt_finish_at_signal(int reason)
{
	before_fast_exit(reason);
}

CKT_EXPORT void abort(void)
{
	ckt_signal_wait_if_ending();
	/* before the tracer has started (a library's constructor ahead of ours): the real abort
	 * first, which runs the program's handler as untraced */
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	struct sigaction sa;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGABRT);
	/* A handler of the program's runs first, once, as glibc's abort runs it: it may end the
	 * process itself (its _exit finishes the trace), leave by a jump (the program goes on,
	 * traced), or return; then the action is the default, as glibc's next step sets it, and
	 * the trace is finished before the real abort ends the process (a crash handler that
	 * logs and returns left the trace cut at its last flush). A handler that aborts again
	 * comes back here: a one-shot one (SA_RESETHAND) finds the default action; another
	 * recurses, as untraced. */
	if (ckt_real.abort && program_abrt(&sa) == 0 && sa.sa_handler != SIG_DFL &&
	    sa.sa_handler != SIG_IGN) {
		pthread_sigmask(SIG_UNBLOCK, &s, NULL);
		raise(SIGABRT);
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigfillset(&dfl.sa_mask);
		ckt_real_sigaction(SIGABRT, &dfl, NULL);
	}
	/* the action, whatever the flags: a one-shot handler (SA_RESETHAND) leaves SA_SIGINFO
	 * with SIG_DFL, and its second abort ends the process */
	if (program_abrt(&sa) == 0 && (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)) {
		ckt_end_here_or_wait();
		before_fast_exit(CKT_END_ABORT);
	}
	if (ckt_real.abort)
		ckt_real.abort();
	/* no real abort found: end as it would, the program's handler first */
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	raise(SIGABRT);
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	ckt_real_sigaction(SIGABRT, &dfl, NULL);
	raise(SIGABRT);
	for (;;)
		syscall(SYS_exit_group, 127);
}

/* assert: glibc's __assert_fail prints the message, then calls its internal abort, out of the
 * hook above's reach, so a C or C++ program ending at a failed assert left its trace cut at its
 * last flush (truncated; a short run's held no event). The program's SIGABRT action is lent
 * to assert_on_abrt for that abort (assert_arm): it puts the program's action back, runs the
 * program's handler as the kernel would have (which may leave by a jump, the program going
 * on traced, or end the process itself), and when that returns, or there was none, finishes
 * the trace as abort does; glibc's abort then sets the default action and ends the process.
 * One assert at a time lends the action (two at once: the second would lend ours; it waits);
 * not where the tracer is not tracing, nor in a vfork child. */
static struct sigaction assert_prog; /* the program's SIGABRT action, lent */
static atomic_int assert_lent;

/* The program's handler of SIGABRT on its alternate stack, as the kernel would have run it
 * (x86_64: ckt_side_call; elsewhere the tracer's handler itself runs there) */
struct abrt_call {
	void (*handler)(int);
	int flags, sig;
	siginfo_t *si;
	void *uc;
};

static int abrt_call_run(void *arg)
{
	const struct abrt_call *c = arg;
	if (c->flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))(void *)c->handler)(c->sig, c->si, c->uc);
	else
		c->handler(c->sig);
	return 0;
}

/* Where the program's handler starts on its alternate stack (x86_64: SA_ONSTACK, one set, the
 * thread not on it when the signal came: uc_stack is the kernel's record of it then), or 0 to
 * run it here: below the room the kernel's frame for this signal takes, as the kernel would
 * have placed it (the frame the kernel built for the tracer's handler on the thread's stack:
 * from the return address under uc to the end of its FPU state, whose size the kernel writes
 * into the state's software bytes). Given the whole stack, a handler that needs more than the
 * room left under the kernel's frame ran where untraced it ended with SIGSEGV (a 4 KiB stack
 * whose handler calls _exit through the PLT: status 5 traced, 139 untraced). A stack smaller
 * than that frame, where the kernel ends the process untraced, runs it here. */
static uintptr_t abrt_alt_top(int flags, const void *uc)
{
#if defined(__x86_64__)
	const ucontext_t *u = uc;
	const stack_t *ss = &u->uc_stack;
	if (!(flags & SA_ONSTACK) || (ss->ss_flags & (SS_DISABLE | SS_ONSTACK)) || !u->uc_mcontext.fpregs)
		return 0;
	const uint8_t *fp = (const uint8_t *)u->uc_mcontext.fpregs;
	uint32_t sw[2]; /* struct _fpx_sw_bytes at byte 464: magic1, extended_size */
	memcpy(sw, fp + 464, sizeof(sw));
	uintptr_t end = (uintptr_t)fp + (sw[0] == 0x46505853u ? sw[1] : 512), start = (uintptr_t)uc - 8;
	uintptr_t frame = end > start ? end - start : 0, top = (uintptr_t)ss->ss_sp + ss->ss_size;
	if (frame + 256 > ss->ss_size)
		return 0;
	return (top - frame) & ~(uintptr_t)15;
#else
	(void)flags;
	(void)uc;
	return 0;
#endif
}

/* runs with every signal blocked (assert_arm): a program's timer signal handled on the same
 * small alternate stack, let in here, nested a second signal frame under this one, which did
 * not fit (the kernel's SIGSEGV, 1 run in 200 with a 200 us timer). The program's handler runs
 * under the mask the kernel would have given it; around it, nothing is let in. On x86_64
 * (since 0.2.37) this handler runs on the thread's own stack, and the program's handler on
 * its alternate stack under the room the kernel's frame takes, as the kernel would have
 * placed it (abrt_alt_top): a timer's signal that came while every signal was blocked here is
 * let in on the thread's stack, and its handler runs on the alternate stack's top and returns
 * before the program's handler starts there.
 * With this handler's frame on a 4 KiB alternate stack, under the kernel's 3.3 KiB frame
 * (AVX-512), that signal nested a second frame, which did not fit: SIGSEGV, about 1 run in 400
 * (abortend assertflood; 8 and 11 in 400 under load, where the program's own race, a signal
 * during its handler, ends 12 runs in 4,000 so untraced and none traced now). */
static void assert_on_abrt(int sig, siginfo_t *si, void *uc)
{
	/* assert_prog is not copied here: this frame may be on a 4 KiB alternate stack (the
	 * assert came on it, or not x86_64; only this thread's assert uses it until the action
	 * is lent again) */
	ckt_real_sigaction(SIGABRT, &assert_prog, NULL);
	int flags = assert_prog.sa_flags;
	void (*handler)(int) = assert_prog.sa_handler;
	/* the kernel's mask for the handler: the interrupted one, the action's, and the signal
	 * itself unless SA_NODEFER; a jump out keeps it, as untraced (the kernel's 8 bytes of
	 * each: see block_signals_small) */
	uint64_t mask;
	memcpy(&mask, &((ucontext_t *)uc)->uc_sigmask, sizeof(mask));
	uint64_t act;
	memcpy(&act, &assert_prog.sa_mask, sizeof(act));
	mask |= act;
	if (!(flags & SA_NODEFER))
		mask |= (uint64_t)1 << (sig - 1);
	/* the kernel resets a one-shot action as it runs it (its flags kept), to the tracer's
	 * handler: the handler's raise of SIGABRT again finishes the trace */
	if (handler != SIG_DFL && handler != SIG_IGN && (flags & SA_RESETHAND))
		ckt_signal_fired(SIGABRT, &assert_prog);
	atomic_store(&assert_lent, 0); /* a later assert lends it again, if the handler jumps out */
	if (handler != SIG_DFL && handler != SIG_IGN) {
		struct abrt_call c = {handler, flags, sig, si, uc};
		uintptr_t top = abrt_alt_top(flags, uc);
		if (top) {
			/* the pages the switch lands on, present before any signal is let in: the
			 * code run there and the stack under top. A page fault on the alternate stack
			 * (this file's code there not yet run, in default mode), with the timer's
			 * signal pending at its return, nested that signal's frame there, which did
			 * not fit (assertflood: SIGSEGV at abrt_call_run's first instruction, 1 run in
			 * 400; untraced the kernel writes its frame there itself) */
			(void)*(volatile const unsigned char *)(uintptr_t)abrt_call_run;
			(void)*(volatile const unsigned char *)(uintptr_t)handler;
			volatile unsigned char *below = (volatile unsigned char *)(top - 64);
			*below = *below;
		}
		(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, 8);
#if defined(__x86_64__)
		if (top)
			ckt_side_call(abrt_call_run, &c, (void *)top);
		else
#endif
			abrt_call_run(&c);
		block_signals_small();
	}
	ckt_end_here_or_wait(); /* (another thread's _exit meanwhile took the status) */
	before_fast_exit(CKT_END_ABORT);
}

static void assert_arm(void)
{
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!atomic_load(&ckt_active) || getpid() != ckt_writer_pid())
		return;
	/* the tracer holds SIGABRT (the program left it at the default): glibc's abort comes to
	 * the tracer's handler (hooks_signal.c), nothing to lend */
	struct sigaction view;
	int h = ckt_signal_held(SIGABRT, &view);
	if (h == 1)
		return;
	/* another thread's assert holds the action: it is finishing the trace, and its process
	 * ends (two at once: the second's raise ended the process in the middle of the first's
	 * final flush, 9 runs in 10); or its handler jumps out, and this one lends it next. At
	 * most 10 s (a handler that never returns), then as untraced. */
	for (int i = 0; atomic_exchange(&assert_lent, 1); i++)
		if (i == 10000)
			return;
		else
			ckt_nap(1000000);
	struct sigaction ours;
	/* a one-shot handler the tracer runs (hooks_signal.c): the program's action */
	if (h == 2)
		assert_prog = view;
	else if (ckt_real_sigaction(SIGABRT, NULL, &assert_prog) != 0) {
		atomic_store(&assert_lent, 0);
		return;
	}
	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = assert_on_abrt;
	/* every signal blocked while it runs (the program's handler gets its own mask there);
	 * on x86_64 the thread's stack, the program's handler put on its alternate stack by
	 * assert_on_abrt; elsewhere the program's stack, as its handler runs there */
	sigfillset(&ours.sa_mask);
#if !defined(__x86_64__)
	if (assert_prog.sa_handler != SIG_DFL && assert_prog.sa_handler != SIG_IGN)
		ours.sa_flags = assert_prog.sa_flags & SA_ONSTACK;
#endif
	ours.sa_flags |= SA_SIGINFO;
	ckt_finish_stack_ready(); /* the stack the trace is finished on (see fin_spare) */
	ckt_real_sigaction(SIGABRT, &ours, NULL);
}

CKT_EXPORT void __assert_fail(const char *assertion, const char *file, unsigned int line,
			      const char *function)
{
	assert_arm();
	if (ckt_real.__assert_fail)
		ckt_real.__assert_fail(assertion, file, line, function);
	abort();
}

CKT_EXPORT void __assert_perror_fail(int errnum, const char *file, unsigned int line,
				     const char *function)
{
	assert_arm();
	if (ckt_real.__assert_perror_fail)
		ckt_real.__assert_perror_fail(errnum, file, line, function);
	abort();
}

CKT_EXPORT void __assert(const char *assertion, const char *file, int line)
{
	assert_arm();
	if (ckt_real.__assert)
		ckt_real.__assert(assertion, file, line);
	abort();
}

/* exit from two threads at once: each runs exit handlers, only one of them the tracer's
 * destructor, and the other's exit ends with glibc's own _exit, out of the hooks' reach,
 * which cut the first one's final flush short. glibc (before 2.41) lets both walk the one
 * list of exit handlers, each taking the next one. The tracer's destructor runs from
 * _dl_fini, and exit_last, registered at start before _dl_fini was (the library's
 * constructor runs before __libc_start_main registers it), is the handler after it: whichever
 * thread takes exit_last (the exit's owner too) waits there until the trace is finished (as
 * long as that progresses; at most 10 s while no thread has begun it, then it finishes the
 * trace itself, with a warning). So a second exit goes on at once, as untraced: it runs the handlers the first one
 * has not reached (their frees traced), _dl_fini too when the first is blocked before it, and
 * cannot end the process while the other thread is in the final flush: the only thread that
 * can find the list empty then is the one waiting in exit_last. (A second exit that finished
 * the trace at once dropped the frees of those handlers; one that waited at its start waited
 * 10 s behind a first exit blocked in a handler.) A third exit could find the list empty
 * while the first flushes: it waits at its start, as glibc 2.41 and later make every exit
 * after the first wait. A return from main is glibc's own call to exit, which this hook does
 * not see: ckt_exit_main_watch covers it.
 * exit (not _exit) in a vfork child, undefined by POSIX, runs with glibc the parent's exit
 * handlers in the parent's memory: the main thread's thread_local destructors (ours among
 * them), _dl_fini with the tracer's destructor, and marks the list done, so the parent's own
 * exit or return from main runs none of them and its trace ended cut short, without a word
 * (tests/progs/vforkexit.c). Such a child (kcmp: it shares the traced memory) ends with
 * _exit instead, as a vfork child must, with one warning line. Where kcmp cannot tell, the
 * child's exit runs as without the tracer; the tracer's destructor, run in the child, says
 * the trace may end cut short, and notes it (ckt_exit_fini_elsewhere): a later exit of the
 * parent then finishes the trace when it claims the exit. The same when the tracer could not
 * register exit_last (a vfork child's exit before the tracer's constructor left the list
 * done). An exit before __libc_start_main registered _dl_fini (a constructor of a library
 * initialized after the tracer calls it) runs no tracer destructor either: exit_last, in the
 * exiting thread, finds the trace not finished and finishes it. */
static atomic_int exit_owner, exit_second, exit_quick_first, exit_last_armed, fini_elsewhere;

void ckt_exit_fini_elsewhere(void)
{
	atomic_store(&fini_elsewhere, 1);
}

/* Waits for the trace to be finished by another thread; after 10 s in which none has begun
 * to, finishes it (a blocked exit handler or destructor may never let the first exit reach
 * the tracer's destructor). */
static void exit_await_or_finish(void)
{
	static atomic_int said;
	struct ckt_tls *t = &ckt_tls;
	/* A signal handler that calls _exit meanwhile (SIGTERM's, often) would end the process
	 * under another thread's final flush, or before any: this wait holds no lock and changes
	 * nothing, so that _exit finishes the trace as any other (before_fast_exit). Marked
	 * around the guard, so that no signal finds the guard raised without the mark. */
	t->awaiting_exit = 1;
	atomic_signal_fence(memory_order_seq_cst); /* the guard is a plain int: keep the order */
	t->guard++;
	int rc = ckt_writer_await_finish();
	t->guard--;
	atomic_signal_fence(memory_order_seq_cst);
	t->awaiting_exit = 0;
	if (rc != 0)
		return;
	/* several may give up at once: one line; the final flush is one thread's, the others
	 * wait for it there. None goes on to finish before the line is out: the one that took
	 * the line, preempted before writing it while another finished the trace and ended the
	 * process, left none (8 exits giving up at once: 1 run of 6 in a test suite's run, once;
	 * every run with a 300 ms sleep put there) */
	int expect = 0;
	if (atomic_compare_exchange_strong(&said, &expect, 1)) {
		ckt_log("warning: another thread's exit has not reached the tracer's destructor in 10 "
			"s (an exit handler or destructor that blocks?); this exit finishes the trace",
			NULL, NULL, NULL);
		atomic_store(&said, 2);
	} else /* a write to stderr that blocks (a full pipe) holds the others 1 s at most */
		for (int i = 0; i < 1000 && atomic_load(&said) == 1; i++)
			ckt_nap(1000000);
	ckt_finish_exit();
}

static void exit_last(void)
{
	/* a child that shares or copied the memory (vfork, fork) runs it too: not its trace */
	if (getpid() != ckt_writer_pid())
		return;
	int owner = atomic_load(&exit_owner);
	if ((!owner || owner == (int)syscall(SYS_gettid)) && !ckt_writer_finishing())
		ckt_finish_exit(); /* no _dl_fini ran before: see above */
	else /* the owner too: the other exit may have taken _dl_fini and be in the final flush
	      * (tests/progs/ownerlast.c: cut short every time when the owner went on) */
		exit_await_or_finish();
}

extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

static void exit_last_cxa(void *arg)
{
	(void)arg;
	exit_last();
}

/* quick: for quick_exit (see there), whose handlers are the at_quick_exit list: no second
 * exit goes on there, and the tracer's own handler may be missing or run elsewhere */
static void exit_claim(int quick)
{
	struct ckt_tls *t = &ckt_tls;
	pid_t tp = ckt_writer_pid();
	/* An exit from a signal handler that interrupted one of our hooks (the guard raised)
	 * claims too: each of several threads' SIGTERM handlers calling exit while they allocated
	 * skipped the claim here, so a third one found glibc's list of exit handlers empty and
	 * ended the process under the final flush of the one that ran the tracer's destructor,
	 * without a word (4 threads: cut short in 20 runs of 20). Claiming takes no lock, and an
	 * event the handler interrupted only holds the horizon back. But such a thread must not
	 * wait for another's exit while it holds a mutex of the tracer that the other's exit
	 * handlers may need (a program's handler ending a phase: 10 s, then a warning that blamed
	 * the program; and the exit status changed), nor in quick_exit, whose own handler finishes
	 * the trace or waits in finish() (a later quick_exit waited for an exit whose handler
	 * joined its thread: 10 s): those go on as untraced, as before. The guard is also left
	 * raised after a final flush, and finishing again does nothing. */
	if (t->dead == 1 || !tp || getpid() != tp)
		return;
	if (t->guard && !t->awaiting_exit && (quick || t->mutexes))
		return;
	if (t->awaiting_exit) {
		/* a signal handler's exit on a thread whose exit waits in exit_last (which it
		 * took): nothing would wait for the trace any more; finish it first, as _exit does */
		finish_signals_blocked(CKT_END_EXIT);
		return;
	}
	int me = (int)syscall(SYS_gettid), expect = 0;
	if (atomic_compare_exchange_strong(&exit_owner, &expect, me) || expect == me) {
		if (quick) { /* the first quick_exit: later ones wait (see quick_exit) */
			expect = 0;
			atomic_compare_exchange_strong(&exit_quick_first, &expect, me);
		}
		/* no handler or destructor of the tracer will run: see above */
		if (quick ? !atomic_load(&ckt_quick_armed) || atomic_load(&ckt_quick_elsewhere)
			  : atomic_load(&fini_elsewhere) || !atomic_load(&exit_last_armed))
			ckt_finish_exit();
		return;
	}
	expect = 0;
	if (!quick && atomic_load(&exit_last_armed) &&
	    (atomic_compare_exchange_strong(&exit_second, &expect, me) || expect == me))
		return;
	/* the first quick_exit after an exit goes on: the at_quick_exit handlers are its own (an
	 * exit runs none of them), and the last, the tracer's, finishes the trace or waits in
	 * finish() for the exit that does. It waited here for that exit's end, behind handlers
	 * of the exit that wait for its thread (a join: 10 s), and then raced it for the status
	 * (status 0 where untraced the quick_exit's 3 ends the process: 7 runs in 10). */
	expect = 0;
	if (quick && atomic_load(&ckt_quick_armed) && !atomic_load(&ckt_quick_elsewhere) &&
	    (atomic_compare_exchange_strong(&exit_quick_first, &expect, me) || expect == me))
		return;
	exit_await_or_finish();
}

/* exit before the tracer's constructor: a library initialized before it (a dependency of the
 * program, or a preloaded one after it) whose constructor calls exit, or a child it forked or
 * vforked. The real exit may not be resolved yet (nothing has called into the tracer):
 * resolving it keeps the program's exit handlers and stdio flush (the raw exit_group skipped
 * them, without a word). Nothing of this process was traced, and the tracer's destructor
 * will not run in it (it runs only after its constructor): one line says so, with the pid (a
 * parent that goes on is traced). */
static void early_exit(void)
{
	static atomic_int said;
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!atomic_load(&ckt_init_ran) && !atomic_exchange(&said, 1))
		ckt_log_process(" exits before the tracer has started (exit in a library's "
				"constructor?): nothing of it is traced");
}

static void vfork_child_exit(int status)
{
	static atomic_int said; /* in the parent's memory: once, whichever child */
	pid_t tp = ckt_writer_pid();
	if (!tp || getpid() == tp || !atomic_load(&ckt_active) ||
	    ckt_thread_child_memory() != CKT_CHILD_SHARED)
		return;
	if (!atomic_exchange(&said, 1))
		ckt_log("warning: exit() in a vfork child would run the parent's exit handlers, the "
			"tracer's among them, and cut its trace short: the child ends with _exit, as "
			"a vfork child must", NULL, NULL, NULL);
	if (ckt_real._exit)
		ckt_real._exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

CKT_EXPORT void exit(int status)
{
	ckt_signal_wait_if_ending();
	vfork_child_exit(status);
	exit_claim(0);
	if (!atomic_load(&ckt_init_ran) || !ckt_real.exit)
		early_exit();
	if (ckt_real.exit)
		ckt_real.exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

/* quick_exit from two threads at once: glibc lets both walk the one list of at_quick_exit
 * handlers, each taking the next, and the one that finds it empty goes on to glibc's own
 * _exit, out of the hooks' reach, while the other may be in the tracer's handler (registered
 * at start: the last to run), in the final flush: the trace was cut short without a word (2
 * runs of 4 with two threads, every run with eight: tests/progs/quickrace.c). The first
 * quick_exit or exit of the process goes on; a later one waits here until the trace is
 * finished (as a third exit does, exit_await_or_finish: exit_claim(1)), then goes on as
 * untraced. Without the tracer's handler (its registration failed), the first finishes the
 * trace there.
 * A vfork child's quick_exit runs the at_quick_exit handlers in the parent's memory, the
 * tracer's among them, which the parent's own quick_exit then finds run: the tracer's handler
 * notes it (ckt_quick_elsewhere) and that quick_exit finishes the trace here. The child's is
 * left as untraced (its handlers run: ending it with _exit, as exit's hook does, dropped their
 * output). */
CKT_EXPORT void quick_exit(int status)
{
	ckt_signal_wait_if_ending();
	exit_claim(1);
	if (ckt_real.quick_exit)
		ckt_real.quick_exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

/* A forked process that does not exec is not traced (bootstrap.c, on_fork_child), and its
 * memory is in no trace: a Python multiprocessing pool of the fork start method does all its
 * work there (workers holding 50 MiB each, the parent's trace peaking at 2 MiB), which nothing
 * said. Once such a process's heap blocks and anonymous mappings add up to
 * CKT_CHILD_NOTE_BYTES (ckt_child_note; allocated, not live), one line says so, for the first
 * such process of the traced program only: a page shared with its forked children (and
 * theirs) holds whether one has said it. Not at a first big block: a child about to exec
 * builds the new image's argument vector first (bash: 1.07 MiB of pointers for 140,000
 * arguments), and at its first block of 1 MiB such a child said it, using up the line; the
 * kernel's limit on arguments and environment keeps that to a few MiB, under the 16 MiB. The page is made at the
 * traced process's first fork; not with CUZKTRACE_CHILDREN=0 (children left untraced on
 * purpose), nor where it cannot be had. (child_note, child_bytes and ckt_child_untraced are
 * at the top of the file.) */
static void child_note_prepare(void)
{
	if (atomic_load_explicit(&child_note, memory_order_relaxed) || !ckt_config.children ||
	    !is_tracer_process())
		return;
	struct child_note *page = ckt_ownmaps_map(sizeof(*page), MAP_SHARED), *none = NULL;
	if (page && !atomic_compare_exchange_strong(&child_note, &none, page))
		ckt_ownmaps_unmap(page, sizeof(*page)); /* another thread's fork made one first */
}

void ckt_child_untraced_count(size_t n)
{
	if (atomic_fetch_add_explicit(&child_bytes, n, memory_order_relaxed) + n < CKT_CHILD_NOTE_BYTES)
		return;
	struct child_note *note = atomic_load(&child_note);
	if (!atomic_exchange(&ckt_child_untraced, 0) || !note || atomic_exchange(&note->said, 1))
		return;
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: process ");
	ckt_line_u64(&l, (uint64_t)getpid());
	ckt_line_str(&l, ", forked from process ");
	ckt_line_u64(&l, (uint64_t)fork_parent); /* not getppid(): it may have ended (pid 1) */
	ckt_line_str(&l, " without exec, has allocated ");
	ckt_line_bytes(&l, CKT_CHILD_NOTE_BYTES);
	ckt_line_str(&l, " or more that no trace holds: a forked process is traced only once it execs; "
			 "said for the first such process only");
	ckt_line_emit(&l);
}

/* A forked process that did not exec ends, having allocated less than CKT_CHILD_NOTE_BYTES (or
 * it said so itself): its bytes add to those of the others that ended so; once they add up to
 * CKT_CHILD_NOTE_BYTES, one line says so, unless one was said already (since 0.2.43: a pool of
 * forked workers of 10 MiB each, 40 MiB in no trace, said nothing). Counted as they end, not
 * as they allocate: a child about to exec (its bytes the new image's arguments, whatever their
 * number) execs instead. From exit and _exit (ckt_finish_process, before_fast_exit). */
void ckt_child_untraced_exit(void)
{
	/* not a vfork (or clone) child of such a process: it shares the memory, flag and count
	 * of the process that made it, whose own end is still to come (a vfork child's _exit
	 * after a failed exec took them: that process's line, at 16 MiB or at its end, was never
	 * said) */
	struct child_note *note = atomic_load(&child_note);
	if (!note || getpid() != mem_pid || !atomic_exchange(&ckt_child_untraced, 0))
		return;
	uint64_t mine = atomic_load(&child_bytes);
	if (atomic_fetch_add(&note->ended_bytes, mine) + mine < CKT_CHILD_NOTE_BYTES ||
	    atomic_exchange(&note->said, 1))
		return;
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: processes forked without exec (process ");
	ckt_line_u64(&l, (uint64_t)getpid());
	ckt_line_str(&l, " the latest to end, forked from process ");
	/* the process that forked it: by its end that one may be gone, and getppid() then names
	 * pid 1 or a subreaper (workers that outlived the program said "forked from process 1") */
	ckt_line_u64(&l, (uint64_t)fork_parent);
	ckt_line_str(&l, ") have allocated ");
	ckt_line_bytes(&l, CKT_CHILD_NOTE_BYTES);
	ckt_line_str(&l, " or more in all that no trace holds, each less: a forked process is traced only once "
			 "it execs; said once");
	ckt_line_emit(&l);
}

/* fork from a signal handler that interrupted one of this thread's hooks of the malloc family
 * (CKT_GUARD_HOOK): most likely inside the real malloc or free, whose arena lock this thread
 * then holds. (Not CKT_GUARD_MAP: glibc's allocator maps through its own internal mmap, so an
 * mmap hook holds no allocator lock, and that guard can outlive a handler's jump out of the
 * hook until the thread's next hook: a fork after it is a plain one.) A
 * program of one thread forks there untraced (glibc's fork takes no allocator lock in a
 * process of one thread, and fork is async-signal-safe); the tracer's threads make it one of
 * several, and glibc's fork waited for that lock for good (tests/progs/sigfork.c). _Fork
 * makes the child without the atfork handlers (the allocator's locks, the tracer's and the
 * program's own): the child may only make async-signal-safe calls anyway, and is not traced
 * (a child made without the tracer's handler stops tracing at its first hook, bootstrap.c).
 * Everywhere else fork is glibc's. */
CKT_EXPORT pid_t fork(void)
{
	CKT_EXEC_REAL(fork);
	if (CKT_UNLIKELY(ckt_tls.guard == CKT_GUARD_HOOK) && ckt_real._Fork)
		return ckt_real._Fork();
	child_note_prepare();
	return ckt_real.fork();
}

/* daemon: glibc's forks and ends the parent with its own internal _exit, out of the hooks'
 * reach: the trace was cut short, without a word (tests/progs/daemonize.c), and the program
 * goes on in the child, which, as any forked process that does not exec, is not traced. Done
 * here as glibc does it (fork; the parent ends with _exit(0); the child calls setsid, chdir
 * to "/" unless nochdir, and points 0, 1 and 2 at /dev/null unless noclose), so that the
 * parent's end finishes the trace, with one line that names the process going on. */
CKT_EXPORT int daemon(int nochdir, int noclose)
{
	CKT_EXEC_REAL(daemon);
	if (!is_tracer_process())
		return ckt_real.daemon(nochdir, noclose);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: warning: daemon(): the program goes on in process ");
		ckt_line_u64(&l, (uint64_t)pid);
		ckt_line_str(&l, ", which is not traced (a forked process is traced only once it "
				 "execs); the trace ends here");
		ckt_line_emit(&l);
		fast_exit(ckt_real._exit, 0);
	}
	atomic_store(&ckt_child_untraced, 0); /* the parent's line said it */
	if (setsid() < 0)
		return -1;
	if (!nochdir)
		(void)!chdir("/");
	if (noclose)
		return 0;
	struct stat st;
	int fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		return -1;
	int bad = fstat(fd, &st) < 0 ? errno
		  : !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3) ? ENODEV : 0;
	if (bad) {
		close(fd);
		errno = bad;
		return -1;
	}
	(void)dup2(fd, STDIN_FILENO);
	(void)dup2(fd, STDOUT_FILENO);
	(void)dup2(fd, STDERR_FILENO);
	if (fd > 2)
		close(fd);
	return 0;
}

/* glibc's exit runs the calling thread's thread_local destructors first (__call_tls_dtors),
 * also when main returns, and the main thread's run nowhere else (its pthread_exit does not
 * run them; if it is the last thread, the exit that follows does). So one registered for the
 * main thread at start runs at the start of every exit the main thread makes, seen by the
 * hook or not, and claims the exit there: the return from main while another thread's exit
 * finished the trace ended the process under it (tests/progs/exitret.c: truncated in 10 runs
 * of 10, without a word), and another thread's exit after main returned likewise. Registered
 * first, it runs after the program's own thread_local destructors. glibc frees its list entry
 * after the call, in the program's exit: the entry comes from the boot pool, so that free is
 * not a free of the program's (it was one: the default mode's heap total 40 bytes low). */
extern int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso);
extern void *__dso_handle __attribute__((weak, visibility("hidden")));

static void main_exit_dtor(void *arg)
{
	(void)arg;
	exit_claim(0);
}

void ckt_exit_main_watch(void)
{
	ckt_tls.guard++;
	/* an exit handler of no library (atexit from a library ties it to the library, and
	 * glibc runs such handlers from _dl_fini, before the tracer's destructor); glibc's first
	 * 32 handlers need no allocation */
	if (__cxa_atexit(exit_last_cxa, NULL, NULL) == 0)
		atomic_store(&exit_last_armed, 1);
	if (syscall(SYS_gettid) == getpid()) {
		ckt_tls.from_pool = 1;
		(void)__cxa_thread_atexit_impl(main_exit_dtor, NULL, &__dso_handle);
		ckt_tls.from_pool = 0;
	}
	ckt_tls.guard--;
}
