/* hooks_signal.c: the trace finished when a signal's default action ends the process.
 *
 * A program killed by a signal it does not handle (Ctrl-C's SIGINT, timeout's SIGTERM, a
 * closed terminal's SIGHUP, a crash's SIGSEGV, glibc's heap checks' internal abort) ran no
 * code of ours: the trace ended at its last flush, up to CUZKTRACE_FLUSH_MS of events lost,
 * and read as truncated. While tracing, the tracer holds the kernel's action of each signal
 * of `fatal` below whose action the program left at the default (CUZKTRACE_SIGNALS=0: none),
 * and shows the program the action it set (`prog`), as sanitizers do:
 *   - sigaction, __sigaction, signal, bsd_signal, ssignal, sysv_signal, __sysv_signal,
 *     sigset and siginterrupt report the program's action; setting the default keeps the
 *     tracer's handler, setting a handler or SIG_IGN installs the program's as it is, and the
 *     tracer lets go of that signal, but for a one-shot handler (SA_RESETHAND), which the
 *     tracer runs from a handler of its own that makes the kernel's reset to the default, the
 *     tracer's (oneshot_run);
 *   - the handler (fatal_handler) claims the process's end, finishes the trace as _exit does,
 *     with END's reason CKT_END_SIGNAL + the signal (CKT_END_ABORT for the process's own
 *     SIGABRT), puts the default action back and queues the signal again with its siginfo,
 *     taken as the handler returns: the status, the core dump and its siginfo as untraced.
 * Whether the tracer holds a signal is read from the kernel each time (the handler there is
 * fatal_handler or a oneshot_handler[k]): a program that sets an action by other means (a raw system call) takes the
 * signal from the tracer as it would from the default.
 * Costs nothing per allocation: only signal-setting calls pass here. */
#include "ckt.h"

#include <errno.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* sigset and siginterrupt are deprecated; programs call them all the same */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* The signals whose default action ends the process, but SIGTRAP (debuggers), SIGSYS
 * (seccomp's traps, whose handler's own system calls would trap again) and the real-time ones
 * (left to the libraries that use them) */
static const int fatal[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGILL,    SIGABRT, SIGBUS,  SIGFPE,
			    SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE,   SIGALRM, SIGTERM, SIGSTKFLT,
			    SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR};

/* the flags the kernel keeps of an action (since Linux 5.11 it clears others: a program
 * tests SA_UNSUPPORTED so); SA_RESTORER, which <signal.h> does not name, the C library sets */
#define CKT_SA_RESTORER 0x04000000
#define CKT_SA_EXPOSE_TAGBITS 0x00000800
#define CKT_SA_KEPT                                                                                \
	(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | CKT_SA_EXPOSE_TAGBITS | CKT_SA_RESTORER |      \
	 SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND)

static struct sigaction prog[NSIG]; /* the program's view, while the tracer holds the signal */
static int enabled;                 /* CUZKTRACE_SIGNALS, once the tracer traces */

/* Every change of an action and every read of `prog` goes under this lock, taken with every
 * signal blocked (a handler's own sigaction cannot find its thread holding it): a program's
 * handler that another thread set between the tracer's read of the default and its taking
 * over was overwritten (1769 times in 100,000 races). Only system calls run under it. */
static atomic_int lock_owner; /* the pid of the process whose thread holds it; 0: free */

/* 1 when the lock's holder is a process with memory of its own (the parent of a child made
 * without fork's atfork handlers: _Fork, clone), or gone (a vfork child killed holding it):
 * this copy of the lock was taken there, and no thread here will give it back (the child's
 * sigaction hung for good). A vfork child shares the memory and the lock: its parent's threads
 * give it back. Where kcmp cannot tell (refused by seccomp, not in the kernel), a holder in
 * another process that has not given it back in about 2 s. */
static int lock_stale(pid_t holder, unsigned tries)
{
	pid_t me = getpid();
	if (!holder || holder == me)
		return 0;
	long r = syscall(SYS_kcmp, me, holder, KCMP_VM, 0, 0);
	if (r >= 0 || errno == ESRCH)
		return r != 0;
	return tries > 2048;
}

