/* writer.c: owns the trace file. At init it creates the file (no symlinks followed, not
 * world-writable, locked against other processes), writes and reads back the header, and only
 * then announces the path. A helper thread then drains every ring each CUZKTRACE_FLUSH_MS (or
 * sooner when a ring is half full) into one independent zstd frame, checking before each write
 * that the descriptor is still our file. Any failure: one line, tracing off, program runs on. */
#include "ckt.h"

#include <dlfcn.h>
#include "ckt_format.h"
#include "summary.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/statfs.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
/* ZSTD_createCCtx_advanced and ZSTD_customMem: exported by libzstd since 1.0, in its section of
 * functions whose signature may still change, hence the macro */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#define FRAME_CAP (1u << 20) /* decoded bytes per frame: bounds the reader's frame buffer */

atomic_int ckt_writer_running;
_Atomic uint64_t ckt_writer_cycles, ckt_writer_stalled, ckt_lost_noring, ckt_lost_nested;
static uint64_t noring_reported, nested_reported, jumped_reported, cxx_reported;
static atomic_int stop_flag, finished, wake_pending, writer_failed;
/* finish_done: the thread that set `finished` is done with the trace (a thread that exits at
 * the same time waits for it: its exit_group would cut the flush short). final_done: the
 * writer has written its last flush (what ckt_writer_finish_fast waits for). Futex words. */
static atomic_int finish_done, final_done;
static pid_t trace_pid; /* the traced process (the writer's) */
static _Atomic pid_t finisher;
static atomic_int pause_flag; /* ckt_helpers_pause: flush, then end the thread (no END record) */
static pthread_t writer_thread;
static atomic_int writer_joinable; /* writer_thread names a writer not joined yet */
static void *writer_stack; /* see ckt_spawn_helper */
static int fd = -1;
static dev_t file_dev;
static ino_t file_ino;
static char path_abs[PATH_MAX + 64];
static char path_requested[PATH_MAX + 64]; /* before any renaming: what the next exec'd image
					    * will expand CUZKTRACE_OUT to as well */

static char exe_base[256];
static ZSTD_CCtx *cctx;
static uint8_t *enc_buf, *zbuf;
static size_t enc_len, zcap;
static uint64_t frame_seq, prev_horizon, bytes_written, total_lost;
static _Alignas(128) struct ckt_enc enc;
__attribute__((used)) static _Alignas(128) char pad_after_enc; /* keep the hooks' globals off the writer's lines */

