/* ctorlib.c: a library whose constructor makes and frees 5,000 blocks of 100 bytes, then
 * allocates 777,777 bytes, before main, and before (or right after) the tracer's own
 * constructor: every event must be in the trace. With
 * CKT_CTORLIB_EXEC=PROG in the environment, the constructor first replaces the process with
 * PROG (before anything has called into the tracer): the exec must happen. With
 * CKT_CTORLIB_EXIT=N, it registers an exit handler (which writes "ctorlib: exit handler ran in
 * pid N" on stdout) and calls exit(N), also before anything has called into the tracer: the handler
 * must run and the status must be N. With CKT_CTORLIB_ABORT=1, it installs a SIGABRT handler
 * that writes "ctorlib: abort handler" on stdout and ends with _exit(3), then calls abort(),
 * also before anything has called into the tracer: the handler must run and the status must
 * be 3. With CKT_CTORLIB_THREAD=1 it first starts a thread that
 * lives 300 ms: the process has two threads as the tracer's constructor runs. With
 * CKT_CTORLIB_CHDIR=DIR it first changes directory to DIR (exit status 9 when it cannot). With
 * CKT_CTORLIB_MMAP=1 its first call into the tracer is an mmap of 8 MiB, kept to the end. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

void *volatile ctorlib_block;
static void *volatile churn[5000];

static void ctorlib_atexit(void)
{
	char m[64] = "ctorlib: exit handler ran in pid ", d[16];
	size_t n = strlen(m), k = 0;
	for (unsigned long p = (unsigned long)getpid(); p || !k; p /= 10)
		d[k++] = (char)('0' + p % 10);
	while (k)
		m[n++] = d[--k];
	m[n++] = '\n';
	(void)!write(1, m, n);
}

static void ctorlib_on_abort(int sig)
{
	static const char m[] = "ctorlib: abort handler\n";
	(void)sig;
	(void)!write(1, m, sizeof(m) - 1);
	_exit(3);
}

static void *ctorlib_sleeper(void *arg)
{
	usleep(300000);
	return arg;
}

__attribute__((constructor)) static void ctorlib_init(void)
{
	const char *dir = getenv("CKT_CTORLIB_CHDIR");
	if (dir && chdir(dir) != 0)
		_exit(9);
	if (getenv("CKT_CTORLIB_THREAD")) {
		pthread_t t;
		if (pthread_create(&t, NULL, ctorlib_sleeper, NULL) == 0)
			pthread_detach(t);
	}
	if (getenv("CKT_CTORLIB_MMAP") && mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
						-1, 0) == MAP_FAILED)
		_exit(10);
	const char *prog = getenv("CKT_CTORLIB_EXEC"); /* getenv does not allocate */
	if (prog) {
		char *const av[] = {(char *)prog, NULL};
		execve(prog, av, environ);
		static const char m[] = "ctorlib: execve returned\n";
		(void)!write(2, m, sizeof(m) - 1);
		_exit(99);
	}
	if (getenv("CKT_CTORLIB_ABORT")) {
		signal(SIGABRT, ctorlib_on_abort);
		abort();
	}
	const char *code = getenv("CKT_CTORLIB_EXIT");
	if (code) {
		atexit(ctorlib_atexit); /* glibc's first 32 handlers need no allocation */
		exit(atoi(code));
	}
	/* 5,000 blocks of 100 bytes, all held, then freed: 10,000 events before the tracer's
	 * constructor has started its writer, more than a thread's first ring window holds */
	for (int i = 0; i < 5000; i++)
		churn[i] = malloc(100);
	for (int i = 0; i < 5000; i++)
		free(churn[i]);
	ctorlib_block = malloc(777777);
	memset(ctorlib_block, 1, 64);
}
