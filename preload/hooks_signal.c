/* hooks_signal.c: the trace finished when a signal's default action ends the process.
 *
 * A program killed by a signal it does not handle (Ctrl-C's SIGINT, timeout's SIGTERM, a
 * closed terminal's SIGHUP, a crash's SIGSEGV, glibc's heap checks' internal abort) ran no
 * code of ours: the trace ended at its last flush, up to CUZKTRACE_FLUSH_MS of events lost,
 * and read as truncated. While tracing, the tracer holds the kernel's action of each signal
 * of `fatal` below whose action the program left at the default (CUZKTRACE_SIGNALS=0: none),
 * and shows the program the action it set (`prog`), as sanitizers do:
 *   - sigaction, signal, bsd_signal, sysv_signal and __sysv_signal report the program's
 *     action; setting the default keeps the tracer's handler, setting a handler or SIG_IGN
 *     installs the program's as it is, and the tracer lets go of that signal;
 *   - the handler (fatal_handler) finishes the trace as _exit does, with END's reason
 *     CKT_END_SIGNAL + the signal (CKT_END_ABORT for SIGABRT), puts the default action back
 *     and lets the signal end the process as it would have (a fault returns to its faulting
 *     instruction; any other is sent again and taken when the handler returns): the status,
 *     the core dump, and the siginfo of a fault are as untraced.
 * Whether the tracer holds a signal is read from the kernel each time (the handler there is
 * fatal_handler): a program that sets an action by other means (a raw system call, sigset)
 * takes the signal from the tracer as it would from the default.
 * Costs nothing per allocation: only signal-setting calls pass here. */
#include "ckt.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* The signals whose default action ends the process, but SIGTRAP (debuggers) and SIGSYS
 * (seccomp's traps, whose handler's own system calls would trap again) */
static const int fatal[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGABRT, SIGBUS,    SIGFPE,
			    SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,   SIGXCPU,
			    SIGXFSZ, SIGVTALRM, SIGPROF};

#define CKT_SA_RESTORER 0x04000000 /* the kernel's flag, which <signal.h> does not name */

static struct sigaction prog[NSIG]; /* the program's view, while the tracer holds the signal */
static int enabled;                 /* CUZKTRACE_SIGNALS, once the tracer traces */

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i] == sig)
			return 1;
	return 0;
}

/* the C library's sigaction: the tracer's own calls come here, never to the hook below */
int ckt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!ckt_real.sigaction) {
		if (atomic_load(&ckt_boot_state) == 0)
			ckt_bootstrap();
		if (!ckt_real.sigaction) {
			errno = ENOSYS;
			return -1;
		}
	}
	return ckt_real.sigaction(sig, act, old);
}

static void fatal_handler(int sig, siginfo_t *si, void *uc);

/* 1 when the kernel's action for sig is the tracer's (its current action in *cur) */
static int held(int sig, struct sigaction *cur)
{
	return is_fatal(sig) && ckt_real_sigaction(sig, NULL, cur) == 0 &&
	       (cur->sa_flags & SA_SIGINFO) && cur->sa_sigaction == fatal_handler;
}

/* Takes sig over when its action is the default (as the kernel has it: its mask and flags
 * are what the program reads back). */
static void hold_if_default(int sig)
{
	struct sigaction cur, ours;
	if (!enabled || !is_fatal(sig) || ckt_real_sigaction(sig, NULL, &cur) != 0 ||
	    cur.sa_handler != SIG_DFL) /* (SIG_DFL whatever the flags: a one-shot's leaves them) */
		return;
	prog[sig] = cur;
	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = fatal_handler;
	sigfillset(&ours.sa_mask); /* nothing runs inside the final flush */
	ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	ckt_real_sigaction(sig, &ours, NULL);
}

void ckt_signals_start(void)
{
	enabled = ckt_config.signals;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		hold_if_default(fatal[i]);
}

int ckt_signal_held(int sig, struct sigaction *program)
{
	struct sigaction cur;
	if (!held(sig, &cur))
		return 0;
	if (program)
		*program = prog[sig];
	return 1;
}

/* A fault the kernel raised at an instruction: returning runs the instruction again, which
 * faults again under the default action (its siginfo and core as untraced). An action-
 * optional machine check (BUS_MCEERR_AO) is not one. */
static int refaults(int sig, const siginfo_t *si)
{
	if (si->si_code <= 0)
		return 0;
	if (sig == SIGBUS)
		return si->si_code != BUS_MCEERR_AO;
	return sig == SIGSEGV || sig == SIGILL || sig == SIGFPE;
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	ckt_finish_at_signal(sig == SIGABRT ? CKT_END_ABORT : CKT_END_SIGNAL + sig);
	struct sigaction dfl = prog[sig];
	dfl.sa_handler = SIG_DFL;
	ckt_real_sigaction(sig, &dfl, NULL);
	/* taken as this handler returns: the mask it returns to lets it in */
	sigdelset(&((ucontext_t *)uc)->uc_sigmask, sig);
	if (!refaults(sig, si))
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
	errno = saved_errno;
}

CKT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction cur, was;
	if (!held(sig, &cur)) {
		int rc = ckt_real_sigaction(sig, act, old);
		hold_if_default(sig); /* the default again (or still: set by other means) */
		return rc;
	}
	was = prog[sig];
	if (act && act->sa_handler != SIG_DFL) {
		/* the program's handler, or SIG_IGN: the kernel's, from now on */
		if (ckt_real_sigaction(sig, act, NULL) != 0)
			return -1;
	} else if (act) {
		/* the default again: still the tracer's; kept as the kernel would keep it, and
		 * read back as the C library reads it (on x86 it adds its restorer to every
		 * action it sets) */
		prog[sig] = *act;
		sigdelset(&prog[sig].sa_mask, SIGKILL);
		sigdelset(&prog[sig].sa_mask, SIGSTOP);
#if defined(__x86_64__) || defined(__i386__)
		prog[sig].sa_flags |= CKT_SA_RESTORER;
		prog[sig].sa_restorer = cur.sa_restorer;
#endif
	}
	if (old)
		*old = was;
	return 0;
}

/* signal and its kin: the C library's own, with the program's action put back first, so
 * that what it returns and the flags it sets (siginterrupt's) are its own */
static sighandler_t signal_like(sighandler_t (*real)(int, sighandler_t), int sig, sighandler_t h)
{
	struct sigaction cur;
	if (!real) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (held(sig, &cur))
		ckt_real_sigaction(sig, &prog[sig], NULL);
	sighandler_t old = real(sig, h);
	hold_if_default(sig);
	return old;
}

#define CKT_SIGNAL_HOOK(name)                                                                     \
	CKT_EXPORT sighandler_t name(int sig, sighandler_t h)                                     \
	{                                                                                         \
		if (atomic_load(&ckt_boot_state) == 0)                                            \
			ckt_bootstrap();                                                          \
		return signal_like(ckt_real.name, sig, h);                                        \
	}
CKT_SIGNAL_HOOK(signal)
CKT_SIGNAL_HOOK(bsd_signal)
CKT_SIGNAL_HOOK(sysv_signal)
CKT_SIGNAL_HOOK(__sysv_signal)
