/* cuzktrace_shim.h: header-only access to the phase API of cuzktrace.h with no link-time
 * reference to the tracer. Each function looks the tracer up once with dlsym(RTLD_DEFAULT)
 * and does nothing when it is not loaded (cost then: one load and a branch). Thread-safe: a
 * race on the first call resolves the same pointer twice. Link with -ldl on glibc < 2.34.
 * Same contracts as cuzktrace.h. */
#ifndef CUZKTRACE_SHIM_H
#define CUZKTRACE_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>

static void cuzktrace_shim_noop_s(const char *name)
{
	(void)name;
}
static void cuzktrace_shim_noop_v(void)
{
}

#define CUZKTRACE_SHIM_RESOLVE(var, sym, noop)                                                    \
	do {                                                                                       \
		if (!var) {                                                                        \
			void *f_ = dlsym(RTLD_DEFAULT, sym);                                       \
			if (f_) /* POSIX's way to store dlsym's answer in a function pointer */    \
				*(void **)&var = f_;                                               \
			else                                                                       \
				var = noop;                                                        \
		}                                                                                  \
	} while (0)

static inline void cuzktrace_shim_phase_push(const char *name)
{
	static void (*fn)(const char *);
	CUZKTRACE_SHIM_RESOLVE(fn, "cuzktrace_phase_push", cuzktrace_shim_noop_s);
	fn(name);
}

static inline void cuzktrace_shim_phase_pop(void)
{
	static void (*fn)(void);
	CUZKTRACE_SHIM_RESOLVE(fn, "cuzktrace_phase_pop", cuzktrace_shim_noop_v);
	fn();
}

static inline void cuzktrace_shim_phase_begin(const char *name)
{
	static void (*fn)(const char *);
	CUZKTRACE_SHIM_RESOLVE(fn, "cuzktrace_phase_begin", cuzktrace_shim_noop_s);
	fn(name);
}

static inline void cuzktrace_shim_phase_end(const char *name)
{
	static void (*fn)(const char *);
	CUZKTRACE_SHIM_RESOLVE(fn, "cuzktrace_phase_end", cuzktrace_shim_noop_s);
	fn(name);
}

#endif
