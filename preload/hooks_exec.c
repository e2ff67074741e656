/* hooks_exec.c: execve and its non-variadic relatives, and the namespace calls that need a
 * single-threaded process (unshare, setns; see the end). An exec replaces the image without
 * running exit handlers: before it, the trace is finished with an END record (reason exec) and
 * the exit line; the new image, traced by its own copy of the library, is told which file the
 * old image wrote (CUZKTRACE_EXEC_FROM), so that a CUZKTRACE_OUT naming the same file for both
 * (it has %p but not %e) does not truncate it. glibc's execl* call its internal execve and are
 * not seen: after those, the old trace ends at its last flush and reads as truncated. */
#include "ckt.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static int finished_here; /* an exec finished the trace; it may have failed and be retried */

/* 1 if this is the traced process itself: a vfork child shares our memory, and finishing the
 * trace there would end the parent's. */
static int is_tracer_process(void)
{
	/* not ckt_writer_running: the writer is down during a pause (an exec from a signal
	 * handler then) or after a write error, and the trace is still this process's */
	return (ckt_writer_tracing() || finished_here || ckt_writer_finishing()) &&
	       getpid() == ckt_writer_pid();
}

static void before_exec(void)
{
	struct ckt_tls *t = &ckt_tls;
	t->guard++;
	if (!finished_here) {
		if (ckt_sample_r)
			ckt_sample_flush(t);
		ckt_writer_finish(CKT_END_EXEC);
		finished_here = 1;
	}
	t->guard--;
}

/* The exec failed (the program may try another path: execvp-like loops do). Frees the
 * environment copy from with_exec_from (its last entry is ours). */
static void after_failed_exec(char **e)
{
	static int said;
	if (e) {
		size_t n = 0;
		while (e[n])
			n++;
		if (n)
			ckt_free(e[n - 1]);
		ckt_free(e);
	}
	if (!said++)
		ckt_log("warning: exec failed after the trace was finished; the rest of this process "
			"is not traced", NULL, NULL, NULL);
}

/* envp plus CUZKTRACE_EXEC_FROM=<path>, replacing an inherited one; NULL if out of memory.
 * The path is the name CUZKTRACE_OUT gives, not the one we may have fallen back to: the new
 * image compares it with its own expansion (a chain of execs keeps every trace). A copy, made
 * before anything else: the process's environment is never changed (a setenv here would free
 * the array the caller passed when it is environ itself, grown by the program's setenv). */
static char **with_exec_from_guarded(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **e = ckt_malloc((n + 2) * sizeof(*e));
	const char *path = ckt_writer_requested_path();
	char *var = ckt_malloc(strlen(path) + 32);
	if (!e || !var) {
		ckt_free(e);
		ckt_free(var);
		return NULL;
	}
	strcpy(var, "CUZKTRACE_EXEC_FROM=");
	strcat(var, path);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "CUZKTRACE_EXEC_FROM=", 20))
			e[k++] = envp[i];
	e[k++] = var;
	e[k] = NULL;
	return e;
}

static char **with_exec_from(char *const envp[])
{
	struct ckt_tls *t = &ckt_tls;
	t->guard++; /* the tracer's copy: not the program's memory */
	char **e = with_exec_from_guarded(envp);
	t->guard--;
	return e;
}

/* The real function may not be resolved yet: a library constructor can exec before anything
 * else called into us. Resolve them then; if one is still missing, fail as the call would. */
#define CKT_EXEC_REAL(name)                                                                        \
	do {                                                                                      \
		if (!ckt_real.name && atomic_load(&ckt_boot_state) == 0)                          \
			ckt_bootstrap();                                                          \
		if (!ckt_real.name) {                                                             \
			errno = ENOSYS;                                                           \
			return -1;                                                                \
		}                                                                                 \
	} while (0)

CKT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	CKT_EXEC_REAL(execve);
	if (!is_tracer_process())
		return ckt_real.execve(path, argv, envp);
	char **e = with_exec_from(envp);
	before_exec();
	int rc = ckt_real.execve(path, argv, e ? e : envp);
	after_failed_exec(e);
	return rc;
}