/* ---- waking ---- */
void ckt_writer_wake(void)
{
	/* Called from the rare path of a producer. Check before writing so a thread that keeps
	 * finding its ring half full does not bounce this line between cores. */
	if (atomic_load_explicit(&wake_pending, memory_order_relaxed))
		return;
	if (atomic_exchange(&wake_pending, 1) == 0)
		syscall(SYS_futex, &wake_pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Waits for the next flush; 1 when woken before it (a ring half full, stop, pause). */
static int wait_tick(void)
{
	struct timespec ts = {ckt_config.flush_ms / 1000, (long)(ckt_config.flush_ms % 1000) * 1000000L};
	/* after the main thread's pthread_exit the writer looks for the program's end often
	 * (writer_main): the process must not outlive its last thread by a flush interval */
	if (atomic_load(&ckt_main_exited) && ckt_config.flush_ms > 10)
		ts = (struct timespec){0, 10000000L};
	if (!atomic_load(&stop_flag))
		syscall(SYS_futex, &wake_pending, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	return atomic_exchange(&wake_pending, 0);
}

/* ---- messages ---- */
static void fail_line(const char *what, const char *path, int err, const char *tail)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: error: ");
	ckt_line_str(&l, what);
	ckt_line_str(&l, " '");
	ckt_line_str(&l, path);
	ckt_line_str(&l, "': ");
	ckt_line_str(&l, err > 0 ? strerrordesc_np(err) : "");
	ckt_line_str(&l, tail);
	ckt_line_emit(&l);
}

/* ---- output ---- */
/* Writes buf[*done..n), counting in *done what went out, so that a write that failed part of
 * the way can go on from there. */
static int write_from(const void *buf, size_t n, size_t *done)
{
	const char *p = buf;
	int rc = 0;
	/* the final flush runs on a program thread: a signal the write raised would end the
	 * program once the thread's mask is restored (a close-all gave the trace's number to a
	 * pipe between the check and the write: status 141, once in a run of the suite) */
	struct ckt_sigwrite sw;
	ckt_sigwrite_begin(&sw);
	while (*done < n) {
		ssize_t w = write(fd, p + *done, n - *done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			break;
		}
		*done += (size_t)w;
		__atomic_store_n(&bytes_written, bytes_written + (uint64_t)w, __ATOMIC_RELAXED);
	}
	ckt_sigwrite_end(&sw);
	return rc;
}

static int write_all(const void *buf, size_t n)
{
	size_t done = 0;
	return write_from(buf, n, &done);
}

/* A daemon may close every descriptor at start-up and reuse ours for a socket: writing trace
 * bytes into it would be the worst failure there is. Before each batch, check that the
 * descriptor still is the file we created; if not, reopen the path if it is still that file. */
static int reopen_errno; /* why check_fd could not open the path again, when it names a file */
static dev_t root_dev;   /* the root directory when the trace was opened (path_moved_line) */
static ino_t root_ino;
static ino_t mnt_ns_ino; /* and the mount namespace (0: not known) */

/* The calling thread's mount namespace, by its inode (0: /proc cannot tell). */
static ino_t mount_ns(void)
{
	int f = ckt_proc_open("thread-self/ns/mnt", O_PATH);
	if (f < 0)
		return 0;
	struct stat st;
	ino_t ino = fstat(f, &st) == 0 ? st.st_ino : 0;
	close(f);
	return ino;
}
static uint64_t reopens; /* times the trace was opened again */
static int relock;       /* the trace is open without its lock, which an old description of
			  * ours still held (reopen_once): take it at the next check */

/* A program that closes every descriptor in a loop can close the one check_fd (or the write
 * after it) just opened, before it was looked at: that is a lost race, not a path that no
 * longer names the trace, and another try follows (3,000 close-alls stopped the trace so now
 * and then). Each try opens the path anew. */
#define REOPEN_TRIES 16

/* Races lost to a program that closes every descriptor in a loop are tried for 2 s, and 16
 * times at least: 16 tries alone lost them all in 5 runs of 8 of three threads, one of them
 * closing in a loop, and tracing stopped saying the path no longer named the trace. Whether
 * try i (from 0), begun by then, was the last. */
static int tries_spent(int i, uint64_t until)
{
	return i >= REOPEN_TRIES - 1 && ckt_clock_raw() >= until;
}
#define REOPEN_FOR_NS 2000000000ull

static void u64s(char *b, uint64_t v);

/* Whether /proc/locks shows a flock on the trace file held by another process: 1; 0 when
 * it shows none, or only this process's (a description of ours that a close-all dropped and
 * the kernel has not let go of yet, which keeps others off the file meanwhile); -1 when it
 * cannot tell. Read in pieces: the table is the whole system's. */
static int lock_held_elsewhere(void)
{
	int f = ckt_proc_open("locks", O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	char buf[8192], want[64], pid[24];
	/* "<n>: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF", major and minor
	 * in two hex digits at least */
	static const char hx[] = "0123456789abcdef";
	char *w = want;
	for (int k = 0; k < 2; k++) {
		unsigned v = k ? minor(file_dev) : major(file_dev), d = 2;
		while (d < 8 && v >> (4 * d))
			d++;
		*w++ = ':';
		while (d--)
			*w++ = hx[(v >> (4 * d)) & 15];
	}
	*w++ = ':';
	u64s(w, (uint64_t)file_ino);
	strcat(w, " ");
	u64s(pid, (uint64_t)getpid());
	size_t have = 0, plen = strlen(pid);
	int other = 0;
	for (ssize_t n; !other && (n = read(f, buf + have, sizeof(buf) - 1 - have)) > 0;) {
		have += (size_t)n;
		buf[have] = 0;
		char *line = buf, *nl;
		while (!other && (nl = strchr(line, '\n'))) {
			*nl = 0;
			char *at = strstr(line, "FLOCK"), *dev = strstr(line, want + 1);
			/* the holder's pid is the word before the device; a waiter's line has "->" */
			if (at && dev && dev > line && !strstr(line, "->")) {
				char *e = dev - 1, *b = e;
				while (b > line && b[-1] != ' ')
					b--;
				other = !((size_t)(e - b) == plen && !memcmp(b, pid, plen));
			}
			line = nl + 1;
		}
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) /* a line longer than the buffer: none of ours */
			have = 0;
	}
	close(f);
	return other;
}

/* One try. -EAGAIN: the new descriptor was closed under us (try again). */
static int reopen_once(void)
{
	struct stat st;
	int nfd = open(path_abs, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (nfd < 0) {
		int e = errno;
		/* the path still names a file we may not open now (the program dropped its
		 * privileges: setuid, a chroot): that reason, not "no longer names the trace"
		 * (stop_tracing) */
		if (e != ENOENT && e != ELOOP && e != ENOTDIR && e != EMFILE && e != ENFILE)
			reopen_errno = e;
		return e == EMFILE || e == ENFILE ? -e : -EBADF;
	}
	/* Moved up out of the program's range at once, then looked at, locked and made blocking
	 * as that copy: the program's close-all may close nfd and open a file of its own on the
	 * number before we look. A copy (h != nfd) is ours to close whatever it holds; nfd
	 * itself, when it could not be moved, only when it is the path's. */
	int h = ckt_fd_high(nfd);
	if (h < 0) /* only libunwind's numbers were free */
		return -EMFILE;
	if (fstat(h, &st) < 0) {
		if (!ckt_stat_refused(errno))
			return -EAGAIN; /* closed already: nothing of ours to close */
		/* refused: the file the path names, as far as can be known */
		st.st_dev = file_dev;
		st.st_ino = file_ino;
	}
	if (st.st_dev != file_dev || st.st_ino != file_ino) {
		/* the path names another file now (not the trace: stop), or what we copied was the
		 * program's file opened on the number we had just opened (try again) */
		struct stat ps;
		int other = stat(path_abs, &ps) == 0 && ps.st_dev == st.st_dev && ps.st_ino == st.st_ino;
		if (h != nfd || other)
			syscall(SYS_close, h);
		return other ? -EBADF : -EAGAIN;
	}
	/* the lock went with the closed descriptor: take it again, or another traced process
	 * could truncate the file under us */
	if (flock(h, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		if (e == EBADF)
			return -EAGAIN;
		if (e != EWOULDBLOCK) {
			syscall(SYS_close, h);
			return -EBADF;
		}
		/* the lock of the closed descriptor goes with its last reference, which a close-all
		 * (close_range) drops only on its way back to the program: a little later. Another
		 * process holding it past every try is said so (ENOLCK, stop_tracing). A lock
		 * /proc/locks names this process for is that description's: the file stays ours
		 * (a storm of close-alls kept the old one alive past every try, 1 run in 8, and
		 * tracing stopped, blaming another process); the new description takes the lock at
		 * a later check (relock). */
		if (lock_held_elsewhere() != 0) {
			syscall(SYS_close, h);
			ckt_nap(200000);
			return -ENOLCK;
		}
		relock = 1;
	}
	(void)fcntl(h, F_SETFL, O_APPEND); /* a regular file: blocking writes again */
	fd = h;
	/* once, then at the 10th, 100th, ... time: a loop of close-alls would fill stderr */
	if (++reopens == 1) {
		ckt_log("warning: the trace descriptor was closed by the program; reopened '", path_abs, "'",
			NULL);
	} else {
		uint64_t p10 = 10;
		while (p10 < reopens && p10 <= UINT64_MAX / 10)
			p10 *= 10;
		if (p10 == reopens) {
			struct ckt_line l = {.len = 0};
			ckt_line_str(&l, "cuzktrace: warning: the trace descriptor was closed by the program ");
			ckt_line_u64(&l, reopens);
			ckt_line_str(&l, " times so far; reopened '");
			ckt_line_str(&l, path_abs);
			ckt_line_str(&l, "' each time");
			ckt_line_emit(&l);
		}
	}
	return 0;
}

static int64_t file_expect = -1; /* the file's size after our last write that it holds, -1: unknown */
static int cut_said, grew_said;

/* flush_frame's return when the trace file was taken over by another writer (taken_check):
 * tracing stops and the file is left to that writer (stop_tracing says which case) */
#define ERR_TAKEN (-8192)
/* the header frame's size, and its first bytes as written (the file's first bytes while it is
 * the trace) */
static int64_t head_size;
static uint8_t head_bytes[64];
static size_t head_len;
/* for ERR_TAKEN: the program's own descriptor open for writing on the file, -1 when the
 * file's start is no longer the header (cut below it, or written over from its start) */
static int taken_fd = -1;

/* Another program changed the trace file's size to `at` bytes behind our back: one line, "'<path>"
 * a <at> b <bytes we had written> c. It cut it (truncate -s 0: the trace no longer reads from
 * its start), or wrote into it (the writes go on at our own offset, over those bytes; the
 * reader says what is left of them after the end record, if anything). */
static void say_size(const char *a, uint64_t at, const char *b, const char *c)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: '");
	ckt_line_str(&l, path_abs);
	ckt_line_str(&l, a);
	ckt_line_u64(&l, at);
	ckt_line_str(&l, b);
	ckt_line_u64(&l, (uint64_t)file_expect);
	ckt_line_str(&l, c);
	ckt_line_emit(&l);
}

/* Whether descriptor k, not skip, is open on the file dev/ino (for writing, where writing) */
static int fd_on(int k, int skip, dev_t dev, ino_t ino, int writing)
{
	struct stat o;
	if (k == skip || fstat(k, &o) != 0 || o.st_dev != dev || o.st_ino != ino)
		return 0;
	int fl = writing ? fcntl(k, F_GETFL) : O_RDWR;
	return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

/* The first descriptor from 0 to 1023 that the process has open on the file dev/ino, skip
 * apart (for writing, where writing), or -1. The open ones are listed from /proc/self/fd with
 * getdents64 into a buffer on the stack (nothing allocated); where it cannot be read, each
 * number is tried. Before 0.2.61 each was: 1,024 fstat calls, about 1 ms of a traced
 * process's start on a VM whose system calls cost 1 us (a trace file that exists already). */
static int first_fd_on(int skip, dev_t dev, ino_t ino, int writing)
{
	int dfd = ckt_proc_open("self/fd", O_DIRECTORY);
	if (dfd >= 0) {
		char buf[4096];
		ssize_t n;
		int found = -1;
		while (found < 0 && (n = getdents64(dfd, buf, sizeof(buf))) > 0)
			for (ssize_t off = 0; found < 0 && off < n;) {
				struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);
				off += e->d_reclen;
				const char *c = e->d_name;
				int k = 0;
				for (; *c >= '0' && *c <= '9' && k < 1024; c++)
					k = k * 10 + (*c - '0');
				if (c != e->d_name && !*c && k < 1024 && k != dfd && fd_on(k, skip, dev, ino, writing))
					found = k;
			}
		close(dfd);
		if (found >= 0 || n == 0)
			return found;
	}
	for (int k = 0; k < 1024; k++)
		if (fd_on(k, skip, dev, ino, writing))
			return k;
	return -1;
}

/* The file's size changed behind the writer's back (now bytes, where file_expect were
 * written). Is the file another writer's now? When the program itself holds it open for
 * writing on a descriptor of its own (its output file has the trace's name: cp, dd, a
 * compressor writing out.zst, a log opened to append), or when the file no longer starts with
 * the trace's header (cut below it, or written over from its start: the trace cannot be read
 * whatever comes after), the writer must stop: it wrote on at its own offset, over the
 * program's output (cp's copy of a file, traced with CUZKTRACE_OUT set to the copy's name,
 * differed from byte 383 on). Sets taken_fd; 1 when taken, 0 when the trace may go on
 * (bytes appended by another program: echo >>, truncate -s +N). Off the hot path: the writer
 * thread (or the final flush), only when the size changed. The program's descriptors looked
 * at are 0 to 1023, as at start (existing_file_check). */
static int taken_check(int64_t now)
{
	if ((taken_fd = first_fd_on(fd, file_dev, file_ino, 1)) >= 0)
		return 1;
	if (!head_len)
		return 0;
	if (now < head_size) {
		/* an open with O_TRUNC cuts the file before its descriptor is in the table: one
		 * seen in between read as cut by another program (since 0.2.45 looked at again,
		 * once the open is done; since 0.2.51 up to ten times 20 ms: on a loaded machine
		 * the opening thread can wait longer than one nap to finish its open) */
		for (int i = 0; i < 10; i++) {
			ckt_nap(20000000);
			if ((taken_fd = first_fd_on(fd, file_dev, file_ino, 1)) >= 0)
				break;
		}
		return 1;
	}
	/* the file's start, through our own descriptor's file (the path may name another by now) */
	char rel[32] = "self/fd/";
	u64s(rel + strlen(rel), (uint64_t)fd);
	int f = ckt_proc_open(rel, 0);
	if (f < 0)
		return 0; /* cannot be told: as before */
	uint8_t got[sizeof(head_bytes)];
	struct stat st;
	int same = fstat(f, &st) == 0 && st.st_dev == file_dev && st.st_ino == file_ino;
	ssize_t n = same ? pread(f, got, head_len, 0) : -1;
	close(f);
	return same && (n != (ssize_t)head_len || memcmp(got, head_bytes, head_len) != 0);
}

/* Where the next write of fd lands: its offset; -1 for a descriptor opened to append (a
 * reopen after a close-all: at the file's end), or when it cannot be told. Read before the
 * fstat that checks fd is the trace (trace_size): read after it, a close-all and an open in
 * between gave the offset of the program's file that took the number, and the frame, written
 * there, counted as written to the trace. */
static int64_t write_offset(void)
{
	int fl = fcntl(fd, F_GETFL);
	off_t off = fl >= 0 && !(fl & O_APPEND) ? lseek(fd, 0, SEEK_CUR) : -1;
	return off >= 0 ? (int64_t)off : -1;
}

/* The trace file's size through fd, when fd is the trace; -1 when it is not, -2 where fstat
 * is refused (a seccomp filter: nothing can be checked then). */
static int64_t trace_size(void)
{
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		return ckt_stat_refused(errno) ? -2 : -1;
	return st.st_dev == file_dev && st.st_ino == file_ino ? (int64_t)st.st_size : -1;
}

static int check_fd(void)
{
	if (ckt_fd_is(fd, file_dev, file_ino)) {
		/* a reopen that found our own old lock still there takes it now */
		if (relock && flock(fd, LOCK_EX | LOCK_NB) == 0)
			relock = 0;
		return 0;
	}
	fd = -1;
	/* past the first 16 tries, a short nap after each lost race (tries_spent) */
	int rc = reopen_once();
	uint64_t until = ckt_clock_raw() + REOPEN_FOR_NS;
	for (int i = 0; (rc == -EAGAIN || rc == -ENOLCK) && !tries_spent(i, until); i++) {
		if (i >= REOPEN_TRIES && rc == -EAGAIN)
			ckt_nap(50000);
		rc = reopen_once();
	}
	return rc == -EAGAIN ? -EBADF : rc;
}

/* One zstd frame: the stream directory, the ROW stream, then the columns, each column ending a
 * zstd block so that its literals get a Huffman table of their own (measured: 0.14 bytes per
 * event less than one table for a mixed block, for about 1 ns per event). */
static int flush_frame(void)
{
	if (!enc_len)
		return 0;
	uint8_t dir[(CKT_NSTREAMS + 1) * CKT_MAX_VARINT];
	size_t dn = ckt_record_directory(&enc, enc_len, dir);
	ZSTD_outBuffer out = {zbuf, zcap, 0};
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
	ZSTD_CCtx_setPledgedSrcSize(cctx, dn + enc_len + ckt_record_cols_len(&enc));
	for (int k = -1; k < CKT_NSTREAMS; k++) {
		ZSTD_inBuffer in = {k < 0 ? dir : k == 0 ? enc_buf : enc.col0[k],
				    k < 0 ? dn : k == 0 ? enc_len : (size_t)(enc.col[k] - enc.col0[k]), 0};
		ZSTD_EndDirective how = k == CKT_NSTREAMS - 1 ? ZSTD_e_end : k < 0 ? ZSTD_e_continue
										: ZSTD_e_flush;
		/* e_continue only has to take the input in; flush and end have to empty zstd's
		 * buffers too (a nonzero return: output still pending) */
		size_t left;
		do
			left = ZSTD_compressStream2(cctx, &out, &in, how);
		while (!ZSTD_isError(left) && ((how != ZSTD_e_continue && left) || in.pos < in.size) &&
		       out.pos < out.size);
		if (ZSTD_isError(left) || (how != ZSTD_e_continue && left) || in.pos < in.size) {
			enc_len = 0;
			return -ENOMEM;
		}
	}
	enc_len = 0;
	/* A write that finds the descriptor closed (a close-all between the check and the write)
	 * goes on, after a reopen, from where the file says it stopped. The file is asked, not
	 * the write: a close-all can also hand the number, between the check and the write, to a
	 * pipe or file made meanwhile (the tracer's libunwind pipe, moved up to the number just
	 * freed), and the write "succeeds" there: a frame went missing, and the reader refused
	 * the whole trace (3 runs in 40 of tests/progs/sigprof.c 3000 on a busy machine). So the
	 * file's size is read before and after: a frame it did not get is written again. Where
	 * the frame starts is the descriptor's offset, not the size: another program that grew
	 * the file (`echo >> trace.zst`) made the frame look cut short, and it was written
	 * again after itself, which the reader refused as a repeated frame. */
	size_t done = 0;
	int64_t at = -3; /* where the frame starts; -3 not read yet, -2 fstat refused */
	uint64_t until = ckt_clock_raw() + REOPEN_FOR_NS;
	for (int i = 0;; i++) {
		int rc = check_fd(); /* its -EBADF is final: the path no longer names the trace */
		if (rc)
			return rc;
		int64_t off = at == -3 ? write_offset() : -1, now = trace_size();
		if (now == -1) { /* the number was lost again since the check */
			if (tries_spent(i, until))
				return -EBADF;
			continue;
		}
		if (at == -3) {
			/* nothing of the frame written yet. Taken over by another writer: stop */
			if (now >= 0 && file_expect >= 0 && now != file_expect && taken_check(now))
				return ERR_TAKEN;
			/* Shorter than what was written: another program cut it; longer: another
			 * program wrote to it. Said once each */
			if (now >= 0 && file_expect >= 0 && now < file_expect && !cut_said++)
				say_size("' was cut to ", (uint64_t)now, " bytes by another program while traced (",
					 " were written): the trace will not read from its start");
			if (now >= 0 && file_expect >= 0 && now > file_expect && !grew_said++)
				say_size("' was written to by another program while traced (it grew to ", (uint64_t)now,
					 " bytes; ", off >= 0 ? " were written): the trace goes on over those bytes"
							      : " were written): the trace goes on after those bytes, "
								"and will not read past them");
			at = now >= 0 && off >= 0 ? off : now;
		} else if (at >= 0 && now >= at && now - at <= (int64_t)out.pos)
			done = (size_t)(now - at);
		rc = write_from(zbuf, out.pos, &done);
		if (rc == 0) {
			int64_t end = trace_size();
			/* all there (more: another writer's bytes too, nothing to mend), or the
			 * tries are spent (the reader will say which frame is missing); the exit
			 * line's size is the file's (a frame written twice counted twice) */
			if (at >= 0 && end >= at + (int64_t)out.pos) {
				__atomic_store_n(&bytes_written, (uint64_t)end, __ATOMIC_RELAXED);
				file_expect = end;
			}
			if (at < 0 || end >= at + (int64_t)out.pos || tries_spent(i, until))
				return 0;
			continue; /* not all there, or the number is no longer the trace: again */
		}
		/* an error from a number a close-all handed to another file (a full pipe's
		 * EAGAIN, EPIPE, an eventfd's EINVAL) is not the trace's: again */
		if (rc != -EBADF && trace_size() == -1)
			rc = -EBADF;
		if (rc != -EBADF || tries_spent(i, until))
			return rc;
	}
}

/* Records that may still be written without measuring the frame: summing the columns before
 * every event cost 2.5% of exact mode's CPU. Each record (of the CKT_MAX_RECORD kind) takes at
 * most CKT_MAX_RECORD bytes over all streams, so after a measurement leaving F free bytes the
 * next F / CKT_MAX_RECORD - 2 of them fit for sure. */
static size_t unmeasured;

static uint8_t *begin_frame(void)
{
	uint8_t *p = enc_buf;
	unmeasured = 0;
	ckt_record_frame(&enc, &p, frame_seq++, prev_horizon);
	enc_len = (size_t)(p - enc_buf);
	return p;
}

/* Make room for one record of up to `need` bytes; start a new frame (repeating the thread
 * switch) when full. */
static int reserve_n(uint8_t **p, uint64_t tid, size_t need)
{
	if (need == CKT_MAX_RECORD && unmeasured) {
		unmeasured--;
		return 0;
	}
	size_t used = (size_t)(*p - enc_buf) + ckt_record_cols_len(&enc);
	if (used + need + CKT_MAX_RECORD <= FRAME_CAP) {
		size_t free_after = FRAME_CAP - used - need;
		unmeasured = free_after / CKT_MAX_RECORD > 2 ? free_after / CKT_MAX_RECORD - 2 : 0;
		return 0;
	}
	enc_len = (size_t)(*p - enc_buf);
	int rc = flush_frame();
	*p = begin_frame();
	if (tid)
		ckt_record_thread(&enc, p, tid);
	return rc;
}

static int reserve(uint8_t **p, uint64_t tid);

/* A LOST record of what a global loss counter gained since *reported. Returns reserve's rc. */
static int lost_since(uint8_t **p, _Atomic uint64_t *counter, uint64_t *reported)
{
	uint64_t now = atomic_load_explicit(counter, memory_order_relaxed);
	int rc = 0;
	if (now > *reported && !(rc = reserve(p, 0))) {
		ckt_record_lost(p, now - *reported);
		total_lost += now - *reported;
		*reported = now;
	}
	return rc;
}

/* lost_since unless rc already failed, and msg (one line) when the counter is first reported */
static int lost_said(uint8_t **p, _Atomic uint64_t *counter, uint64_t *reported, int rc, const char *msg)
{
	uint64_t before = *reported;
	if (!rc)
		rc = lost_since(p, counter, reported);
	if (!before && *reported)
		ckt_log(msg, NULL, NULL, NULL);
	return rc;
}

static int reserve(uint8_t **p, uint64_t tid)
{
	return reserve_n(p, tid, CKT_MAX_RECORD);
}

/* Aux records (module maps, phase names, notes, thread names), oldest first, then every
 * stack published since the last flush. */
static uint32_t stack_next = 1;

static uint32_t map_written; /* the last module map written */

/* Writes one pre-encoded record (unless rc already failed) and frees it; returns rc. */
static int emit_aux(uint8_t **p, struct ckt_aux *s, int rc)
{
	if (!rc && s->len + CKT_MAX_RECORD < FRAME_CAP && !(rc = reserve_n(p, 0, s->len))) {
		memcpy(*p, s->bytes, s->len);
		*p += s->len;
	}
	ckt_big_free(s);
	return rc;
}

static struct ckt_cursor *curs;
static size_t curs_n; /* the cursors of the flush under way (snapshot) */
static int own_tid(struct ckt_ring *r);
static int in_final; /* the last flush is under way: it holds nothing back */

/* A THREAD_NAME record of a thread whose ring is held (hold_reused): the name is the new
 * thread's of a reused id, and must come after the ended one's THREAD_EXIT too (the reader
 * would give it to the ended thread). */
static int name_held(const struct ckt_aux *s)
{
	const uint8_t *p = s->bytes + 1, *end = s->bytes + s->len;
	uint64_t ts, tid;
	if (in_final || s->len < 1 || s->bytes[0] != CKT_TAG_THREAD_NAME || !(p = ckt_get_uv(p, end, &ts)) ||
	    !ckt_get_uv(p, end, &tid))
		return 0;
	/* the name's thread: the latest ring of that id taken at or before the name's stamp
	 * (the list, not the flush's cursors: a ring taken after the snapshot names itself
	 * too); held while an older ring of the id is not recycled yet */
	if (!ckt_rings_tid_many((pid_t)tid, 1))
		return 0; /* one ring of the id at most (a walk per name made thousands of threads
			   * alive at once cost the writer a walk of all their rings each) */
	uint64_t mine = 0, oldest = UINT64_MAX; /* gens (0: none) */
	for (struct ckt_ring *r = atomic_load(&ckt_rings); r; r = r->next) {
		if (!own_tid(r) || (uint64_t)r->tid != tid)
			continue;
		if (r->attach_ts <= ts && r->gen > mine)
			mine = r->gen;
		if (r->gen < oldest)
			oldest = r->gen;
	}
	return mine && oldest < mine;
}

/* Takes the records queued since the last call: module maps sorted into *maps (by number),
 * the others written now, oldest first (the list is newest first); the names of held
 * threads go back to the list, for the next flush, in their order. */
static int take_aux(uint8_t **p, struct ckt_aux **maps, int rc)
{
	struct ckt_aux *s = atomic_exchange(&ckt_auxs, NULL), *rev = NULL;
	while (s) {
		struct ckt_aux *n = s->next, **at = &rev;
		if (s->map) /* sorted insert: maps are few, and nearly always in order already */
			for (at = maps; *at && (*at)->map < s->map; at = &(*at)->next)
				;
		s->next = *at;
		*at = s;
		s = n;
	}
	for (s = rev; s; s = rev) {
		rev = s->next;
		if (name_held(s))
			ckt_aux_push(s);
		else
			rc = emit_aux(p, s, rc);
	}
	return rc;
}

/* the published stacks of ids [stack_next, ids) whose map is in (after, upto]: each after the
 * map it was captured under, before any later one (the reader takes a stack's modules as the
 * maps it has read by then list them). A map not known yet (CKT_MAP_PENDING) is in no range
 * but the one of upto CKT_MAP_PENDING (emit_tables_last) */
static int emit_stacks_between(uint8_t **p, uint32_t ids, int64_t after, uint32_t upto, int rc)
{
	const uint64_t *f;
	uint32_t n, map;
	for (uint32_t id = stack_next; id < ids && !rc; id++)
		if (ckt_stacks_next(id, &f, &n, &map) && (map != CKT_MAP_PENDING || upto == CKT_MAP_PENDING) &&
		    (int64_t)map > after && map <= upto && !(rc = reserve_n(p, 0, 32 + 10 * (size_t)n)))
			ckt_record_stack(p, id, f, n);
	return rc;
}

/* last: the trace's last flush, after its rings were drained. The program's threads run on
 * while the process ends: an event drained there can name a stack published after the tables
 * were written at the flush's start, or one published after an id another thread was still
 * publishing (where the flushes before stop, to take it up next time): there is no next time,
 * so each published stack is written past such ids (out of order: the reader takes a STACK
 * record wherever it comes, a stack written again being the same definition), each after the
 * map it was captured under and before the maps after that one. Before, a
 * program that exited while 2 threads allocated from many call stacks lost up to 1,600 of
 * them in 1 run of 3: "(stack <id> missing from the trace)". */
static int emit_tables_last(uint8_t **p, int rc)
{
	struct ckt_aux *maps = NULL, *s;
	uint32_t ids = ckt_stacks_ids();
	int64_t done = -1; /* stacks of maps up to this one are written */
	rc = take_aux(p, &maps, rc);
	for (;;) {
		rc = emit_stacks_between(p, ids, done, map_written, rc);
		done = map_written;
		if (!maps)
			break;
		s = maps;
		maps = s->next;
		map_written = s->map;
		rc = emit_aux(p, s, rc);
	}
	/* a stack whose map is still being looked up (its publisher waits for the loader's lock,
	 * which a dlopen or dlclose on another thread holds as the process ends), and which
	 * another thread's event names already: written under the last map (frames of a module
	 * loaded since show as addresses). Before 0.2.56 left out: a complete trace read "the
	 * events name 1 call stack that the trace never defines" (2 runs of 100 with a thread
	 * looping dlopen and dlclose) */
	/* (and one that was pending in the loop above and got a map since, queued after the
	 * list was taken: past `done`, written too) */
	return emit_stacks_between(p, ids, done, CKT_MAP_PENDING, rc);
}

static int emit_tables(uint8_t **p)
{
	/* No ckt_modules_check() here: dl_iterate_phdr takes the loader's lock, and a thread
	 * holding that lock (inside dlclose, or in a dl_iterate_phdr callback) may be waiting for
	 * this very writer to make room in its ring. New modules are noticed on the program's side,
	 * when a new stack is seen (stacks.c). */
	struct ckt_aux *maps = NULL, *s;
	int rc = take_aux(p, &maps, 0), retried = 0;
	/* each new stack after the map current when it was captured, before the next one. A stack
	 * whose map is not known yet waits for a later flush (STACK records may come after the
	 * events that name them); one whose map was queued after the list was taken above takes
	 * the list again, once */
	const uint64_t *f;
	uint32_t n, map;
	while (!rc && ckt_stacks_next(stack_next, &f, &n, &map) && map != CKT_MAP_PENDING) {
		while (!rc && maps && maps->map <= map) {
			s = maps;
			maps = s->next;
			map_written = s->map;
			rc = emit_aux(p, s, rc);
		}
		if (map > map_written) {
			if (retried++)
				break;
			rc = take_aux(p, &maps, rc);
			continue;
		}
		if (rc || (rc = reserve_n(p, 0, 32 + 10 * (size_t)n)))
			break;
		ckt_record_stack(p, stack_next, f, n);
		stack_next++;
	}
	while (maps) {
		s = maps;
		maps = s->next;
		map_written = s->map;
		rc = emit_aux(p, s, rc);
	}
	return rc;
}

static int thread_gone(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) == -1 && errno == ESRCH;
}

/* The ring's tid is a thread of this process that the kernel can be asked about: not 0 (free,
 * or being taken) and not taken in a vfork child (the child's tid, gone or not, says nothing
 * of the thread: such a ring is never recycled, a ring's memory lost per such thread). The
 * tid is stored last, with release: the pid read after it is the same owner's. */
static int own_tid(struct ckt_ring *r)
{
	return __atomic_load_n(&r->tid, __ATOMIC_ACQUIRE) != 0 &&
	       __atomic_load_n(&r->pid, __ATOMIC_RELAXED) == trace_pid;
}

/* The rings to drain in this flush, with the head seen at its start: the summary and the
 * encoder must cover the same events. Grown as threads appear (the writer's own malloc). */
static size_t curs_cap;

/* The horizon of a flush that starts at `now` (read before the snapshot): CKT_HORIZON_MARGIN_NS
 * behind the clock (a thread's busy mark may still sit in its store buffer, for far less), and
 * never past an event still being recorded (ckt_ring.busy: a lower bound of its stamp, the
 * thread's previous one, which may be long ago). A mark the writer has seen unchanged, with no
 * event committed, for CKT_BUSY_STUCK_NS is taken as left behind (a longjmp out of a hook): it
 * must not hold every later event back in the reader's memory. Not counted: time the writer
 * itself did not run (the process stopped: Ctrl-Z, a debugger, a frozen container). A real
 * call that runs longer than that (munmap of tens of GiB) is written late; the reader says so.
 * Never below the previous flush's horizon. */
#define CKT_HORIZON_MARGIN_NS 1000000ull
#define CKT_BUSY_STUCK_NS 10000000000ull
static uint64_t min_busy; /* set by snapshot() */

static uint64_t horizon_of(uint64_t now)
{
	uint64_t h = now > CKT_HORIZON_MARGIN_NS ? now - CKT_HORIZON_MARGIN_NS : 0;
	if (min_busy < h)
		h = min_busy;
	return h > prev_horizon ? h : prev_horizon;
}

/* ring r's busy mark `busy` with head h, seen at `now`: does it hold the horizon back? idle:
 * time this writer did not run since its previous flush beyond its usual interval (the
 * process was stopped, or starved): not counted as time the mark sat unchanged. */
static int busy_holds(struct ckt_ring *r, uint64_t busy, uint64_t h, uint64_t now, uint64_t idle)
{
	if (busy == CKT_NOT_BUSY) {
		r->w_busy = CKT_NOT_BUSY;
		return 0;
	}
	if (busy != r->w_busy || h != r->w_head) { /* a new mark, or events committed since */
		r->w_busy = busy;
		r->w_head = h;
		r->w_busy_since = now;
	}
	r->w_busy_since += idle < now - r->w_busy_since ? idle : now - r->w_busy_since;
	return now - r->w_busy_since < CKT_BUSY_STUCK_NS;
}

/* The kernel gives a thread id again once its thread is gone, and the reader keeps one queue
 * per thread id: the events of a ring taken by a thread with the number of one whose ring is
 * not recycled yet must come after that one's last events and its THREAD_EXIT, which a later
 * flush may write (the old thread's last events may also come after the snapshot read its
 * head). Such a ring is held (nothing drained, nothing counted) until the older one is
 * recycled, which its taken mark allows at once: its thread is gone, as the number in use
 * again shows (tgkill would find the new thread). Written in the order of the rings' list,
 * an immediately reused number put the new thread's events first, and the reader replayed
 * the old thread's 1 MiB free after the new one's 2 MiB: a peak of 3 MiB the program never
 * had, and a warning of events out of order. Costs a look at the other rings for a marked
 * ring only. */
static int reused_final; /* the last flush met a reused id: rings in order of taking */

static int cursor_gen_cmp(const void *pa, const void *pb)
{
	const struct ckt_ring *a = ((const struct ckt_cursor *)pa)->ring, *b = ((const struct ckt_cursor *)pb)->ring;
	return a->tid != b->tid ? (a->tid > b->tid) - (a->tid < b->tid) : (a->gen > b->gen) - (a->gen < b->gen);
}

/* A held ring's events are not written in this flush, so the flush's horizon (SYNC) must not
 * pass its oldest one (min_busy caps it: horizon_of): a chain of reuses (A, B, C of one id)
 * holds C for two flushes or more, and the reader took its events for late ones. The last
 * flush holds nothing: it writes the rings of one id in the order they were taken, each
 * older one's end after its events (reused_final), and its tables after them. */
static void hold_reused(size_t n, int final)
{
	for (size_t i = 0; i < n; i++) {
		struct ckt_ring *r = curs[i].ring;
		if (!atomic_load(&r->tid_reused) || !own_tid(r))
			continue;
		int older = 0;
		for (size_t j = 0; j < n; j++) {
			struct ckt_ring *o = curs[j].ring;
			if (j != i && own_tid(o) && o->tid == r->tid && o->gen < r->gen) {
				curs[j].taken = 1;
				older = 1;
			}
		}
		if (!older) {
			atomic_store(&r->tid_reused, 0); /* the older ones are recycled */
		} else if (final) {
			reused_final = 1;
		} else {
			curs[i].held = 1;
			if (curs[i].t < curs[i].h) {
				uint64_t ts = r->slots[curs[i].t & ckt_ring_mask(r)].ts;
				if (ts < min_busy)
					min_busy = ts;
			}
			curs[i].h = curs[i].t;
		}
	}
	if (reused_final)
		qsort(curs, n, sizeof(*curs), cursor_gen_cmp);
}

static size_t snapshot(uint64_t now, int final)
{
	static uint64_t last_now;
	uint64_t usual = ckt_config.flush_ms * 1000000ull + 1000000000ull;
	uint64_t idle = last_now && now - last_now > usual ? now - last_now - usual : 0;
	last_now = now;
	size_t n = 0;
	min_busy = CKT_NOT_BUSY;
	for (struct ckt_ring *r = atomic_load(&ckt_rings); r; r = r->next) {
		int state = atomic_load_explicit(&r->state, memory_order_acquire);
		if (state == CKT_RING_FREE)
			continue;
		/* the mark before head: an event it no longer marks is committed by then */
		uint64_t busy = atomic_load_explicit(&r->busy, memory_order_acquire);
		uint64_t head_now = atomic_load_explicit(&r->head, memory_order_acquire);
		if (busy_holds(r, busy, head_now, now, idle) && busy < min_busy)
			min_busy = busy;
		if (n == curs_cap) {
			size_t cap = curs_cap ? curs_cap * 2 : 64;
			struct ckt_cursor *c = ckt_realloc(curs, cap * sizeof(*c));
			if (!c)
				break; /* the remaining rings wait for the next flush */
			curs = c;
			curs_cap = cap;
		}
		curs[n].ring = r;
		curs[n].state = state;
		curs[n].t = atomic_load_explicit(&r->tail, memory_order_relaxed);
		curs[n].h = head_now;
		curs[n].held = curs[n].taken = 0;
		n++;
	}
	hold_reused(n, final);
	curs_n = n;
	return n;
}

/* Default mode, last flush: threads still running (parked in a barrier, in a pool) have not
 * sent the last part of their running totals, which is at most a step each; the writer sends
 * it for them, so the totals at exit are exact. Read without the owner's cooperation: a thread
 * still allocating during exit may be off by its last few blocks. A send the thread committed
 * after the snapshot (its first allocation after the writer's last tick sends what it held) is
 * in no drained event and no longer in its totals: the AGGs its ring holds past the snapshot
 * are added. The totals and the ring's head are read between two looks at its busy mark and
 * head, which agree and say not busy (ckt_sample_send zeroes them inside the mark), so each
 * byte is counted once: up to CKT_PENDING_TRIES_NS in all, then as read. */
#define CKT_PENDING_TRIES_NS 5000000ull

/* The three words of a thread's running totals at src (agg_bytes, agg_blocks, agg_at), read
 * twice by the kernel (process_vm_readv of this process) and taken where the two agree: a
 * thread that ended since its ring was looked at, its TLS unmapped (a stack of the program's
 * own freed after a join, glibc's stack cache trimmed), reads as gone (-1), not as a SIGSEGV in
 * the program's exit (since 0.2.58, from a review's interleaving); a copy the thread changed
 * meanwhile, which the kernel's copy could tear, is read again. Where the call is refused
 * (seccomp, ENOSYS), read directly, as before. */
static int read_totals(const int64_t *src, int64_t v[3])
{
	int e = errno;
	for (int tries = 0; tries < 8; tries++) {
		int64_t a[3], b[3];
		struct iovec la = { a, sizeof(a) }, lb = { b, sizeof(b) }, rem = { (void *)src, sizeof(a) };
		pid_t me = getpid();
		ssize_t n = syscall(SYS_process_vm_readv, me, &la, 1, &rem, 1, 0);
		if (n < 0 && errno == EFAULT) {
			errno = e;
			return -1;
		}
		if (n != (ssize_t)sizeof(a) || syscall(SYS_process_vm_readv, me, &lb, 1, &rem, 1, 0) != (ssize_t)sizeof(b))
			break;
		if (!memcmp(a, b, sizeof(a))) {
			memcpy(v, a, sizeof(a));
			errno = e;
			return 0;
		}
	}
	errno = e;
	for (int k = 0; k < 3; k++)
		v[k] = __atomic_load_n(&src[k], __ATOMIC_RELAXED);
	return 0;
}

static int send_pending_totals(uint8_t **p, size_t nc)
{
	int rc = 0;
	uint64_t until = ckt_now() + CKT_PENDING_TRIES_NS;
	for (size_t i = 0; i < nc && !rc; i++) {
		struct ckt_ring *r = curs[i].ring;
		int64_t *src = atomic_load(&r->agg_src);
		/* a thread gone without running our exit destructor (it first allocated after the
		 * destructor rounds) left a pointer into freed TLS: read only live threads', and
		 * not a ring taken in a vfork child, whose thread cannot be asked about (its last
		 * unsent totals, under CKT_AGG_STEP, are lost) */
		if (!src || atomic_load(&r->state) != CKT_RING_LIVE || !own_tid(r) || thread_gone(r->tid))
			continue;
		int64_t bytes, blocks, v[3];
		uint64_t at, h;
		int gone = 0;
		for (;;) {
			uint64_t b1 = atomic_load_explicit(&r->busy, memory_order_acquire);
			h = atomic_load_explicit(&r->head, memory_order_acquire);
			if ((gone = read_totals(src, v) < 0))
				break;
			bytes = v[0];
			blocks = v[1];
			at = (uint64_t)v[2]; /* agg_at */
			atomic_thread_fence(memory_order_acquire);
			uint64_t h2 = atomic_load_explicit(&r->head, memory_order_relaxed);
			uint64_t b2 = atomic_load_explicit(&r->busy, memory_order_relaxed);
			if ((b1 == CKT_NOT_BUSY && b2 == CKT_NOT_BUSY && h == h2) || ckt_now() > until)
				break;
			sched_yield();
		}
		if (gone)
			continue;
		/* the AGGs committed past the snapshot (the window is fixed: the ring has not been
		 * empty since its first event past the snapshot, read after head) */
		uint64_t mask = ckt_ring_mask(r);
		for (uint64_t k = curs[i].h; k < h && h - curs[i].h <= mask + 1;) {
			const struct ckt_slot *sl = &r->slots[k & mask];
			if (sl->type == CKT_EV_AGG) {
				bytes += (int64_t)sl->a;
				blocks += (int64_t)sl->b;
			}
			k += ckt_slot_count(sl->type);
		}
		if (!bytes && !blocks)
			continue;
		if ((rc = reserve(p, 0)))
			break;
		ckt_record_thread(&enc, p, (uint64_t)r->tid);
		uint64_t now = ckt_now();
		struct ckt_slot s = {now, (uint64_t)bytes, (uint64_t)blocks, ckt_sample_since(now, at),
				     CKT_EV_AGG, 0, 0};
		ckt_record_event(&enc, p, &s, NULL);
		ckt_summary.events++; /* a record written for the thread: counted as its own (the
				       * exit line's and END's count missed it before 0.2.58) */
		ckt_summary_add_heap(bytes);
	}
	return rc;
}

/* A live ring (as of the snapshot) whose thread may have ended without our exit destructor:
 * a raw exit system call, a first allocation after the key destructor rounds, or no key at
 * all (ckt_thread_attach). Asked of the kernel (thread_gone: one tgkill) once the ring has had
 * no event for CKT_GONE_IDLE flushes in a row, and every CKT_GONE_EVERY flushes after that:
 * a pool of 1,000 idle threads costs 1,000 tgkill calls a second at the default 100 ms. A
 * ring's tid is 0 between its recycling and its next owner's attach, which stores its own
 * tid after taking the ring: a new owner is never taken for the old one. A ring taken in a
 * vfork child holds the child's tid, which the kernel reports gone (another process) while the
 * thread that shares the child's memory goes on with the ring: such rings are left to the exit
 * destructor (ring pid, set at attach, not the traced process's). */
#define CKT_GONE_IDLE 1u
#define CKT_GONE_EVERY 10u
static int gone_unsaid(struct ckt_ring *r, int idle)
{
	if (!idle || atomic_load_explicit(&r->state, memory_order_acquire) != CKT_RING_LIVE) {
		r->w_idle = 0;
		return 0;
	}
	uint32_t n = ++r->w_idle;
	return n >= CKT_GONE_IDLE && (n - CKT_GONE_IDLE) % CKT_GONE_EVERY == 0 &&
	       own_tid(r);
}

static uint64_t waits_written; /* ckt_waits as last written (WAITED) */

/* per kind (CKT_LIMIT_*): 0, or 1 + the time its table filled; a bit per kind not written yet */
static _Atomic uint64_t limit_at[CKT_LIMIT_KINDS + 1];
static atomic_uint limits_unwritten;

void ckt_writer_limit_reached(unsigned kind)
{
	uint64_t none = 0;
	if (kind >= 1 && kind <= CKT_LIMIT_KINDS &&
	    atomic_compare_exchange_strong(&limit_at[kind], &none, ckt_now() + 1))
		atomic_fetch_or(&limits_unwritten, 1u << kind);
}

/* the LIMIT records not written yet; each kind's bit is cleared once its record is in a frame */
static int write_limits(uint8_t **p)
{
	unsigned due = atomic_load(&limits_unwritten);
	for (unsigned k = 1; k <= CKT_LIMIT_KINDS; k++) {
		if (!(due & (1u << k)))
			continue;
		int rc = reserve(p, 0);
		if (rc)
			return rc;
		ckt_record_limit(p, atomic_load(&limit_at[k]) - 1, k);
		atomic_fetch_and(&limits_unwritten, ~(1u << k));
	}
	return 0;
}

/* One flush: every complete event in every ring, then SYNC (and END when final). */
static int cycle(int final)
{
	ckt_child_relay_drain(); /* the lines of children that could not write them */
	uint64_t now = ckt_now(); /* before the snapshot: see horizon_of */
	uint8_t *p = begin_frame();
	int rc = 0;
	in_final = final != 0;
	size_t nc = snapshot(now, final);
	uint64_t horizon = horizon_of(now);
	ckt_summary_merge(curs, nc);
	/* (a last flush that met a reused id writes its tables after the rings: a new thread's
	 * name after the end of the one whose id it took, hold_reused) */
	if (!reused_final && (rc = emit_tables(&p)))
		return rc;
	for (size_t i = 0; i < nc && !rc; i++) {
		struct ckt_ring *r = curs[i].ring;
		uint64_t t = curs[i].t, h = curs[i].h;
		if (t != h) {
			if ((rc = reserve(&p, 0)))
				break;
			ckt_record_thread(&enc, &p, (uint64_t)r->tid);
			uint64_t mask = ckt_ring_mask(r); /* fixed until tail reaches h */
			while (t < h) {
				const struct ckt_slot *s = &r->slots[t & mask];
				unsigned n = ckt_slot_count(s->type);
				const struct ckt_slot *s2 = n == 2 ? &r->slots[(t + 1) & mask] : NULL;
				if ((rc = reserve(&p, (uint64_t)r->tid)))
					break;
				if (ckt_record_event(&enc, &p, s, s2))
					total_lost++;
				t += n;
			}
			atomic_store_explicit(&r->tail, t, memory_order_release);
			atomic_fetch_add(&r->drained, 1);
			if (atomic_load(&r->sleeping))
				syscall(SYS_futex, &r->drained, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
			if (rc)
				break;
		}
		uint64_t lost = r->lost;
		if (lost > r->lost_reported) {
			reserve(&p, 0);
			ckt_record_lost(&p, lost - r->lost_reported);
			total_lost += lost - r->lost_reported;
			r->lost_reported = lost;
		}
		/* recycle only if nothing was recorded since the snapshot: the thread's later
		 * destructors may still have written to it before it died. A ring whose number
		 * another thread has now (taken) is gone for sure: tgkill would find that one. */
		if (!curs[i].held &&
		    (curs[i].state == CKT_RING_EXITED || curs[i].taken || gone_unsaid(r, curs[i].t == h)) &&
		    t == h && own_tid(r) && (curs[i].taken || thread_gone(r->tid)) &&
		    atomic_load_explicit(&r->head, memory_order_acquire) == t) {
			/* events it dropped after the count above was read (the thread is gone now:
			 * the ring's next owner starts from lost_reported, so they went unsaid) */
			uint64_t late_lost = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
			if (late_lost > r->lost_reported && !reserve(&p, 0)) {
				ckt_record_lost(&p, late_lost - r->lost_reported);
				total_lost += late_lost - r->lost_reported;
				r->lost_reported = late_lost;
			}
			/* the reader learns the thread has no totals pending any more, from the
			 * time of its last event (the thread is gone: nothing writes last_ts now) */
			if (!reserve(&p, 0))
				ckt_record_thread_exit(&p, r->last_ts, (uint64_t)r->tid);
			ckt_ring_release(r);
			atomic_store(&r->agg_src, NULL);
			atomic_store(&r->busy, CKT_NOT_BUSY);
			r->w_idle = 0;
			pid_t was = r->tid;
			__atomic_store_n(&r->tid, 0, __ATOMIC_RELAXED); /* see gone_unsaid */
			ckt_ring_recycling(was);
			/* the state now, not the snapshot's: the thread may have run its exit
			 * destructor (LIVE -> EXITED, counted) just before it went */
			if (atomic_exchange_explicit(&r->state, CKT_RING_FREE, memory_order_acq_rel) ==
			    CKT_RING_EXITED) {
				/* not below 0: a thread that ended before the trace's process was
				 * known (a constructor's) was not counted; wrapped, every later exit
				 * woke the writer */
				unsigned v = atomic_load(&ckt_rings_exited);
				while (v && !atomic_compare_exchange_weak(&ckt_rings_exited, &v, v - 1))
					;
			}
		}
	}
	if (reused_final) {
		reused_final = 0;
		if (!rc)
			rc = emit_tables(&p);
	}
	if (final && !rc)
		rc = emit_tables_last(&p, rc);
	/* events of threads that got no ring: counted like a full ring's; so are calls of signal
	 * handlers that interrupted a hook (ckt_passed), said once */
	if (!rc)
		rc = lost_since(&p, &ckt_lost_noring, &noring_reported);
	rc = lost_said(&p, &ckt_lost_nested, &nested_reported, rc,
		       "warning: a signal handler called the allocator (or mmap) while it interrupted a "
		       "traced call of it; such calls cannot be recorded and are counted as lost events");
	rc = lost_said(&p, &ckt_lost_jumped, &jumped_reported, rc,
		       "warning: a signal handler left a traced mmap, munmap, mremap or mprotect call by "
		       "a jump (siglongjmp); that call is not recorded and is counted as a lost event, "
		       "and the thread is traced on");
	rc = lost_said(&p, &ckt_lost_cxx, &cxx_reported, rc,
		       "warning: a C++ new-handler (or other code the allocator's own operator new called) "
		       "called the allocator while that new ran; such calls cannot be recorded and are "
		       "counted as lost events");
	if (rc)
		return rc;
	if (final && ckt_sample_r)
		rc = send_pending_totals(&p, nc);
	if (rc)
		return rc;
	/* the program's threads' waits for room in their rings, when they grew (the count read
	 * first, acquire: a wait adds its time first, then its count with release) */
	uint64_t waits = atomic_load_explicit(&ckt_waits, memory_order_acquire);
	uint64_t wait_ns = atomic_load_explicit(&ckt_wait_ns, memory_order_relaxed);
	if (waits != waits_written && !(rc = reserve(&p, 0))) {
		ckt_record_waited(&p, wait_ns, waits);
		waits_written = waits;
	}
	if (!rc)
		rc = write_limits(&p);
	if (rc)
		return rc;
	ckt_record_sync(&p, horizon);
	prev_horizon = horizon;
	if (final)
		ckt_record_end(&p, ckt_now(), (uint64_t)final - 1, ckt_summary.events, total_lost);
	enc_len = (size_t)(p - enc_buf);
	return flush_frame();
}

/* The trace descriptor is still open on the trace file (the program may have closed it and
 * been given its number for a file of its own). */
static int fd_is_trace(void)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == file_dev && st.st_ino == file_ino;
}

static void stop_tracing(int err)
{
	atomic_store(&writer_failed, 1);
	if (err == -EBADF && reopen_errno)
		fail_line("the trace descriptor was closed and opening it again failed:", path_abs, reopen_errno,
			  "; tracing stopped, the program continues");
	else if (err == ERR_TAKEN && taken_fd >= 0) {
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: error: '");
		ckt_line_str(&l, path_abs);
		ckt_line_str(&l, "' is written by the program itself (its descriptor ");
		ckt_line_u64(&l, (uint64_t)taken_fd);
		ckt_line_str(&l, ": an output of its own has the trace's name?); tracing stopped, the file "
				 "left to the program, which continues (name the trace elsewhere: CUZKTRACE_OUT)");
		ckt_line_emit(&l);
	} else if (err == ERR_TAKEN)
		ckt_log("error: '", path_abs,
			"' was cut or written over from its start while traced (by another program, or by "
			"this one: an output of its own with the trace's name?), so the trace cannot be read; "
			"tracing stopped, the file left as it is, the program continues",
			NULL);
	else if (err == -EBADF || err == -EMFILE || err == -ENOLCK) /* EMFILE: the program holds
									 * every number it may */
		ckt_log("error: the trace descriptor for '", path_abs,
			err == -EBADF    ? "' was closed and the path no longer names the trace"
			: err == -ENOLCK ? "' was closed and another process holds the file's lock"
					 : "' was closed and no descriptor was free to open it again",
			"; tracing stopped, the program continues");
	else
		fail_line("cannot write trace", path_abs, -err,
			  "; tracing stopped, the program continues");
	atomic_store(&ckt_active, 0);
	/* nothing more is written: the lock goes (a reader took the file for one still being
	 * written while the program ran on) */
	if (fd_is_trace())
		flock(fd, LOCK_UN);
}

static int final_reason = CKT_END_EXIT;
static void exit_line(void);
static void close_own_fd(void);
static int join_writer(int fast);

static _Atomic pid_t writer_tid;

/* The fields of a /proc stat line after the command's closing parenthesis (the state first;
 * the command may hold spaces and parentheses), or NULL. */
static const char *stat_fields(const char *st)
{
	const char *paren = strrchr(st, ')');
	return paren && paren[1] == ' ' ? paren + 2 : NULL;
}

/* /proc/<rel>, a stat file, read into st (NUL-terminated): its length, 0 when it cannot be
 * read. */
static size_t proc_stat_read(const char *rel, char *st, size_t cap)
{
	int f = ckt_proc_open(rel, O_RDONLY);
	if (f < 0)
		return 0;
	ssize_t n = read(f, st, cap - 1);
	close(f);
	if (n <= 0)
		return 0;
	st[n] = 0;
	return (size_t)n;
}

/* /proc/self/stat read into st: its fields (stat_fields), or NULL when it cannot be read.
 * Opened per call: program threads call it too (a pause's only_helpers_left), and the kept
 * file (ckt_self_stat_read) is the writer's alone, reopened without a lock. */
static const char *self_stat(char *st, size_t cap)
{
	return proc_stat_read("self/stat", st, cap) ? stat_fields(st) : NULL;
}

/* The start time (field 22) among a stat line's fields (stat_fields; NULL: none): its digits,
 * *len of them (0 when there are none). */
static const char *stat_start(const char *fields, size_t *len)
{
	const char *s = fields;
	for (int field = 3; s && field < 22; field++)
		s = (s = strchr(s, ' ')) ? s + 1 : NULL;
	*len = s ? strspn(s, "0123456789") : 0;
	if (*len > 20)
		*len = 20;
	return s ? s : "";
}

/* Whether the main thread has ended (a zombie: "Z" in /proc/self/stat, which shows the
 * leader's state), not only begun its pthread_exit: its key destructors still run, and may
 * allocate or call exit. */
static int leader_ended(void)
{
	char st[512];
	const char *s = self_stat(st, sizeof(st));
	return !s || s[0] == 'Z' || s[0] == 'X'; /* cannot tell: as before, the leader does not count */
}

/* The leader is known to have ended (unlike leader_ended, 0 when /proc cannot tell). The
 * writer's look once a flush interval, through the file kept open at a high number: opening
 * it each time took, for a moment, the lowest free descriptor, the one a program that closes
 * 0 and opens /dev/null expects (110 misses in 3 s of open/close). */
static int leader_gone(void)
{
	char st[512];
	const char *s = ckt_self_stat_read(st, sizeof(st)) == 0 ? stat_fields(st) : NULL;
	return s && (s[0] == 'Z' || s[0] == 'X');
}

/* The main thread ended without glibc's thread exit (a raw exit system call, a seccomp kill:
 * no thread-specific data destructor ran, see thread.c) while no other thread of the program
 * was left: seen by the writer, not told (writer_main). */
static int leader_raw;

/* After the trace of a program whose main thread ended without glibc's thread exit as its
 * last thread (leader_raw): the process ends as it would have without the tracer's threads,
 * with the main thread's status, which /proc/self/stat gives (its 52nd field, in waitpid's
 * form): the code of a raw exit system call (the kernel reports the last thread's, and the
 * last was ours: status 0 for a program's exit(3)), or the signal that killed it (a seccomp
 * filter's SIGSYS). */
static void end_as_leader(void)
{
	char st[1024];
	const char *s = self_stat(st, sizeof(st));
	unsigned long code = 0;
	for (int field = 3; s && *s; field++) {
		if (field == 52) {
			code = strtoul(s, NULL, 10);
			break;
		}
		s = strchr(s, ' ');
		s = s ? s + 1 : NULL;
	}
	int sig = (int)(code & 0x7f);
	if (sig && sig != 0x7f) {
		struct sigaction sa = {.sa_handler = SIG_DFL};
		sigset_t one;
		ckt_real_sigaction(sig, &sa, NULL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		pthread_sigmask(SIG_UNBLOCK, &one, NULL);
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
	}
	syscall(SYS_exit_group, (int)((code >> 8) & 0xff));
}

/* 1 when the process has no thread besides the caller, its leader (a zombie after the main
 * thread's pthread_exit, or the caller itself) and the threads a and b (0: none); -1 when
 * /proc cannot be read. Reads the
 * directory with getdents64 into a buffer on the stack: nothing is allocated. */
static int alone_but(pid_t a, pid_t b)
{
	int dfd = ckt_proc_open("self/task", O_DIRECTORY);
	if (dfd < 0)
		return -1;
	pid_t me = (pid_t)syscall(SYS_gettid), leader = getpid();
	char buf[4096];
	ssize_t n;
	int others = 0;
	while (!others && (n = getdents64(dfd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);
			off += e->d_reclen;
			pid_t tid = 0;
			for (const char *c = e->d_name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid && tid != me && tid != leader && tid != a && tid != b)
				others = 1;
		}
	close(dfd);
	if (others || n != 0)
		return 0;
	return me == leader || leader_ended();
}

/* no thread of the program is left besides the caller: only the tracer's. Without /proc
 * (a chroot, under a descriptor limit too low to keep /proc open), the threads known by
 * their rings stand in: any of them still alive counts. */
static int only_helpers_left(void)
{
	pid_t rss = atomic_load(&ckt_rss_tid), wr = atomic_load(&writer_tid);
	int alone = alone_but(rss, wr);
	if (alone >= 0)
		return alone;
	pid_t me = (pid_t)syscall(SYS_gettid), leader = getpid();
	for (struct ckt_ring *r = atomic_load(&ckt_rings); r; r = r->next) {
		pid_t tid = r->tid;
		int state = atomic_load(&r->state);
		if (state == CKT_RING_FREE || !tid || tid == me || tid == leader || tid == rss || tid == wr)
			continue;
		/* a ring taken in a vfork child: its tid says nothing of the thread, alive until
		 * its exit destructor said otherwise */
		if (!own_tid(r) ? state != CKT_RING_EXITED : !thread_gone(tid))
			return 0;
	}
	return 1;
}

/* The main thread called pthread_exit and every other thread of the program has ended: glibc
 * calls exit(0) when the last thread ends, and it counts ours, so the process would wait for
 * them forever. Finish the trace as exit would; the helpers then end, and the last of them
 * makes glibc's exit (whose destructors find the trace finished). */
static void finish_said_done(void);

static char now_named[4096 + 16]; /* the trace file's name at the end (close_own_fd) */
static const char *exit_name;      /* the exit line's name for it: path_abs, else this */

/* At the end: the trace's name no longer leads to the file written (the program deleted,
 * renamed or replaced it while it ran: the data went on into the file, under whatever name it
 * has now, or none): one line, so that nobody reads another file, or none, for the trace. */
static void path_moved_line(void)
{
	struct stat st, root;
	int found = stat(path_abs, &st) == 0, e = errno;
	if (found && st.st_dev == file_dev && st.st_ino == file_ino)
		return;
	/* after a chroot the path is looked up from another root: nothing to tell (it said the
	 * file was gone while it was whole under that name); nor when the path cannot be looked
	 * up at all (a program that dropped root no longer searches a 0700 directory) */
	if (stat("/", &root) != 0 || root.st_dev != root_dev || root.st_ino != root_ino)
		return;
	/* ... or in another mount namespace (unshare(CLONE_NEWNS), then a mount over the
	 * trace's directory: the trace was whole, the path led elsewhere) */
	ino_t ns = mount_ns();
	if (ns && mnt_ns_ino && ns != mnt_ns_ino)
		return;
	if (!found && e != ENOENT && e != ENOTDIR)
		return;
	/* renamed: the name the file has now (close_own_fd), when it leads to it, is said, and
	 * the exit line gives it (it gave the old name, where nothing or another file was) */
	if (now_named[0] == '/' && stat(now_named, &st) == 0 && st.st_dev == file_dev && st.st_ino == file_ino) {
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: warning: '");
		ckt_line_str(&l, path_abs);
		ckt_line_str(&l, "' no longer names the trace written: the file was renamed '");
		ckt_line_str(&l, now_named);
		ckt_line_str(&l, "'");
		ckt_line_emit(&l);
		exit_name = now_named;
		return;
	}
	ckt_log("warning: '", path_abs,
		"' no longer names the trace written (the file was deleted, renamed or replaced while "
		"the program ran)",
		NULL);
}

static void finish_orphaned(void)
{
	atomic_store(&finisher, (pid_t)syscall(SYS_gettid));
	atomic_store(&stop_flag, 1); /* the final flush has begun (a thread that exits waits) */
	ckt_rss_stop(); /* its last sample goes into the final flush */
	int rc = cycle(CKT_END_EXIT + 1);
	atomic_store(&ckt_writer_running, 0);
	if (rc) {
		stop_tracing(rc);
	} else {
		atomic_store(&ckt_active, 0);
		close_own_fd();
		path_moved_line();
		if (!ckt_config.quiet)
			exit_line();
	}
	finish_said_done();
}

/* Sets a futex word to 1 and wakes every waiter (ckt_wait_word). */
void ckt_word_set(atomic_int *word)
{
	atomic_store(word, 1);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The writer will write no more (its last flush, or a write error): what a fast finish waits
 * for, as it cannot join the thread. */
static void writer_ended(void)
{
	ckt_word_set(&final_done);
}

/* The writer thread is started before the setup's first write to the file, parked until the
 * setup is done: a thread the process cannot have (ulimit -u, ulimit -v, a pids cgroup) is
 * known while an existing file is still as it was (it was cut to a new header first, and the
 * earlier trace lost, for a process that then ran untraced). 0: parked; 1: run (and so for
 * every later start of the writer: the resume after an exec's pause); 2: leave at once. */
static atomic_int writer_go;

static void *writer_main(void *arg)
{
	(void)arg;
	ckt_tls.guard = 1; /* the writer's own allocations (zstd) are not traced */
	ckt_tls.dead = 1;
	while (atomic_load(&writer_go) == 0)
		syscall(SYS_futex, &writer_go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	if (atomic_load(&writer_go) == 2)
		return NULL;
	atomic_store(&writer_tid, (pid_t)syscall(SYS_gettid));
	uint64_t last = ckt_now();
	ckt_coarse_tick();
	while (!atomic_load(&stop_flag)) {
		int woken = wait_tick();
		ckt_coarse_tick();
		if (atomic_load(&stop_flag))
			break;
		/* after main's pthread_exit the 10 ms ticks between flushes only look for the end */
		if (!woken && atomic_load(&ckt_main_exited) && ckt_now() - last < ckt_config.flush_ms * 1000000ull) {
			if (only_helpers_left() && !atomic_exchange(&finished, 1)) {
				finish_orphaned();
				if (leader_raw)
					end_as_leader();
				return NULL;
			}
			continue;
		}
		last = ckt_now();
		int rc = cycle(0);
		atomic_fetch_add_explicit(&ckt_writer_cycles, 1, memory_order_relaxed);
		if (rc) {
			atomic_store(&ckt_writer_running, 0);
			stop_tracing(rc);
			ckt_rss_stop(); /* nothing records its samples now: it must not keep the process */
			writer_ended();
			return NULL;
		}
		ckt_sample_maintain(); /* the default mode's filter grows here, off the program's threads */
		/* the main thread can also end without pthread_exit: a raw exit system call, or a
		 * seccomp filter that kills the thread (SECCOMP_RET_KILL_THREAD, libseccomp's
		 * SCMP_ACT_KILL). Untraced, the process ends with its last thread (status: the main
		 * thread's); traced, the helpers kept it alive for good, every signal blocked, so
		 * not even SIGTERM ended it. Looked for once a flush interval (one read of
		 * /proc/self/stat), when the writer was not woken early */
		if (!woken && !atomic_load(&ckt_main_exited) && leader_gone()) {
			/* the process ends with the main thread's status only if it was the last of
			 * the program's threads, as /proc says (not the rings: a thread that never
			 * recorded has none); else with the last thread's, as untraced, which the
			 * helpers' ends give (0, as a thread's return does) */
			/* (the main thread's destructor marks a glibc thread exit before the thread
			 * is a zombie: looked at again after the zombie was seen) */
			leader_raw = !atomic_load(&ckt_main_exited) &&
				     alone_but(atomic_load(&ckt_rss_tid), atomic_load(&writer_tid)) == 1;
			atomic_store(&ckt_main_exited, 1);
		}
		if (atomic_load(&ckt_main_exited) && only_helpers_left() && !atomic_exchange(&finished, 1)) {
			finish_orphaned();
			if (leader_raw)
				end_as_leader();
			return NULL;
		}
		/* everything recorded so far is written; resumed by a new thread. Only if the pauser
		 * still waits for it (1 -> 2): one that gave up (1 -> 0) keeps this writer. */
		int pausing = 1;
		if (atomic_load(&pause_flag) && atomic_compare_exchange_strong(&pause_flag, &pausing, 2))
			return NULL;
	}
	int rc = cycle(final_reason + 1);
	atomic_store(&ckt_writer_running, 0);
	if (rc)
		stop_tracing(rc);
	writer_ended();
	return NULL;
}

/* ---- init ---- */
/* Reads up to cap - 1 bytes of path into buf (NUL-terminated); with total, also counts the
 * file's whole length there (reading on past what fits). */
static int read_file(const char *path, char *buf, size_t cap, uint64_t *total)
{
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	size_t n = 0;
	ssize_t r = 1;
	while (n < cap - 1 && (r = read(f, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	if (total) {
		static char rest[4096]; /* static: see setup */
		*total = n;
		while (r > 0 && (r = read(f, rest, sizeof(rest))) > 0)
			*total += (uint64_t)r;
	}
	close(f);
	buf[n] = 0;
	return (int)n;
}

static void u64s(char *b, uint64_t v)
{
	struct ckt_line l = {.len = 0};
	ckt_line_u64(&l, v);
	memcpy(b, l.buf, l.len);
	b[l.len] = 0;
}

/* CUZKTRACE_EXEC_PID's value starts with the pid of the image that exec'd and the process's
 * start time (field 22 of /proc/self/stat, which an exec keeps: a later process given the
 * same pid, after the pids wrapped or in another pid namespace, has another), then ':' (see
 * hooks_exec.c): writes "<pid>.<start>:", NUL-terminated, to b (48 bytes are enough), the
 * start from a stat line's fields (stat_fields); 0 when they hold none ("<pid>.:"). */
static int pid_prefix(char *b, pid_t pid, const char *fields)
{
	size_t n;
	const char *s = stat_start(fields, &n);
	u64s(b, (uint64_t)pid);
	strcat(b, ".");
	strncat(b, s, n);
	strcat(b, ":");
	return n != 0;
}

/* The process's start time never changes: the prefix is kept for the pid it was made for (an
 * exec that fails and is tried again, as from a timer's signal handler every 50 us, read
 * /proc/self/stat each time: tests/progs/handlerexec.c). The pid is stored after the text and
 * read before it; two threads making it at once write the same text. */
void ckt_exec_pid_prefix(char *b, pid_t pid)
{
	static char kept[48];
	static _Atomic pid_t kept_pid;
	if (pid && atomic_load_explicit(&kept_pid, memory_order_acquire) == pid) {
		strcpy(b, kept);
		return;
	}
	char st[1024];
	if (pid_prefix(b, pid, self_stat(st, sizeof(st))) && pid == getpid() && strlen(b) < sizeof(kept)) {
		atomic_store_explicit(&kept_pid, 0, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		strcpy(kept, b);
		atomic_store_explicit(&kept_pid, pid, memory_order_release);
	}
}

/* (ckt.h) ckt_exec_pid_prefix in a child that may share the traced process's memory */
int ckt_exec_child_prefix(char *b, pid_t pid)
{
	/* by path: ckt_proc_open may open /proc again and keep the descriptor, which in a vfork
	 * child would write the parent's memory with a descriptor only the child has */
	char st[1024];
	int f = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = f >= 0 ? read(f, st, sizeof(st) - 1) : -1;
	if (f >= 0)
		close(f);
	if (n <= 0)
		return 0;
	st[n] = 0;
	return pid_prefix(b, pid, stat_fields(st));
}

/* This pid namespace's inode, 0 when /proc cannot tell. */
static uint64_t pid_ns(void)
{
	struct stat st;
	int f = ckt_proc_open("self/ns/pid", O_RDONLY | O_CLOEXEC);
	uint64_t ino = f >= 0 && fstat(f, &st) == 0 ? (uint64_t)st.st_ino : 0;
	if (f >= 0)
		close(f);
	return ino;
}

/* This process for the header's "process" key: "<pid>.<start time>.<pid namespace>", the same
 * across its execs. The namespace tells apart two processes of one pid started in the same
 * clock tick (the start time counts 10 ms ticks): a container's entry point, pid 1, rerun at
 * once. */
static void process_id(char *b, pid_t pid)
{
	ckt_exec_pid_prefix(b, pid);
	b[strlen(b) - 1] = '.'; /* its ':' */
	u64s(b + strlen(b), pid_ns());
}

/* The parent for the header's "parent_process" key, as its own trace's "process" key names it
 * (the parent is in this pid namespace: getppid answers in it), so that a reader matches a
 * child's trace to its parent's exactly, a pid reused by a later process apart. 0 (no key)
 * without a parent in this namespace (pid 1), without /proc, or when the pid read is a
 * process started after this one (the parent ended and its pid went to another). */
static int parent_process_id(char *b, pid_t ppid)
{
	char path[32];
	static char self[1024], par[1024]; /* static: see setup */
	/* the /proc we read must be this pid namespace's: after unshare -p without a /proc of its
	 * own, "<ppid>/stat" is another process's (the key named a stranger, and the reader,
	 * trusting it, lost the child) */
	if (ppid <= 0 || !proc_stat_read("self/stat", self, sizeof(self)) ||
	    strtoull(self, NULL, 10) != (unsigned long long)getpid())
		return 0;
	u64s(path, (uint64_t)ppid);
	strcat(path, "/stat");
	size_t len, plen;
	const char *start = stat_start(stat_fields(self), &len);
	const char *pstart = proc_stat_read(path, par, sizeof(par)) ? stat_start(stat_fields(par), &plen) : NULL;
	if (!len || !pstart || !plen || strtoull(pstart, NULL, 10) > strtoull(start, NULL, 10))
		return 0;
	u64s(b, (uint64_t)ppid);
	strcat(b, ".");
	strncat(b, pstart, plen);
	strcat(b, ".");
	u64s(b + strlen(b), pid_ns()); /* this namespace, the parent's too */
	return 1;
}

/* The most bytes %e inserts: a file name is at most 255 bytes (NAME_MAX), and the default
 * "cuzktrace.%e.%p.zst" with a per-pid or .exec<k> tag added must stay below that. A longer
 * executable name is cut there, at a character boundary (UTF-8). */
#define CKT_OUT_EXE_MAX 128

/* %p -> pid, %e -> executable base name (its first CKT_OUT_EXE_MAX bytes), %% -> %. */
static int expand(const char *in, char *out, size_t cap, pid_t pid)
{
	size_t n = 0;
	char num[24];
	for (const char *s = in; *s; s++) {
		const char *ins = NULL;
		char c[2] = {*s, 0};
		size_t k;
		if (*s == '%' && s[1] == 'p') {
			u64s(num, (uint64_t)pid);
			ins = num;
			s++;
		} else if (*s == '%' && s[1] == 'e') {
			ins = exe_base;
			s++;
		} else if (*s == '%' && s[1] == '%') {
			ins = "%";
			s++;
		} else {
			ins = c;
		}
		k = strlen(ins);
		if (ins == exe_base)
			k = ckt_utf8_cut(ins, k, CKT_OUT_EXE_MAX);
		if (n + k >= cap)
			return -ENAMETOOLONG;
		memcpy(out + n, ins, k);
		n += k;
	}
	out[n] = 0;
	return 0;
}

/* Why a trace cannot go to a path beyond errno's reasons (an existing file not to be written
 * over: open_locked): the setup's return codes past errno's, with reason_text's words. */
enum {
	ERR_NOT_TRACE = -4096, /* it holds something that is not a trace */
	ERR_PSEUDO,            /* a file of the kernel's (/proc, /sys, ...) */
	ERR_STDIO,             /* open in the program already: its standard input, output or
				* error, or another descriptor it inherited (stdio_clash) */
	ERR_LOOP,              /* ELOOP from a directory of the path, not from O_NOFOLLOW */
	ERR_CWD_LONG,          /* a relative name and the working directory: past PATH_MAX */
	ERR_NO_THREAD,         /* the writer thread could not be started (no_thread_err says why) */
};

static int make_absolute(const char *in, char *out, size_t cap)
{
	if (in[0] == '/') {
		if (strlen(in) >= cap)
			return -ENAMETOOLONG;
		strcpy(out, in);
		return 0;
	}
	/* a working directory whose path, with the name, passes PATH_MAX gives the trace no path
	 * to be announced and found again by (getcwd: ERANGE, which read "Numerical result out
	 * of range"; or a path that the open then refused, "File name too long") */
	if (!getcwd(out, cap))
		return errno == ERANGE || errno == ENAMETOOLONG ? ERR_CWD_LONG : -errno;
	size_t n = strlen(out);
	while (in[0] == '.' && in[1] == '/')
		in += 2;
	if (n + 1 + strlen(in) >= PATH_MAX || n + 1 + strlen(in) >= cap)
		return ERR_CWD_LONG;
	if (n > 1)
		out[n++] = '/';
	strcpy(out + n, in);
	return 0;
}

/* trace.zst -> trace.<tag>.zst; anything else -> <path>.<tag>. A file name is at most NAME_MAX
 * (255) bytes: where the tag would pass it, the name gives up the end of what comes before the
 * tag, cut between UTF-8 characters (since 0.2.62; before, the name was refused with "File name
 * too long" and the process ran untraced). */
static void per_pid_name_tag(char *path, size_t cap, const char *num)
{
	char tail[8] = "";
	size_t n = strlen(path);
	if (n > 4 && !strcmp(path + n - 4, ".zst")) {
		strcpy(tail, ".zst");
		n -= 4;
		path[n] = 0;
	}
	const char *slash = strrchr(path, '/');
	size_t name = slash ? (size_t)(slash + 1 - path) : 0, add = 1 + strlen(num) + strlen(tail);
	if (n - name + add > NAME_MAX)
		path[name + ckt_utf8_cut(path + name, n - name, NAME_MAX - add)] = 0;
	if (strlen(path) + strlen(num) + strlen(tail) + 2 < cap) {
		strcat(path, ".");
		strcat(path, num);
		strcat(path, tail);
	}
}

/* zstd's workspace, mapped directly when big (ckt_big_alloc). zstd frees and retakes it as
 * frame sizes change (a frame bigger than any before; a smaller one after 128 frames for which
 * it was too big), and a map made then failed where the program had capped its address space
 * since the start (setrlimit(RLIMIT_AS), then allocating until refused: Python's resource
 * module): the frame was lost and the trace stopped there, holding no event. So the biggest
 * block zstd gives back is kept for its next request that fits, and the workspace of a whole
 * frame is taken at start (zstd_warm): no map after it. Called by the thread that compresses
 * (the writer, or the final flush after it), one at a time. */
static void *zstd_kept;

static void *zstd_alloc(void *opaque, size_t n)
{
	(void)opaque;
	void *p = zstd_kept;
	zstd_kept = NULL;
	if (p && ckt_big_room(p) >= n)
		return p;
	/* too small for this request: zstd holds one workspace and asks for more only to grow
	 * it, so the block kept would be held, resident, beside the bigger one for good (level
	 * 19 without the warm-up: 9 MiB) */
	ckt_big_free(p);
	return ckt_big_alloc(n);
}

static void zstd_free(void *opaque, void *p)
{
	(void)opaque;
	if (!p)
		return;
	if (zstd_kept && ckt_big_room(zstd_kept) >= ckt_big_room(p)) {
		ckt_big_free(p);
		return;
	}
	ckt_big_free(zstd_kept);
	zstd_kept = p;
}

/* Sizes zstd's workspace for the biggest frame: a frame of FRAME_CAP pledged and begun, then
 * dropped (its first call takes the workspace). At levels 1 to 3 only: their workspace is a
 * few hundred KiB more than a short-lived process's first frame takes; level 9's is 12 MiB
 * and level 19's 17 MiB, zeroed, which every traced process, a compiler in a traced build,
 * would pay at start (8 ms at 19); there the workspace grows with the frames, as before. */
static void zstd_warm(void)
{
	if (ckt_config.level > 3)
		return;
	uint8_t none = 0;
	ZSTD_outBuffer out = {zbuf, zcap, 0};
	ZSTD_inBuffer in = {&none, 0, 0};
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
	ZSTD_CCtx_setPledgedSrcSize(cctx, FRAME_CAP);
	(void)ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue);
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
}

/* The first bytes of the first zstd frame in z[0, n), decoded into out[0, cap): how many (0 for
 * a frame cut before its first block ends), or -1 when z is no zstd frame, a corrupt one, or
 * one whose window passes 1 MiB (a trace's header frame needs 128 KiB at most: another
 * program's file must not make the traced process map up to zstd's default 128 MiB). */
static long zstd_head(const uint8_t *z, size_t n, uint8_t *out, size_t cap)
{
	ZSTD_DCtx *d = ZSTD_createDCtx_advanced((ZSTD_customMem){zstd_alloc, zstd_free, NULL});
	if (!d)
		return -1;
	ZSTD_inBuffer in = {z, n, 0};
	ZSTD_outBuffer o = {out, cap, 0};
	size_t r = ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 20);
	if (!ZSTD_isError(r))
		do /* until the frame is whole (0), an error, or out or in is used up */
			r = ZSTD_decompressStream(d, &o, &in);
		while (r && !ZSTD_isError(r) && o.pos < o.size && in.pos < in.size);
	ZSTD_freeDCtx(d);
	return ZSTD_isError(r) ? -1 : (long)o.pos;
}

static int stdio_clash; /* the descriptor of ERR_STDIO */
static char stdio_reason[96];

/* File systems whose files are the kernel's interfaces: writing a trace there changes the
 * process or the system (/proc/self/comm, /proc/sys/kernel/hostname). */
static int pseudo_fs(unsigned long t)
{
	static const unsigned long kinds[] = {PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
					      DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC,
					      0x62656570 /* configfs */, EFIVARFS_MAGIC, PSTOREFS_MAGIC,
					      SELINUX_MAGIC, SMACK_MAGIC, 0x42494e4d /* binfmt_misc */,
					      0x65735543 /* fusectl */};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (t == kinds[k])
			return 1;
	return 0;
}

/* An existing file, opened for reading and writing, is written over only when it is empty or
 * a trace (an earlier run's, or one cut short: zstd's magic number at least). Anything else
 * (a library the process has mapped: truncated, it died of SIGBUS; a file of the program's
 * own) is left as it was. Nor is the program's standard input, output or error: the program's
 * output and the trace would overwrite each other, the path announced holding no trace. */
static int existing_file_check(int f, const struct stat *st)
{
	struct statfs fs;
	if (fstatfs(f, &fs) == 0 && pseudo_fs((unsigned long)fs.f_type))
		return ERR_PSEUDO;
	/* descriptors 0 to 1023 the process has (it has run nothing of its own yet: inherited,
	 * 3<trace.zst too); f itself may be 0, 1 or 2 when the program started with them closed */
	if ((stdio_clash = first_fd_on(f, st->st_dev, st->st_ino, 0)) >= 0)
		return ERR_STDIO;
	enum { ZCAP = 132 * 1024 }; /* a zstd block at most (128 KiB) and the frame's header */
	static const uint8_t zmagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
	uint8_t *z = ckt_big_alloc(ZCAP), h[CKT_MAGIC_LEN];
	if (!z)
		return -ENOMEM;
	ssize_t n = pread(f, z, ZCAP, 0);
	int rc = n < 0 ? -errno : 0;
	if (n > 0 && memcmp(z, zmagic, (size_t)n < 4 ? (size_t)n : 4))
		rc = ERR_NOT_TRACE;
	else if (n >= 4) {
		/* what decodes must be a trace's header (a frame cut before it decodes: ours, cut
		 * as it was written) */
		long hn = zstd_head(z, (size_t)n, h, sizeof(h));
		if (hn < 0 || memcmp(h, CKT_MAGIC, (size_t)hn))
			rc = ERR_NOT_TRACE;
	}
	ckt_big_free(z);
	return rc;
}

/* O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader forever, before
 * main; without one it fails with ENXIO, as does a device file with no device behind it.
 * An existing file is opened for reading too (existing_file_check): one the program may write
 * and not read is refused (EACCES) before anything is written to it. */
static int file_created; /* open_locked created the file: a failed setup removes it */

static int open_locked(const char *path)
{
	const int flags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int f = open(path, O_WRONLY | flags | O_CREAT | O_EXCL, 0644);
	file_created = f >= 0;
	if (f < 0 && errno == EEXIST)
		f = open(path, O_RDWR | flags);
	if (f < 0 && errno == ELOOP) {
		/* O_NOFOLLOW's answer for a link as the last component; a loop of links among the
		 * directories gets the same errno (it was called a symbolic link the tracer would
		 * not follow) */
		struct stat ls;
		return lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode) ? -ELOOP : ERR_LOOP;
	}
	if (f < 0 && errno == EISDIR) {
		/* a name that ends in '/' is refused so whether the directory is there or not: one
		 * that is not gets stat's reason (No such file or directory; since 0.2.44) */
		struct stat ds;
		if (stat(path, &ds) < 0)
			return -errno;
		errno = EISDIR;
	}
	if (f < 0) {
		/* a file of the kernel's that may not be written (/sys's read-only files) says
		 * what it is, as one that may (since 0.2.51: "Permission denied") */
		struct statfs fs;
		int e = errno;
		if ((e == EACCES || e == EPERM) && statfs(path, &fs) == 0 && pseudo_fs((unsigned long)fs.f_type))
			return ERR_PSEUDO;
		return e == ENXIO ? -EINVAL : -e;
	}
	/* a fstat, fcntl or flock a seccomp filter or the file system refuses keeps its errno (it
	 * read "not a regular file"). A file this call created stays, empty: another tracer may
	 * have opened it meanwhile, and taken it (unlinked here, a trace announced by that one
	 * was gone) */
	struct stat st;
	int bad = fstat(f, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : fcntl(f, F_SETFL, 0) < 0 ? errno : 0;
	if (!bad && flock(f, LOCK_EX | LOCK_NB) < 0)
		bad = errno == EWOULDBLOCK ? EBUSY : errno;
	if (bad) {
		close(f);
		return -bad;
	}
	int rc = file_created ? 0 : existing_file_check(f, &st);
	if (rc) {
		close(f);
		return rc;
	}
	/* not truncated here: an existing file keeps its contents until the header is ready to
	 * go (setup), so a setup that fails first leaves it as it was (nor made private: that
	 * waits until the file is taken, open_claimed) */
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	if (stat("/", &st) == 0) {
		root_dev = st.st_dev;
		root_ino = st.st_ino;
	}
	mnt_ns_ino = mount_ns();
	return f;
}

/* ---- the run: a traced program and every traced program it starts ----
 * The first traced process of a tree (no CUZKTRACE_RUN in its environment) begins a run: it
 * puts CUZKTRACE_RUN=<its process key>@<its start, ns since the epoch> in its environment, so
 * that the programs it starts, however (a shell's subshells, a static program in between, a
 * parent that is gone), carry it; each writes it to its header as "run", which lets a reader
 * find every trace of the run. A trace file that was written since the run began is never
 * taken over by a process of the run: a command the program ran later with the same
 * CUZKTRACE_OUT (a fixed name: every child of a shell under `sh -c`, after the first process
 * has ended and let go of its lock) took the name over and truncated its trace. A file last
 * written before the run began is an earlier run's, written over as a rerun's output is. */
static uint64_t start_wall; /* wall time of t = 0, the first intercepted call, ns */
static uint64_t run_start;  /* when the run began, ns since the epoch */
static char run_id[96];     /* CUZKTRACE_RUN's value */

/* The process's threads now, from /proc/self/task (by count: in a pid namespace that sees
 * its parent's /proc the ids there are not gettid's); -1 when /proc cannot tell. */
static int threads_now(void)
{
	int dfd = ckt_proc_open("self/task", O_DIRECTORY);
	if (dfd < 0)
		return -1;
	static char buf[4096]; /* static: see setup */
	ssize_t n;
	int count = 0;
	while ((n = getdents64(dfd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);
			off += e->d_reclen;
			count += e->d_name[0] >= '0' && e->d_name[0] <= '9';
		}
	close(dfd);
	return n == 0 ? count : -1;
}

/* The C library's setenv and unsetenv: a program may define its own, which the plain names
 * reach first (bash does, for its variable table, which it fills from the environment only
 * after our constructor: its setenv then took our CUZKTRACE_OUT and lost it to the old value,
 * and its unsetenv left CUZKTRACE_EXEC_FROM in the environment it passes on). */
static int env_set(const char *name, const char *value)
{
	static int (*fn)(const char *, const char *, int);
	if (!fn)
		fn = (int (*)(const char *, const char *, int))ckt_next("setenv");
	return fn ? fn(name, value, 1) : setenv(name, value, 1);
}

static int env_unset(const char *name)
{
	static int (*fn)(const char *);
	if (!fn)
		fn = (int (*)(const char *))ckt_next("unsetenv");
	return fn ? fn(name) : unsetenv(name);
}

/* The value of environment variable `name` as the process's environment holds it, or NULL:
 * read there, not through getenv, which a program may define for a table of its own (bash) */
static const char *env_find(const char *name)
{
	extern char **environ;
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* CUZKTRACE_FORKED_BY (since 0.2.37; hooks_exec.c sets it at the exec of a process that is not
 * the traced one): "<pid>.<start>:<forker>:<key>", where <pid>.<start> is the exec'ing process
 * (ckt_exec_pid_prefix), <forker> the pid of the process that forked it, and <key> the process
 * key of the traced process it is a fork of (through forks alone, none of which exec'd). A
 * value naming another process (a copy a shell kept in its environment and passed to a child
 * it made otherwise) is not this one's. Kept for this process's own execs (with_exec_from). */
static char forked_by[160];

static void forked_by_take(pid_t pid)
{
	const char *v = env_find("CUZKTRACE_FORKED_BY");
	char mine[48], st[1024];
	if (!v)
		return;
	/* a start time read: "<pid>.:" names every run of a pid alike */
	if (pid_prefix(mine, pid, self_stat(st, sizeof(st))) && !strncmp(v, mine, strlen(mine)) &&
	    strlen(v) < sizeof(forked_by))
		strcpy(forked_by, v);
	env_unset("CUZKTRACE_FORKED_BY");
}

const char *ckt_writer_forked_by(void)
{
	return forked_by;
}

/* The traced process that this one is a fork of, from forked_by, when the kernel's parent
 * (ppid) is not the process that forked it: that one ended before this one's tracer started,
 * and the kernel gave it to pid 1 or a subreaper (a daemon's double fork, a shell's last
 * command put in the background), which /proc then names. Its process key into b (72 bytes),
 * in own's pid namespace (own: this process's key); *direct: it forked this one itself (else
 * through forks of its that ended). 0 when there is none, or the parent /proc shows is right. */
static int forked_by_ancestor(char *b, pid_t ppid, const char *own, int *direct)
{
	const char *p = strchr(forked_by, ':'), *k;
	char *end;
	if (!p || p[1] < '0' || p[1] > '9')
		return 0;
	unsigned long forker = strtoul(p + 1, &end, 10);
	if (*end != ':' || forker == (unsigned long)ppid || strlen(k = end + 1) >= 72)
		return 0;
	unsigned long kpid = strtoul(k, &end, 10);
	const char *kns = strrchr(k, '.'), *ons = strrchr(own, '.');
	/* "<pid>.<start>.<namespace>", a start read, this process's namespace; or another where
	 * the kernel names no parent (ppid 0: this process is the first of a pid namespace, forked
	 * by a process outside it, `unshare -pf`; since 0.2.51, its report read "started by pid 0"
	 * and the traced process that forked it listed no child) */
	if (*end != '.' || end[1] < '0' || end[1] > '9' || !kns || kns == end || !ons || (strcmp(kns, ons) && ppid))
		return 0;
	strcpy(b, k);
	*direct = kpid == forker;
	return 1;
}

/* A relative name without its leading "./" ("./t.zst" anchored read "/job/./t.zst") */
static const char *skip_dot_slash(const char *rel)
{
	while (rel[0] == '.' && rel[1] == '/')
		for (rel += 2; *rel == '/';)
			rel++;
	return rel;
}

/* A relative CUZKTRACE_OUT (the default name is one) names a file in each program's own
 * current directory: a command the program ran after a cd (`bash -c 'cd sub; exec prog'`,
 * `make -C sub`) wrote its trace there, where the report of the run's first process did not
 * look for it. The run's first process passes the name on anchored to its directory at start,
 * where its own trace is. (Since 0.2.23.) */
static void anchor_out(void)
{
	static char cwd[PATH_MAX], abs[PATH_MAX + sizeof(ckt_config.out) + 1]; /* static: see setup */
	if (ckt_config.out[0] == '/')
		return;
	/* no line when the directory cannot be read: the trace's own relative name fails to
	 * open then too, and that line says why */
	if (!getcwd(cwd, sizeof(cwd)))
		return;
	/* the directory's own '%' doubled: the name is a pattern each program expands again (a
	 * directory "job%p" made every child's name one that does not exist) */
	size_t n = 0;
	const char *rel = skip_dot_slash(ckt_config.out);
	for (const char *c = cwd; *c && n < sizeof(abs) - 2; c++) {
		if (*c == '%')
			abs[n++] = '%';
		abs[n++] = *c;
	}
	if (n > 1 || abs[0] != '/')
		abs[n++] = '/';
	abs[n] = 0;
	/* the same bound as the setting's own (config.c): a child would refuse a longer name */
	if (n + strlen(rel) >= sizeof(ckt_config.out) - 64)
		return;
	strcpy(abs + n, rel);
	/* the name as given ("" when unset: the default), for a program that cannot write in
	 * this directory (it changed its root, or dropped to a user who may not enter it): it
	 * writes where that name says, as before 0.2.23 (fallback_out) */
	env_set("CUZKTRACE_OUT_GIVEN", env_find("CUZKTRACE_OUT") ? ckt_config.out : "");
	env_set("CUZKTRACE_OUT", abs);
}

/* Takes the run from CUZKTRACE_RUN, or begins one (and passes it on when children are
 * traced). A value the tracer did not write is said once and replaced. */
/* [p, end) is a process key as process_id writes it: "<pid>.<start time>.<pid namespace>",
 * digits, the start time empty without /proc ("junk@5" and "1@2" passed before 0.2.25: the run
 * then began in 1970, and an earlier run's trace of the same name read as this run's) */
static int run_process_ok(const char *p, const char *end)
{
	int field = 0, digits = 0;
	for (; p < end; p++) {
		if (*p == '.') {
			if (++field > 2 || (field == 1 && !digits))
				return 0;
			digits = 0;
		} else if (*p >= '0' && *p <= '9') {
			digits++;
		} else {
			return 0;
		}
	}
	return field == 2 && digits > 0;
}

static void run_init(pid_t pid)
{
	struct timespec wall;
	ckt_clock_get(CLOCK_REALTIME, &wall);
	start_wall = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec - ckt_now();
	const char *v = getenv("CUZKTRACE_RUN"), *at = v ? strrchr(v, '@') : NULL;
	uint64_t t = 0;
	int ok = at && at > v && (size_t)(at - v) < 64 && at[1] && run_process_ok(v, at);
	for (const char *c = ok ? at + 1 : ""; *c && ok; c++)
		ok = *c >= '0' && *c <= '9' && t <= (UINT64_MAX - 9) / 10 && (t = t * 10 + (uint64_t)(*c - '0'), 1);
	if (ok && strlen(v) < sizeof(run_id)) {
		strcpy(run_id, v);
		run_start = t;
		/* a run joined by hand (or one whose first process could not anchor the name) has
		 * a relative name still: anchored here as a first process does (since 0.2.60; a
		 * child after a cd wrote in its own directory). A traced parent's is absolute. */
		if (threads_now() <= 1)
			anchor_out();
		return;
	}
	if (v)
		ckt_log("warning: CUZKTRACE_RUN='", v,
			"' is not a value the tracer writes (<process>@<ns>); this process begins a run of its own", NULL);
	process_id(run_id, pid);
	strcat(run_id, "@");
	u64s(run_id + strlen(run_id), start_wall);
	run_start = start_wall;
	/* setenv is not safe beside another thread's getenv (glibc frees the array it grew
	 * before): a thread an earlier library constructor started keeps it off, and says so */
	int lone = threads_now() <= 1;
	if (ckt_config.children && !lone)
		ckt_log("warning: the program has threads already as the tracer starts: CUZKTRACE_RUN is "
			"not set, and the programs it starts begin runs of their own", NULL, NULL, NULL);
	else if (ckt_config.children)
		env_set("CUZKTRACE_RUN", run_id);
	else if (v && lone)
		env_unset("CUZKTRACE_RUN");
	/* CUZKTRACE_CHILDREN=0 too: an exec of the process itself is traced (after a cd) */
	if (lone)
		anchor_out();
}

static int header_get(int f, const char *key, char *out, size_t cap);

/* f, opened by open_locked on a file that was there, holds a trace written since the run
 * began: this run's (another process's, or an earlier image's: its header names the run),
 * or one of another run at the same time (its last write is not older than this run; a
 * time in the future is a clock's error, not a write: an earlier run's). An empty file
 * holds nothing to keep. By the header first: a file system's timestamps may lag the clock
 * by a tick (every one before Linux 6.13; ramfs), and a trace written in the run's first
 * milliseconds read as older than the run. */
static int written_in_run(int f)
{
	struct stat st;
	char run[sizeof(run_id)];
	if (fstat(f, &st) < 0 || st.st_size == 0)
		return 0;
	if (header_get(f, "run", run, sizeof(run)) == 0 && !strcmp(run, run_id))
		return 1;
	struct timespec wall;
	ckt_clock_get(CLOCK_REALTIME, &wall);
	uint64_t m = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	uint64_t now = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
	return m >= run_start && m <= now + 1000000000ull;
}

struct kvctx {
	uint8_t *p, *end;
};

static void add_setting(const char *name, const char *value, void *arg)
{
	struct kvctx *c = arg;
	char key[64] = "setting.";
	strncat(key, name, sizeof(key) - 9);
	c->p = ckt_record_kv(c->p, c->end, key, value);
}

/* The command line as /proc/self/cmdline has it (each argument and a NUL, cut at cap), from the
 * process's initial stack: without /proc (a container or chroot that has none) the header's
 * argv was empty. Returns the bytes stored; *total the whole length. */
static int initial_cmdline(char *buf, size_t cap, uint64_t *total)
{
	long argc;
	char **av = ckt_initial_argv(&argc);
	size_t n = 0;
	*total = 0;
	for (long i = 0; av && i < argc; i++) {
		size_t len = strlen(av[i]) + 1;
		*total += len;
		size_t k = n + len <= cap ? len : cap - n;
		memcpy(buf + n, av[i], k);
		n += k;
	}
	return (int)n;
}

/* This process's "process" key once the header is built ("" before): a forked child's exec
 * passes it on (hooks_exec.c). */
static char process_key[72];

const char *ckt_writer_process_key(void)
{
	return process_key;
}

/* Whether the calling process is in the traced process's pid namespace (1 where either cannot
 * be told): a child made by a raw clone(CLONE_NEWPID) of a traced pid 1 is pid 1 too, in a
 * namespace of its own, with the traced process's memory (since 0.2.51: its exec was taken for
 * the traced process's, and waited for good for a writer thread it does not have). */
int ckt_writer_same_pid_ns(void)
{
	const char *dot = strrchr(process_key, '.');
	uint64_t now = pid_ns();
	return !dot || !dot[1] || !now || strtoull(dot + 1, NULL, 10) == now;
}

static size_t build_header(uint8_t *buf, size_t cap, pid_t pid, const char *exe)
{
	struct kvctx c = {ckt_record_header_begin(buf), buf + cap - 1};
	char num[24];
	static char argv[32768], args[32768];
	char host[256] = "";
	uint64_t total = 0;
	int n = read_file("/proc/self/cmdline", argv, sizeof(argv), &total);
	if (n <= 0)
		n = initial_cmdline(argv, sizeof(argv), &total);
	/* args: as the kernel has them, NUL after each (the last one dropped); argv: joined by
	 * '\n', for readers before 0.2.8 */
	size_t args_len = n > 0 ? (size_t)n - (argv[n - 1] == 0) : 0;
	if (n > 0)
		memcpy(args, argv, (size_t)n);
	for (int i = 0; i < n; i++)
		if (!argv[i])
			argv[i] = i == n - 1 ? 0 : '\n';
	gethostname(host, sizeof(host) - 1);
	c.p = ckt_record_kv(c.p, c.end, "tracer_version", CKT_TRACER_VERSION);
	u64s(num, (uint64_t)pid);
	c.p = ckt_record_kv(c.p, c.end, "pid", num);
	pid_t ppid = getppid(); /* once: ppid and parent_process name the same parent (unless an
				 * adopted process names the one that forked it, below) */
	u64s(num, (uint64_t)ppid);
	c.p = ckt_record_kv(c.p, c.end, "ppid", num);
	c.p = ckt_record_kv(c.p, c.end, "exe", exe);
	c.p = ckt_record_kv(c.p, c.end, "argv", n > 0 ? argv : "");
	c.p = ckt_record_kvn(c.p, c.end, "args", args, args_len);
	/* cut: the whole command line's length (not when all that is missing is the kernel's
	 * NUL after the last argument: 32,767 bytes of arguments read as cut) */
	if (n > 0 && total > (uint64_t)n + 1) {
		u64s(num, total);
		c.p = ckt_record_kv(c.p, c.end, "args_total", num);
	}
	u64s(num, start_wall);
	c.p = ckt_record_kv(c.p, c.end, "start_wall_ns", num);
	/* the process, across its execs (holds_this_process) */
	char ps[72], anc[72];
	int direct = 0;
	process_id(ps, pid);
	c.p = ckt_record_kv(c.p, c.end, "process", ps);
	strcpy(process_key, ps);
	int adopted = forked_by_ancestor(anc, ppid, ps, &direct);
	/* a traced process that forked this one itself is its parent, whoever adopted it since
	 * (before 0.2.37 the adopter, pid 1, was named); through forks of its that ended, it is
	 * named apart, the parent key left the kernel's */
	if (adopted && direct)
		c.p = ckt_record_kv(c.p, c.end, "parent_process", anc);
	else if (parent_process_id(ps, ppid))
		c.p = ckt_record_kv(c.p, c.end, "parent_process", ps);
	if (adopted && !direct)
		c.p = ckt_record_kv(c.p, c.end, "ancestor_process", anc);
	c.p = ckt_record_kv(c.p, c.end, "run", run_id);
	c.p = ckt_record_kv(c.p, c.end, "hostname", host);
	u64s(num, (uint64_t)sysconf(_SC_PAGESIZE));
	c.p = ckt_record_kv(c.p, c.end, "page_size", num);
	c.p = ckt_record_kv(c.p, c.end, "clock", "monotonic");
	const char *afn, *aobj;
	if (ckt_allocator_ahead(&afn, &aobj)) {
		c.p = ckt_record_kv(c.p, c.end, "allocator_ahead", aobj);
		c.p = ckt_record_kv(c.p, c.end, "allocator_ahead_function", afn);
	}
	ckt_config_each(add_setting, &c);
	c.p = ckt_record_header_end(c.p);
	return c.p ? (size_t)(c.p - buf) : 0;
}

/* Reads the file back through its path: the bytes at its start must be what we wrote. */
static int verify(const void *want, size_t n)
{
	/* O_NONBLOCK: the path may have been replaced by a FIFO, which must not block us */
	int f = open(path_abs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (f < 0)
		return -errno;
	struct stat st;
	char *got = ckt_malloc(n);
	int rc = 0;
	if (!got)
		rc = -ENOMEM;
	else if (fstat(f, &st) < 0 ? !ckt_stat_refused(errno) : st.st_dev != file_dev || st.st_ino != file_ino)
		rc = -ESTALE; /* (fstat refused: the bytes alone tell) */
	else if (pread(f, got, n, 0) != (ssize_t)n || memcmp(got, want, n))
		rc = -EIO;
	ckt_free(got);
	close(f);
	return rc;
}

/* path_abs gets the name of an exec'd image whose old image was given `requested` and wrote
 * `wrote`: that name with .exec<k> before .zst, k counted along the chain of execs (the old
 * image's k + 1: t.zst -> t.exec1.zst -> t.exec2.zst, not t.exec1.exec1.zst; t.<pid>.zst, a
 * per-pid name the old image fell back to -> t.<pid>.exec1.zst). A ".exec<k>" is taken off
 * only a name the old image was not given itself: a CUZKTRACE_OUT of job.exec7.zst gives
 * job.exec7.exec1.zst. A file there already is an earlier run's, written over as the first
 * name is (it took the first k no file had: a second run behind `nice` wrote .exec2, leaving
 * the first run's prover in .exec1; one a live process writes is locked: per-pid name). */
static void exec_name(const char *requested, const char *wrote)
{
	static char base[sizeof(path_abs)];
	strcpy(base, wrote);
	size_t n = strlen(base), z = n > 4 && !strcmp(base + n - 4, ".zst") ? n - 4 : n, d = z;
	while (d > 0 && base[d - 1] >= '0' && base[d - 1] <= '9')
		d--;
	uint64_t k = 1;
	if (strcmp(requested, wrote) && d < z && z - d < 10 && d >= 5 && !strncmp(base + d - 5, ".exec", 5)) {
		for (size_t i = d; i < z; i++)
			k = (i == d ? 0 : k * 10) + (uint64_t)(base[i] - '0');
		k++;
		memmove(base + d - 5, base + z, n - z + 1); /* drops ".exec<k>" */
	}
	char num[32] = "exec";
	u64s(num + 4, k);
	strcpy(path_abs, base);
	per_pid_name_tag(path_abs, sizeof(path_abs), num);
}

/* The exec'd image holds a shared lock, for as long as it lives, on the trace its old image
 * wrote and on the name the old image was given (the first trace of a chain of execs, which
 * nothing holds open any more): a process started later with that name (every command a shell
 * forks, with a CUZKTRACE_OUT without %p) would truncate it; with the lock it falls back to a
 * per-pid name, as for a live writer. Best effort: a descriptor that cannot go above the
 * program's range is not kept, a program that closes every descriptor lets it go, and a
 * forked child closes its copies (ckt_writer_after_fork_child). At most two, closed on exec. */
static int held_fd[2] = {-1, -1};

static void hold_old_trace(int slot, const char *path)
{
	int f = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (f < 0)
		return;
	int h = ckt_fd_high_only(f);
	if (h == f || flock(h, LOCK_SH | LOCK_NB) < 0) { /* not moved: it would be the program's */
		close(h);
		return;
	}
	held_fd[slot] = h;
}

/* The value of header key `key` in the trace that f holds, NUL-terminated in out (cap bytes);
 * 0 when found, -1 otherwise (not a trace, no such key, a longer value). Reads the file's
 * first zstd frame (the header, a few KiB, at most 32 KiB of arguments twice). */
static int header_get(int f, const char *key, char *out, size_t cap)
{
	enum { ZCAP = 128 * 1024, HCAP = 96 * 1024 };
	uint8_t *z = ckt_big_alloc(ZCAP + HCAP), *h = z + ZCAP;
	int rc = -1;
	ssize_t n = z ? pread(f, z, ZCAP, 0) : -1;
	long hn = n > 0 ? zstd_head(z, (size_t)n, h, HCAP) : -1;
	if (hn > CKT_MAGIC_LEN + 2 && !memcmp(h, CKT_MAGIC, CKT_MAGIC_LEN)) {
		const uint8_t *p = h + CKT_MAGIC_LEN + 2, *end = h + hn;
		size_t klen = strlen(key);
		for (uint64_t kl, vl; p && (p = ckt_get_uv(p, end, &kl)) && kl <= (uint64_t)(end - p);) {
			const uint8_t *k = p;
			p += kl;
			if (!kl || !(p = ckt_get_uv(p, end, &vl)) || vl > (uint64_t)(end - p))
				break;
			if (kl == klen && !memcmp(k, key, klen)) {
				if (vl < cap) {
					memcpy(out, p, vl);
					out[vl] = 0;
					rc = 0;
				}
				break;
			}
			p += vl;
		}
	}
	ckt_big_free(z);
	return rc;
}

/* 1 when the file at path already holds a trace whose header names this process (its
 * "process" key: pid, start time and pid namespace, the same across execs): the trace
 * of the image this process replaced by an exec the hooks did not see (glibc's execl, execle
 * and execlp call an internal execve; execveat, a raw execve system call), which left no
 * CUZKTRACE_EXEC_FROM behind: not to be truncated. Not an earlier process that had the same
 * pid (every run of a container's entry point is pid 1: its file is the rerun's to write) nor
 * a trace of a tracer before 0.2.12 (no such key). 0 for anything else, a file that is not a
 * trace included. */
static int holds_this_process(const char *path, pid_t pid)
{
	int f = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (f < 0)
		return 0;
	char num[72], had[72];
	process_id(num, pid);
	int got = header_get(f, "process", had, sizeof(had));
	close(f);
	/* without /proc there is no start time ("<pid>..0"): a rerun of the same pid (a
	 * container's entry point) would read as this process */
	return got == 0 && !strcmp(had, num) && !strstr(num, "..");
}

/* The trace goes to path_abs instead of old: one warning line, old + why + the new name;
 * shown (the name the init line gives) follows. */
static void say_renamed(const char *old, const char *why, const char *tail, char *shown)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: '");
	ckt_line_str(&l, old);
	ckt_line_str(&l, why);
	ckt_line_str(&l, path_abs);
	ckt_line_str(&l, "'");
	ckt_line_str(&l, tail);
	ckt_line_emit(&l);
	strcpy(shown, path_abs);
}

/* Opens path_abs for the trace, locked, or else the per-pid name, then "<pid>.<k>" names
 * (k = 2, 3, ...: a pid the run saw before, after the pids wrapped): a name another live
 * process writes (locked) or that holds a trace written in this run is left alone, and one
 * line names the first and the one used (shown follows). The descriptor (moved above the
 * program's range; the flock moves with it) or -errno. */
static int open_claimed(pid_t pid, char *shown)
{
	static char first[sizeof(path_abs)]; /* static: see setup */
	char tag[40];
	const char *first_why = NULL;
	strcpy(first, path_abs);
	for (unsigned k = 1;; k++) {
		int f = open_locked(path_abs);
		const char *why = NULL;
		if (f == -EBUSY)
			why = "' is being written by another live process; using '";
		else if (f >= 0 && !file_created && written_in_run(f))
			why = "' holds a trace written since this run began (by a program it ran, or by "
			      "another run at the same time); using '";
		if (!why) {
			/* one line: the name asked for, why not, the name used (and how many
			 * per-pid names before it were taken too) */
			if (first_why) {
				char tail[64] = "";
				if (k > 2) {
					strcpy(tail, " (");
					u64s(tail + 2, k - 2);
					strcat(tail, k > 3 ? " per-pid names before it were taken too)"
							   : " per-pid name before it was taken too)");
				}
				say_renamed(first, first_why, tail, shown);
			}
			struct stat st;
			if (f >= 0 && fstat(f, &st) == 0 && (st.st_mode & S_IWOTH))
				fchmod(f, st.st_mode & 0775);
			return f >= 0 ? ckt_fd_high(f) : f;
		}
		if (f >= 0)
			close(f);
		if (k == 100)
			return -EEXIST;
		if (!first_why)
			first_why = why;
		strcpy(path_abs, first);
		u64s(tag, (uint64_t)pid);
		if (k > 1) {
			strcat(tag, ".");
			u64s(tag + strlen(tag), k);
		}
		per_pid_name_tag(path_abs, sizeof(path_abs), tag);
	}
}

/* Starts the writer thread parked (writer_go): 0, or ERR_NO_THREAD with the reason in
 * no_thread_err. */
static int no_thread_err;

static int writer_park(void)
{
	unsigned long th;
	atomic_store(&writer_go, 0);
	int rc = ckt_spawn_helper(writer_main, &th, &writer_stack);
	if (rc) {
		no_thread_err = rc;
		return ERR_NO_THREAD;
	}
	writer_thread = (pthread_t)th;
	return 0;
}

/* Lets the parked writer run (1), or leave (2: the setup failed after all; joined here, so
 * the process goes on with no thread of the tracer's). */
static void writer_unpark(int go)
{
	atomic_store(&writer_go, go);
	syscall(SYS_futex, &writer_go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	if (go == 2) {
		sigset_t old;
		ckt_hold_signals(&old);
		pthread_join(writer_thread, NULL);
		ckt_release_signals(&old);
	}
}

/* The start-up's path and header buffers (here and in what it calls: run_init's, build_header's,
 * open_claimed's, exec_name's, fallback_out's, ckt_writer_start's) are static: they run once,
 * in the constructor, on the main thread's stack, which a small `ulimit -s` and a large
 * environment leave tight (their 37 KiB of frames crashed /bin/true under `ulimit -s 64` with
 * 24 KiB of environment, 6 runs of 6). */
static int setup(const char *want_path, pid_t pid, const char *exe_path, char *shown)
{
	static char expanded[PATH_MAX];
	run_init(pid);
	int rc = expand(want_path, expanded, sizeof(expanded), pid), rc_abs = 0;
	if (rc == 0)
		rc = rc_abs = make_absolute(expanded, path_abs, sizeof(path_abs) - 32);
	/* the name it tried: expanded, relative when the working directory is gone (getcwd) */
	strcpy(shown, rc == 0 ? path_abs : rc_abs && expanded[0] ? expanded : want_path);
	if (rc)
		return rc;
	strcpy(path_requested, path_abs);
	/* The image before an exec (same pid) was given this very file: keep what it wrote, take
	 * the next name (see exec_name). A shell keeps the variables in its own copy of the
	 * environment and passes them to every child it forks: with another pid, this process
	 * replaced nothing (a tracer before 0.2.6 sets no CUZKTRACE_EXEC_PID: its exec is ours). */
	const char *from = getenv("CUZKTRACE_EXEC_FROM"), *ep = getenv("CUZKTRACE_EXEC_PID");
	const char *colon = ep ? strchr(ep, ':') : NULL;
	static char wrote[sizeof(path_abs)];
	char mine[48];
	wrote[0] = 0;
	ckt_exec_pid_prefix(mine, pid);
	int ours = !colon || !strncmp(ep, mine, strlen(mine));
	if (colon && colon[1] == '/' && strlen(colon + 1) < sizeof(wrote))
		strcpy(wrote, colon + 1);
	/* ... or by an exec the hooks did not see, which passed no variables of its own: the
	 * file's header names this process */
	int by_vars = from && ours && !strcmp(from, path_abs);
	int exec_clash = by_vars || holds_this_process(path_abs, pid);
	if (from)
		env_unset("CUZKTRACE_EXEC_FROM");
	if (ep)
		env_unset("CUZKTRACE_EXEC_PID");
	forked_by_take(pid);
	if (exec_clash) {
		static char old[sizeof(path_abs)];
		strcpy(old, by_vars && wrote[0] ? wrote : path_abs);
		exec_name(path_requested, old);
		/* after execs the hooks did not see, the names of the earlier images hold this
		 * process too: the next one after them (an execl chain wrote .exec1 each time, and
		 * each image's trace went over the one before) */
		for (int k = 0; !by_vars && k < 1000 && holds_this_process(path_abs, pid); k++) {
			strcpy(old, path_abs);
			exec_name(path_requested, old);
		}
		say_renamed(old, "' holds the trace of the image this process replaced by exec; using '", "", shown);
		hold_old_trace(0, old);
		if (strcmp(old, path_requested))
			hold_old_trace(1, path_requested);
	}
	fd = open_claimed(pid, shown);
	if (fd < 0)
		return fd;

	/* zstd's memory is the tracer's too (see ckt_malloc) */
	cctx = ZSTD_createCCtx_advanced((ZSTD_customMem){zstd_alloc, zstd_free, NULL});
	enc_buf = ckt_big_alloc(FRAME_CAP);
	/* each column can hold a whole frame; only the pages a column has used are resident.
	 * Mapped directly: 10 MiB is more than a program's own toy allocator may have to give. */
	uint8_t *cols = ckt_ownmaps_map((size_t)(CKT_NSTREAMS - 1) * FRAME_CAP, 0);
	zcap = ZSTD_compressBound(FRAME_CAP) + 4096; /* + a block header per column */
	zbuf = ckt_big_alloc(zcap);
	for (int k = 1; cols && k < CKT_NSTREAMS; k++)
		enc.col0[k] = enc.col[k] = cols + (size_t)(k - 1) * FRAME_CAP;
	if (!cctx || !enc_buf || !zbuf || !cols) {
		rc = -ENOMEM;
		goto drop;
	}
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ckt_config.level);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	zstd_warm();

	size_t hn = build_header(enc_buf, FRAME_CAP, pid, exe_path);
	if (!hn) {
		rc = -E2BIG;
		goto drop;
	}
	enc_len = hn;
	size_t z = ZSTD_compress2(cctx, zbuf, zcap, enc_buf, enc_len);
	enc_len = 0;
	if (ZSTD_isError(z)) {
		rc = -ENOMEM;
		goto drop;
	}
	/* A file-size limit below the header: refused before a partial header is written (the
	 * write would fail with EFBIG past the limit; its SIGXFSZ is taken back, write_from). */
	struct rlimit fsz;
	if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY && z > fsz.rlim_cur) {
		rc = -EFBIG;
		goto drop;
	}
	if ((rc = writer_park()) != 0)
		goto drop;
	/* the last step before the first write: what failed up to here left an existing file
	 * as it was; from here on a failure leaves it empty, which the reader calls an empty
	 * trace (a write that failed partway, a full disk, left part of a header, which the
	 * reader took for a process killed while writing it) */
	if (ftruncate(fd, 0) < 0)
		rc = -errno;
	else
		rc = write_all(zbuf, z);
	if (!rc) {
		file_expect = (int64_t)z;
		head_size = (int64_t)z;
		head_len = z < sizeof(head_bytes) ? z : sizeof(head_bytes);
		memcpy(head_bytes, zbuf, head_len);
		rc = verify(zbuf, z);
	}
	if (rc && ftruncate(fd, 0) == 0)
		file_expect = 0;
	if (!rc)
		return 0;
	writer_unpark(2);
drop:
	/* the encoder's 10 MiB of columns, zstd's context and buffers: a program running
	 * untraced keeps none of it (under `ulimit -v` its own allocations failed for it) */
	ZSTD_freeCCtx(cctx);
	ckt_big_free(enc_buf);
	ckt_big_free(zbuf);
	if (enc.col0[1])
		ckt_ownmaps_unmap(enc.col0[1], (size_t)(CKT_NSTREAMS - 1) * FRAME_CAP);
	for (int k = 1; k < CKT_NSTREAMS; k++)
		enc.col0[k] = enc.col[k] = NULL;
	cctx = NULL;
	enc_buf = zbuf = NULL;
	return rc;
}

static const char *reason_text(int rc)
{
	switch (rc) {
	case -EINVAL:
		return "not a regular file";
	case ERR_NOT_TRACE:
		return "the file exists and is not a cuzktrace trace; it is left as it was (remove it, or name another file)";
	case ERR_PSEUDO:
		return "a file of the kernel's (/proc, /sys), not one for a trace; it is left as it was";
	case ERR_STDIO:
		if (stdio_clash == 0)
			return "it is also the program's standard input";
		if (stdio_clash <= 2)
			return stdio_clash == 1 ? "it is also the program's standard output, which would overwrite the trace"
						: "it is also the program's standard error, which would overwrite the trace";
		strcpy(stdio_reason, "the program has it open already, as descriptor ");
		u64s(stdio_reason + strlen(stdio_reason), (uint64_t)stdio_clash);
		return stdio_reason;
	case -ESTALE:
		return "the path names a different file after it was created";
	case -EIO:
		return "the header read back does not match what was written";
	case -E2BIG:
		return "the trace header is too large";
	case -ELOOP:
		return "it is a symbolic link; refusing to follow it";
	case ERR_LOOP:
		return strerrordesc_np(ELOOP);
	case ERR_CWD_LONG:
		return "the working directory's path and the name are longer together than a path may be "
		       "(4096 bytes), so the trace has no path to be found by: name it by a shorter "
		       "absolute path (CUZKTRACE_OUT=/...)";
	default:
		return strerrordesc_np(-rc);
	}
}


const char *ckt_writer_requested_path(void)
{
	return path_requested;
}

pid_t ckt_writer_pid(void)
{
	return trace_pid;
}

const char *ckt_writer_path(void)
{
	return path_abs;
}

/* Some system calls succeed only in a process with one thread (unshare and setns into a user
 * or mount namespace): for them the helper threads stop for a moment, after writing everything
 * recorded so far, and start again. Only when the program itself has no other thread (or the
 * call fails anyway) and the trace is running. 1 when they were stopped. */
/* The trace is set up in this process and not finished (the writer may be paused). */
int ckt_writer_tracing(void)
{
	return fd >= 0 && !atomic_load(&finished) && getpid() == trace_pid;
}

/* This process's trace was set up and has begun to be finished (by exit on another thread,
 * say): an exec now must still wait for that and pass its path on (the new image would
 * otherwise open the same file afresh and wipe the finished trace). */
int ckt_writer_finishing(void)
{
	return trace_pid && getpid() == trace_pid && atomic_load(&finished);
}

/* What the writer has done: cycles, bytes written, and its thread's CPU time (ns). */
struct progress {
	uint64_t c, b, cpu;
};
#define PROGRESS_NONE {UINT64_MAX, UINT64_MAX, UINT64_MAX}

/* Whether the writer made progress since *pr, which it updates: a cycle, a byte written, or CPU
 * time spent. The CPU time tells a writer starved of the processor (hundreds of the program's
 * threads still running on two cores as the process exits: a final flush that takes 20 ms of
 * CPU took 40 s, and the exit gave up on it at 10 s without a cycle, calling it stuck) from
 * one blocked in a write, which spends none. */
static int writer_moved(struct progress *pr)
{
	struct progress now = {atomic_load(&ckt_writer_cycles),
			       __atomic_load_n(&bytes_written, __ATOMIC_RELAXED), 0};
	pid_t tid = atomic_load(&writer_tid);
	struct timespec ts;
	/* the thread's CPU clock (the kernel's encoding, as glibc's pthread_getcpuclockid) */
	if (tid > 0 && syscall(SYS_clock_gettime, (clockid_t)((~(unsigned)tid << 3) | 6), &ts) == 0)
		now.cpu = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	int moved = now.c != pr->c || now.b != pr->b || (now.cpu && now.cpu != pr->cpu);
	*pr = now;
	return moved;
}

/* After a pause was asked: 1 once the writer has taken it (or failed, and ends, or the trace
 * was finished meanwhile: finish_locked took the pause back), 0 when it made no progress
 * (cycles, bytes written) for 10 s. Sleeps 1 ms at a time, signals open. */
static int wait_paused(void)
{
	struct progress pr = PROGRESS_NONE;
	for (int still = 0; still < 10;) {
		/* a second by the clock (1 ms sleeps add up to more on a busy machine) */
		for (uint64_t end = ckt_clock_raw() + 1000000000ull; ckt_clock_raw() < end;) {
			if (atomic_load(&pause_flag) == 2 || atomic_load(&writer_failed) ||
			    atomic_load(&finished))
				return 1;
			ckt_nap(1000000);
		}
		still = writer_moved(&pr) ? 0 : still + 1;
	}
	return 0;
}

/* helpers started a moment ago may not have said who they are yet: up to 100 ms for that */
/* Up to 2 s for just started helpers to say who they are (100 ms was passed on a machine
 * busy with other work: unshare(CLONE_NEWUSER) then failed with EINVAL, traced only) */
static void await_helper_tids(void)
{
	for (int i = 0; i < 20000 && (!atomic_load(&writer_tid) || (ckt_rss_running() && !atomic_load(&ckt_rss_tid))); i++) {
		ckt_nap(100000);
	}
}

/* Up to 2 s for the threads wr and rss (0: none) to have left the process. */
static void await_tids_gone(pid_t wr, pid_t rss)
{
	for (int i = 0; i < 20000 && ((wr && !thread_gone(wr)) || (rss && !thread_gone(rss))); i++)
		ckt_nap(100000);
}

static _Atomic pid_t ending_wr, ending_rss; /* the helpers' ids as an exec finished the trace */

/* The helpers' ids, taken before the trace is finished for an exec: a helper that ends clears
 * its id before it is gone from the process (the sampler as it returns), and an id read after
 * the flush was 0 while the thread still ran (an unshare of a user namespace right after the
 * failed exec: EINVAL 1 run in 10 on a busy machine, before 0.2.57). Helpers just started are
 * given up to 2 s to say who they are. */
void ckt_writer_note_helpers(void)
{
	if (atomic_load(&ckt_writer_running) && !atomic_load(&finished) && getpid() == trace_pid)
		await_helper_tids();
	atomic_store(&ending_wr, atomic_load(&writer_tid));
	atomic_store(&ending_rss, atomic_load(&ckt_rss_tid));
}

/* An exec that finished the trace (without joining the tracer's threads) failed: the process
 * goes on, and the threads, ending, can still be in its thread group for a moment, where a
 * call that needs a single-threaded process (unshare of a user namespace) failed with EINVAL
 * right after (the join had waited for them). */
void ckt_writer_await_helpers_gone(void)
{
	await_tids_gone(atomic_load(&ending_wr), atomic_load(&ending_rss));
}

static int caps_of(pid_t tid, struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, tid};
	return (int)syscall(SYS_capget, &h, d);
}

/* See ckt.h. Three capget calls; errno kept. Only the effective bit the call needs counts:
 * other capabilities change no thread's result (a program that toggles CAP_NET_RAW on its
 * threads would otherwise stop the helpers at every call, from every thread). */
int ckt_helpers_creds_differ(int cap)
{
	if (!atomic_load(&ckt_writer_running) || atomic_load(&finished) || getpid() != trace_pid)
		return 0;
	int e = errno, differ = 0;
	await_helper_tids();
	struct __user_cap_data_struct me[2], them[2];
	pid_t tids[2] = {atomic_load(&writer_tid), atomic_load(&ckt_rss_tid)};
	uint32_t bit = 1u << (cap & 31);
	if (caps_of(0, me) == 0)
		for (int i = 0; i < 2 && !differ; i++)
			differ = tids[i] > 0 && caps_of(tids[i], them) == 0 &&
				 ((me[cap >> 5].effective ^ them[cap >> 5].effective) & bit) != 0;
	errno = e;
	return differ;
}

int ckt_helpers_pause(int alone)
{
	if (!atomic_load(&ckt_writer_running) || atomic_load(&finished) || getpid() != trace_pid ||
	    !atomic_load(&writer_joinable))
		return 0;
	/* from a thread other than main only once main has ended (pthread_exit): otherwise the
	 * process has two threads of its own and the call fails whatever we do */
	if (alone && (pid_t)syscall(SYS_gettid) != trace_pid && !atomic_load(&ckt_main_exited))
		return 0;
	await_helper_tids();
	if (alone && !only_helpers_left())
		return 0;
	pid_t wr_tid = atomic_load(&writer_tid), rss_tid = atomic_load(&ckt_rss_tid);
	sigset_t old;
	ckt_hold_signals(&old); /* joining a helper frees its TLS table */
	ckt_rss_stop();
	ckt_release_signals(&old);
	/* While paused, a thread whose ring fills (a signal handler that allocates) drops and
	 * counts, as with no writer, instead of waiting for one: the writer it would wait for is
	 * this thread's to restart. */
	atomic_store(&ckt_writer_running, 0);
	atomic_store(&pause_flag, 1);
	atomic_store(&wake_pending, 1);
	syscall(SYS_futex, &wake_pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	/* the wait itself with signals open: a terminating signal must not wait for a flush */
	if (!wait_paused()) {
		int pausing = 1;
		if (atomic_compare_exchange_strong(&pause_flag, &pausing, 0)) {
			/* stuck (a write that does not return): it stays and goes on when it can,
			 * the sampler with it, and the call will fail */
			if (!atomic_load(&writer_failed))
				atomic_store(&ckt_writer_running, 1);
			if (ckt_config.rss_ms) {
				ckt_hold_signals(&old);
				(void)ckt_rss_start();
				ckt_release_signals(&old);
			}
			ckt_log(alone ? "warning: the trace writer made no progress for 10 s; a call that needs "
					"a single-threaded process will fail"
				      : "warning: the trace writer made no progress for 10 s; a set-ID call runs "
					"with the tracer's threads as they are, where glibc may abort the program",
				NULL, NULL, NULL);
			return 0;
		}
		/* it took the pause just now: it is ending */
	}
	/* the trace was finished meanwhile, the pause taken back (finish_locked: this thread's
	 * signal handler called exec, which failed): the writer ended with the trace and was
	 * waited for there; nothing to resume */
	if (atomic_load(&finished) && atomic_load(&pause_flag) != 2)
		return 0;
	ckt_hold_signals(&old);
	pthread_join(writer_thread, NULL); /* it has left, or is leaving, writer_main */
	ckt_release_signals(&old);
	atomic_store(&writer_joinable, 0);
	/* a joined thread can still be leaving the kernel's thread group for a moment, longer on
	 * a busy machine (up to 2 s: 100 ms was passed there, and the call failed with EINVAL).
	 * For a set-ID call (not alone) the program's own threads stay: the helpers' leaving is
	 * waited for by their ids (alone_but never came true beside a program thread, and every
	 * such call took 1 s or more: 4 calls 3.8 s, since 0.2.53 some 10 ms) */
	if (alone) {
		for (int i = 0; i < 20000 && alone_but(0, 0) == 0; i++)
			ckt_nap(100000);
	} else
		await_tids_gone(wr_tid, rss_tid);
	return 1;
}

void ckt_helpers_resume(void)
{
	atomic_store(&writer_tid, 0); /* the new writer says who it is (ckt_helpers_pause waits) */
	if (atomic_load(&writer_failed) || atomic_load(&finished)) {
		atomic_store(&pause_flag, 0); /* it failed while flushing, and said so */
		return;
	}
	unsigned long th;
	sigset_t old;
	ckt_hold_signals(&old); /* thread creation allocates (its TLS): not the program's memory */
	int rc = ckt_spawn_helper(writer_main, &th, &writer_stack);
	ckt_release_signals(&old);
	if (rc) {
		atomic_store(&ckt_active, 0);
		atomic_store(&pause_flag, 0);
		ckt_log("error: cannot restart the trace writer thread; tracing stopped at '",
			path_abs, "' (it reads as truncated), the program continues", NULL);
		return;
	}
	writer_thread = (pthread_t)th;
	atomic_store(&writer_joinable, 1);
	atomic_store(&ckt_writer_running, 1);
	atomic_store(&pause_flag, 0);
	if (ckt_config.rss_ms) {
		ckt_hold_signals(&old);
		(void)ckt_rss_start();
		ckt_release_signals(&old);
	}
}

/* The run's first process passed CUZKTRACE_OUT on anchored to its directory (anchor_out),
 * and the name as given in CUZKTRACE_OUT_GIVEN. A program that cannot write there (it changed
 * its root: chroot; or runs as a user who may not enter that directory: setpriv, runuser)
 * takes the name as given, relative to its own directory, with one line, as it did before
 * 0.2.23 (it ran untraced). Returns setup's result for that name, or rc as it was. */
static int fallback_out(int rc, pid_t pid, const char *exe_path, char *shown)
{
	const char *given = env_find("CUZKTRACE_OUT_GIVEN");
	const char *want = given && *given ? given : "cuzktrace.%e.%p.zst", *rel = skip_dot_slash(want);
	size_t nr = strlen(rel), no = strlen(ckt_config.out);
	/* only a name the run anchored: "<a directory>/<the name as given>" (a name the user gave
	 * absolutely, to a directory that does not exist, is an error of its own), and not under
	 * CUZKTRACE_STRICT=1, which exits instead */
	if (!given || ckt_config.strict || ckt_config.out[0] != '/' || want[0] == '/' || no <= nr ||
	    ckt_config.out[no - nr - 1] != '/' || strcmp(ckt_config.out + no - nr, rel) ||
	    strlen(want) >= sizeof(ckt_config.out))
		return rc;
	/* the same file from here (a command that did not cd): no second try, no second line */
	static char expanded[PATH_MAX], again[sizeof(path_abs)];
	if (expand(want, expanded, sizeof(expanded), pid) || make_absolute(expanded, again, sizeof(again) - 32) ||
	    !strcmp(again, shown) || !strcmp(again, path_requested))
		return rc;
	static char first[sizeof(path_abs)];
	strcpy(first, shown);
	strcpy(ckt_config.out, want);
	int rc2 = setup(ckt_config.out, pid, exe_path, shown);
	if (rc2 == 0) {
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: warning: cannot write beside the run's first trace ('");
		ckt_line_str(&l, first);
		ckt_line_str(&l, "': ");
		ckt_line_str(&l, reason_text(rc));
		ckt_line_str(&l, "); using '");
		ckt_line_str(&l, shown);
		ckt_line_str(&l, "'");
		ckt_line_emit(&l);
	}
	return rc2;
}

int ckt_writer_start(void)
{
	pid_t pid = getpid();
	trace_pid = pid;
	ckt_proc_init();
	static char exe_path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	exe_path[n > 0 ? n : 0] = 0;
	/* without /proc, the file name the process was started by (its exec's first argument) */
	const char *execfn = n > 0 ? NULL : (const char *)getauxval(AT_EXECFN);
	if (execfn && strlen(execfn) < sizeof(exe_path)) {
		strcpy(exe_path, execfn);
		n = (ssize_t)strlen(exe_path);
	}
	const char *b = strrchr(exe_path, '/');
	strncpy(exe_base, b ? b + 1 : (n > 0 ? exe_path : "unknown"), sizeof(exe_base) - 1);
	/* a program whose file is gone (deleted since, or a memfd run by fexecve): /proc says
	 * "<name> (deleted)", which %e took whole (since 0.2.51) */
	size_t eb = strlen(exe_base);
	if (eb > 10 && !strcmp(exe_base + eb - 10, " (deleted)"))
		exe_base[eb - 10] = 0;

	static char shown[sizeof(path_abs)];
	int rc = setup(ckt_config.out, pid, exe_path, shown), no_thread = 0;
	if (rc == -ENOENT || rc == -EACCES || rc == -EROFS || rc == -ENOTDIR || rc == -EPERM)
		rc = fallback_out(rc, pid, exe_path, shown);
	if (rc == ERR_NO_THREAD) {
		no_thread = 1;
		rc = no_thread_err;
	}
	if (rc == 0) {
		ckt_self_stat_open(); /* for the writer's look at the main thread (leader_gone) */
		atomic_store(&ckt_writer_running, 1);
		atomic_store(&writer_joinable, 1);
		writer_unpark(1);
	}
	if (rc) {
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: error: cannot trace to '");
		ckt_line_str(&l, shown);
		ckt_line_str(&l, "': ");
		/* the file was fine: the thread was refused (EAGAIN: ulimit -u, a pids cgroup) */
		if (no_thread)
			ckt_line_str(&l, "cannot start the trace writer thread: ");
		ckt_line_str(&l, reason_text(rc));
		if (no_thread && rc == -EAGAIN)
			ckt_line_str(&l, " (a limit on threads: ulimit -u, a container's pids limit?)");
		ckt_line_str(&l, ckt_config.strict ? "; exiting (CUZKTRACE_STRICT=1)"
						     : "; running untraced");
		ckt_line_emit(&l);
		if (fd >= 0) {
			/* a file we created for nothing would read as an empty or truncated trace */
			struct stat st;
			if (file_created && lstat(path_abs, &st) == 0 && st.st_dev == file_dev &&
			    st.st_ino == file_ino)
				unlink(path_abs);
			close(fd);
			fd = -1;
		}
		return rc;
	}
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: tracing ");
	ckt_line_str(&l, exe_base);
	ckt_line_str(&l, " (pid ");
	ckt_line_u64(&l, (uint64_t)pid);
	ckt_line_str(&l, ") to ");
	ckt_line_str(&l, path_abs);
	ckt_line_emit(&l);
	return 0;
}

/* ---- exit ---- */
/* Closes the trace descriptor only if it still is our file: the program may have closed it
 * and reused the number (daemons do), and that descriptor is not ours to close. */
static void close_own_fd(void)
{
	if (fd_is_trace()) {
		/* where the file is now, for path_moved_line: the kernel's name for the open file,
		 * "<path> (deleted)" once it has none */
		char link[32] = "/proc/self/fd/";
		u64s(link + strlen(link), (uint64_t)fd);
		ssize_t n = readlink(link, now_named, sizeof(now_named) - 1);
		now_named[n > 0 ? n : 0] = 0;
		close(fd);
	}
	fd = -1;
}


/* Waits up to ns nanoseconds for *word to become nonzero; whether it is. */
int ckt_wait_word(atomic_int *word, uint64_t ns)
{
	/* by the clock: a signal cuts a futex wait short, and the callers count seconds (glibc's
	 * SIGSETXID, sent to every thread by each setgid of a thread that loops on it, made "no
	 * progress for 10 s" of a few milliseconds, and the trace was left cut short) */
	for (uint64_t end = ckt_clock_raw() + ns;;) {
		if (atomic_load(word))
			return 1;
		uint64_t now = ckt_clock_raw();
		if (now >= end)
			return 0;
		struct timespec left = {(time_t)((end - now) / 1000000000ull),
					(long)((end - now) % 1000000000ull)};
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, &left, NULL, 0);
	}
}

/* Waits for the writer's end (fast: its last flush written, without joining it) while it
 * makes progress (cycles, bytes written); 0 when it made none for 10 s. */
static int join_writer(int fast)
{
	struct progress pr = PROGRESS_NONE;
	for (int still = 0; still < 10;) {
		if (fast) {
			if (ckt_wait_word(&final_done, 1000000000ull))
				return 1;
		} else {
			struct timespec until;
			ckt_clock_get(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			if (pthread_timedjoin_np(writer_thread, NULL, &until) == 0)
				return 1;
		}
		still = writer_moved(&pr) ? 0 : still + 1;
	}
	return 0;
}

static void finish_said_done(void)
{
	ckt_word_set(&finish_done);
}

static void exit_line(void);

static void finish(int reason, int fast);
static void finish_locked(int reason, int fast);

void ckt_writer_finish(int reason)
{
	finish(reason, 0);
}

void ckt_writer_finish_fast(int reason)
{
	finish(reason, 1);
}

int ckt_writer_await_finish(void)
{
	/* the finishing thread closes the file before its exit line: a closed file is the end
	 * only when no thread has begun to finish (returning then let this thread's exit end the
	 * process before that line: 3 runs in 40 of exit2 ret on a loaded machine) */
	if (getpid() != trace_pid || (fd < 0 && !atomic_load(&finished)))
		return 1;
	/* the count starts again when a thread begins to finish: several exits that gave up
	 * waiting at about the same time (tests/progs/exitblock.c dtor 3) saw the 10 s run out
	 * while the first of them was in its final flush, said "left incomplete" and ended the
	 * process under it */
	struct progress pr = PROGRESS_NONE;
	int still = 0, began = atomic_load(&finished);
	while (still < 10 && !ckt_wait_word(&finish_done, 1000000000ull)) {
		if (atomic_load(&finished) != began) {
			began = 1;
			still = 0;
			continue;
		}
		still = atomic_load(&stop_flag) && writer_moved(&pr) ? 0 : still + 1;
	}
	if (still < 10)
		return 1;
	/* decided by what the loop saw: a thread that began to finish since then (read here
	 * again, it made this one say "left incomplete" of a flush in progress, or leave before
	 * that thread's exit line) is waited for in finish(), as a second finisher waits */
	if (!began)
		return 0; /* no thread had begun to finish the trace: the caller may */
	if (atomic_load(&final_done))
		return 1;
	ckt_log("error: the process ended while another thread was finishing the trace, "
		"which made no progress for 10 s; '", path_abs, "' is left incomplete", NULL);
	return -1;
}

static void finish(int reason, int fast)
{
	/* a child made without fork's atfork handlers: no writer thread to join (see ckt_fini) */
	if (trace_pid && getpid() != trace_pid)
		return;
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (atomic_exchange(&finished, 1)) {
		/* another thread is finishing (exit racing _exit, or the writer finding the program
		 * gone): this one would end the process under it; wait while the final flush
		 * progresses. Progress counts only once that thread has asked for the final flush:
		 * before, the writer's idle cycles say nothing about it (it may be stuck, as in a
		 * join that needs a lock this thread's interrupted code holds), so 10 s at most. */
		if (atomic_load(&finisher) != me)
			(void)ckt_writer_await_finish();
		return;
	}
	atomic_store(&finisher, me);
	finish_locked(reason, fast);
	finish_said_done();
}

static void finish_locked(int reason, int fast)
{
	/* nothing to finish: never traced, or finished. Not fd alone: the writer sets it to -1
	 * while it opens the file again after a program's close-all, and an exit then left the
	 * trace without its end record and the exit line unsaid (closestorm, under load: 1 run
	 * in 40) */
	if (fd < 0 && !atomic_load(&writer_joinable))
		return;
	/* exit or exec during a call that pauses the writer (a signal handler of the thread that
	 * asked for the pause). Asked, not taken yet: the writer still runs, maybe in the flush
	 * the pause asked for; the pause is taken back (as a pauser that gives up takes it) and
	 * the trace finished as without it, complete (since 0.2.53: it "ended where it paused"
	 * with nothing written when the exit came before that flush: a timer's exec during the
	 * first of a loop of unshare calls, tests/progs/sigexec.c, 1 run in 3 on a loaded
	 * machine, a trace of 0 events). The pauser's wait ends when it sees the trace finished
	 * (wait_paused). */
	int pausing = 1;
	if (atomic_compare_exchange_strong(&pause_flag, &pausing, 0)) {
		if (!atomic_load(&writer_failed))
			atomic_store(&ckt_writer_running, 1);
	} else if (pausing) {
		/* taken: the writer has written everything recorded and ended; the trace ends at
		 * the pause's flush */
		atomic_store(&ckt_active, 0);
		ckt_log("warning: the program exited during a call that paused the trace writer; '",
			path_abs, "' ends where it paused (it reads as truncated)", NULL);
		return;
	}
	if (fast)
		ckt_rss_stop_nojoin();
	else
		ckt_rss_stop();
	final_reason = reason;
	int was_running = atomic_load(&ckt_writer_running);
	if (!atomic_load(&writer_joinable)) {
		/* no writer to join: it failed, or could not be restarted, and said so */
		atomic_store(&ckt_active, 0);
		close_own_fd();
		return;
	}
	atomic_store(&stop_flag, 1);
	atomic_store(&wake_pending, 1);
	syscall(SYS_futex, &wake_pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	if (!join_writer(fast)) {
		/* the writer is stuck (a write that does not return): the program must still exit */
		atomic_store(&ckt_active, 0);
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: error: the trace writer made no progress for 10 s at exit (a "
				 "write that does not return?); '");
		ckt_line_str(&l, path_abs);
		ckt_line_str(&l, "' is left incomplete");
		ckt_line_emit(&l);
		return;
	}
	if (!fast) /* else the writer thread is done but not joined: the process ends now */
		atomic_store(&writer_joinable, 0);
	atomic_store(&ckt_active, 0);
	close_own_fd();
	/* after a write error the writer has said so; an exit line would claim a whole trace */
	if (!was_running || atomic_load(&writer_failed))
		return;
	path_moved_line();
	if (ckt_config.quiet)
		return;
	exit_line();
}

/* "cuzktrace: <path>: N events, peak heap X, peak RSS Y, Z written[, L events lost][; the
 * program called abort]" */
static void exit_line(void)
{
	/* the samples' RSS and VmHWM, as the trace has them (the report's figure). VmHWM read
	 * now would count the final flush's own memory: 110 to 240 KiB above the trace for a
	 * short program, before 0.2.11. Without samples (the sampler off), VmHWM now. */
	uint64_t peak_rss = ckt_summary.peak_rss ? ckt_summary.peak_rss : ckt_rss_peak();
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: ");
	ckt_line_str(&l, exit_name ? exit_name : path_abs);
	ckt_line_str(&l, ": ");
	ckt_line_u64(&l, ckt_summary.events);
	ckt_line_str(&l, ckt_summary.events == 1 ? " event, peak heap " : " events, peak heap ");
	ckt_line_bytes(&l, ckt_summary.peak_heap > 0 ? (uint64_t)ckt_summary.peak_heap : 0);
	ckt_line_str(&l, ", peak RSS ");
	ckt_line_bytes(&l, peak_rss);
	ckt_line_str(&l, ", ");
	ckt_line_bytes(&l, bytes_written);
	ckt_line_str(&l, " written");
	if (total_lost) {
		ckt_line_str(&l, ", ");
		ckt_line_u64(&l, total_lost);
		ckt_line_str(&l, total_lost == 1 ? " event lost" : " events lost");
	}
	if (final_reason == CKT_END_ABORT)
		ckt_line_str(&l, "; the program called abort");
	if (ckt_end_signal((uint64_t)final_reason)) {
		ckt_line_str(&l, "; the program ends by ");
		ckt_line_signal(&l, ckt_end_signal((uint64_t)final_reason));
	}
	ckt_line_emit(&l);
}

void ckt_writer_after_fork_child(void)
{
	/* The descriptor (and its lock) belongs to the parent's trace; the child must not touch
	 * it. Closing our copy does not release the parent's lock (flock is per open file). */
	close_own_fd();
	for (int i = 0; i < 2; i++)
		if (held_fd[i] >= 0) {
			close(held_fd[i]);
			held_fd[i] = -1;
		}
	atomic_store(&ckt_writer_running, 0);
	atomic_store(&finished, 1);
	atomic_store(&finish_done, 1);
}
