/* sigflush.c: keeps 1,000 x 32 bytes, makes 300,000 malloc/free pairs, then ends (exit, or a
 * return from main: sigflush MODE ret); an atexit handler arms a timer that fires every
 * millisecond from then on, so it fires while the tracer's final flush runs (made slow, tens of
 * milliseconds, with CUZKTRACE_ZSTD_LEVEL=19 and a long flush interval), and its handler ends
 * the process: exit(6) (sigflush exit) or _exit(6) (sigflush fast). A tick before the
 * tracer's destructor changes nothing (exit goes on with the remaining handlers; _exit goes
 * through the tracer's hook, which finishes the trace first). The tracer blocks signals during
 * its final flush, so the handler runs after it: status 6 and a complete trace (before: cut
 * short, without a word). sigflush MODE exec arms the timer, then execs /bin/true: the exec
 * hook's final flush, the same way (the handler, or the new image, ends the process);
 * sigflush MODE exec N passes N more environment variables (V0=x ...) to execve, which makes
 * the exec hook's copy of the environment take a few milliseconds: the ticks come during it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void *volatile keep[1000];
static int fast;

static void on_alarm(int sig)
{
	(void)sig;
	if (fast)
		_exit(6);
	exit(6);
}

static void arm(void)
{
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	fast = argc > 1 && strcmp(argv[1], "fast") == 0;
	signal(SIGALRM, on_alarm);
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(32);
	for (int i = 0; i < 300000; i++) {
		void *volatile p = malloc(16 + (size_t)(i & 1023));
		free(p);
	}
	if (argc > 2 && strcmp(argv[2], "exec") == 0) {
		char *const av[] = {"true", NULL};
		if (argc > 3) {
			extern char **environ;
			size_t n = strtoul(argv[3], NULL, 10), k = 0, used = 0;
			while (environ[k])
				k++;
			char **env = malloc((k + n + 1) * sizeof(*env)), *buf = malloc(n * 16 + 1);
			if (!env || !buf)
				return 1;
			memcpy(env, environ, k * sizeof(*env));
			for (size_t i = 0; i < n; i++) {
				env[k + i] = buf + used;
				used += (size_t)sprintf(buf + used, "V%zu=x", i) + 1;
			}
			env[k + n] = NULL;
			arm();
			execve("/bin/true", av, env);
			return 1;
		}
		arm();
		execv("/bin/true", av);
		return 1;
	}
	atexit(arm);
	if (argc > 2 && strcmp(argv[2], "ret") == 0)
		return 0;
	exit(0);
}
