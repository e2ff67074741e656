/* ckt.h: declarations shared by the modules of the capture library (preload/ only).
 *
 * Architecture of the capture path
 *   hook (hooks_*.c) -> per-thread ring of fixed 32-byte slots (thread.c) -> writer thread
 *   (writer.c) drains every ring, encodes slots into trace records (record.c), compresses one
 *   zstd frame per flush and writes it. The RSS sampler (rss.c) is a thread with its own ring.
 *
 * Hot-path cost budget, not counting the real call (measured: README, Performance):
 *   default mode, a block under CUZKTRACE_SAMPLE bytes (nearly all): TLS guard load+store, one
 *   relaxed load of ckt_active, the usable size (one load of glibc's chunk header), two TLS
 *   adds and a compare; on free also one load from a 32 KiB filter. About 7 ns per pair.
 *   exact mode (and large or sampled blocks): the above, the stack (unw_backtrace, the dominant
 *   cost, ~50-150 ns per frame, then a per-thread cache lookup), one clock_gettime through the
 *   vDSO (~15-25 ns), the usable size (the chunk header: on malloc just written, on free about
 *   to be read by the real free), the ring window's mask (a load and an XOR on the thread's
 *   own line), four 8-byte stores into the slot, one release store of the ring head (a plain
 *   mov on x86). Measured: 2.51x the untraced benchmark (README).
 *   Never a lock, a syscall or an allocation, never a shared cache line written: the ring
 *   belongs to the thread; the writer only writes `tail`, which the thread re-reads only when
 *   its cached view says the ring is half full (once per 8192 events). New stacks (a CAS on the
 *   global table) and a full ring (a futex wait for the writer) are the rare paths.
 */
#ifndef CKT_H
#define CKT_H

#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>
#include <sys/types.h>

#include "ckt_format.h"

#define CKT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CKT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CKT_NOINLINE __attribute__((noinline))
#define CKT_EXPORT __attribute__((visibility("default")))
#define CKT_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- config.c: settings read once from the environment at init ---- */
struct ckt_config {
	char out[4096];    /* CUZKTRACE_OUT before expansion */
	unsigned flush_ms; /* CUZKTRACE_FLUSH_MS */
	unsigned rss_ms;   /* CUZKTRACE_RSS_MS; 0 turns the sampler off */
	int strict;        /* CUZKTRACE_STRICT */
	int quiet;         /* CUZKTRACE_QUIET */
	int level;         /* CUZKTRACE_ZSTD_LEVEL */
	unsigned depth;    /* CUZKTRACE_DEPTH: frames per stack, 0 = no stacks */
	unsigned sample;   /* CUZKTRACE_SAMPLE: bytes; 0 = exact mode */
	int children;      /* CUZKTRACE_CHILDREN: programs this one starts are traced too */
	int signals;       /* CUZKTRACE_SIGNALS: a signal's default action finishes the trace */
};
extern struct ckt_config ckt_config;
void ckt_config_load(void);
/* Calls fn(name, value) for every setting in force, for the trace header. */
void ckt_config_each(void (*fn)(const char *name, const char *value, void *arg), void *arg);

/* ---- dlnext.c: lookups through glibc's own dlsym ----
 * ckt_next(name): the next definition after the tracer, as dlsym(RTLD_NEXT, name) from here
 * would be; ckt_sym: dlsym's answer for a handle. The tracer's own calls of dlsym bind to the
 * first dlsym in the process: a library preloaded ahead of the tracer that replaces dlsym
 * (MangoHud, VirtualGL's faker, apitrace do) then asks "next" from its own place, and the
 * answer was the tracer's own function: its hooks called themselves for good. glibc's dlsym is
 * found with dlvsym, by version, and called from here. */
void *ckt_next(const char *name);
void *ckt_sym(void *handle, const char *name);
typedef void *ckt_dlsym_fn(void *, const char *);
ckt_dlsym_fn *ckt_real_dlsym(void); /* glibc's dlsym itself */
/* glibc's own definition of one of its dl* functions (name), by version, never an interposer's */
void *ckt_glibc_next(const char *name);
/* 1 when a glibc version text ("2.36") is 2.34 or later (dlnext.c) */
int ckt_glibc_has_234(const char *v);
/* hooks_cxx.c: in a forked child, the count of dlclose calls running is the forking thread's */
void ckt_cxx_after_fork_child(void);
/* hooks_cxx.c: counts the objects loaded at startup (called as the tracer starts) */
void ckt_cxx_startup(void);

/* ---- elfsym.c: definitions read from loaded objects' dynamic symbol tables in memory ---- */
/* A loaded object's dynamic section, as the loader left it in memory. */
struct ckt_dynobj {
	uintptr_t bias, lo, hi; /* the load bias; the span of the object's PT_LOAD segments */
	const ElfW(Dyn) *dyn;
	const ElfW(Sym) *sym;
	const char *str;
	const uint32_t *gnu, *sysv; /* DT_GNU_HASH, DT_HASH */
	const ElfW(Half) *versym;
	const char *soname;
	size_t strsz, nsym; /* DT_STRSZ; symbols at most (from the hash table; 0: not known) */
};
/* entries of a dynamic section read at most (a corrupt one without DT_NULL stops there) */
#define CKT_DYN_MAX 4096u
/* The span of info's PT_LOAD segments in [*lo, *hi); *holds: whether addr lies in one. */
void ckt_span_of(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi, int *holds,
		 uintptr_t addr);
/* info's dynamic section read into *o: 1, or 0 where it has none, or none the object holds. */
int ckt_dynobj_of(const struct dl_phdr_info *info, struct ckt_dynobj *o);
/* modules.c: a sanitizer's runtime the tracer cannot run beside (ThreadSanitizer,
 * MemorySanitizer, LeakSanitizer's of its own after the tracer), its name, *object the file
 * holding it ("the program" where it is linked in) and *flag the compiler's option for it, or
 * NULL where preloading the runtime ahead of the tracer lets both run; NULL: none. Calls
 * nothing an interceptor takes. */
const char *ckt_sanitizer_runtime(const char **object, const char **flag);
/* The object's own default-version definition of function `name`, or NULL. */
void *ckt_dynobj_lookup(const struct ckt_dynobj *o, const char *name);
/* The definition of function `name` in the loaded object whose DT_SONAME is `soname`, or NULL
 * (one walk of the loaded objects: for a rare call, not a hot one). */
void *ckt_elf_lookup_in(const char *soname, const char *name);
/* The definition of function `name` in the loaded object that holds addr, or NULL (the same:
 * a name it lacks costs no failed lookup, which would allocate its error message) */
void *ckt_elf_lookup_at(const void *addr, const char *name);
/* The first definition of function `name` in the objects loaded after the one that holds self,
 * in load order (RTLD_NEXT's answer for the objects loaded at start, without dlsym: a name not
 * found leaves no dlerror for the program to read), or NULL */
void *ckt_elf_lookup_after(const void *self, const char *name);

/* ---- log.c: one line on stderr, built in a fixed buffer, written with write(2) ---- */
struct ckt_line {
	char buf[1024];
	size_t len;
};
void ckt_line_str(struct ckt_line *l, const char *s);
void ckt_line_u64(struct ckt_line *l, uint64_t v);
void ckt_line_hex(struct ckt_line *l, uint64_t v);        /* "0x7f12ab000000" */
void ckt_line_bytes(struct ckt_line *l, uint64_t bytes); /* human units: "1.50 GiB" */
void ckt_line_signal(struct ckt_line *l, int sig);       /* "SIGTERM" */
void ckt_line_emit(struct ckt_line *l);                  /* appends '\n' and writes to fd 2 */
/* Around a write of ours that could raise SIGXFSZ or SIGPIPE (a file past the program's size
 * limit, a pipe nobody reads; a descriptor number the program took over): both blocked for
 * it, and one it raised is taken back at the end (not one the program had pending already),
 * so that it cannot end the program once its mask is restored. */
struct ckt_sigwrite {
	sigset_t old;
	int had[2];
};
void ckt_sigwrite_begin(struct ckt_sigwrite *sw);
void ckt_sigwrite_end(struct ckt_sigwrite *sw);
/* Convenience: "cuzktrace: " + a + b + c + d (NULLs skipped) as one line. */
void ckt_log_init(void);
/* The allocator function defined ahead of the tracer (malloc, free, mmap or calloc; malloc
 * under valgrind) and the object that defines it: 1, else 0 (found before the header) */
int ckt_allocator_ahead(const char **fn, const char **obj);
void ckt_log_drop_copy(void); /* running untraced: stderr's copy closed */
/* in a child forked without exec: stderr's copy closed (async-signal-safe) */
void ckt_log_after_fork_child(void);
/* fd moved where the program's descriptors do not land (above its soft limit at start, or
 * high in its range; under a limit of 64 or less, the top of the range); returns the new
 * number (fd itself, left open, when it cannot move). ckt_fd_high_only: not to the top of a
 * small range (for a descriptor the tracer can do without) */
int ckt_fd_high(int fd);
int ckt_fd_high_only(int fd);
/* Whether descriptor fd still holds the file (dev, ino) the tracer opened there (the program
 * may have closed it and opened a file of its own on the number); ckt_fd_same: whether a and
 * b hold one file. Where fstat is refused (a seccomp filter denying the stat family: EPERM,
 * EACCES, ENOSYS) nothing tells files apart: an open descriptor counts as the file. (Every
 * check failed there: the trace was reopened at every flush, a descriptor leaked each time
 * low in the program's range, and tracing stopped without a word.) */
int ckt_fd_is(int fd, dev_t dev, ino_t ino);
int ckt_fd_same(int a, int b);
/* errno e of a failed fstat says it was refused, not that the descriptor is closed */
/* How many of the n bytes at s to keep for at most max, not splitting a UTF-8 character: a
 * cut that falls on a continuation byte moves back to the start of its character, 3 bytes at
 * most (bytes that are no UTF-8 are cut where they fall). */
static inline size_t ckt_utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	for (size_t k = max; k + 3 >= max; k--) {
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return k;
		if (k == 0)
			break;
	}
	return max;
}

/* How many bytes at s (n of them) belong to a character that begins before s, to skip where
 * a text cut at s starts: 1 to 3 continuation bytes, then a byte that starts a character;
 * else 0 (none, or bytes that are no UTF-8). */
static inline size_t ckt_utf8_skip(const char *s, size_t n)
{
	for (size_t k = 0; k < n && k < 4; k++)
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return k;
	return 0;
}

static inline int ckt_stat_refused(int e)
{
	return e == EPERM || e == EACCES || e == ENOSYS;
}
/* the pipe numbers libunwind was last handed for its memory checks (hooks_io.c), and whether
 * fd is one of them (log.c) */
extern int ckt_unw_pair[2];
int ckt_unw_handed(int fd);
void ckt_fd_start_window(int open); /* 1 while the tracer starts (its constructor), then 0 */
int ckt_fd_start_window_open(void);   /* the tracer is starting: its writer may be half started */
void ckt_log(const char *a, const char *b, const char *c, const char *d);
/* "cuzktrace: warning: process <pid>" + msg, for a line about a process the trace is not of */
void ckt_log_process(const char *msg);

/* ---- the tracer's own memory ----
 * Never the program's allocator: not through the `malloc` symbol (an executable may export its
 * own malloc, as rustc links jemalloc; a hook that runs inside that allocator, its mmap while it
 * initializes holding its lock, and called `malloc` re-entered it: rustc hung so on its first
 * allocation), and not from glibc's heap either, where a program's overrun of its own block
 * wrote over the tracer's records beside it (arena.c: mappings of the tracer's own). */
