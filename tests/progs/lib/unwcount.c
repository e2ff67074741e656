/* unwcount.c: preloaded after libcuzktrace, counts per thread the stacks the tracer captures
 * with each of its two unwinders: unw_backtrace (libunwind's per-thread cache) and a stepped
 * cursor (unw_init_local, then unw_step per frame). unwind_switch asks through unwcount_get.
 * The unw_backtrace wrapper ends in a tail call, so it adds no frame to the stack captured
 * (which then starts in the tracer's code, as without it); unw_backtrace's own calls of
 * unw_init_local (from libunwind itself) are not stepped stacks. Resolved lazily: the tracer
 * may capture a stack before this library's constructor runs (its hooks hold their guard, so
 * dlsym's own allocations are not traced). With it preloaded, the tracer takes this library's
 * text for libunwind's (it looks up where unw_backtrace lives): harmless for unwind_switch,
 * which closes no descriptor of libunwind's. */
#define _GNU_SOURCE
#include <dlfcn.h>

static __thread unsigned fast, stepped;
static int (*real_backtrace)(void **, int);
static int (*real_init_local)(void *, void *);
static void *unwind_base; /* libunwind's load address */

int unw_backtrace(void **buf, int size)
{
	if (!real_backtrace)
		real_backtrace = (int (*)(void **, int))dlsym(RTLD_NEXT, "unw_backtrace");
	fast++;
	return real_backtrace(buf, size); /* a tail call (-O2) */
}

int _ULx86_64_init_local(void *cursor, void *uc)
{
	Dl_info from;
	if (!real_init_local) {
		Dl_info lib;
		real_init_local = (int (*)(void *, void *))dlsym(RTLD_NEXT, "_ULx86_64_init_local");
		if (real_init_local && dladdr((void *)real_init_local, &lib))
			unwind_base = lib.dli_fbase;
	}
	if (!dladdr(__builtin_return_address(0), &from) || from.dli_fbase != unwind_base)
		stepped++;
	return real_init_local(cursor, uc);
}

void unwcount_get(unsigned *f, unsigned *s)
{
	*f = fast;
	*s = stepped;
}
