/* rss.c: the RSS sampler thread. Every CUZKTRACE_RSS_MS it reads /proc/thread-self/statm
 * (resident pages) and records an RSS event; every 10th sample, at every new highest RSS, and
 * at stop it also reads VmHWM and the RssAnon/RssFile/RssShmem split from
 * /proc/thread-self/status, which costs more to produce. thread-self, not self: /proc/self is
 * the main thread, whose files read empty once it has ended with pthread_exit while the
 * process runs on; any live thread's files give the whole process's memory. So each thread
 * that reads opens its own (the sampler at its start). */
#include "ckt.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop_flag, started;
_Atomic pid_t ckt_rss_tid;
static pthread_t sampler;
static void *sampler_stack; /* see ckt_spawn_helper */
static uint64_t page_size;

/* The two /proc files stay open, at high descriptor numbers, and are read with pread. Opening
 * and closing them at each sample raced with programs that close every descriptor and open
 * new ones (daemons): our close() could hit the program's new pipe that had taken the number.
 * Before each read the descriptor is checked to still be the file we opened; if the program
 * closed it, it is opened again (and the old number, no longer ours, is left alone). */
struct procfile {
	const char *path;
	int fd;
	dev_t dev;
	ino_t ino;
};
/* the sampler's own files, /proc/self/task/<its id>/..., opened by the thread that starts it
 * (ckt_rss_start): an open in the sampler, running beside the program, could take for a
 * moment the lowest free descriptor the program is about to get (say 2, after it closed
 * stderr) */
static char statm_path[64] = "/proc/thread-self/statm", status_path[64] = "/proc/thread-self/status";
static char sampler_dir[40]; /* the sampler's "<pid>/task/<tid>" in /proc, "" when unknown */
static struct procfile statm = {statm_path, -1, 0, 0};
static struct procfile status = {status_path, -1, 0, 0};
/* /proc/self/stat for the writer's look at the main thread once a flush interval
 * (ckt_self_stat_read): opened by the thread that starts tracing, like the files above */
static char selfstat_path[] = "/proc/self/stat";
static struct procfile selfstat = {selfstat_path, -1, 0, 0};
static atomic_int files_ready;
/* the sampler has its event buffer (or found none could be mapped): what its starter waits for
 * besides its id */
static atomic_int ring_ready;
/* the sampler took its last sample (the one at stop): what an exit that does not join it waits
 * for, so that a run shorter than one period still has a sample (it had none: the report said
 * "no RSS samples" while the exit line gave a peak RSS) */
static atomic_int last_taken;

/* /proc as it was when tracing started, kept open (at a high number, checked before each
 * use like the files): after setns into a mount namespace whose /proc is another or none,
 * paths under /proc name nothing of ours, but this descriptor still does. */
static struct {
	int fd;
	dev_t dev;
	ino_t ino;
} procdir = {-1, 0, 0};

static int procdir_off; /* not kept: descriptors are too few for one more (ulimit -n) */

void ckt_proc_init(void)
{
	struct stat st;
	if (procdir_off || ckt_fd_is(procdir.fd, procdir.dev, procdir.ino))
		return;
	/* not ours any more (the program closed it; its number may be the program's file now):
	 * forgotten, not closed, whether or not another can be had. Kept, a limit below 128
	 * made every open through it fail with EBADF, and RSS sampling stopped without a word */
	procdir.fd = -1;
	/* below 128 descriptors one more of ours, low among the program's, is one it misses
	 * (checked again at each use: the program may raise its limit) */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 128)
		return;
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		procdir.fd = -1;
		return;
	}
	procdir.fd = ckt_fd_high(fd);
	procdir.dev = st.st_dev;
	procdir.ino = st.st_ino;
}

static void proc_forget(struct procfile *f);

/* Running untraced: the descriptors go back to the program for good (procdir_off): /proc's,
 * and /proc/<pid>/stat's when the writer thread was refused after it was opened. */
void ckt_proc_close(void)
{
	proc_forget(&selfstat);
	procdir_off = 1;
	int dir = __atomic_exchange_n(&procdir.fd, -1, __ATOMIC_ACQ_REL);
	if (ckt_fd_is(dir, procdir.dev, procdir.ino))
		close(dir);
}