void *ckt_malloc(size_t n);
void *ckt_realloc(void *p, size_t n);
void ckt_free(void *p);
void ckt_arena_after_fork_child(void);
/* The tracer's blocks that may be big (the writer's buffers, zstd's workspace, the module map):
 * from CKT_BIG_MAPPED bytes on, mapped directly instead of taken from glibc. glibc raises its
 * mmap threshold to the size of any block it had mapped that is freed, for the whole process:
 * after the writer freed such blocks, a traced program's blocks of 128 to 256 KiB came from the
 * heap where untraced glibc maps them (modules.c). */
#define CKT_BIG_MAPPED ((size_t)64 << 10)
void *ckt_big_alloc(size_t n);
void ckt_big_free(void *p); /* p from ckt_big_alloc, or NULL */
size_t ckt_big_room(const void *p); /* the bytes p (from ckt_big_alloc) holds: n or more */

/* hooks_mmap.c: reads /proc/self/maps through buf (cap bytes), calling line(ctx, p, end,
 * whole) for each line [p, end) in address order until it returns nonzero; a line longer than
 * buf comes once, cut (whole 0: its range and protection, not all of its path). 0, or -1 when
 * the file cannot be read to its end (or to the line that stopped it). Raw system calls. */
int ckt_maps_walk(char *buf, size_t cap, int (*line)(void *ctx, const char *p, const char *end, int whole),
		  void *ctx);
/* The range "lo-hi" that opens a line of /proc/self/maps [p, end): v[0], v[1], and where the
 * next field (the protection) starts; NULL when the line does not open so */
const char *ckt_maps_range(const char *p, const char *end, uintptr_t v[2]);
/* modules.c: the path of the file mapped at `at`, as /proc/self/maps gives it (absolute), into
 * out (cap bytes): 1, or 0 (no such mapping, not a file, unreadable) */
int ckt_mapped_file(uintptr_t at, char *out, size_t cap);

/* ---- ownmaps.c: the tracer's own anonymous read-write mappings (flags: extra MAP_* flags;
 * MAP_SHARED makes one shared with forked children instead of private),
 * kept out of the program's holes and out of reach of its munmap: ckt_ownmaps_munmap_around
 * unmaps [addr, addr + len) but for them (real: the real munmap) ---- */
void *ckt_ownmaps_map(size_t n, int flags);
void ckt_ownmaps_unmap(void *p, size_t n);
/* the tail [p + keep, p + len) of a mapping of ours given back (ownmaps.c) */
void ckt_ownmaps_shrink(void *p, size_t len, size_t keep);
int ckt_ownmaps_munmap_around(int (*real)(void *, size_t), void *addr, size_t len);
/* madvise of [addr, addr + len) but for them: an advice that drops pages' contents */
int ckt_ownmaps_madvise_around(int (*real)(void *, size_t, int), void *addr, size_t len, int advice);
/* mlock of [lo, hi) but for them, piece by piece, errors ignored (as mlockall ignores them) */
void ckt_ownmaps_mlock_around(uintptr_t lo, uintptr_t hi);
/* The end of the user address space the kernel accepts in a munmap (TASK_SIZE_MAX: x86-64's
 * 4-level tables stop a page short of 2^47; arm64's 48-bit one at 2^48). A process that asked
 * for 57-bit addresses maps above it; such ranges go to the kernel as they are. */
#if defined(__x86_64__)
#define CKT_USER_TOP (((uintptr_t)1 << 47) - 4096)
#else
#define CKT_USER_TOP ((uintptr_t)1 << 48)
#endif

/* ---- bootstrap.c: real symbols, the early pool, init and exit ---- */
#define CKT_MALLOC_FAMILY 10 /* the first entries of CKT_HOOKS, malloc to pvalloc: looked up by
			      * version as the program binds them (bootstrap.c) */
#define CKT_HOOKS(X)                                                                                \
	X(malloc, 1) X(free, 1) X(calloc, 1) X(realloc, 1) X(reallocarray, 0) X(posix_memalign, 0) \
	X(aligned_alloc, 0) X(memalign, 0) X(valloc, 0) X(pvalloc, 0) X(mmap, 0) X(munmap, 0)       \
	X(mremap, 0) X(mprotect, 0) X(pkey_mprotect, 0) X(write, 0) X(writev, 0) X(pthread_setname_np, 0) X(prctl, 0)            \
	X(execve, 0) X(execv, 0) X(execvp, 0) X(execvpe, 0) X(fexecve, 0) X(execveat, 0) X(read, 0) X(close, 0) \
	X(pipe, 0) X(pipe2, 0) X(pthread_exit, 0) X(unshare, 0) X(setns, 0) X(_exit, 0) X(_Exit, 0) \
	X(exit, 0) X(quick_exit, 0) X(daemon, 0) X(madvise, 0) X(setuid, 0) X(setgid, 0) X(seteuid, 0) X(setegid, 0)   \
	X(setreuid, 0) X(setregid, 0) X(setresuid, 0) X(setresgid, 0) X(setgroups, 0) X(initgroups, 0) \
	X(fork, 0) X(_Fork, 0) X(abort, 0) X(mallopt, 0) X(__assert_fail, 0) X(__assert_perror_fail, 0) \
	X(__assert, 0) X(sigaction, 0) X(signal, 0) X(bsd_signal, 0) X(ssignal, 0) X(sysv_signal, 0)      \
	X(__sysv_signal, 0) X(sigset, 0) X(siginterrupt, 0) X(posix_spawn, 0) X(posix_spawnp, 0)      \
	X(mlockall, 0) X(setrlimit, 0) X(prlimit, 0)

/* glibc's assert entry points (<assert.h> declares them only without NDEBUG) */
void __assert_fail(const char *assertion, const char *file, unsigned int line,
		   const char *function) __attribute__((noreturn));
void __assert_perror_fail(int errnum, const char *file, unsigned int line,
			  const char *function) __attribute__((noreturn));
void __assert(const char *assertion, const char *file, int line) __attribute__((noreturn));

/* signal.h's kin of signal (hooks_signal.c) */
sighandler_t bsd_signal(int sig, sighandler_t handler);
sighandler_t sysv_signal(int sig, sighandler_t handler);
sighandler_t __sysv_signal(int sig, sighandler_t handler);
int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* hooks_signal.c: the kernel's actions of signals whose default ends the process, held while
 * tracing so that such an end finishes the trace */
void ckt_signals_start(void);
int ckt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* 1 when the tracer holds sig (the program's action, the default, in *program); 2 when the
 * tracer runs the program's one-shot handler (SA_RESETHAND, its action in *program) */
int ckt_signal_held(int sig, struct sigaction *program);
/* the kernel's reset of the one-shot action p as its handler runs, which the tracer holds
 * again (a raise of the signal in the handler finishes the trace) */
void ckt_signal_fired(int sig, const struct sigaction *p);
void ckt_signals_after_fork_child(void);
/* a thread that would end the process (exit, _exit, abort) while a fatal signal's default
 * action is ending it waits for that end (hooks_signal.c) */
void ckt_signal_wait_if_ending(void);
/* the thread that ends the process (a fatal signal's handler, abort, _exit, a failed
 * assert) claims the end; another that comes meanwhile waits there for the first's end */
void ckt_end_here_or_wait(void);
/* the trace finished at a signal's default action (hooks_exec.c; reason CKT_END_*) */
void ckt_finish_at_signal(int reason);

#define CKT_REAL_PTR(name, required) __typeof__(name) *name;
/* (sigset and siginterrupt are deprecated: hooked all the same, as programs call them) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct ckt_real {
	CKT_HOOKS(CKT_REAL_PTR)
};
#pragma GCC diagnostic pop
#undef CKT_REAL_PTR
extern struct ckt_real ckt_real;

/* 1 once the real allocator symbols are resolved; before that, hooks serve the early pool. */
extern atomic_int ckt_boot_state;
extern atomic_int ckt_init_ran;
void ckt_bootstrap(void);
void ckt_finish_exit(void); /* exit, _exit, quick_exit: the final flush (bootstrap.c) */
void ckt_finish_process(int reason); /* the same, with the END record's reason (CKT_END_*) */
extern atomic_int ckt_quick_armed; /* the tracer's at_quick_exit handler is registered */
extern atomic_int ckt_quick_elsewhere; /* a vfork child ran it (hooks_exec.c, quick_exit) */
void ckt_final_flush(int reason, int fast); /* with signals held; for exit and exec */
/* Every signal blocked (the old mask saved in *old), then the guard raised; and back: for the
 * tracer's own work outside the hot path that a signal handler must not interrupt (a handler's
 * _exit finds the guard raised and cannot finish the trace; its allocations go untraced) */
void ckt_hold_signals(sigset_t *old);
/* Maps the stack a process's end by _exit, abort or a fatal signal finishes the trace on, if
 * none is ready (hooks_exec.c): from a program's stack, before a small alternate one can need
 * it. */
void ckt_finish_stack_ready(void);
#if defined(__x86_64__)
/* fn(arg) with the stack pointer at top (16-byte aligned), its return value (stacks.c) */
int ckt_side_call(int (*fn)(void *), void *arg, void *top);
#endif
void ckt_release_signals(const sigset_t *old);
void ckt_exit_main_watch(void); /* claims every exit of the main thread; a second exit's wait (hooks_exec.c) */
void ckt_exit_fini_elsewhere(void); /* the destructor ran in a child (hooks_exec.c) */
void ckt_children_off(void); /* CUZKTRACE_CHILDREN=0: out of LD_PRELOAD (hooks_exec.c) */
void ckt_exec_after_fork_child(void); /* no pause held in a forked child (hooks_exec.c) */
void *ckt_pool_alloc(size_t size, size_t align);
extern unsigned char ckt_pool[];
#define CKT_POOL_SIZE (256 * 1024)
static inline int ckt_pool_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)ckt_pool < CKT_POOL_SIZE;
}
size_t ckt_pool_size(const void *p);

/* 1 while events are being captured (from the first hook call until exit or a fatal error). */
extern atomic_int ckt_active;

/* hooks_malloc.c, hooks_mmap.c: our own definitions (bootstrap.c checks interposition) */
extern __typeof__(malloc) ckt_self_malloc;
extern __typeof__(free) ckt_self_free;
extern __typeof__(mmap) ckt_self_mmap;
extern __typeof__(calloc) ckt_self_calloc;
extern __typeof__(realloc) ckt_self_realloc;
/* 1 when malloc or calloc is another allocator's (or not checked yet), 0 when ours */
extern atomic_int ckt_alloc_foreign;
/* realloc when another allocator's comes before ours (reallocarray calls it), else NULL */
__typeof__(realloc) *ckt_program_realloc(void);

/* ---- clock ---- */
extern uint64_t ckt_t0; /* CLOCK_MONOTONIC ns at the first intercepted call */
uint64_t ckt_clock_raw(void);
/* clock_gettime: the vDSO's, never the program's (another preload may fake the time), or the
 * system call once ckt_clock_use_syscall was called (the TSC forbidden: bootstrap.c) */
void ckt_clock_get(clockid_t id, struct timespec *ts);
void ckt_clock_use_syscall(void);
/* sleeps ns nanoseconds by the system call (a preload that fakes the time replaces nanosleep) */
void ckt_nap(long ns);
/* the process's arguments as the kernel put them on its initial stack (argc in *argc), or
 * NULL when that cannot be found; for a process without /proc (bootstrap.c) */
char **ckt_initial_argv(long *argc);
static inline uint64_t ckt_now(void)
{
	return ckt_clock_raw() - ckt_t0;
}