static void lock_take(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	int e = errno;
	pid_t me = getpid();
	for (unsigned i = 1;; i++) {
		int holder = 0;
		if (atomic_compare_exchange_strong_explicit(&lock_owner, &holder, me, memory_order_acquire,
							    memory_order_relaxed))
			break;
		/* (a yield can take a time slice; past 64 tries a millisecond's nap) */
		if (i % 16 == 1 && lock_stale(holder, i))
			atomic_compare_exchange_strong(&lock_owner, &holder, 0);
		if (i > 64)
			ckt_nap(1000000);
		else
			sched_yield();
	}
	errno = e;
}

static void lock_give(const sigset_t *old)
{
	atomic_store_explicit(&lock_owner, 0, memory_order_release);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

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

/* the signals a fault raises, at an instruction */
static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/* The first process of a pid namespace (a container's) ignores a signal sent to it whose
 * action is the default: a handler would let in what the kernel keeps out (SIGTERM from
 * `docker stop` woke its pause and the program ran on, its trace ended). There the tracer
 * holds only the faults, which the kernel delivers to it all the same. */
static int holds(int sig)
{
	return is_fatal(sig) && (is_fault(sig) || getpid() != 1);
}

/* the tracer's handlers of one-shot actions, one per slot (see `once` below) */
#define CKT_ONCE_SLOTS 8
#define CKT_ONCE_EACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define CKT_ONCE_DECL(k) static void oneshot_##k(int sig, siginfo_t *si, void *uc);
CKT_ONCE_EACH(CKT_ONCE_DECL)
#define CKT_ONCE_NAME(k) oneshot_##k,
static void (*const oneshot_handler[CKT_ONCE_SLOTS])(int, siginfo_t *, void *) = {CKT_ONCE_EACH(CKT_ONCE_NAME)};

/* the slot whose handler h is, or -1 */
static int oneshot_slot(void (*h)(int, siginfo_t *, void *))
{
	for (int k = 0; k < CKT_ONCE_SLOTS; k++)
		if (h == oneshot_handler[k])
			return k;
	return -1;
}

/* 1 when the kernel's action for sig is the tracer's handler, 2 when it is the tracer's run of
 * the program's one-shot handler (whatever the flags: a C library function no hook sees,
 * sigvec, may put it back without SA_SIGINFO) */
static int held(int sig)
{
	struct sigaction cur;
	if (!is_fatal(sig) || ckt_real_sigaction(sig, NULL, &cur) != 0)
		return 0;
	return cur.sa_sigaction == fatal_handler ? 1 : oneshot_slot(cur.sa_sigaction) >= 0 ? 2 : 0;
}

/* the process the tracer traces: a vfork child shares `prog` with it, and a fork child is
 * not traced; in either the program's calls go to the kernel as they are */
static int tracing_here(void)
{
	return enabled && getpid() == ckt_writer_pid();
}

/* A one-shot handler of the program's (SA_RESETHAND: LLVM's and backward-cpp's crash handlers):
 * the kernel would reset the action to the default as it runs it, and the handler's raise of
 * the signal again (or a return to a fault's instruction) ended the process untraced, its
 * trace at its last flush. The tracer runs it from oneshot_handler[k], which makes that reset
 * itself, to the tracer's handler. Each one-shot action the tracer installs takes the next of
 * CKT_ONCE_SLOTS slots, k, which keeps it (`once`) and whether it has run (`armed`): a signal
 * the kernel delivered to it runs that action, even when other actions were set before the
 * handler began (as untraced: the kernel chose the action as it delivered the signal), up to
 * CKT_ONCE_SLOTS - 1 one-shot ones (two took the slot back, and its newest action ran). */
static struct sigaction once[NSIG][CKT_ONCE_SLOTS];
static atomic_int armed[NSIG][CKT_ONCE_SLOTS];
static unsigned char once_next[NSIG];

/* Installs the tracer's action for sig: fatal_handler (oneshot NULL), or oneshot_handler[k] of
 * the next slot k for the program's one-shot action `oneshot`, with its mask and flags but the
 * reset, so that the program's handler runs where and as it would (its alternate stack,
 * SA_RESTART, SA_NODEFER and the mask the kernel gives it); under the lock. */
static int take(int sig, const struct sigaction *oneshot, struct sigaction *was)
{
	struct sigaction ours;
	memset(&ours, 0, sizeof(ours));
	if (oneshot) {
		int k = once_next[sig] = (unsigned char)((once_next[sig] + 1) % CKT_ONCE_SLOTS);
		once[sig][k] = *oneshot;
		atomic_store(&armed[sig][k], 1);
		ours.sa_sigaction = oneshot_handler[k];
		ours.sa_mask = oneshot->sa_mask;
		ours.sa_flags = (oneshot->sa_flags & CKT_SA_KEPT & ~(SA_RESETHAND | CKT_SA_RESTORER)) |
				SA_SIGINFO;
	} else {
		ours.sa_sigaction = fatal_handler;
		sigfillset(&ours.sa_mask); /* nothing runs inside the final flush */
		/* a fault's handler on the program's alternate stack (a stack overflow's has no
		 * other); another signal's on the thread's own: the program's alternate stack may be
		 * too small for a signal frame (MINSIGSTKSZ, 2 KiB: SIGTERM became SIGSEGV), which
		 * untraced the signal never needed */
		ours.sa_flags = SA_SIGINFO | SA_RESTART | (is_fault(sig) ? SA_ONSTACK : 0);
	}
	return ckt_real_sigaction(sig, &ours, was);
}

/* Takes sig over when its action is the default, or a one-shot handler (as the kernel has it:
 * its mask and flags are what the program reads back); under the lock. */
static void adopt(int sig)
{
	struct sigaction cur, was;
	if (!tracing_here() || !holds(sig) || ckt_real_sigaction(sig, NULL, &cur) != 0)
		return;
	/* (SIG_DFL whatever the flags: a one-shot's leaves them) */
	int oneshot = cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN &&
		      (cur.sa_flags & SA_RESETHAND);
	if (cur.sa_handler != SIG_DFL && !oneshot)
		return;
	prog[sig] = cur;
	/* an action set meanwhile by a raw system call is put back */
	if (take(sig, oneshot ? &cur : NULL, &was) == 0 && was.sa_handler != cur.sa_handler)
		ckt_real_sigaction(sig, &was, NULL);
}

/* The kernel's reset of the one-shot action p as its handler begins: the default, its mask and
 * flags kept; held by the tracer again where it traces; under the lock. */
static void fired(int sig, const struct sigaction *p)
{
	struct sigaction dfl = *p;
	dfl.sa_handler = SIG_DFL;
	if (tracing_here() && holds(sig)) {
		prog[sig] = dfl;
		take(sig, NULL, NULL);
	} else {
		ckt_real_sigaction(sig, &dfl, NULL);
	}
}

/* A child's view of the one-shot action `slot` the kernel has as the tracer's handler cur
 * (in place): the program's handler, with the kernel's mask and flags (the child's own
 * siginterrupt changed them, and `prog` is the traced process's view), but the tracer's
 * SA_SIGINFO, and SA_RESETHAND back */
static void oneshot_view(struct sigaction *cur, const struct sigaction *slot)
{
	cur->sa_sigaction = slot->sa_sigaction;
	cur->sa_flags = (cur->sa_flags & ~SA_SIGINFO) | (slot->sa_flags & SA_SIGINFO) | SA_RESETHAND;
}

void ckt_signals_start(void)
{
	sigset_t old;
	enabled = ckt_config.signals;
	lock_take(&old);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		adopt(fatal[i]);
	lock_give(&old);
}

int ckt_signal_held(int sig, struct sigaction *program)
{
	sigset_t old;
	struct sigaction p;
	lock_take(&old);
	int h = held(sig);
	if (h)
		p = prog[sig];
	lock_give(&old);
	if (h && program)
		*program = p;
	return h;
}

/* see ckt.h */
void ckt_signal_fired(int sig, const struct sigaction *p)
{
	sigset_t old;
	lock_take(&old);
	fired(sig, p);
	lock_give(&old);
}

/* see ckt.h: a thread that held the lock as another forked is not in the child (where
 * fork's atfork handlers do not run, lock_take finds out) */
void ckt_signals_after_fork_child(void)
{
	atomic_store(&lock_owner, 0);
}

/* The signal once more, to this thread, with the default action now: taken as the handler
 * returns (the mask it returns to lets it in), before the interrupted code runs again, with
 * the siginfo it came with (a process may queue any to itself): the status, the core dump
 * and its siginfo (a fault's address, a sender's pid) as untraced. Sending it again, rather
 * than letting a fault's instruction run again, also ends a process whose other thread made
 * the page readable again while the trace was finished (it ran on, 10 runs in 10). */
static void send_again(int sig, siginfo_t *si, int with_info)
{
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	if (tid <= 0) { /* gettid refused (a seccomp filter): to the process, which it ends */
		syscall(SYS_kill, pid, sig);
		return;
	}
	if (!with_info || syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, si) != 0)
		syscall(SYS_tgkill, pid, tid, sig);
}