/* Opens /proc/<rel> (rel: "self/task", "thread-self/statm", ...) through that descriptor, or
 * by path when there is none. flags are added to O_RDONLY | O_CLOEXEC. */
int ckt_proc_open(const char *rel, int flags)
{
	ckt_proc_init(); /* the program may have closed it: opened again then */
	int dir = procdir.fd; /* read once: another thread may forget it meanwhile */
	if (dir >= 0) {
		int fd = openat(dir, rel, O_RDONLY | O_CLOEXEC | flags);
		if (fd >= 0 || (errno != EMFILE && errno != ENFILE))
			return fd;
		/* out of descriptors: the files matter more than the namespace case */
		procdir_off = 1;
		/* closed by the one thread that takes it away: a second close could hit a
		 * number the program was given in between */
		if (__atomic_exchange_n(&procdir.fd, -1, __ATOMIC_ACQ_REL) == dir)
			close(dir);
	}
	char path[64] = "/proc/";
	strncat(path, rel, sizeof(path) - strlen(path) - 1);
	return open(path, O_RDONLY | O_CLOEXEC | flags);
}

/* A kernel before 3.17 has no /proc/thread-self: /proc/self then. */
static int proc_open_path(const char *path)
{
	const char *rel = path + 6; /* after "/proc/" */
	int fd = ckt_proc_open(rel, 0);
	if (fd < 0 && errno == ENOENT && strncmp(rel, "thread-self/", 12) == 0) {
		char alt[64] = "self/";
		strncat(alt, rel + 12, sizeof(alt) - strlen(alt) - 1);
		fd = ckt_proc_open(alt, 0);
	}
	return fd;
}

/* Forgets f's descriptor (closing it if it is still the file we opened): the next read opens
 * the file again, for the thread that reads. */
static void proc_forget(struct procfile *f)
{
	if (ckt_fd_is(f->fd, f->dev, f->ino))
		close(f->fd);
	f->fd = -1;
}

static int proc_open(struct procfile *f)
{
	struct stat st;
	int fd = proc_open_path(f->path);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f->fd = ckt_fd_high(fd);
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return f->fd < 0 ? -1 : 0;
}

static int read_proc(struct procfile *f, char *buf, size_t cap)
{
	for (int tries = 0; tries < 2; tries++) {
		if (!ckt_fd_is(f->fd, f->dev, f->ino) && proc_open(f) < 0)
			return -1;
		ssize_t n = pread(f->fd, buf, cap - 1, 0);
		if (n > 0) {
			buf[n] = 0;
			return 0;
		}
		/* closed under us between the check and the read (a program's close-all): the
		 * number is not ours any more, opened again once */
		if (n == 0 || errno != EBADF)
			return -1;
		f->fd = -1;
	}
	return -1;
}

static uint64_t parse_u64(const char *s)
{
	uint64_t v = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return v;
}

/* The lines of /proc/.../status the samples carry, in bytes: VmHWM, RssAnon, RssFile,
 * RssShmem (0 where absent). */
static const char *const status_keys[4] = {"VmHWM:", "RssAnon:", "RssFile:", "RssShmem:"};

/* One whole line [p, end) of status: its value into out when it is one of status_keys; returns
 * the bit of the key found (0: none). */
static unsigned status_line(const char *p, const char *end, uint64_t out[4])
{
	for (unsigned k = 0; k < 4; k++) {
		size_t n = strlen(status_keys[k]);
		if ((size_t)(end - p) > n && memcmp(p, status_keys[k], n) == 0) {
			out[k] = parse_u64(p + n) * 1024;
			return 1u << k;
		}
	}
	return 0;
}

/* Reads f (status; buf of cap bytes) line by line to its end or until every key is found:
 * the file outgrows any one buffer, its Groups line before the keys (since 0.2.59: with about
 * 530 supplementary groups the keys lay past the 4 KiB read, and VmHWM and the split were cut
 * or 0 without a word). A line longer than the buffer (Groups) is skipped. Returns 0, or -1
 * when the file cannot be read. */