/* ---- thread.c: per-thread state and rings ---- */
enum ckt_slot_type {
	CKT_EV_ALLOC = 1,
	CKT_EV_FREE,
	CKT_EV_REALLOC, /* followed by a CKT_EV_EXT slot: ts = after, a = new address, b = the old
			 * block's usable size */
	CKT_EV_MMAP,
	CKT_EV_MUNMAP,
	CKT_EV_MREMAP, /* followed by CKT_EV_EXT: a = new address, b = new length */
	CKT_EV_RSS,
	CKT_EV_RSS_DETAIL, /* a = hwm, b = anon, followed by EXT: a = file, b = shmem */
	CKT_EV_PHASE, /* fn = op, a = phase id */
	CKT_EV_AGG,   /* a = usable-bytes delta, b = blocks delta (both int64) */
	/* hooks_cuda.c. CUDA_ALLOC: fn = CKT_CU_*, a = address (handle for cuMemCreate),
	 * b = size, followed by EXT: a = kind (CKT_CUDA_*), b = device ordinal */
	CKT_EV_CUDA_ALLOC,
	CKT_EV_CUDA_FREE,   /* fn = CKT_CU_*, a = address or handle, b = kind */
	/* a = ordinal, b = (uintptr_t) the device name (static storage, NUL-terminated), followed
	 * by EXT: a, b = the 16 UUID bytes (little-endian halves), ts = 1 when the UUID is known */
	CKT_EV_CUDA_DEVICE,
	CKT_EV_CUDA_MAP,   /* a = virtual address, b = size, followed by EXT: a = allocation handle */
	CKT_EV_CUDA_UNMAP, /* a = virtual address, b = size */
	CKT_EV_MPROTECT,   /* a = address, b = length, fn = the new protection (PROT_* & 7) */
	CKT_EV_EXT,
};

/* One event, written by its thread only. 32 bytes: two slots per cache line. */
struct ckt_slot {
	uint64_t ts;
	uint64_t a;     /* address */
	uint64_t b;     /* size / length (heap events: ckt_slot_size; FREE: the usable size) */
	uint32_t stack; /* stack id, 0 = none */
	uint8_t type;   /* enum ckt_slot_type */
	uint8_t fn;     /* ALLOC: enum ckt_alloc_fn; MMAP: CKT_MAP_* flags | prot << 4 */
	uint16_t phase; /* phase id, 0 = none */
};

/* 1 MiB per thread at most; power of two. 512 KiB (before 0.2.34) left the benchmark's 4 busy
 * threads in exact mode asleep on full rings 440 times (1.4 s in all) while the writer
 * compressed, and a core idle meanwhile: 1.73 s against 1.67 s with 1 MiB, 7 alternating runs
 * each (2 MiB: no better). The shared budget below bounds what busy threads take together. */
#define CKT_RING_SLOTS 32768u
/* A thread starts on the first CKT_RING_SLOTS >> CKT_RING_SHRINK slots of its ring (64 KiB)
 * and doubles that window, up to the whole ring, each time it fills half of it again within
 * CKT_RING_GROW_NS of the previous time, or fills it: a thread that records little (nearly
 * every thread in the default mode, idle pool threads in exact mode) never touches more
 * than 64 KiB; a busy one gets the room it needs for the writer's latency, as before. */
#define CKT_RING_SHRINK 4u
#define CKT_RING_GROW_NS 10000000ull
/* The first windows of all rings in use together take at most this many slots (8 MiB, 128
 * threads' 64 KiB); a thread that starts past them starts on CKT_RING_MIN_SLOTS (16 KiB) and
 * grows from the shared budget below like any other. Without this cap every thread alive paid
 * 64 KiB once it recorded 2048 events: 512 busy threads took 32 MiB of first windows. */
#define CKT_RING_FIRST_SLOTS ((8ull << 20) / sizeof(struct ckt_slot))
#define CKT_RING_MIN_SLOTS 512u
/* All windows together grow past their first windows by at most this many slots (16 MiB): the
 * rings of many busy threads share what the writer's latency needs, instead of 1 MiB each
 * (128 busy threads took 70 MiB). A thread that finds the budget spent keeps its window and
 * waits for the writer more often. A ring's growth goes back to the budget when the writer
 * recycles it (ckt_ring_release). */
#define CKT_RING_EXTRA_SLOTS ((16ull << 20) / sizeof(struct ckt_slot))

#define CKT_STACK_CACHE 256 /* per-thread direct-mapped cache of stack hash -> id */
struct ckt_stack_cache {
	uint64_t hash;
	uint32_t id;
};

enum ckt_ring_state { CKT_RING_FREE = 0, CKT_RING_LIVE, CKT_RING_EXITED };

#define CKT_CAP_UNW_BYTES 4096 /* libunwind's context and cursor: 1984 bytes on x86_64, 2736 on
				* aarch64 (stacks.c checks the size) */
/* The stack a capture made on the thread's alternate signal stack unwinds on (x86_64;
 * stacks.c): a mapping of its own, made at the first such capture (ckt_ring.alt_stack) */
#define CKT_CAP_STACK_BYTES ((size_t)64 << 10)
#define CKT_PHASE_DEPTH 256 /* deeper pushes are charged to the phase at this depth (said once) */
#define CKT_ALT_STACK_NONE ((unsigned char *)1)
struct ckt_ring {
	/* written by the owning thread */
	_Alignas(64) _Atomic uint64_t head;
	uint64_t tail_cache;
	uint64_t lost;
	/* While an event is between its timestamp and its commit: a lower bound of that timestamp
	 * (the owner's previous one), else CKT_NOT_BUSY. The writer's SYNC horizon never passes
	 * it, so an event stamped long before its commit (realloc, munmap and mremap are stamped
	 * before the real call; any thread can be preempted in between) still sorts right. */
	_Atomic uint64_t busy;
	uint64_t last_ts; /* the owner's latest timestamp */
	_Atomic int sleeping; /* the owner waits for room (futex on drained) */
	/* The window in use is the ring's first slots (a power of two): event number i sits at
	 * slots[i & ckt_ring_mask(r)]. The owner changes it only while the ring is empty
	 * (tail == head), before it publishes the next head; the writer reads it after it has
	 * read head, so the events it drains were all written with the value it sees. Kept as
	 * the window's mask XOR the whole ring's (ckt_ring_mask: one XOR on the hot path), so
	 * 0 (a zeroed ring) is the whole ring. */
	_Atomic uint32_t wmask;
	uint64_t half_ts, half_head; /* last_ts and head when the owner last counted half a window */
	uint32_t w_first; /* the window it started on (CKT_RING_FIRST_SLOTS), set as it is taken */
	uint8_t first_counted; /* w_first is in the first windows' budget (not a vfork child's) */
	/* written by the writer thread */
	_Alignas(64) _Atomic uint64_t tail;
	_Atomic uint32_t drained; /* bumped after each drain: the futex a full ring's owner waits on */
	uint64_t lost_reported;
	/* the busy mark and head the writer saw last, and since when unchanged: a mark that stays
	 * with no progress for 10 s is taken as left behind (writer.c, horizon) */
	uint64_t w_busy, w_head, w_busy_since;
	uint32_t w_idle; /* flushes in a row that found no event in a live ring (writer.c) */
	/* set once */
	_Alignas(64) _Atomic int state; /* enum ckt_ring_state */
	pid_t tid; /* the owner's; 0 while the ring is free (set after the owner takes it) */
	pid_t pid; /* getpid() when it was taken: not the traced process's in a vfork child */
	/* Thread ids the kernel gave again (writer.c, snapshot): taken rings are numbered in the
	 * order they were taken (gen, set before tid), and a ring taken while another ring not
	 * recycled yet held the same tid (a thread that ended, its last events or its end not
	 * written yet) is marked, for the writer to put its events after the other's end. */
	uint64_t gen;
	uint64_t attach_ts; /* when it was taken: a THREAD_NAME stamped from then on is its owner's */
	_Atomic int tid_reused;
	unsigned long pth; /* pthread_self() of the owner, to name it when another thread renames it */
	int64_t *_Atomic agg_src; /* the owner's running totals (TLS agg_bytes, agg_blocks) while it
				   * lives: the writer's last flush sends what is still pending */
	struct ckt_ring *next; /* global list; rings are never unlinked, only recycled */
	struct ckt_stack_cache cache[CKT_STACK_CACHE]; /* owner only; ids are global */
	/* owner only: a stack capture's buffers, off the program's stack (stacks.c) */
	void *cap_raw[CKT_MAX_DEPTH + 9];
	/* owner only: the stack a capture on the alternate signal stack unwinds on, NULL until
	 * the thread's first (stacks.c; kept for the ring's next owner) */
	unsigned char *alt_stack; /* CKT_ALT_STACK_NONE: its owner could not map one */
	/* owner only: the phases it has pushed, oldest first (ckt_tls.phase_depth of them, up to
	 * CKT_PHASE_DEPTH; phase.c) */
	uint16_t phase_stack[CKT_PHASE_DEPTH];
	_Alignas(64) unsigned char cap_unw[CKT_CAP_UNW_BYTES];
	struct ckt_slot slots[CKT_RING_SLOTS];
};