/* Set once something is ending the process: a signal, from the tracer's handler, or abort,
 * _exit or a failed assert (which finish the trace first). Until it is done the program's other
 * threads run on, and untraced a fatal signal would have ended them at once. An exit of
 * theirs meanwhile took the process's status (4 runs in 100 ended with 0 after SIGTERM), and
 * a second thread's fatal signal, abort or _exit the trace's END (1 run in 3 named another
 * end than the process's): they wait for the first here, every signal blocked. */
static atomic_int ending;
static __thread int claimed_here; /* this thread's end (abort's, then its SIGABRT) */

static void wait_for_end(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct timespec ts = {1, 0};
		nanosleep(&ts, NULL);
	}
}

void ckt_signal_wait_if_ending(void)
{
	if (atomic_load(&ending) && getpid() == ckt_writer_pid() && !claimed_here)
		wait_for_end();
}

/* see ckt.h */
void ckt_end_here_or_wait(void)
{
	int none = 0;
	if (claimed_here || !tracing_here())
		return;
	if (!atomic_compare_exchange_strong(&ending, &none, 1))
		wait_for_end(); /* another thread's end goes first */
	claimed_here = 1;
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct sigaction cur, dfl;
	/* installed without SA_SIGINFO (see held), si and uc are not the kernel's */
	int with_info = ckt_real_sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO);
	/* a namespace's first process: a fault another process sent is ignored, as untraced */
	if (getpid() == 1 && with_info && si->si_code <= 0) {
		errno = saved_errno;
		return;
	}
	ckt_end_here_or_wait();
	/* abort's (raise: tgkill from this process) finishes as the abort hook does; SIGABRT
	 * sent by another process is a signal like any */
	int abort_here = sig == SIGABRT && with_info && si->si_code == SI_TKILL && si->si_pid == getpid();
	ckt_finish_at_signal(abort_here ? CKT_END_ABORT : CKT_END_SIGNAL + sig);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	ckt_real_sigaction(sig, &dfl, NULL);
	if (with_info) {
		sigdelset(&((ucontext_t *)uc)->uc_sigmask, sig);
	} else { /* the mask the handler returns to is out of reach: unblocked here, taken now */
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	}
	send_again(sig, si, with_info);
	errno = saved_errno;
}

