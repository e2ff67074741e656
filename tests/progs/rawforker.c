/* rawforker.c: children made without fork's atfork handlers (_Fork, as async-signal-safe code
 * and some runtimes do), which allocate, fill more than a ring's worth of events, and return
 * from main (so exit handlers and the library's destructor run in them). The children must
 * neither hang (no writer thread exists in them to join or to drain their events) nor touch
 * the parent's trace; the parent then allocates 2,000,000 bytes. Exits 0 when both children
 * exited 0 within 20 s. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

static int child(void)
{
	for (int i = 0; i < 40000; i++) { /* more events than one thread's ring holds */
		keep = malloc(100);
		free(keep);
	}
	keep = malloc(1000);
	return 0; /* exit(), with atexit handlers and destructors */
}

int main(void)
{
	for (int k = 0; k < 2; k++) {
		pid_t pid = _Fork();
		if (pid == 0)
			exit(child());
		int st = 0;
		for (int waited = 0; waitpid(pid, &st, WNOHANG) == 0; waited++) {
			if (waited == 2000) { /* 20 s */
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				return 3;
			}
			struct timespec ts = {0, 10000000};
			nanosleep(&ts, NULL);
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	keep = malloc(2000000);
	memset(keep, 1, 64);
	return 0;
}