#define CKT_SCAN_CARRY 127  /* the longest marker (phase.c's RULE_MARKER), with one byte to spare */
#define CKT_PHASE_CACHE 4
struct ckt_tls {
	int guard; /* nonzero while inside a hook or in a tracer thread: calls pass through */
	int in_driver; /* inside a real CUDA driver call: mmap and nested driver calls not counted */
	int in_unwind; /* inside libunwind: its pipe, read, write and close go to our own pipe */
	int mutexes; /* tracer mutexes this thread holds or is taking (ckt_mutex_take): an exit
		      * from a signal handler here does not wait for another's (exit_claim) */
	int in_calloc; /* in the calloc hook: a call from the dynamic linker may capture (stacks.c) */
	int inner; /* a call traced under a guard (inner_alloc): the tracer's frames lie inside its
		    * stack (stacks.c takes them out) */
	int in_phdr; /* inside dl_iterate_phdr, the loader's lock held (modules.c): no unwinding */
	int phdr_prog; /* of those, calls of the program's (counted in modules.c's phdr_prog_in) */
	int phdr_cap; /* inside a capture's look at the loader's list, counted (phdr_cap_in) */
	int in_tls_touch; /* 1: a capture brings the TLS table up to date; 2: the tracer's own
			   * pthread_setspecific (thread.c): no capture inside, calls traced */
	int dead;  /* no ring can be had for this thread: 1 untraced by design (a forked child, a
		    * tracer thread), 2 none could be mapped (its events are counted lost) */
	int from_pool; /* with guard raised: malloc and calloc are served from the boot pool, whose
			* blocks free ignores (memory glibc frees for us later: hooks_exec.c) */
	struct ckt_guard_frame *guard_frame; /* the mmap family's hook that raised the guard
					      * (ckt_guard_mark) */
	uintptr_t guard_fp;                  /* that hook's frame address */
	uintptr_t guard_alt_lo, guard_alt_hi; /* the thread's alternate signal stack then */
	/* the thread's alternate signal stack as its sigaltstack calls set it (hooks_signal.c;
	 * a fork's child keeps it, as the kernel does): a capture there unwinds on a stack of its
	 * own (stacks.c) */
	uintptr_t sig_alt_lo, sig_alt_hi;
	uint64_t guard_seq, guard_tok;       /* the mark's token, also in its frame */
	volatile int guard_in_call;          /* that hook is in its system call */
	volatile sig_atomic_t awaiting_exit; /* an exit waits for another thread to finish the
					      * trace (hooks_exec.c): a signal handler's _exit
					      * may finish it */
	struct ckt_ring *ring;
	int phase_depth; /* pushes minus pops; the first CKT_PHASE_DEPTH ids are kept */
	unsigned phase_unseen; /* pushes made before tracing started (a library's constructor),
				* not counted in phase_depth: their pops pass without a word */
	/* the phase at the top of that stack (past CKT_PHASE_DEPTH the deepest kept); 0 with
	 * nothing pushed, or for a push of no phase over nothing pushed (ckt_phase_current);
	 * the stack itself is in the thread's ring (ckt_ring.phase_stack): static TLS comes out of
	 * every thread's stack, and 512 bytes of it were the phases (phase.c) */
	uint16_t phase_top;
	/* the ids of the names this thread pushed last, by the name's address (phase.c) */
	const char *phase_cache_name[CKT_PHASE_CACHE];
	uint16_t phase_cache_id[CKT_PHASE_CACHE];
	/* default (sampling) mode, sample.c */
	int64_t agg_bytes, agg_blocks; /* small blocks' usable bytes not yet sent as AGG */
	uint64_t agg_at;               /* the coarse clock at their last change (ckt_coarse);
					* after agg_blocks: the writer reads all three (agg_src) */
	int64_t agg_step;              /* send them when they moved this much; 0 = at once: until
					* the thread's first AGG (so every thread that holds unsent
					* totals has sent one, which the reader's bound counts) and
					* from its exit on (agg_final) */
	int agg_final;
	int64_t sample_left;           /* bytes until the next sample */
	uint64_t rng;                  /* xorshift state; 0 until the first sample decision */
	/* stacks.c: which unwinder this thread uses (see there) */
	int unw_fast;                  /* 1: unw_backtrace and its per-thread cache */
	int unw_counted;               /* counted in the default mode's cap on such threads */
	uint64_t unw_since;            /* start of the current window (ckt_now) */
	uint64_t unw_spent;            /* ns spent stepping stacks since then */
	uint32_t unw_stepped;          /* stacks stepped in the thread's life (up to the minimum) */
	int unw_trimming;              /* 1 while unw_cache_trim makes libunwind map its cache */
	size_t nosample_open;          /* an mmap-family hook's ckt_nosample_begin: its bytes + 1,
					* ended by ckt_guard_stale if a handler jumps out of it */
	unsigned unw_nmaps;            /* the mappings of its size libunwind made then (hooks_mmap.c) */
	void *unw_maps[4];
	/* hooks_cxx.c: an aligned operator new passed on to libstdc++ is under way, which asks
	 * aligned_alloc for the size rounded up to the alignment: the size the program asked for
	 * plus 1 (0: none), and the alignment; the aligned family's hook records that size */
	size_t cxx_request, cxx_align;
	int cxx_obj; /* hooks_cxx.c: the last object that called operator new in LOCAL mode, + 1 */
	int dlclose_depth; /* hooks_cxx.c: this thread's dlclose calls running */
	/* phase.c: the end of the line this thread has open on descriptor scan_fd (written
	 * without its newline yet), for a marker split across writes */
	int scan_fd;
	int scan_pending;        /* the carry begins with a marker deferred, not scanned yet */
	unsigned scan_carry_len;
	char scan_carry[CKT_SCAN_CARRY];
	/* the carry's first bytes that markers used up (0 while scan_pending): line text for the
	 * stored lines only, not scanned again (in the padding after the carry) */
	unsigned char scan_skip;
	/* hooks_cuda.c: from a driver hook's twin (the pointer a lookup handed out) until the hook
	 * takes its driver function, the hook's index + 1; else 0. Last: a field added among the
	 * first moved the allocation path's fields by 8 bytes, and the default mode took 1% more */
	int cu_route;
};

/* ckt_tls.guard while a hook of the malloc or mmap family, a phase push or pop, or a write the
 * phase rules scan runs. The calls into the hooks made inside such a hook are the calls of the
 * code it calls out to: libunwind (it maps its per-thread cache on a thread's first
 * unw_backtrace), libc (pthread_setspecific callocs for a key past the first 32) and the real
 * allocator (jemalloc or tcmalloc map memory through the mmap symbol). So a call that finds
 * exactly this value and comes from none of them (ckt_out_lo/hi: their text) comes from a
 * signal handler that interrupted the hook (tests/progs/sigalloc.c: every call of the program is
 * in the trace or counted lost). It cannot be recorded (the thread's ring slot or running
 * totals may be half written) and passes through, counted lost (ckt_passed): the writer puts
 * the count in the trace and says so once on stderr. A handler's calls that go through libc
 * (strdup, stdio) pass uncounted, and so do those made during a CUDA hook or a thread's end. */
#define CKT_GUARD_HOOK 0x4000
/* Raised by a stack capture while it brings the thread's TLS table up to date (stacks.c):
 * the frees and reallocs glibc's TLS update makes from the dynamic linker then are traced
 * (ckt_tls_update_call), every other call (a signal handler's) passes through, counted lost. */
#define CKT_GUARD_TLS 0x2000
#define CKT_GUARD_MAP 0x8000 /* the same, raised by a hook of the mmap family (ckt_guard_mark);
			      * not CKT_GUARD_HOOK + 1, which a guard++ of ckt_hold_signals makes */
/* Raised by a hook of C++ operator new or delete (hooks_cxx.c) across the real call of an
 * allocator that serves them itself: the malloc, free and mmap it calls on the way (jemalloc's
 * delete is a jump to free) are that call's own, and pass through uncounted; the program's
 * new-handler, which that allocator calls when it is out of memory, passes through counted
 * lost (its frees cannot be recorded inside the call). */
#define CKT_GUARD_CXX 0x1000
extern _Atomic uint64_t ckt_lost_nested;

/* The mmap family's hooks make system calls a signal can interrupt, and its handler may leave
 * by siglongjmp (a timeout around a slow mmap with MAP_POPULATE, a legal jump: mmap is
 * async-signal-safe): the hook's frame is gone with its guard still up, and every later call
 * of the thread passed through untraced, counted lost as a handler's. Those hooks mark their
 * frame and raise the guard as CKT_GUARD_MAP, and say when they are in their system call (a
 * jump from there leaves no half-written slot and no lock of the tracer held); a hook that
 * finds that guard up, the left hook in its call and its frame gone (ckt_guard_stale, off the
 * traced path: only when the guard is up) takes it back. The call the jump left is counted
 * lost (ckt_lost_jumped, said once). Since 0.2.40 such a hook holds every signal but the
 * faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS) from its
 * mark to its end, its system call included, the program's mask kept in the frame: a jump
 * from the hook's own work (stack capture, record), which left the guard up for good (a fast
 * timer over a loop of small mmap calls hits it more often than the call), cannot happen, nor
 * one from the call, which cost the call's event (a mapping made and never recorded) or, for a
 * signal held during the work before it and delivered as the call began, recorded a large
 * munmap that never ran. None of these calls waits for a signal (they end the same whether one
 * comes or not), so a signal that comes meanwhile is delivered as the hook lowers its guard,
 * after its record, as it would be at the call's return. (The recovery above stays for a
 * mask that could not be set.) A jump out of a malloc hook (glibc's allocator is not
 * async-signal-safe either) is not recovered. */
struct ckt_guard_frame {
	volatile uint64_t token;
	sigset_t mask; /* the program's signal mask, while the hook holds every signal */
};
extern _Atomic uint64_t ckt_lost_jumped;
/* calls that a C++ hook's real call made outside the allocator (its new-handler), lost */
extern _Atomic uint64_t ckt_lost_cxx;
/* Raises the guard for an mmap-family hook: fp is the hook's __builtin_frame_address(0) (the
 * tracer is built with frame pointers), f a variable in its frame. The plain guard first, so
 * that a handler's hook meanwhile passes through and cannot overwrite the mark half made; the
 * mark; then CKT_GUARD_MAP. The thread's alternate signal stack is noted (one sigaltstack
 * query: a handler on a stack with SS_AUTODISARM finds it disabled, thread.c). Lowered as any
 * other guard. */
void ckt_guard_altstack(struct ckt_tls *t);
static inline void ckt_guard_mark(struct ckt_tls *t, struct ckt_guard_frame *f, void *fp)
{
	/* all but the faults: one that the hook's own work raises (its stack overflowing) goes to
	 * the program's handler, as untraced; held, the kernel ended the process by its default */
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_BLOCK, &all, &f->mask);
	atomic_signal_fence(memory_order_seq_cst);
	t->guard = CKT_GUARD_HOOK;
	atomic_signal_fence(memory_order_seq_cst);
	t->guard_in_call = 0;
	f->token = t->guard_tok = ++t->guard_seq;
	t->guard_fp = (uintptr_t)fp;
	t->guard_frame = f;
	ckt_guard_altstack(t);
	atomic_signal_fence(memory_order_seq_cst);
	t->guard = CKT_GUARD_MAP;
}
/* around the hook's system call (every signal held: see above) */
static inline void ckt_guard_call(struct ckt_tls *t, int in)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->guard_in_call = in;
	atomic_signal_fence(memory_order_seq_cst);
}
/* The hook's end: the guard lowered, then the program's mask back (a signal held meanwhile
 * is delivered here, outside the hook's guard). errno is kept: the caller's is the call's. */
static inline void ckt_guard_unmark(struct ckt_tls *t, struct ckt_guard_frame *f)
{
	t->guard = 0;
	atomic_signal_fence(memory_order_seq_cst);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &f->mask, NULL);
	errno = e;
}
int ckt_guard_stale(struct ckt_tls *t, void *fp); /* fp: the calling hook's frame address */
/* A hook may trace its call: no guard up (a guard left up by a jump out of an mmap hook is
 * taken back: ckt_guard_stale, off the traced path) and tracing on */
#define CKT_HOOK_ENTER(t)                                                                  \
	((CKT_LIKELY(!(t)->guard) || ckt_guard_stale(t, __builtin_frame_address(0))) &&     \
	 atomic_load_explicit(&ckt_active, memory_order_relaxed))
/* hooks_malloc.c: a heap block of the real allocator allocated (n bytes asked) or about to be
 * freed, recorded as the malloc family's are; with the guard up */
void ckt_heap_record_alloc(struct ckt_tls *t, void *p, size_t n, uint8_t fn);
void ckt_heap_record_free(struct ckt_tls *t, void *p);
extern CKT_TLS struct ckt_tls ckt_tls;

/* The tracer's few mutexes (phase names, the log-line scan, the module maps' numbering),
 * counted per thread: an exit from a signal handler that interrupted a holder must not wait
 * for another thread's exit, whose handlers may need that mutex (exit_claim). Counted before
 * taking and after giving: a signal in between finds the count high, which only skips a wait. */
static inline void ckt_mutex_take(pthread_mutex_t *m)
{
	ckt_tls.mutexes++;
	pthread_mutex_lock(m);
}

static inline int ckt_mutex_try(pthread_mutex_t *m)
{
	ckt_tls.mutexes++;
	int rc = pthread_mutex_trylock(m);
	if (rc)
		ckt_tls.mutexes--;
	return rc;
}

static inline void ckt_mutex_give(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	ckt_tls.mutexes--;
}

/* 1 once the main thread has called pthread_exit: the process then ends when its last thread
 * does, and the tracer's helper threads must not be the ones that keep it alive (writer.c) */
extern atomic_int ckt_main_exited;
/* writer.c: the tracer's threads stop (after writing what was recorded) for a call, and start
 * again from the caller. alone: only when the program has no other thread (a call that needs
 * a single-threaded process); else whatever the program's threads. 1 when they stopped. */
