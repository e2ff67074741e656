/* sigexec.c: keeps 12,345 bytes, then calls unshare(CLONE_NEWUSER) over and over (each call
 * makes the tracer pause its threads) until a timer's handler, 20 ms in, replaces the process
 * with PROG (often in the middle of a pause). Usage: sigexec PROG; sigexec exit: the handler
 * calls exit(5) instead. */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static void *volatile keep;
static const char *prog;

static void on_alarm(int sig)
{
	(void)sig;
	if (!strcmp(prog, "exit"))
		exit(5);
	char *const av[] = {(char *)prog, NULL};
	execve(prog, av, environ);
	_exit(3);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	prog = argv[1];
	keep = malloc(12345);
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 0}, {0, 20000}};
	setitimer(ITIMER_REAL, &it, NULL);
	time_t t0 = time(NULL);
	while (time(NULL) - t0 < 10)
		(void)unshare(CLONE_NEWUSER);
	return 4; /* the timer never fired */
}