static int status_read(struct procfile *f, char *buf, size_t cap, uint64_t out[4])
{
	if (read_proc(f, buf, cap))
		return -1;
	size_t have = strlen(buf);
	off_t off = (off_t)have;
	unsigned found = 0;
	bool skip = false; /* in the rest of a line longer than the buffer */
	for (;;) {
		char *p = buf, *nl;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			if (!skip)
				found |= status_line(p, nl, out);
			skip = false;
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (found == 15)
			return 0;
		if (have > 64) { /* no key's line is this long: drop it, up to its end */
			skip = true;
			have = 0;
		}
		ssize_t n = pread(f->fd, buf + have, cap - 1 - have, off);
		if (n == 0)
			return 0; /* the end: keys the file lacks stay 0 */
		if (n < 0)
			return -1; /* closed under us partway (a program's close-all): no split */
		off += n;
		have += (size_t)n;
	}
}

/* the sampler's status file was read once, by the sampler or by its starter: a later failure
 * is a program that took the descriptors (it has the trace descriptor's line), not a limit */
static bool status_read_once;

/* say: the sampler's read, which tells once when it cannot read the file */
static uint64_t read_hwm_and_split(uint64_t out[4], bool say)
{
	char buf[4096];
	static bool said; /* the sampler's */
	out[0] = out[1] = out[2] = out[3] = 0;
	if (status_read(&status, buf, sizeof(buf), out)) {
		/* statm can be read and status not from the start (one descriptor each: a limit of
		 * 6 to 8 leaves room for one): the samples lose VmHWM and the anonymous/file split,
		 * said once (the report just left those lines out). Not when it could be read
		 * before, nor once tracing has stopped: a program that takes every descriptor has
		 * the trace descriptor's line */
		int e = errno;
		if (say && !status_read_once && !said && atomic_load(&ckt_active)) {
			said = true;
			ckt_log("warning: cannot read /proc/thread-self/status (", strerrordesc_np(e),
				"); RSS samples carry no VmHWM and no anonymous/file split", NULL);
		}
		return 0;
	}
	status_read_once |= say;
	return out[0];
}

static uint64_t rss_max; /* the sampler thread's own: the highest RSS sampled so far */

/* statm could be read when sampling started (ckt_rss_start), and now cannot: the program took
 * what a read needs (every descriptor, under its limit). Missing samples are said once, when
 * a gap of two samples or more ends, has lasted a second, or lasts to the end, while tracing
 * runs (a program that takes every descriptor has the trace descriptor's line, and tracing
 * stops: nothing more). One sample missed alone is no gap worth a line. */
static struct {
	uint64_t since; /* clock of the first failed read of the gap, | 1; 0: none failing */
	uint64_t missed; /* samples missed in it */
	int err;
	bool said;
} gap;

static void say_gap(void)
{
	if (!gap.since || gap.said || !atomic_load(&ckt_active))
		return;
	gap.said = true;
	ckt_log("warning: RSS samples are missing from a part of the run: cannot read /proc/thread-self/statm (",
		strerrordesc_np(gap.err), "); the peak RSS may lie where none was taken (the --csv timeline shows the gap)",
		NULL);
}

_Atomic uint64_t ckt_nosample_started, ckt_nosample_bytes;
atomic_uint ckt_nosample_busy;

/* the last read (sample_once) */
static struct {
	uint64_t rss, d[4], ts;
	int have_rss, have_detail;
} taken;

static int sample_once(struct ckt_tls *t, int *detail);
static void sample_commit(struct ckt_tls *t);

/* How long a sample waits for the calls under way: two sampling periods (20 ms at least), and
 * a millisecond more for each 8 MB they unmap (pages go at about that rate; calls that make
 * pages count CKT_NOSAMPLE_MAKES times their bytes: the kernel zeroes each, 1 to 3 MB a
 * millisecond on a 2-core VM, 128 MiB of MAP_POPULATE in 45 to 121 ms: counted four times,
 * as 2 MB a millisecond, a sample taken at the cap counted them before the trace had the
 * mapping, 2 tests of 8), 2 s at most. A fixed second left samples half a second apart beside threads that free big blocks
 * back to back on few cores; 100 ms did not cover a 16 GiB free. */
#define CKT_RSS_WAIT_MAX 2000000000ull
static uint64_t wait_cap(void)
{
	uint64_t base = 2 * (uint64_t)ckt_config.rss_ms * 1000000ull, bytes = atomic_load(&ckt_nosample_bytes);
	if (base < 20000000ull)
		base = 20000000ull;
	uint64_t cap = base + (bytes < (1ull << 40) ? bytes >> 3 : 1ull << 37);
	return cap < CKT_RSS_WAIT_MAX ? cap : CKT_RSS_WAIT_MAX;
}