int ckt_helpers_pause(int alone);
/* writer.c: 1 when a tracer thread's effective capability cap (CAP_SETUID, CAP_SETGID) is not
 * the caller's (per-thread state that glibc's setxid broadcast would find different) */
int ckt_helpers_creds_differ(int cap);
int ckt_writer_tracing(void);
void ckt_helpers_resume(void);
/* the RSS sampler's thread id while it runs, else 0 (rss.c) */
extern _Atomic pid_t ckt_rss_tid;
/* the time the program's threads slept waiting for room in their rings (ns, each wait's time
 * to get a core again included), and the times one did (thread.c; the writer's WAITED record) */
extern _Atomic uint64_t ckt_wait_ns, ckt_waits;
/* Calls that change 1 MiB (CKT_NOSAMPLE_MIN) or more of resident memory while the trace says
 * it changed at one stamp, under way: a free that unmaps or trims (ckt_block_unmaps), munmap,
 * mremap, cuMemFreeHost (stamped before the call: the kernel frees the pages during it), a
 * realloc to or from 1 MiB or more (the old block stamped before, the new one after, a copy
 * between), an mmap with MAP_POPULATE or MAP_LOCKED and a pinned host allocation (stamped
 * after it: their pages are made during it). An RSS sample read meanwhile counted pages the trace had released already,
 * or not yet allocated (a 256 MiB free took 16 ms, and 60 samples of 477 at 1 ms read RSS 100
 * to 250 MiB above heap and mappings: the peak RSS, when one of them, lacked the block in its
 * heap, phases and sites). The sampler (rss.c) takes no sample across one: it reads again once
 * none is under way (up to 20 ms or two sampling periods, and a millisecond more for each 8
 * MB under way: 2 s at most). Begun before the call and any stamp of its event, ended
 * after the call and the stamps (realloc and mremap stamp what they made after it). Cost:
 * three atomic adds and two subs on a shared line per such call, beside a call that maps,
 * copies or unmaps a megabyte or more (tens of microseconds); nothing for smaller blocks. */
#define CKT_NOSAMPLE_MIN ((size_t)1 << 20)
extern _Atomic uint64_t ckt_nosample_started, ckt_nosample_bytes;
extern atomic_uint ckt_nosample_busy;
/* bytes: what the call unmaps, CKT_NOSAMPLE_MAKES times what it makes (0 when unknown), for
 * how long the sampler waits (rss.c, wait_cap) */
#define CKT_NOSAMPLE_MAKES 16
static inline void ckt_nosample_begin(size_t bytes)
{
	atomic_fetch_add(&ckt_nosample_bytes, bytes);
	atomic_fetch_add(&ckt_nosample_busy, 1);
	atomic_fetch_add(&ckt_nosample_started, 1);
}
static inline void ckt_nosample_end(size_t bytes)
{
	atomic_fetch_sub(&ckt_nosample_busy, 1);
	atomic_fetch_sub(&ckt_nosample_bytes, bytes);
}
int ckt_rss_running(void);
void ckt_proc_init(void);
void ckt_proc_close(void); /* running untraced: /proc's descriptor closed */
int ckt_proc_open(const char *rel, int flags); /* /proc/<rel>, even after a mount namespace change */
/* /proc/self/stat kept open at a high number (rss.c): opened by the thread that starts tracing;
 * read by the writer alone (read: 0, or -1 when it cannot be read) */
void ckt_self_stat_open(void);
int ckt_self_stat_read(char *buf, size_t cap);

/* ---- phase.c ---- */
extern atomic_int ckt_proc_phase; /* most recently begun process-wide phase still active */
/* The phase an allocation made now by this thread belongs to: a TLS load, a branch, and a
 * relaxed load of a line written only by phase API calls. phase_top is 0 with nothing pushed,
 * and under a push of no phase (NULL, a name past the table) made with nothing pushed: the
 * process-wide phase as it changes, not the one active at that push. */
static inline uint16_t ckt_phase_current(const struct ckt_tls *t)
{
	if (t->phase_top)
		return t->phase_top;
	return (uint16_t)atomic_load_explicit(&ckt_proc_phase, memory_order_relaxed);
}
void ckt_phase_rules_load(void);
void ckt_phase_thread_exit(struct ckt_tls *t);
void ckt_phase_flush_deferred(struct ckt_tls *t); /* a marker deferred at a write's end acts */
void ckt_phase_flush_all_deferred(struct ckt_tls *t); /* the process's exit: every thread's too */
/* Scans the n bytes the calling thread wrote to fd (stdout or stderr) for CUZKTRACE_PHASES
 * markers, a marker begun in its earlier writes to fd included. Caller holds the guard. */
void ckt_phase_scan(int fd, const char *buf, size_t n);
struct iovec;
void ckt_phase_scan_iov(int fd, const struct iovec *iov, int cnt, size_t total); /* writev's n bytes */
extern int ckt_phase_rules_on;
#define CKT_PHASE_RULES_TEXT (32 * 321 + 1) /* 32 rules of 63 + 127 + 127 bytes, 4 separators */
void ckt_phase_rules_text(char *out, size_t cap);
void ckt_thread_name_record(struct ckt_tls *t, const char *name);
void ckt_thread_name_record_tid(pid_t tid, const char *name);
void ckt_thread_name_record_other(unsigned long pth, const char *name);


extern struct ckt_ring *_Atomic ckt_rings; /* head of the list the writer walks */
/* events of threads that could get no ring (ckt_tls.dead == 2): the writer reports them lost */
extern _Atomic uint64_t ckt_lost_noring;
struct ckt_ring *ckt_thread_attach(struct ckt_tls *t);
/* The thread's ring, taken at its first need; NULL when it can get none */
static inline struct ckt_ring *ckt_thread_ring(struct ckt_tls *t)
{
	return CKT_LIKELY(t->ring != NULL) ? t->ring : ckt_thread_attach(t);
}
int ckt_thread_make_room(struct ckt_ring *r, unsigned n);
void ckt_ring_release(struct ckt_ring *r);
/* The writer has cleared the thread id (was tid) of a ring it recycles, and is about to set
 * it FREE: the counts a new thread's attach reads to skip its walks of the ring list
 * (thread.c) */
void ckt_ring_recycling(pid_t tid);
/* Whether more than `have` rings may hold thread id tid (a thread's own ring counts from its
 * attach on). Counted by id modulo 32,768: a count above the truth costs the caller a walk of
 * the ring list, never a wrong answer. */
int ckt_rings_tid_many(pid_t tid, unsigned have);
/* Rings whose thread has ended and that the writer has not recycled yet. Past
 * CKT_EXITED_WAKE an ending thread wakes the writer: a program that churns threads would
 * otherwise hold one ring (64 KiB and up) for every thread started in a flush interval
 * (40,000 threads, 8 at a time: 55 MiB). */
extern atomic_uint ckt_rings_exited;
#define CKT_EXITED_WAKE 32u
void ckt_thread_init(void);
void ckt_thread_watch_main(void); /* marks the main thread's glibc thread exit (thread.c) */
void ckt_thread_after_fork_child(void);

/* Event number i of r sits at slots[i & ckt_ring_mask(r)] (see ckt_ring.wmask). */
static inline uint64_t ckt_ring_mask(const struct ckt_ring *r)
{
	return atomic_load_explicit(&r->wmask, memory_order_relaxed) ^ (CKT_RING_SLOTS - 1);
}

/* Makes the window the first `slots` slots (a power of two, up to CKT_RING_SLOTS). */
static inline void ckt_ring_set_window(struct ckt_ring *r, uint64_t slots)
{
	atomic_store_explicit(&r->wmask, (uint32_t)((slots - 1) ^ (CKT_RING_SLOTS - 1)), memory_order_relaxed);
}

/* Reserve n consecutive slots (n <= 2) in this thread's ring; NULL if the event must be dropped
 * (counted in ring->lost). Commit with ckt_ring_commit. Caller holds the guard. */
static inline struct ckt_slot *ckt_ring_reserve(struct ckt_tls *t, unsigned n)
{
	struct ckt_ring *r = t->ring;
	if (CKT_UNLIKELY(!r)) {
		r = ckt_thread_attach(t);
		if (!r) {
			if (t->dead == 2) /* rare: a thread nothing can be recorded for */
				atomic_fetch_add_explicit(&ckt_lost_noring, 1, memory_order_relaxed);
			return NULL;
		}
	}
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t mask = ckt_ring_mask(r);
	if (CKT_UNLIKELY(h + n - r->tail_cache > (mask >> 1) + 1)) { /* half the window */
		if (!ckt_thread_make_room(r, n))
			return NULL;
		mask = ckt_ring_mask(r); /* it may have grown */
	}
	return &r->slots[h & mask];
}

/* The slot after s, wrapping around the ring's window. */
static inline struct ckt_slot *ckt_ring_next(struct ckt_tls *t, struct ckt_slot *s)
{
	struct ckt_ring *r = t->ring;
	return s + 1 == r->slots + ckt_ring_mask(r) + 1 ? r->slots : s + 1;
}

static inline void ckt_ring_commit(struct ckt_tls *t, unsigned n)
{
	struct ckt_ring *r = t->ring;
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	atomic_store_explicit(&r->head, h + n, memory_order_release);
}

#define CKT_NOT_BUSY UINT64_MAX
/* An event's timestamp. Marks the thread busy first (see ckt_ring.busy), so every ckt_stamp
 * must be followed by ckt_emit/ckt_emit2 (which end it) or ckt_done. Cost over ckt_now: two
 * stores and a load on the ring's first line, which the commit writes anyway. No fence: the
 * writer keeps its horizon CKT_HORIZON_MARGIN_NS behind its clock, far longer than a store
 * can wait in a store buffer, and a thread preempted after the store has flushed it. */
static inline uint64_t ckt_stamp(struct ckt_tls *t)
{
	struct ckt_ring *r = t->ring;
	if (CKT_UNLIKELY(!r) && !(r = ckt_thread_attach(t)))
		return ckt_now();
	atomic_store_explicit(&r->busy, r->last_ts, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst); /* the mark before the clock, for the compiler */
	uint64_t ts = ckt_now();
	r->last_ts = ts;
	return ts;
}

/* The event stamped last is committed, or will not be: the horizon may pass it. */
static inline void ckt_done(struct ckt_tls *t)
{
	if (CKT_LIKELY(t->ring != NULL))
		atomic_store_explicit(&t->ring->busy, CKT_NOT_BUSY, memory_order_release);
}

/* Record a one-slot event without ending the busy mark (ckt_emit ends it). */
static inline void ckt_put(struct ckt_tls *t, uint8_t type, uint8_t fn, uint64_t ts, uint64_t a,
			   uint64_t b, uint32_t stack)
{
	struct ckt_slot *s = ckt_ring_reserve(t, 1);
	if (CKT_UNLIKELY(!s))
		return;
	s->ts = ts;
	s->a = a;
	s->b = b;
	s->stack = stack;
	s->type = type;
	s->fn = fn;
	s->phase = ckt_phase_current(t);
	ckt_ring_commit(t, 1);
}

/* Record a one-slot event stamped by ckt_stamp. */
static inline void ckt_emit(struct ckt_tls *t, uint8_t type, uint8_t fn, uint64_t ts, uint64_t a,
			    uint64_t b, uint32_t stack)
{
	ckt_put(t, type, fn, ts, a, b, stack);
	ckt_done(t);
}