CKT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	CKT_EXEC_REAL(execvpe);
	if (!is_tracer_process())
		return ckt_real.execvpe(file, argv, envp);
	char **e = with_exec_from(envp);
	before_exec();
	int rc = ckt_real.execvpe(file, argv, e ? e : envp);
	after_failed_exec(e);
	return rc;
}

CKT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	CKT_EXEC_REAL(fexecve);
	if (!is_tracer_process())
		return ckt_real.fexecve(fd, argv, envp);
	char **e = with_exec_from(envp);
	before_exec();
	int rc = ckt_real.fexecve(fd, argv, e ? e : envp);
	after_failed_exec(e);
	return rc;
}

/* execv and execvp: environ, with our variable, through execve and execvpe */
CKT_EXPORT int execv(const char *path, char *const argv[])
{
	CKT_EXEC_REAL(execv);
	if (!is_tracer_process() || !ckt_real.execve)
		return ckt_real.execv(path, argv);
	char **e = with_exec_from(environ);
	before_exec();
	int rc = ckt_real.execve(path, argv, e ? e : environ);
	after_failed_exec(e);
	return rc;
}

CKT_EXPORT int execvp(const char *file, char *const argv[])
{
	CKT_EXEC_REAL(execvp);
	if (!is_tracer_process() || !ckt_real.execvpe)
		return ckt_real.execvp(file, argv);
	char **e = with_exec_from(environ);
	before_exec();
	int rc = ckt_real.execvpe(file, argv, e ? e : environ);
	after_failed_exec(e);
	return rc;
}

/* unshare of a user namespace (and of what only one thread may unshare) and setns into a user
 * or mount namespace, or of a type the kernel finds out from the descriptor, fail with EINVAL
 * in a process with several threads, and the tracer's threads make every process one: when
 * the program has no thread of its own besides the caller, they stop for the call (after
 * writing what was recorded) and start again (ckt_helpers_pause). */
static int single_threaded_call(void)
{
	/* no guard raised meanwhile: a signal handler that allocates is traced (or counted lost
	 * while the writer is down); ckt_helpers_resume raises it where threads are created */
	return ckt_helpers_pause();
}

static void after_single_threaded_call(int paused)
{
	if (!paused)
		return;
	int e = errno;
	ckt_helpers_resume();
	errno = e;
}

CKT_EXPORT int unshare(int flags)
{
	CKT_EXEC_REAL(unshare);
	if (!(flags & (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)))
		return ckt_real.unshare(flags);
	int paused = single_threaded_call();
	int rc = ckt_real.unshare(flags);
	after_single_threaded_call(paused);
	return rc;
}

CKT_EXPORT int setns(int fd, int nstype)
{
	CKT_EXEC_REAL(setns);
	if (nstype && !(nstype & (CLONE_NEWUSER | CLONE_NEWNS)))
		return ckt_real.setns(fd, nstype);
	int paused = single_threaded_call();
	int rc = ckt_real.setns(fd, nstype);
	after_single_threaded_call(paused);
	return rc;
}

/* _exit and _Exit end the process without exit handlers, so without the tracer's destructor:
 * the usual end of a shell (dash, Debian's /bin/sh, ends so), of Python's os._exit and of
 * many forked workers. The trace was cut at its last flush, up to CUZKTRACE_FLUSH_MS of events
 * lost and no END record; it is finished here first, as exit does. Not from inside one of our
 * hooks (a signal handler that interrupted one: the tracer's state may be half-changed), and
 * not in a vfork child or a child that is not traced (ckt_finish_exit: the trace is the
 * parent's). _exit is async-signal-safe, so this path joins no thread (pthread_join takes
 * glibc's thread-stack lock, which the interrupted code may hold: that hung for good) and
 * waits for the writer's last flush instead; if the interrupted code held a lock the writer
 * needs, the writer's 10 s progress limit ends the wait. Signals are blocked meanwhile: the
 * process is ending, and a handler must not run inside the final flush. */