/* Reads first, then one timestamp for both records: a new highest RSS and its anon/file/shmem
 * split share it (the reader explains the peak sample with the split at or before it). A
 * read that a call changing resident pages (ckt_nosample_begin) may have overlapped, one
 * under way as it began or one begun before its timestamp, is taken again: 100 us later ten
 * times, then every millisecond, up to wait_cap in all (10 ms once the sampler is told to
 * stop); then kept (a program that makes such calls back to back with no pause of a read's
 * length between them: the sample is late by the wait, and may count pages the trace has
 * released). */
static void sample(struct ckt_tls *t, int detail)
{
	uint64_t waited = 0, first = atomic_load(&ckt_nosample_started), last_rss = 0, moved = 0, travel = 0;
	for (int tries = 0;; tries++) {
		uint64_t began = atomic_load(&ckt_nosample_started);
		unsigned busy = atomic_load(&ckt_nosample_busy);
		int d = detail;
		if (sample_once(t, &d) <= 0)
			return;
		if (tries && taken.rss != last_rss) {
			moved = waited;
			travel += taken.rss > last_rss ? taken.rss - last_rss : last_rss - taken.rss;
		}
		last_rss = taken.rss;
		/* Calls under way since before the first read, and no other begun, while the
		 * resident set still moves (within the last 10 ms) by no more in all than they
		 * change: waited for to the end, 2 s at most, as that wait is bounded by their own
		 * length (since 0.2.48: a 128 MiB MAP_POPULATE on a loaded machine outlasted
		 * wait_cap's guess, and 2 samples read its pages before the trace had the
		 * mapping). Calls begun meanwhile (back to back), a call that moves nothing
		 * (blocked, or one a signal handler left whose count stays up until the thread's
		 * next hook), and one whose bytes are unknown or fewer than moved (the resident
		 * set moved by other threads' work: a cuMemFreeHost that waits for the device,
		 * beside threads touching memory, held every sample 2 s in 0.2.48) get wait_cap. */
		uint64_t cap = atomic_load(&stop_flag) ? 10000000ull
			       : atomic_load(&ckt_nosample_started) == first && waited - moved < 10000000ull &&
					 travel <= atomic_load(&ckt_nosample_bytes)
				       ? CKT_RSS_WAIT_MAX
				       : wait_cap();
		if ((!busy && atomic_load(&ckt_nosample_started) == began) || waited >= cap) {
			sample_commit(t);
			return;
		}
		ckt_done(t); /* the stamp goes unused */
		uint64_t nap = tries < 10 ? 100000 : 1000000;
		ckt_nap(nap);
		waited += nap;
		/* the coarse clock ticks right before an RSS sample (ckt_format.h, AGG's since: a
		 * reader bounds a total's change by the first sample more than a millisecond after
		 * its tick): ticked again for the read that follows, or a change made while we
		 * waited would read as bounded by a sample taken before it */
		ckt_coarse_tick();
	}
}

/* One read: 1 and the reading stamped in `taken` (the caller commits it or drops it: the
 * stamp is open until ckt_done), 0 when nothing could be read. *detail is set for a new
 * highest RSS. */
static int sample_once(struct ckt_tls *t, int *detail)
{
	char buf[256];
	uint64_t rss = 0, d[4] = {0};
	int have_rss = 0;
	errno = 0;
	if (read_proc(&statm, buf, sizeof(buf)) != 0) {
		if (!gap.since) {
			gap.since = ckt_clock_raw() | 1;
			gap.err = errno ? errno : EIO;
			gap.missed = 0;
		}
		gap.missed++;
		if (ckt_clock_raw() - gap.since >= 1000000000ull)
			say_gap();
	} else {
		if (gap.missed > 1)
			say_gap(); /* a gap that ended (one sample missed alone is no gap) */
		gap.since = 0;
		const char *p = strchr(buf, ' '); /* second field: resident pages */
		if (p) {
			rss = parse_u64(p) * page_size;
			have_rss = 1;
			/* a new highest RSS gets its split now, not up to nine samples later (the
			 * highest kept when the reading is: sample_commit) */
			if (rss > rss_max)
				*detail = 1;
		}
	}
	int have_detail = *detail && read_hwm_and_split(d, true);
	if (!have_rss && !have_detail)
		return 0;
	taken.ts = ckt_stamp(t);
	taken.rss = rss;
	memcpy(taken.d, d, sizeof(d));
	taken.have_rss = have_rss;
	taken.have_detail = have_detail;
	return 1;
}