/* Record a two-slot event (REALLOC, MREMAP, RSS_DETAIL) stamped by ckt_stamp. */
static inline void ckt_emit2(struct ckt_tls *t, uint8_t type, uint8_t fn, uint64_t ts, uint64_t a,
			     uint64_t b, uint64_t ts2, uint64_t a2, uint64_t b2, uint32_t stack)
{
	struct ckt_slot *s = ckt_ring_reserve(t, 2);
	if (CKT_UNLIKELY(!s)) {
		ckt_done(t);
		return;
	}
	s->ts = ts;
	s->a = a;
	s->b = b;
	s->stack = stack;
	s->type = type;
	s->fn = fn;
	s->phase = ckt_phase_current(t);
	struct ckt_slot *e = ckt_ring_next(t, s);
	e->ts = ts2;
	/* an after-stamp (realloc, mremap; the other kinds' second ts is 0 or ts) is the thread's
	 * latest: a THREAD_EXIT written at its end must not come before it. A compare and a store
	 * on the ring's first line, which the commit writes anyway */
	if (ts2 > ts)
		t->ring->last_ts = ts2;
	e->a = a2;
	e->b = b2;
	e->stack = 0;
	e->type = CKT_EV_EXT;
	e->fn = 0;
	e->phase = 0;
	ckt_ring_commit(t, 2);
	ckt_done(t);
}

/* ---- stacks.c ---- */
extern atomic_int ckt_stacks_ready;
int ckt_stacks_init(void);
/* the program set an address-space limit after start: the call stacks' reservation shrinks to
 * fit it (stacks.c; from the setrlimit and prlimit hooks) */
void ckt_stacks_fit_limit(uint64_t limit);
/* whether it would give any of that reservation back */
int ckt_stacks_would_shrink(uint64_t limit);
/* 1 where this process's memory is its own: the traced process, or a forked child of it (its
 * atfork handler ran); not a vfork child of the traced process, whose memory is the parent's
 * (hooks_exec.c) */
int ckt_exec_own_memory(void);

/* The text of the code the hooks call out to (CKT_GUARD_HOOK): libunwind, libc, the real
 * allocator's object, the tracer's own; set by ckt_callout_init at bootstrap, before anything
 * is traced (the C++ runtime's by hooks_cxx.c, when its hooks trace). */
#define CKT_OUT_N 5
#define CKT_OUT_UNWIND 0 /* libunwind's text (ckt_out_lo[0], ckt_out_hi[0]) */
#define CKT_OUT_LIBC 1   /* libc's (pthread_setspecific's object) */
#define CKT_OUT_SELF 3   /* the tracer's own */
/* 2: the real allocator's; 3: the tracer's own (a C++ hook's jump into the allocator's
 * delete, which jumps to free, returns there); 4: the C++ runtime's (the allocator's new
 * throws std::bad_alloc through __cxa_allocate_exception's malloc), set when the C++ hooks
 * trace (hooks_cxx.c) */
#define CKT_OUT_CXXRT 4
extern uintptr_t ckt_out_lo[CKT_OUT_N], ckt_out_hi[CKT_OUT_N];
void ckt_callout_init(void *real_malloc);
/* Sets call-out k to the text of the object that holds address probe. */
void ckt_callout_set(int k, void *probe);

/* Whether return address ra is in the text of call-out k. */
static inline int ckt_from_out(int k, const void *ra)
{
	return (uintptr_t)ra - ckt_out_lo[k] < ckt_out_hi[k] - ckt_out_lo[k];
}

/* The dynamic linker's text (stacks.c), and whether a call with return address ra is one of
 * glibc's TLS update while a capture brings the table up to date: traced then (stacks.c). */
extern uintptr_t ckt_rtld_lo, ckt_rtld_hi;
/* Raises CKT_GUARD_TLS for a call that may allocate through glibc: kind 1 brings the TLS table
 * up to date (stacks.c), 2 is the tracer's pthread_setspecific (thread.c). Returns the guard
 * to give back to ckt_tls_update_close. */
static inline int ckt_tls_update_open(struct ckt_tls *t, int kind)
{
	int g = t->guard;
	t->in_tls_touch = kind;
	t->guard = CKT_GUARD_TLS;
	return g;
}

static inline void ckt_tls_update_close(struct ckt_tls *t, int guard)
{
	t->guard = guard;
	t->in_tls_touch = 0;
}

static inline int ckt_tls_update_call(const struct ckt_tls *t, const void *ra)
{
	return t->guard == CKT_GUARD_TLS &&
	       (t->in_tls_touch == 2 ? ckt_from_out(CKT_OUT_LIBC, ra)
				     : (uintptr_t)ra - ckt_rtld_lo < ckt_rtld_hi - ckt_rtld_lo);
}

/* A call the malloc hooks trace though a guard is up (the guard given back after): glibc's TLS
 * update during a capture (above), or the C++ runtime's malloc or free of an exception object
 * while an allocator's own new runs (CKT_GUARD_CXX, hooks_cxx.c): a std::bad_alloc it throws is
 * the program's, freed by its catch, traced (since 0.2.56; its malloc passed untraced, and each
 * catch left a free of a block never allocated: 20,000 caught read the default mode's heap as
 * 2.7 MiB below zero). */
static inline int ckt_inner_traced(const struct ckt_tls *t, const void *ra)
{
	return ckt_tls_update_call(t, ra) || (t->guard == CKT_GUARD_CXX && ckt_from_out(CKT_OUT_CXXRT, ra));
}


/* hooks_exec.c: a forked process that has not exec'd is not traced; once its heap blocks and
 * anonymous mappings add up to CKT_CHILD_NOTE_BYTES it says so on stderr, once for all such
 * processes of a traced program (ckt_child_untraced_count). On the paths that pass a call
 * through untraced (traced calls do not come here): a load of a flag, and in such a process an
 * atomic add. Not counted, as a count by size cannot tell new memory from old: what mremap
 * grows (a file's mapping grown is no allocation) and what mprotect opens (a JIT's switches
 * between read-write and read-execute open nothing new). */
#define CKT_CHILD_NOTE_BYTES ((uint64_t)16 << 20)
extern atomic_int ckt_child_untraced;
void ckt_child_untraced_count(size_t n);
void ckt_child_untraced_exit(void); /* such a child ends (hooks_exec.c) */
/* log.c: lines a child of the traced process (forked or vforked, before its exec) has nowhere
 * to write wait in a shared page for the traced process's writer (see there) */
void ckt_child_relay_init(void);
int ckt_child_relay(const char *text, size_t len); /* 1: taken (or counted lost) */
void ckt_child_relay_drain(void);
static inline void ckt_child_note(size_t n)
{
	if (CKT_UNLIKELY(atomic_load_explicit(&ckt_child_untraced, memory_order_relaxed)))
		ckt_child_untraced_count(n);
}

/* A hook passes a call through untraced; ra is the caller's return address. Counted when a
 * signal handler interrupted a hook of this thread (CKT_GUARD_HOOK). Not on the traced path:
 * the test runs only when the guard is up. */
static inline void ckt_passed(const struct ckt_tls *t, const void *ra)
{
	if (CKT_LIKELY(t->guard != CKT_GUARD_HOOK && t->guard != CKT_GUARD_MAP && t->guard != CKT_GUARD_TLS &&
		       t->guard != CKT_GUARD_CXX))
		return;
	for (int k = 0; k < CKT_OUT_N; k++)
		if (ckt_from_out(k, ra))
			return;
	atomic_fetch_add_explicit(t->guard == CKT_GUARD_CXX ? &ckt_lost_cxx : &ckt_lost_nested, 1,
				  memory_order_relaxed);
}

/* calloc's pass-through: as ckt_passed, but for the dynamic linker's calloc inside a malloc
 * hook, the TLS vector of a thread that the allocator behind the tracer starts inside its
 * malloc (jemalloc's background_thread:true: each run said a signal handler had called the
 * allocator, and lost an event, before 0.2.59); that block stays untraced. Only calloc: a
 * signal handler's dlopen interrupting a hook also mallocs, and is still said. */
static inline void ckt_passed_calloc(const struct ckt_tls *t, const void *ra)
{
	if (t->guard == CKT_GUARD_HOOK && (uintptr_t)ra - ckt_rtld_lo < ckt_rtld_hi - ckt_rtld_lo)
		return;
	ckt_passed(t, ra);
}

/* The TLS-table update a capture may run (traced allocations of glibc's, each stamped and
 * emitted): done first by a caller that stamps its event before capturing its stack, so that
 * nothing is stamped or emitted between its stamp and its event. */
void ckt_stacks_tls_touch(struct ckt_tls *t);
/* The calling thread's stack id (0 if none can be had). Caller holds the guard. */
uint32_t ckt_stacks_capture(struct ckt_tls *t);
void ckt_stacks_thread_exit(struct ckt_tls *t); /* its unwinder cache goes with it */
void ckt_stacks_unw_mapped(struct ckt_tls *t, void *p, size_t len, int flags); /* see stacks.c */
/* Writer: the stack with id `from` if published (returns from), else 0. */
uint32_t ckt_stacks_next(uint32_t from, const uint64_t **frames, uint32_t *n, uint32_t *map);
/* the ids handed out so far are below this (a last flush writes those published past one that
 * is still being published) */
uint32_t ckt_stacks_ids(void);
#define CKT_MAP_PENDING UINT32_MAX /* a stack's module map not known yet */

/* ---- aux records: pre-encoded records that are not one thread's events (module maps, phase
 * names, matched log lines, thread names), handed to the writer on a lock-free list. The writer
 * writes them, oldest first, before the events of the flush. ---- */
struct ckt_aux {
	struct ckt_aux *next;
	/* a module map: its number (1, 2, ... in the order taken); 0 for other records. A stack
	 * is written after the map that was current when it was captured and before the next one,
	 * so a reader symbolizes it with the libraries loaded then (dlclose, then another library
	 * at the same addresses) */
	uint32_t map;
	size_t len;
	uint8_t bytes[];
};
extern struct ckt_aux *_Atomic ckt_auxs;
/* A block with room for cap bytes (ckt_big_alloc; caller holds the guard), or NULL; freed
 * with ckt_big_free. */
struct ckt_aux *ckt_aux_new(size_t cap);
struct ckt_aux *ckt_aux_of(const uint8_t *bytes, size_t len); /* a copy of len bytes */
void ckt_aux_push(struct ckt_aux *a);

/* ---- modules.c ---- */
uint32_t ckt_modules_check(void); /* the new map's number, 0: none taken */
/* A stack capture's look at the loader's list (dl_iterate_phdr, its lock): 1 when it may take
 * it (then ckt_phdr_capture_leave), 0 when a call of the program's is inside dl_iterate_phdr
 * (whose callback may wait for a lock this thread holds): then it must not (modules.c). */
int ckt_phdr_capture_enter(struct ckt_tls *t);
void ckt_phdr_capture_leave(struct ckt_tls *t);
void ckt_modules_after_fork_child(void);
/* The number of the module map taken last (0 before the first). */
uint32_t ckt_modules_current(void);

/* ---- sample.c: the default mode, CUZKTRACE_SAMPLE=R > 0 (R = 0: exact mode) ----
 * Blocks whose malloc_usable_size is >= R are recorded individually, as in exact mode. Smaller
 * ones are counted in per-thread totals of usable bytes, sent as an AGG record whenever the
 * total moves by CKT_AGG_STEP: so the heap timeline is exact to within CKT_AGG_STEP per thread.
 * A Poisson process over the requested bytes (mean gap R, per thread) picks small blocks to
 * record individually with stack and phase (flagged CKT_FN_SAMPLED), for site and phase
 * estimates; a lock-free set of live sampled pointers recognises their frees.
 * Fast-path cost for a small block: one malloc_usable_size (a load of the chunk header the
 * allocator just touched), two TLS adds, two compares, and a load of the coarse clock below
 * stored in the thread's agg_at (one load of a line written 100 times a second, one TLS
 * store); a free adds one probe of the set (usually an empty slot). No clock read, no ring
 * write. */
