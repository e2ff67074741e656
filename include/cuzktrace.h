/* cuzktrace.h: mark the phases of your program for the cuzktrace memory tracer.
 *
 * Two kinds of phase:
 *  - per-thread, nestable: cuzktrace_phase_push(name) ... cuzktrace_phase_pop() on one thread
 *    (a pop on a thread with nothing pushed is ignored, with one warning line per process).
 *  - process-wide, overlapping: cuzktrace_phase_begin(name) ... cuzktrace_phase_end(name), from
 *    any threads. Begins and ends of one name are counted: two overlapping "synthesis"
 *    intervals end when both have ended.
 * An allocation belongs to the innermost pushed phase of its thread; if none, to the most
 * recently begun process-wide phase still active; otherwise to "(none)".
 *
 * Contract of every function below:
 *  - name: a NUL-terminated string, copied (it may be freed or reused after the call); phases
 *    are identified by name. A push of NULL keeps the enclosing phase (its pop balances it);
 *    begin and end ignore NULL. At most 4096 distinct names per process.
 *  - safe from any thread; not async-signal-safe (do not call from a signal handler).
 *  - never fails in a way the program sees; when the tracer is not loaded they do not exist:
 *
 * CALLING THEM SO THAT A PROGRAM RUNS UNCHANGED WITHOUT THE TRACER
 *  1. Weak symbols (C/C++, gcc/clang): define CUZKTRACE_WEAK before including this header and
 *     use the CUZKTRACE_PHASE_* macros. Without libcuzktrace.so preloaded the functions
 *     resolve to NULL and each macro costs one load and a not-taken branch.
 *  2. Header-only, no link-time reference at all: include "cuzktrace_shim.h" and call
 *     cuzktrace_shim_phase_push() etc.; they find the tracer with dlsym once, and do nothing
 *     when it is absent.
 *  3. Linking against libcuzktrace.so directly also works (then it must be loaded: its
 *     SONAME is libcuzktrace.so, so LD_PRELOAD=/path/to/libcuzktrace.so alone satisfies the
 *     link; without the preload the loader must find it, LD_LIBRARY_PATH or an rpath).
 * See examples/mini_prover.c (weak symbols), examples/phases_shim.c (the shim), and README
 * for Rust.
 */
#ifndef CUZKTRACE_H
#define CUZKTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef CUZKTRACE_WEAK
#define CUZKTRACE_DECL __attribute__((weak))
#else
#define CUZKTRACE_DECL
#endif

/* Enter phase `name` on the calling thread (nestable). */
CUZKTRACE_DECL void cuzktrace_phase_push(const char *name);
/* Leave the calling thread's innermost pushed phase; no effect if none. */
CUZKTRACE_DECL void cuzktrace_phase_pop(void);
/* Begin process-wide phase `name` (counted). */
CUZKTRACE_DECL void cuzktrace_phase_begin(const char *name);
/* End one begin of process-wide phase `name`; no effect if it is not active. */
CUZKTRACE_DECL void cuzktrace_phase_end(const char *name);

#ifdef CUZKTRACE_WEAK
#define CUZKTRACE_PHASE_PUSH(name)                                                                \
	do {                                                                                       \
		if (cuzktrace_phase_push)                                                          \
			cuzktrace_phase_push(name);                                                \
	} while (0)
#define CUZKTRACE_PHASE_POP()                                                                     \
	do {                                                                                       \
		if (cuzktrace_phase_pop)                                                           \
			cuzktrace_phase_pop();                                                     \
	} while (0)
#define CUZKTRACE_PHASE_BEGIN(name)                                                               \
	do {                                                                                       \
		if (cuzktrace_phase_begin)                                                         \
			cuzktrace_phase_begin(name);                                               \
	} while (0)
#define CUZKTRACE_PHASE_END(name)                                                                 \
	do {                                                                                       \
		if (cuzktrace_phase_end)                                                           \
			cuzktrace_phase_end(name);                                                 \
	} while (0)
#endif

#ifdef __cplusplus
}
#endif
#endif