/* The program's one-shot handler of slot k: the reset the kernel would have made as it began,
 * to the tracer's handler (fired), unless another action was set since, then the handler
 * itself, under the mask the kernel gave this one (the action's mask, and the signal unless
 * SA_NODEFER). A second thread's signal that came before the reset ends the process, as the
 * default it would have found. In a child (fork's, vfork's: whose own action this is) the
 * slot is read, not changed: a vfork child shares it with the traced process. */
static void oneshot_run(int k, int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct sigaction p, cur;
	sigset_t mask;
	lock_take(&mask);
	int here = tracing_here();
	int first = here ? atomic_exchange(&armed[sig][k], 0) : 1;
	p = once[sig][k];
	/* the reset, of the action as the program sees it now (siginterrupt may have changed its
	 * flags: in a child, whose view is not `prog`, the kernel's are the flags), unless another
	 * was set since */
	if (first && ckt_real_sigaction(sig, NULL, &cur) == 0 && cur.sa_sigaction == oneshot_handler[k]) {
		oneshot_view(&cur, &p);
		fired(sig, here ? &prog[sig] : &cur);
	}
	lock_give(&mask);
	errno = saved_errno;
	if (!first)
		fatal_handler(sig, si, uc);
	else if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else
		p.sa_handler(sig);
}