extern uint64_t ckt_sample_r;
/* The coarse clock: ckt_now() as of the RSS sampler's or the writer's last wake-up (0 before
 * the writer starts), so a sampling period (CUZKTRACE_RSS_MS) or a flush interval behind the
 * true time at most while those threads get a core (more when they are kept from one: the
 * reader bounds it by the thread's previous AGG too), never ahead.
 * The hooks note it with each change of a thread's running totals (agg_at), and a total sent
 * later than its last change (the thread idled: a pool thread whose last 50 KB went out at its
 * exit, seconds after the peak) says how long before its stamp that change was at the
 * earliest: the AGG record's `since`, by which the reader keeps the peak at its moment instead
 * of moving it to the send. On a line of its own: written by those two threads only. */
extern struct ckt_coarse {
	_Alignas(128) _Atomic uint64_t now;
	char pad[120];
} ckt_coarse;
static inline void ckt_coarse_tick(void)
{
	atomic_store_explicit(&ckt_coarse.now, ckt_now(), memory_order_relaxed);
}
void ckt_sample_init(void);
void ckt_sample_init_bound(void *real_malloc, void *usable);
/* Sends the thread's running totals, if any, as one AGG record (the change: 1 when sent as
 * they change, so no `since`). */
void ckt_sample_send(struct ckt_tls *t, int at_change);
uint32_t ckt_sample_since(uint64_t ts, uint64_t at);
static inline void ckt_sample_flush(struct ckt_tls *t)
{
	ckt_sample_send(t, 0);
}
void ckt_sample_take(struct ckt_tls *t, void *p, size_t n, uint8_t fn);
int ckt_sample_forget(void *p);
void ckt_sample_remember(void *p);

/* A filter in front of the sampled-pointer set: a free whose bit is clear (nearly all of
 * them) cannot be a sample and costs one load from a bitmap, which is written only when a
 * sample is taken or freed (the rare path, without locks: sample.c). Each bit counts the live
 * samples that map to it. With n live samples a small free takes the slow path (a lookup in
 * the set, a dozen probes) with probability about 1 - exp(-n / bits), so the bitmap is 2^18
 * bits (32 KiB) until more than CKT_FILTER_GROW samples are live (6% of small frees there; at
 * the default rate that is 8 GiB of small blocks); then the writer thread builds one of 2^22
 * bits (512 KiB; with its counts, 8.6 MiB mapped, resident as used) and switches the fast path
 * to it, once: 2.4% at 100,000 live samples, 9.1% at 400,000 (200 GiB, where the small one
 * sent 79% of small frees to the slow path). The fast path reads ckt_filter_state, the address
 * of the bitmap in use with the shift of its slot function in the top byte, then the bitmap's
 * word.
 * The slot function keeps neighbours together: the 512 granules of 16 bytes of an aligned
 * 8 KiB of addresses are the 512 bits of one 64-byte line of the bitmap, the line chosen by a
 * multiplicative hash of the 8 KiB's number, and the granules rotated within it by 9 bits of
 * a second mix of that hash (its own next bits follow the line's too closely: blocks of 256 B
 * to 1 KiB then met set bits twice as often as with a hash per block). A thread frees mostly
 * blocks near those it just allocated, so its frees read a few lines, which stay in the L1
 * cache; a hash of each block (before 0.2.34) sent each free to a line of its own, a miss to
 * the L2 cache behind the program's own data: a third of the default mode's cost of a free
 * (perf, make bench). The rotation matters: blocks of 4 KiB (or any power-of-two stride) sit
 * at the same granules of every 8 KiB, and without it they all met the few bits their
 * samples set (98% of the frees of a heap of 4,088-byte blocks took the slow path, against
 * 1.6% with a hash per block; test_sample.c). */
