/* dwfail.c: libdw out of memory, on any machine. Preloaded into cuzktrace-report, it fails the
 * malloc, calloc and realloc calls made from inside libdw.so after the first CKT_DWFAIL_AFTER of
 * them (unset: none fail); the reader's own calls, and every other library's, go through. The
 * reader must then end with its own line (libdw's out-of-memory handler), not libdw's
 * "libdw: Cannot allocate memory". libdw itself may crash under such failures: a SIGSEGV is
 * told apart by where it struck, one line, "dwfail: SIGSEGV inside libdw.so" or "dwfail:
 * SIGSEGV outside libdw.so" (the reader's own code: a failure), then status 139 as before.
 * With CKT_DWFAIL_AFTER set and no libdw.so loaded: "dwfail: no libdw.so" (the test skips).
 * For a reader of one thread (--jobs 1): the count and the alternate stack are the first
 * thread's. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static uintptr_t lo, hi; /* libdw's mapped text and data */
static long after = -1, seen;
static int busy;

static int find(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/libdw.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		lo = lo && lo < a ? lo : a;
		hi = hi > b ? hi : b;
	}
	return 1;
}

static void say(const char *s)
{
	if (write(2, s, strlen(s)) < 0)
		return;
}

static void segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	uintptr_t pc = 0;
#if defined(__x86_64__)
	pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#else
	(void)uc;
#endif
	char b[96] = "dwfail: SIGSEGV outside libdw.so at 0x";
	size_t n = strlen(b);
	for (int k = 60; k >= 0; k -= 4)
		b[n++] = "0123456789abcdef"[(pc >> k) & 15];
	b[n++] = '\n';
	b[n] = 0;
	say(pc >= lo && pc < hi ? "dwfail: SIGSEGV inside libdw.so\n" : b);
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
}

static int said_none;

/* whether this call, made from ret, fails */
static int fail(void *ret)
{
	if (busy)
		return 0;
	busy = 1;
	if (!lo) {
		const char *e = getenv("CKT_DWFAIL_AFTER");
		after = e ? atol(e) : -1;
		dl_iterate_phdr(find, NULL);
		if (lo) {
			/* on a stack of its own: under an address-space limit the fault may be the
			 * stack's own growth, refused */
			static char alt[1 << 16];
			stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
			sigaltstack(&ss, NULL);
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = segv;
			sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
			sigaction(SIGSEGV, &sa, NULL);
		} else if (after >= 0 && !said_none++) {
			say("dwfail: no libdw.so\n");
		}
	}
	busy = 0;
	if (after < 0 || (uintptr_t)ret < lo || (uintptr_t)ret >= hi)
		return 0;
	if (seen++ < after)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}