static CKT_NOINLINE void before_fast_exit(void)
{
	/* the traced process itself (not a vfork child), even when another thread has begun to
	 * finish the trace: ckt_finish_exit then waits for it, or this exit would cut it short */
	if (ckt_tls.guard || ckt_tls.dead == 1 || finished_here || getpid() != ckt_writer_pid())
		return;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	ckt_finish_exit();
}

static __attribute__((noreturn)) void fast_exit(void (*real)(int), int status)
{
	before_fast_exit();
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

/* exit from two threads at once: each runs exit handlers, only one of them the tracer's
 * destructor, and the other's exit ends with glibc's own _exit, out of the hooks' reach,
 * which cut the first one's final flush short. The second caller waits for the trace to be
 * finished (as long as that progresses; at most 10 s before its final flush begins, and then
 * it finishes the trace itself), as glibc 2.41 and later make a second exit wait. It cannot
 * finish the trace at once: glibc 2.36's second exit runs the handlers the first one has not
 * reached yet, whose frees would be lost. A return from main is glibc's own call to exit,
 * which this hook does not see: ckt_exit_main_watch covers it.
 * exit (not _exit) in a vfork child runs the parent's exit handlers in the parent's memory,
 * the tracer's destructor among them: the parent's own exit then finds them gone and its
 * trace ends cut short. Said once, from the child. */
static atomic_int exit_owner;

static void exit_claim(void)
{
	struct ckt_tls *t = &ckt_tls;
	pid_t tp = ckt_writer_pid();
	if (t->guard || t->dead == 1 || !tp)
		return;
	if (getpid() != tp) {
		static atomic_int said; /* in the parent's memory: once, whichever child */
		if (ckt_in_vfork_child() && !atomic_exchange(&said, 1))
			ckt_log("warning: exit() in a vfork child runs the parent's exit handlers, the "
				"tracer's among them: the parent's trace will end cut short (a vfork "
				"child should end with _exit)", NULL, NULL, NULL);
		return;
	}
	int me = (int)syscall(SYS_gettid), expect = 0;
	if (!atomic_compare_exchange_strong(&exit_owner, &expect, me) && expect != me) {
		t->guard++;
		int rc = ckt_writer_await_finish();
		t->guard--;
		if (rc == 0) {
			/* the first exit has not reached the tracer's destructor in 10 s (an exit
			 * handler that blocks): this one finishes the trace, or its exit could end
			 * the process before that destructor ever runs */
			ckt_log("warning: another thread's exit has not reached the tracer's "
				"destructor in 10 s (an exit handler or destructor that blocks?); "
				"this exit finishes the trace", NULL, NULL, NULL);
			ckt_finish_exit();
		}
	}
}

/* exit before the tracer's constructor: a library initialized before it (a dependency of the
 * program, or a preloaded one after it) whose constructor calls exit. The real exit may not be
 * resolved yet (nothing has called into the tracer): resolving it keeps the program's exit
 * handlers and stdio flush (the raw exit_group skipped them, without a word). Nothing was
 * traced, and the tracer's destructor will not run (it runs only after its constructor): one
 * line says so, instead of a missing trace with no explanation. */
static void early_exit(void)
{
	static atomic_int said;
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!atomic_load(&ckt_init_ran) && !atomic_exchange(&said, 1))
		ckt_log("warning: the program exits before the tracer has started (exit in a "
			"library's constructor?): nothing is traced", NULL, NULL, NULL);
}

CKT_EXPORT void exit(int status)
{
	exit_claim();
	if (!atomic_load(&ckt_init_ran) || !ckt_real.exit)
		early_exit();
	if (ckt_real.exit)
		ckt_real.exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
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
	exit_claim();
}

void ckt_exit_main_watch(void)
{
	if (syscall(SYS_gettid) != getpid())
		return;
	ckt_tls.guard++;
	ckt_tls.from_pool = 1;
	(void)__cxa_thread_atexit_impl(main_exit_dtor, NULL, &__dso_handle);
	ckt_tls.from_pool = 0;
	ckt_tls.guard--;
}