#define CKT_FILTER_BITS0 18
#define CKT_FILTER_BITS1 22
#define CKT_FILTER_GROW 16384
extern _Atomic uint64_t ckt_filter_state;
/* p's bit in a bitmap of 2^(64 - shift) bits */
static inline uint64_t ckt_filter_bit(const void *p, unsigned shift)
{
	uint64_t a = (uint64_t)(uintptr_t)p, h = (a >> 13) * 0x9e3779b97f4a7c15ull;
	uint64_t rot = ((h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull) >> 55;
	return (h >> (shift + 9)) << 9 | (((a >> 4) + rot) & 511);
}
static inline int ckt_sample_maybe(const void *p)
{
	uint64_t s = atomic_load_explicit(&ckt_filter_state, memory_order_acquire);
	const _Atomic uint64_t *w = (const _Atomic uint64_t *)(uintptr_t)(s & ((1ull << 56) - 1));
	uint64_t b = ckt_filter_bit(p, (unsigned)(s >> 56));
	return (atomic_load_explicit(&w[b / 64], memory_order_relaxed) >> (b % 64)) & 1;
}
/* the writer thread, after each flush: switches the filter to its big bitmap when it is due */
void ckt_sample_maintain(void);
/* malloc_usable_size of the real allocator, resolved once (no PLT hop on the fast path) */
extern size_t (*ckt_usable)(void *);
/* 1 when the real allocator is glibc's: then the usable size is read from the chunk header
 * just before the block (glibc's malloc_usable_size also reads the next chunk's header to
 * check the block is in use, a second cache miss we do not need: the block is ours). */
extern int ckt_glibc_heap;
/* 1 when glibc's thread arenas keep their usual 64 MiB heaps (sample.c) */
extern int ckt_glibc_arenas;
/* glibc trims a heap's top when it reaches the trim threshold: 128 KiB, then twice the
 * largest chunk under 32 MiB that glibc mapped on its own and the program freed, until the
 * program or its environment sets a threshold (mallopt, MALLOC_*_, GLIBC_TUNABLES), which
 * turns those moves off. ckt_glibc_trim follows it from below: it sees the frees of such
 * chunks of 128 KiB or more (all that glibc maps on its own), stops at the settings
 * (ckt_glibc_trim_fixed: sample.c reads the environment, hooks_malloc.c's mallopt the calls)
 * and takes a trim threshold set outright. */
#define CKT_GLIBC_TRIM0 ((size_t)128 << 10)
#define CKT_GLIBC_MMAP_MAX ((size_t)32 << 20) /* glibc moves its thresholds for chunks under it */
extern _Atomic size_t ckt_glibc_trim;
extern atomic_int ckt_glibc_trim_fixed;
/* 1 when the free of p (u usable bytes) gives its pages back during the call, as far as we can
 * tell (ckt_nosample_begin): glibc's chunk of its own mapping (IS_MMAPPED), or a chunk that
 * the free merges into the top of its heap (with the free chunk before it, if any) making the
 * top reach the trim threshold, so that glibc trims it: in the main arena with brk (3 ms for
 * 84 MiB), in a thread's arena (since 0.2.26) with a madvise or a PROT_NONE map of the top's
 * pages (a thread's 24 MiB free, 3 ms, gave 7 to 10 samples of 200 up to 24 MiB high); or a
 * free that leaves a thread arena's later heap empty, which glibc unmaps whatever the
 * threshold. A free into a top that stays under the threshold unmaps nothing (a thread
 * freeing 4 MiB blocks into its top in a loop, waited for: 82 samples in 2 s where 204 come);
 * nor does a block under the mmap threshold elsewhere in the heap (the threshold rises up to
 * 32 MiB after the first such free; counted as a release, a thread freeing 4 MiB blocks in a
 * loop held the RSS samples back). Not told for another allocator (tcmalloc, jemalloc,
 * mimalloc keep their big blocks: waited for, they held every sample back beside a loop
 * freeing them). */
#define CKT_GLIBC_HEAP_MAX ((uintptr_t)64 << 20) /* glibc's HEAP_MAX_SIZE on 64-bit hosts */
#define CKT_GLIBC_MMAP_MIN ((size_t)128 << 10) /* glibc maps no smaller block on its own */
static inline int ckt_block_unmaps(void *p, size_t u)
{
	if (CKT_LIKELY(u < CKT_GLIBC_MMAP_MIN))
		return 0;
	if (!ckt_glibc_heap)
		return 0; /* another allocator keeps its big blocks, or says nothing we can read */
	const char *c = p;
	size_t h, hn;
	__asm__("" : "+r"(c)); /* as ckt_usable_size */
	__builtin_memcpy(&h, c - sizeof(h), sizeof(h));
	size_t cs = h & ~(size_t)7;
	if (h & 2) { /* IS_MMAPPED: glibc moves its thresholds (racing raises: one may be lost) */
		if (cs < CKT_GLIBC_MMAP_MAX && !atomic_load_explicit(&ckt_glibc_trim_fixed, memory_order_relaxed) &&
		    2 * cs > atomic_load_explicit(&ckt_glibc_trim, memory_order_relaxed))
			atomic_store_explicit(&ckt_glibc_trim, 2 * cs, memory_order_relaxed);
		return u >= CKT_NOSAMPLE_MIN;
	}
	if (u < CKT_NOSAMPLE_MIN)
		return 0;
	/* the next chunk (after this one's 16-byte header and body) is the top when it ends
	 * where the heap does: at the program break for the main arena; for a thread's arena at
	 * the end of the heap that holds the chunk (glibc's heap_info, at the start of the heap's
	 * 64 MiB-aligned reservation, begins with the arena, the previous heap and the heap's
	 * size) */
	const char *chunk = c - 2 * sizeof(h), *next = chunk + cs;
	const char *end, *heap = NULL;
	if (h & 4) { /* NON_MAIN_ARENA */
		if (!ckt_glibc_arenas)
			return 0; /* heaps of another size: not found by this alignment */
		heap = (const char *)((uintptr_t)chunk & ~(uintptr_t)(CKT_GLIBC_HEAP_MAX - 1));
		size_t size;
		__builtin_memcpy(&size, heap + 2 * sizeof(void *), sizeof(size));
		end = heap + size;
	} else {
		end = (const char *)sbrk(0);
	}
	/* a header the program overwrote: glibc says so in its free (as untraced), the read of
	 * a next chunk past the heap's end would fault first */
	if (next < c || next + 2 * sizeof(h) > end)
		return 0;
	__builtin_memcpy(&hn, next + sizeof(h), sizeof(hn));
	hn &= ~(size_t)7;
	if (next + hn != end) {
		/* a fastbin's chunk (160 bytes at most) between the block and the top: glibc
		 * consolidates the fastbins before it trims, and merges it too (a tcache's or one
		 * in use looks the same from here: then waited for needlessly) */
		size_t h2;
		if (hn > 160 || hn < 2 * sizeof(h) || next + hn + 2 * sizeof(h) > end)
			return 0;
		__builtin_memcpy(&h2, next + hn + sizeof(h), sizeof(h2));
		if (next + hn + (h2 & ~(size_t)7) != end)
			return 0;
		hn += h2 & ~(size_t)7;
	}
	/* the top it makes: with the free chunk before it (PREV_INUSE clear: its size is in
	 * this chunk's first word) */
	size_t prev = 0;
	if (!(h & 1))
		__builtin_memcpy(&prev, chunk, sizeof(prev));
	if (prev > (heap ? (size_t)(chunk - heap) : (size_t)(uintptr_t)chunk))
		return 1; /* not a size: take it as a trim */
	/* a thread arena's heap left empty (the top from its start, after glibc's heap_info),
	 * other than the arena's first (its previous heap, the second word, not NULL) */
	if (heap && chunk - prev - heap <= 64) {
		const void *prev_heap;
		__builtin_memcpy(&prev_heap, heap + sizeof(void *), sizeof(prev_heap));
		if (prev_heap)
			return 1;
	}
	return cs + hn + prev >= atomic_load_explicit(&ckt_glibc_trim, memory_order_relaxed);
}

static inline size_t ckt_usable_size(void *p)
{
	if (CKT_LIKELY(ckt_glibc_heap)) {
		const char *c = p;
		size_t h;
		__asm__("" : "+r"(c)); /* the header lies before the block: hide that from -Warray-bounds */
		__builtin_memcpy(&h, c - sizeof(h), sizeof(h));
		return (h & ~(size_t)7) - (h & 2 ? 16 : 8); /* 2 = IS_MMAPPED */
	}
	/* another allocator's may allocate on its first call (tcmalloc's makes its extension
	 * object with new, which a program's own operator new serves through malloc): its own
	 * call, passed through uncounted, not a signal handler's (a false warning and a lost
	 * event under gcc's cc1, whose operator new calls malloc) */
	ckt_tls.guard++;
	size_t u = ckt_usable(p);
	ckt_tls.guard--;
	return u;
}

/* A heap slot's b: the requested size n in the low 48 bits, and how
 * far the usable size u lies above it in the high 16 (CKT_SLACK_UNKNOWN when 65535 or more, a
 * large alignment). The encoder writes n; the exit line's total adds u, which a FREE slot
 * carries whole, so the writer needs no table of live blocks (summary.c). */
#define CKT_SLOT_SIZE_MASK ((1ull << 48) - 1)
#define CKT_SLACK_UNKNOWN 0xffffu
/* A slot-only fn flag (never written to the trace): a request of 2^48 bytes or more (possible
 * with 57-bit addresses and overcommit) is in b whole, with no excess. */
#define CKT_SLOT_WIDE 0x40u
static inline uint64_t ckt_slot_size(size_t n, size_t u, uint8_t *fn)
{
	if (CKT_UNLIKELY((uint64_t)n > CKT_SLOT_SIZE_MASK)) {
		*fn |= CKT_SLOT_WIDE;
		return n;
	}
	uint64_t slack = u >= n && u - n < CKT_SLACK_UNKNOWN ? u - n : CKT_SLACK_UNKNOWN;
	return (uint64_t)n | slack << 48;
}
/* The requested size of an ALLOC or REALLOC slot. */
static inline uint64_t ckt_slot_request(const struct ckt_slot *s)
{
	return s->fn & CKT_SLOT_WIDE ? s->b : s->b & CKT_SLOT_SIZE_MASK;
}

static inline void ckt_sample_count(struct ckt_tls *t, int64_t usable, int64_t blocks)
{
	uint64_t now = atomic_load_explicit(&ckt_coarse.now, memory_order_relaxed);
	/* the coarse clock moved since the last change: what is pending goes out first, with how
	 * long ago it last changed (a pool thread back from a pause sent its last job's bytes with
	 * its next job's, as made then; at most one record per thread and tick, 10 ms) */
	if (CKT_UNLIKELY(now != t->agg_at) && (t->agg_bytes || t->agg_blocks))
		ckt_sample_send(t, 0);
	t->agg_at = now;
	t->agg_bytes += usable;
	t->agg_blocks += blocks;
	if (CKT_UNLIKELY((uint64_t)(t->agg_bytes + t->agg_step) > 2 * (uint64_t)t->agg_step))
		ckt_sample_send(t, 1);
}

/* ---- record.c: slots -> trace records ---- */
/* Encoder state of one data frame (format version 2, include/ckt_format.h). The ROW stream is
 * the `p` the functions below advance; the columns are col[1..], written from col0[1..], each
 * with room for a whole frame (the caller keeps ROW + all columns under its frame cap, with
 * CKT_MAX_RECORD to spare before each record). */
struct ckt_enc {
	uint64_t prev_ts;
	uint64_t prev_addr;
	uint64_t base_ts;
	uint8_t *col[CKT_NSTREAMS], *col0[CKT_NSTREAMS];
	struct ckt_amodel am;
};
/* Bytes in the columns so far. */
size_t ckt_record_cols_len(const struct ckt_enc *e);
/* Starts a frame: columns emptied, FRAME written to the ROW stream at *p. */
void ckt_record_frame(struct ckt_enc *e, uint8_t **p, uint64_t seq, uint64_t base_ts);
/* The frame's stream directory for a ROW stream of row_len bytes, written at dir (room for
 * (CKT_NSTREAMS + 1) * CKT_MAX_VARINT bytes); returns its length. The frame is then: the
 * directory, the ROW stream, then col0[k]..col[k] for k = 1..CKT_NSTREAMS-1. */
size_t ckt_record_directory(const struct ckt_enc *e, size_t row_len, uint8_t *dir);
void ckt_record_thread(struct ckt_enc *e, uint8_t **p, uint64_t tid);
/* Encodes one event (s, plus its EXT slot s2 for two-slot events). Returns 0, or -1 for a slot
 * type it does not know (the writer counts it lost). Needs CKT_MAX_RECORD bytes at *p. */
int ckt_record_event(struct ckt_enc *e, uint8_t **p, const struct ckt_slot *s,
		     const struct ckt_slot *s2);
void ckt_record_sync(uint8_t **p, uint64_t horizon);
/* Strings are cut to CKT_MAX_STR bytes (ckt_format.h); these need CKT_MAX_STR + 40 bytes at p. */
uint8_t *ckt_record_phase_def(uint8_t *p, uint32_t id, const char *name);
uint8_t *ckt_record_note(uint8_t *p, uint64_t ts, uint32_t phase, const char *text, size_t n);
uint8_t *ckt_record_thread_name(uint8_t *p, uint64_t ts, uint64_t tid, const char *name);
/* STACK needs 21 + 10 * n bytes. */
void ckt_record_stack(uint8_t **p, uint32_t id, const uint64_t *frames, uint32_t n);
/* One MODULE record; NULL if it does not fit before end. */
uint8_t *ckt_record_module(uint8_t *p, const uint8_t *end, uint64_t base, uint64_t lo, uint64_t hi,
			   const char *path, const char *build_id);
void ckt_record_lost(uint8_t **p, uint64_t count);
void ckt_record_waited(uint8_t **p, uint64_t ns, uint64_t waits);
void ckt_record_limit(uint8_t **p, uint64_t ts, unsigned kind);
void ckt_record_thread_exit(uint8_t **p, uint64_t ts, uint64_t tid);
void ckt_record_end(uint8_t **p, uint64_t ts, uint64_t reason, uint64_t events, uint64_t lost);
/* Header: magic, version, then key/value pairs; ckt_record_header_end closes the list. */
uint8_t *ckt_record_header_begin(uint8_t *p);
uint8_t *ckt_record_kv(uint8_t *p, const uint8_t *end, const char *k, const char *v);
/* The same with a value of vl bytes, which may hold NUL bytes. */
uint8_t *ckt_record_kvn(uint8_t *p, const uint8_t *end, const char *k, const char *v, size_t vl);
uint8_t *ckt_record_header_end(uint8_t *p);
static inline unsigned ckt_slot_count(uint8_t type)
{
	return type == CKT_EV_REALLOC || type == CKT_EV_MREMAP || type == CKT_EV_RSS_DETAIL ||
	       type == CKT_EV_CUDA_ALLOC || type == CKT_EV_CUDA_DEVICE || type == CKT_EV_CUDA_MAP ? 2 : 1;
}

/* ---- thread.c: a child process of the traced one (getpid() differs from the writer's pid) ----
 * kcmp (KCMP_VM) says whether it shares the traced memory (a vfork child, a clone with
 * CLONE_VM), has its own (fork, _Fork, clone), or cannot tell (kcmp refused by seccomp, the
 * traced process gone or out of sight). */
enum { CKT_CHILD_SHARED, CKT_CHILD_OWN, CKT_CHILD_UNKNOWN };
int ckt_thread_child_memory(void);

/* ---- writer.c ---- */
int ckt_writer_start(void);  /* opens + verifies the trace, starts the thread; 0 or -errno */
void ckt_writer_finish(int reason);
/* The same without joining a thread (pthread_join takes glibc's thread-stack lock, which a
 * signal handler calling _exit may have interrupted the holder of): it waits for the writer's
 * final flush instead, under the same progress rule. */
void ckt_writer_finish_fast(int reason);
int ckt_writer_finishing(void); /* set up here, and finishing or finished (writer.c) */
/* Another thread finishes the trace: waits for it while that progresses. 1 finished (or not
 * this process's trace), 0 when after 10 s no thread has begun to finish it (the caller may),
 * -1 when the final flush made no progress for 10 s (said on stderr). */
int ckt_writer_await_finish(void);
void ckt_writer_wake(void);
/* One of the tracer's tables filled (kind: CKT_LIMIT_*): the first time per kind, its time is
 * kept for the writer, which puts a LIMIT record in its next flush, so that the trace says what
 * it lacks from then on, not only the stderr line said once. Any thread, any time: one CAS. */
void ckt_writer_limit_reached(unsigned kind);
extern atomic_int ckt_writer_running;
/* writer cycles completed; and 1 + the count at which a thread last gave up waiting for room
 * (0: none): while they match, the writer is stuck and full rings drop at once */
extern _Atomic uint64_t ckt_writer_cycles, ckt_writer_stalled;
void ckt_writer_after_fork_child(void);
pid_t ckt_writer_pid(void);          /* the traced process's pid (set at init) */
void ckt_writer_note_helpers(void); /* before an exec finishes the trace: the helpers' ids */
void ckt_writer_await_helpers_gone(void); /* after a failed exec that finished the trace */
const char *ckt_writer_path(void);   /* the trace's absolute path */
const char *ckt_writer_requested_path(void); /* the path before any renaming */
void ckt_exec_pid_prefix(char *b, pid_t pid); /* "<pid>:", CUZKTRACE_EXEC_PID's prefix */
/* the same for a process that may share the traced one's memory (a vfork child): nothing of
 * the tracer's written; 0 when /proc/self/stat gives no start time */
int ckt_exec_child_prefix(char *b, pid_t pid);
const char *ckt_writer_process_key(void); /* the header's "process" ("" before it is built) */
int ckt_writer_same_pid_ns(void);         /* the caller is in the traced process's pid namespace */
const char *ckt_writer_forked_by(void);   /* CUZKTRACE_FORKED_BY taken at start ("" none) */

/* ---- rss.c ---- */
int ckt_rss_start(void);
void ckt_rss_stop(void);
/* asks the sampler to stop; does not join it, but waits up to 200 ms for its last sample */
void ckt_rss_stop_nojoin(void);
/* Waits up to ns nanoseconds (by the clock, across signals) for *word to become nonzero. */
int ckt_wait_word(atomic_int *word, uint64_t ns);
/* Sets *word to 1 and wakes every ckt_wait_word on it. */
void ckt_word_set(atomic_int *word);
uint64_t ckt_rss_peak(void);

/* ---- small helpers ---- */
/* Starts a helper thread on the stack *stack (mapped on first use, CKT_HELPER_STACK bytes;
 * one per helper, used again by its restarts). 0 or a negative errno. */
#define CKT_HELPER_STACK ((size_t)2 << 20)
int ckt_spawn_helper(void *(*fn)(void *), unsigned long *thread_out, void **stack);

#endif