static void sample_commit(struct ckt_tls *t)
{
	uint64_t ts = taken.ts;
	if (taken.have_rss && taken.rss > rss_max)
		rss_max = taken.rss;
	if (taken.have_rss)
		ckt_put(t, CKT_EV_RSS, 0, ts, 0, taken.rss, 0);
	if (taken.have_detail)
		ckt_emit2(t, CKT_EV_RSS_DETAIL, 0, ts, taken.d[0], taken.d[1], ts, taken.d[2], taken.d[3], 0);
	else
		ckt_done(t);
}

/* *ts moved on by one sampling period */
static void period_after(struct timespec *ts)
{
	ts->tv_nsec += (long)ckt_config.rss_ms * 1000000L;
	while (ts->tv_nsec >= 1000000000L) {
		ts->tv_nsec -= 1000000000L;
		ts->tv_sec++;
	}
}

static void *sampler_main(void *arg)
{
	(void)arg;
	struct ckt_tls *t = &ckt_tls;
	t->guard = 1; /* its own allocations are not traced; it records through ckt_emit directly */
	/* this thread's directory as the /proc mount numbers it ("<pid>/task/<tid>"), published
	 * with the tid: in a pid namespace that sees its parent's /proc (unshare -p without
	 * --mount-proc) the tid it is given is not /proc's, and /proc/self/task/<tid> failed:
	 * no RSS sample at all, and a line about VmHWM only */
	ssize_t n = readlink("/proc/thread-self", sampler_dir, sizeof(sampler_dir) - 1);
	sampler_dir[n > 0 && (size_t)n < sizeof(sampler_dir) - 1 ? n : 0] = 0;
	atomic_store(&ckt_rss_tid, (pid_t)syscall(SYS_gettid));
	/* its event buffer now, while its starter waits (ckt_rss_start), not at its first sample:
	 * a program that caps its address space right after start (setrlimit RLIMIT_AS) had done
	 * so by then when the sampler got a core late (one core, a loaded machine: 4 runs in 10
	 * of tests/progs/aslate.c on one CPU), and RSS went unsampled with an error line */
	if (!t->ring)
		(void)ckt_thread_attach(t);
	ckt_word_set(&ring_ready);
	/* the starter opens this thread's files (see statm_path); 1 s at most */
	(void)ckt_wait_word(&files_ready, 1000000000ull);
	struct timespec next;
	ckt_clock_get(CLOCK_MONOTONIC, &next);
	gap.since = 0; /* a gap does not run on through a pause (ckt_helpers_pause) */
	for (unsigned i = 0; !atomic_load(&stop_flag); i++) {
		ckt_coarse_tick();
		/* not without an event buffer (none could be mapped: thread.c said so), where each
		 * sample would only add to the events counted lost */
		if (t->dead != 2)
			sample(t, i % 10 == 0);
		period_after(&next);
		/* a sample held back past its successor's time (ckt_nosample_begin) does not
		 * leave the next ones to come back to back, microseconds apart */
		struct timespec now;
		ckt_clock_get(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
			next = now;
			period_after(&next);
		}
		/* until the next sample, or until ckt_rss_stop wakes us: with a long period
		 * (CUZKTRACE_RSS_MS up to a minute) exit must not wait for the rest of it */
		while (!atomic_load(&stop_flag) &&
		       !(syscall(SYS_futex, &stop_flag, FUTEX_WAIT_BITSET_PRIVATE, 0, &next, NULL,
				 FUTEX_BITSET_MATCH_ANY) == -1 && errno == ETIMEDOUT))
			;
	}
	if (t->dead != 2)
		sample(t, 1); /* the last word: RSS and VmHWM at exit */
	if (gap.missed > 1)
		say_gap(); /* one that lasts to the end */
	ckt_word_set(&last_taken);
	proc_forget(&statm); /* they die with this thread */
	proc_forget(&status);
	strcpy(statm_path, "/proc/thread-self/statm");
	strcpy(status_path, "/proc/thread-self/status");
	atomic_store(&ckt_rss_tid, 0);
	return NULL;
}

