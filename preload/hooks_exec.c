/* hooks_exec.c: execve and its non-variadic relatives. An exec replaces the image without
 * running exit handlers: before it, the trace is finished with an END record (reason exec) and
 * the exit line; the new image, traced by its own copy of the library, is told which file the
 * old image wrote (CUZKTRACE_EXEC_FROM), so that a CUZKTRACE_OUT naming the same file for both
 * (it has %p but not %e) does not truncate it. glibc's execl* call its internal execve and are
 * not seen: after those, the old trace ends at its last flush and reads as truncated. */
#include "ckt.h"

#include <string.h>
#include <unistd.h>

static int finished_here; /* an exec finished the trace; it may have failed and be retried */

/* 1 if this is the traced process itself: a vfork child shares our memory, and finishing the
 * trace there would end the parent's. */
static int is_tracer_process(void)
{
	return (atomic_load(&ckt_writer_running) || finished_here) && getpid() == ckt_writer_pid();
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
	/* the name CUZKTRACE_OUT gives, not the one we may have fallen back to: the new image
	 * compares it with its own expansion (a chain of execs keeps every trace) */
	setenv("CUZKTRACE_EXEC_FROM", ckt_writer_requested_path(), 1);
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
			free(e[n - 1]);
		free(e);
	}
	if (!said++)
		ckt_log("warning: exec failed after the trace was finished; the rest of this process "
			"is not traced", NULL, NULL, NULL);
}

/* envp plus CUZKTRACE_EXEC_FROM=<path>, replacing an inherited one; NULL if out of memory. */
static char **with_exec_from(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **e = malloc((n + 2) * sizeof(*e));
	const char *path = ckt_writer_requested_path();
	char *var = malloc(strlen(path) + 32);
	if (!e || !var) {
		free(e);
		free(var);
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

CKT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	if (!ckt_real.execve || !is_tracer_process())
		return ckt_real.execve ? ckt_real.execve(path, argv, envp) : -1;
	before_exec();
	char **e = with_exec_from(envp);
	int rc = ckt_real.execve(path, argv, e ? e : envp);
	after_failed_exec(e);
	return rc;
}

CKT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!ckt_real.execvpe || !is_tracer_process())
		return ckt_real.execvpe ? ckt_real.execvpe(file, argv, envp) : -1;
	before_exec();
	char **e = with_exec_from(envp);
	int rc = ckt_real.execvpe(file, argv, e ? e : envp);
	after_failed_exec(e);
	return rc;
}

CKT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!ckt_real.fexecve || !is_tracer_process())
		return ckt_real.fexecve ? ckt_real.fexecve(fd, argv, envp) : -1;
	before_exec();
	char **e = with_exec_from(envp);
	int rc = ckt_real.fexecve(fd, argv, e ? e : envp);
	after_failed_exec(e);
	return rc;
}

/* execv and execvp use environ, which before_exec has updated */
CKT_EXPORT int execv(const char *path, char *const argv[])
{
	if (!ckt_real.execv || !is_tracer_process())
		return ckt_real.execv ? ckt_real.execv(path, argv) : -1;
	before_exec();
	int rc = ckt_real.execv(path, argv);
	after_failed_exec(NULL);
	return rc;
}

CKT_EXPORT int execvp(const char *file, char *const argv[])
{
	if (!ckt_real.execvp || !is_tracer_process())
		return ckt_real.execvp ? ckt_real.execvp(file, argv) : -1;
	before_exec();
	int rc = ckt_real.execvp(file, argv);
	after_failed_exec(NULL);
	return rc;
}
