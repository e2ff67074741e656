/* unwflush.c: preloaded after libcuzktrace for tests/progs/unwflush.c. On each thread's first
 * unw_init_local that libunwind itself makes (inside unw_backtrace: the tracer's first on that
 * thread, its unw_cache_trim), flushes libunwind's caches first, as another thread's
 * unw_flush_cache could at that moment; the thread's next rule lookup then refills its cache
 * (and maps its links table) inside the trim. x86_64 names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

static __thread int flushed;

int _ULx86_64_init_local(unw_cursor_t *cursor, unw_context_t *uc)
{
	static int (*real)(unw_cursor_t *, unw_context_t *);
	static void *unwind_base;
	if (!real) {
		Dl_info lib;
		real = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(RTLD_NEXT, "_ULx86_64_init_local");
		if (real && dladdr((void *)real, &lib))
			unwind_base = lib.dli_fbase;
	}
	Dl_info from;
	if (!flushed && dladdr(__builtin_return_address(0), &from) && from.dli_fbase == unwind_base) {
		flushed = 1;
		unw_flush_cache(unw_local_addr_space, 0, 0);
	}
	return real(cursor, uc);
}