static bool selfstat_transient; /* too few descriptors to keep one more: opened per read */

void ckt_self_stat_open(void)
{
	/* below 128 descriptors, as procdir: one more kept of ours is one the program misses (a
	 * limit of 8 left the sampler none for statm); each read then opens it for a moment */
	struct rlimit rl;
	selfstat_transient = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 128;
	ckt_proc_init();
	if (!selfstat_transient)
		(void)proc_open(&selfstat);
}

int ckt_self_stat_read(char *buf, size_t cap)
{
	int rc = read_proc(&selfstat, buf, cap);
	if (selfstat_transient)
		proc_forget(&selfstat);
	return rc;
}

int ckt_rss_start(void)
{
	page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	ckt_proc_init();
	char buf[256];
	errno = 0;
	int rc = read_proc(&statm, buf, sizeof(buf)), e = errno ? errno : EIO;
	proc_forget(&statm); /* the sampler opens its own */
	if (rc) {
		/* the reason: a descriptor limit the tracer's own files fill (libunwind's pipe
		 * takes two), no /proc */
		ckt_log("error: cannot read /proc/thread-self/statm (", strerrordesc_np(e), "); RSS is not sampled", NULL);
		return -1;
	}
	unsigned long th;
	atomic_store(&stop_flag, 0); /* started again after ckt_helpers_pause */
	atomic_store(&files_ready, 0);
	atomic_store(&ring_ready, 0);
	atomic_store(&last_taken, 0);
	atomic_store(&ckt_rss_tid, 0);
	if (ckt_spawn_helper(sampler_main, &th, &sampler_stack)) {
		ckt_log("error: cannot start the RSS sampler thread; RSS is not sampled", NULL, NULL,
			NULL);
		return -1;
	}
	sampler = (pthread_t)th;
	/* its files, opened here: /proc/self/task/<id>/ names the sampler's from any thread. Its
	 * id comes before its ring; both woken by a futex (since 0.2.61: naps of 100 us, each
	 * some 200 us with the kernel's timer slack, three in a traced process's start) */
	(void)ckt_wait_word(&ring_ready, 200000000ull);
	pid_t tid = atomic_load(&ckt_rss_tid);
	if (tid) {
		char dir[48];
		if (sampler_dir[0])
			snprintf(dir, sizeof(dir), "/proc/%s", sampler_dir);
		else
			snprintf(dir, sizeof(dir), "/proc/self/task/%d", (int)tid);
		snprintf(statm_path, sizeof(statm_path), "%s/statm", dir);
		snprintf(status_path, sizeof(status_path), "%s/status", dir);
		char b[256], b2[4096];
		(void)read_proc(&statm, b, sizeof(b));
		if (read_proc(&status, b2, sizeof(b2)) == 0)
			status_read_once = true; /* before the sampler runs (files_ready) */
	}
	ckt_word_set(&files_ready);
	atomic_store(&started, 1);
	return 0;
}

int ckt_rss_running(void)
{
	return atomic_load(&started);
}

static int rss_stop_ask(void)
{
	if (!atomic_exchange(&started, 0))
		return 0;
	atomic_store(&stop_flag, 1);
	syscall(SYS_futex, &stop_flag, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return 1;
}

void ckt_rss_stop(void)
{
	if (rss_stop_ask())
		pthread_join(sampler, NULL);
}

/* Its last sample goes into the final flush unless the sampler cannot take it in 200 ms. */
void ckt_rss_stop_nojoin(void)
{
	if (rss_stop_ask())
		(void)ckt_wait_word(&last_taken, 200000000ull);
}

/* VmHWM now, for the exit line (read by the calling thread, once: the sampler has stopped). */
uint64_t ckt_rss_peak(void)
{
	uint64_t d[4] = {0};
	proc_forget(&status);
	uint64_t hwm = read_hwm_and_split(d, false);
	proc_forget(&status);
	/* without /proc (a container or chroot that has none), the kernel's peak by getrusage:
	 * the exit line said "peak RSS 0 B" there */
	struct rusage ru;
	if (!hwm && getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0)
		hwm = (uint64_t)ru.ru_maxrss * 1024;
	return hwm;
}
