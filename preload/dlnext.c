/* dlnext.c: lookups through glibc's own dlsym (see ckt.h: ckt_next). The tracer exports a dlsym
 * of its own (hooks_cuda.c), and a library preloaded ahead of it may replace dlsym too; a call
 * of dlsym from the tracer binds to the first of them. glibc's is found with dlvsym, by
 * version (dlvsym is not interposed), and called from here, so that RTLD_NEXT means "after
 * the tracer". */
#include "ckt.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <stdlib.h>

typedef ckt_dlsym_fn dlsym_fn;
static dlsym_fn *_Atomic real_dlsym_p;

/* The decimal number at *p, which moves past it (saturating) */
static unsigned long version_part(const char **p)
{
	unsigned long v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		v = v < 100000 ? v * 10 + (unsigned long)(**p - '0') : v;
	return v;
}

/* 1 when the C library running is glibc 2.34 or later (the dl* functions moved into libc, with
 * that version), from its version text ("2.36"); see ckt_glibc_next. Read by hand, not by
 * strtoul: this runs inside the program's dlsym, which a sanitizer's runtime calls while it
 * starts, and its strtoul then stops the program (MemorySanitizer: "CHECK failed ...
 * msan_init_is_running") */
int ckt_glibc_has_234(const char *v)
{
	unsigned long major = version_part(&v), minor = 0;
	if (*v == '.') {
		v++;
		minor = version_part(&v);
	}
	return major > 2 || (major == 2 && minor >= 34);
}

void *ckt_glibc_next(const char *name)
{
	/* the versions glibc gave its dl* functions: 2.34 moved them into libc; before, x86_64's
	 * first, aarch64's first. The one this glibc has goes first: a dlvsym that finds nothing
	 * allocates its error message, and this runs in bootstrap, maybe inside an allocator's
	 * initialization (see ckt_glibc_version in bootstrap.c). RTLD_NEXT from here is the C
	 * library (or, before 2.34, libdl) */
#if defined(__aarch64__)
	const char *base = "GLIBC_2.17";
#else
	const char *base = "GLIBC_2.2.5";
#endif
	int has = ckt_glibc_has_234(gnu_get_libc_version());
	const char *const versions[] = {has ? "GLIBC_2.34" : base, has ? base : "GLIBC_2.34"};
	void *f = NULL;
	for (unsigned k = 0; !f && k < sizeof(versions) / sizeof(versions[0]); k++)
		f = dlvsym(RTLD_NEXT, name, versions[k]);
	return f;
}

ckt_dlsym_fn *ckt_real_dlsym(void)
{
	dlsym_fn *f = atomic_load_explicit(&real_dlsym_p, memory_order_acquire);
	if (CKT_LIKELY(f != NULL))
		return f;
	f = (dlsym_fn *)ckt_glibc_next("dlsym");
	atomic_store_explicit(&real_dlsym_p, f, memory_order_release);
	return f;
}

/* The calls below are not tail calls (the empty asm after each): glibc's dlsym takes the
 * object RTLD_NEXT is relative to from its return address, which must be in the tracer. */
void *ckt_sym(void *handle, const char *name)
{
	dlsym_fn *ds = ckt_real_dlsym();
	void *r = ds ? ds(handle, name) : NULL;
	__asm__ volatile("" ::: "memory");
	return r;
}

void *ckt_next(const char *name)
{
	dlsym_fn *ds = ckt_real_dlsym();
	void *r = ds ? ds(RTLD_NEXT, name) : NULL;
	__asm__ volatile("" ::: "memory");
	return r;
}