#define CKT_ONCE_DEF(k)                                                                            \
	static void oneshot_##k(int sig, siginfo_t *si, void *uc)                                  \
	{                                                                                          \
		oneshot_run(k, sig, si, uc);                                                       \
	}
CKT_ONCE_EACH(CKT_ONCE_DEF)

/* An action the program sets, as the kernel keeps it and the C library reads it back (on x86
 * the library adds its restorer to every action it sets); restorer: the kernel's action now,
 * which the library set */
static void as_set(struct sigaction *a, const struct sigaction *restorer)
{
	sigdelset(&a->sa_mask, SIGKILL);
	sigdelset(&a->sa_mask, SIGSTOP);
	a->sa_flags &= CKT_SA_KEPT;
#if defined(__x86_64__) || defined(__i386__)
	a->sa_flags |= CKT_SA_RESTORER;
	a->sa_restorer = restorer->sa_restorer;
#else
	(void)restorer;
#endif
}

CKT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigset_t mask;
	struct sigaction want, was;
	int rc = 0;
	if (!is_fatal(sig))
		return ckt_real_sigaction(sig, act, old);
	/* the program's memory is read and written outside the lock: a bad pointer's fault (in
	 * the C library too, untraced) must not find it held by its thread */
	if (act)
		want = *act;
	lock_take(&mask);
	if (!held(sig)) {
		rc = ckt_real_sigaction(sig, act ? &want : NULL, &was);
		adopt(sig); /* the default again (or still: set by other means), or a one-shot */
	} else {
		struct sigaction cur;
		int k;
		ckt_real_sigaction(sig, NULL, &cur);
		was = prog[sig];
		/* a child's one-shot: its own flags and mask */
		if (!tracing_here() && (k = oneshot_slot(cur.sa_sigaction)) >= 0) {
			was = cur;
			oneshot_view(&was, &once[sig][k]);
		}
		if (act && (want.sa_handler != SIG_DFL || !tracing_here())) {
			/* the program's handler, or SIG_IGN: the kernel's, from now on (a one-shot
			 * handler run by the tracer's); in a child (vfork's shares `prog`) any
			 * action, to the kernel as it is */
			rc = ckt_real_sigaction(sig, &want, NULL);
			adopt(sig);
		} else if (act) {
			/* the default again: still the tracer's (its own handler, in place of a
			 * one-shot's) */
			if (cur.sa_sigaction != fatal_handler)
				take(sig, NULL, NULL);
			prog[sig] = want;
			as_set(&prog[sig], &cur);
		}
	}
	int e = errno;
	lock_give(&mask);
	if (rc == 0 && old)
		*old = was;
	errno = e;
	return rc;
}

CKT_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return sigaction(sig, act, old);
}

