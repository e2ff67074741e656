/* symbolize.h: offline symbolization of return addresses with elfutils libdw: the module map
 * of the trace, function names (C++ and Rust demangled), file:line and inlined frames. It
 * knows nothing about stacks, sites or reports (sites.c); it prints nothing: warnings are
 * kept as sentences for main.c.
 */
#ifndef CKT_SYMBOLIZE_H
#define CKT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One source-level frame. A return address can give several: the functions inlined at it,
 * innermost first, then the function they were inlined into. Strings are owned by the
 * symbolizer and live until ckt_sym_free. */
struct ckt_sym_frame {
	const char *func;   /* demangled with parameters ("f(int)"); NULL when unknown */
	const char *name;   /* demangled without parameters or return type ("f"); NULL too */
	const char *file;   /* source file as the debug info names it; NULL when unknown */
	unsigned line;      /* 0 when unknown */
	const char *module; /* file name (no directory) of the object; NULL: no module holds it */
	uint64_t offset;    /* return address - module load bias (the address when no module) */
	bool inlined;       /* inlined into the next frame */
	bool cxx;           /* a C++ function (its compile unit's language, or a C++ mangled symbol):
			     * Rust's crate names ("core::", "alloc::") are a C++ program's own
			     * namespaces there */
	bool sigtramp;      /* the signal trampoline (rt_sigreturn): the next frame out is the
			     * interrupted instruction itself, not a return address */
};

struct ckt_sym;

/* Returns NULL when out of memory. */
struct ckt_sym *ckt_sym_new(void);
/* --modules: directories where a module that changed or went away since it was traced is
 * looked for by its file name, and taken when its build-id is the one recorded. The strings
 * must outlive every ckt_sym (main's argv). */
void ckt_sym_set_module_dirs(const char *const *dirs, size_t n);
void ckt_sym_free(struct ckt_sym *s);
/* The trace the symbolizer reads for, named by the out-of-memory line when libdw runs out of
 * memory (it cannot go on: the reader ends, status 1). Copied. */
void ckt_sym_set_trace(struct ckt_sym *s, const char *path);
/* When the trace began (its header's start_wall_ns; 0: unknown): a module the trace recorded
 * without a build-id whose file was modified after that may not be the build that ran, which
 * nothing else can tell; one warning says so. */
void ckt_sym_set_start(struct ckt_sym *s, uint64_t start_wall_ns);

/* One MODULE record: load bias, [lo, hi) span, path, build-id in lowercase hex (may be
 * empty). Consecutive MODULE records form one module map (the writer writes the whole map
 * after each dlopen/dlclose); the same module reported again is ignored. When spans overlap
 * (a library unloaded and another loaded in its place) a lookup takes the newest module listed
 * by the map it is asked about. Nothing is opened until an address inside it is looked up.
 * Returns 0 or CKT_ENOMEM. */
int ckt_sym_add_module(struct ckt_sym *s, uint64_t base, uint64_t lo, uint64_t hi, const char *path,
		       size_t path_len, const char *build_id, size_t build_id_len);

/* Frames for the return address pc of a stack read with module map `map`, looked up at pc - 1
 * so that the line is the call's, not the next statement's; at pc itself when `exact` (the
 * frame a signal interrupted: the frame after one whose outermost is `sigtramp`, where pc is
 * the instruction that was to run, and pc - 1 the one before it, maybe another line or
 * function). Returns the number of frames (at least 1) and sets *out to them, valid until the
 * next call; CKT_ENOMEM when out of memory. Results are cached per address, module and
 * exactness. */
int ckt_sym_lookup(struct ckt_sym *s, uint64_t pc, uint32_t map, bool exact, const struct ckt_sym_frame **out);

/* The name the module's symbol table gives the address a (no - 1 here), the answer
 * ckt_sym_lookup falls back to where no DWARF function covers an address: NULL when no symbol
 * does, or a is in no readable module; CKT_ENOMEM sets *err. For tests. */
const char *ckt_sym_symbol_name(struct ckt_sym *s, uint64_t a, uint32_t map, int *err);

/* The module map now (the number of maps seen so far): a STACK record read now takes it, and
 * its lookups pass it as `map` (the writer writes a stack after the map that was current when
 * it was captured). Also ends the current map: the next MODULE record starts a new one. */
uint32_t ckt_sym_map_now(struct ckt_sym *s);

/* A copy of str[0..n) owned by the symbolizer; equal strings give the same pointer. NULL when
 * out of memory. */
const char *ckt_sym_intern(struct ckt_sym *s, const char *str, size_t n);

/* The mangling of the Rust program's own crate, from the symbol of its main ("app::main")
 * once a frame was named by it: CKT_SYM_RUST_LEGACY ("_ZN...17h<hash>E", rustc's default for
 * a program), CKT_SYM_RUST_V0 ("_R": -C symbol-mangling-version=v0), or 0 (none seen). The
 * standard library's crates are no guide: theirs is the toolchain's. */
#define CKT_SYM_RUST_LEGACY 1u
#define CKT_SYM_RUST_V0 2u
unsigned ckt_sym_rust_mangling(const struct ckt_sym *s);

/* Warnings met so far, one per module at most, e.g. "'/usr/lib/x.so' changed since it was
 * traced (build-id differs); its frames are shown as module+offset". */
size_t ckt_sym_nwarnings(const struct ckt_sym *s);
const char *ckt_sym_warning(const struct ckt_sym *s, size_t i);

#endif