/* siginterrupt sets or clears SA_RESTART of the action, the program's */
CKT_EXPORT int siginterrupt(int sig, int flag)
{
	sigset_t mask;
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!ckt_real.siginterrupt) {
		errno = ENOSYS;
		return -1;
	}
	if (!is_fatal(sig))
		return ckt_real.siginterrupt(sig, flag);
	lock_take(&mask);
	/* the library's own, for what it keeps (signal's flags later); on the tracer's action
	 * its flag changes nothing */
	int rc = ckt_real.siginterrupt(sig, flag);
	if (rc == 0 && held(sig) && tracing_here()) {
		struct sigaction cur;
		ckt_real_sigaction(sig, NULL, &cur);
		if (flag)
			prog[sig].sa_flags &= ~SA_RESTART;
		else
			prog[sig].sa_flags |= SA_RESTART;
		as_set(&prog[sig], &cur);
	}
	int e = errno;
	lock_give(&mask);
	errno = e;
	return rc;
}

/* signal and its kin: the C library's own, with the program's action put back first, so
 * that what it returns and the flags it sets are its own (a signal that comes in that moment
 * ends the process as untraced, its trace at its last flush) */
static sighandler_t signal_like(sighandler_t (*real)(int, sighandler_t), int sig, sighandler_t h)
{
	sigset_t mask;
	if (!real) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (!is_fatal(sig))
		return real(sig, h);
	lock_take(&mask);
	if (held(sig))
		ckt_real_sigaction(sig, &prog[sig], NULL);
	sighandler_t old = real(sig, h);
	int e = errno;
	adopt(sig);
	lock_give(&mask);
	errno = e;
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
CKT_SIGNAL_HOOK(ssignal)
CKT_SIGNAL_HOOK(sysv_signal)
CKT_SIGNAL_HOOK(__sysv_signal)

/* sigset (System V): as the C library does it, through the hook above; the library's own
 * would read the mask the lock holds blocked (SIG_HOLD for every signal) */
CKT_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (!is_fatal(sig)) {
		if (!ckt_real.sigset) {
			errno = ENOSYS;
			return SIG_ERR;
		}
		return ckt_real.sigset(sig, disp);
	}
	sigset_t one, was;
	struct sigaction act, old;
	if (disp == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigemptyset(&one);
	sigaddset(&one, sig);
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &was) < 0)
			return SIG_ERR;
		if (sigismember(&was, sig))
			return SIG_HOLD;
		return sigaction(sig, NULL, &old) < 0 ? SIG_ERR : old.sa_handler;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old) < 0 || sigprocmask(SIG_UNBLOCK, &one, &was) < 0)
		return SIG_ERR;
	return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}

/* sigaltstack: the thread's alternate signal stack, noted for the capture of call stacks made
 * on it (stacks.c): they unwind on a stack of their own. The call itself is the system call,
 * as glibc's is (no lookup of the real function: it may come before the tracer's start). The
 * stack set is then asked of the kernel (one more system call, in a call made once or twice
 * per thread): the program's struct may have been written over by the old stack (ss == old,
 * which noted the old one), and is read by nothing of ours (a bad pointer is the call's
 * EFAULT, not a fault here). A stack disabled stays noted: under SS_AUTODISARM the kernel
 * enables it again as the handler returns, unseen here, and a capture on memory that was an
 * alternate stack only pays what one on it does (the side stack, mapped at the thread's first
 * such capture, and every signal blocked during the capture). A thread that sets its stack by
 * a raw system call is not seen: its captures stay on it. */
CKT_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	long rc = syscall(SYS_sigaltstack, ss, old);
	stack_t now;
	if (rc == 0 && ss && syscall(SYS_sigaltstack, NULL, &now) == 0 && !(now.ss_flags & SS_DISABLE)) {
		struct ckt_tls *t = &ckt_tls;
		t->sig_alt_lo = (uintptr_t)now.ss_sp;
		t->sig_alt_hi = (uintptr_t)now.ss_sp + now.ss_size;
		/* a handler on it may end the process: the stack that is finished on, mapped
		 * now, on this one (once per process) */
		if (atomic_load(&ckt_active))
			ckt_finish_stack_ready();
	}
	return (int)rc;
}
