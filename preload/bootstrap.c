/* bootstrap.c: resolves the real allocator symbols once, serves the allocations made while that
 * happens (dlsym itself calls calloc) from a static pool, and owns the library's life cycle:
 * the constructor that starts tracing, the destructor that finishes it, and fork handling.
 * The hooks themselves live in hooks_*.c. */
#include "ckt.h"
#include "ckt_format.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct ckt_real ckt_real;
atomic_int ckt_boot_state; /* 0 not started, 1 resolving, 2 done */
atomic_int ckt_init_ran;   /* 1 once the constructor has begun (hooks_exec.c: an earlier exit) */
atomic_int ckt_active;
uint64_t ckt_t0;

/* ---- clock ---- */
/* The kernel's clock_gettime in the vDSO, called directly: never the program's clock_gettime,
 * which another preload may replace (libfaketime made a 1 s run read 47,833 s and its RSS
 * sampler sleep past the end; ASan's interceptor, called before ASan had set itself up,
 * jumped to address 0). Found once, by name in the vDSO's dynamic symbol table (the image the
 * kernel maps, located by the auxiliary vector; no library call but getauxval); without a
 * vDSO, the system call.
 *
 * Once a thread of the program forbade itself the TSC (prctl PR_SET_TSC, PR_TSC_SIGSEGV;
 * threads it creates inherit that, the tracer's helpers too when restarted from it), the clock
 * is the system call for good (ckt_clock_use_syscall): the vDSO's clock_gettime reads the TSC,
 * and the tracer's clock reads on every hooked call then raised SIGSEGV in a program that
 * never reads a clock itself. The system call reads the clock in the kernel (some 100 ns more
 * per read). The hot path pays one relaxed load of the function and an indirect call, as
 * glibc's own clock_gettime makes. */
typedef int vdso_clock_fn(clockid_t, struct timespec *);
static _Atomic(vdso_clock_fn *) vdso_clock; /* NULL: not looked up yet */

static int clock_by_syscall(clockid_t id, struct timespec *ts)
{
	return (int)syscall(SYS_clock_gettime, id, ts);
}

/* the vDSO's clock_gettime (x86_64 __vdso_clock_gettime, arm64 __kernel_clock_gettime), or
 * clock_by_syscall when the process has no vDSO or it has no such symbol */
static vdso_clock_fn *find_vdso_clock(void)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	if (!base || memcmp(base, ELFMAG, SELFMAG) != 0)
		return clock_by_syscall;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	uintptr_t bias = 0;
	int have_load = 0;
	for (int i = 0; i < eh->e_phnum && !have_load; i++)
		if (ph[i].p_type == PT_LOAD) {
			bias = (uintptr_t)base + ph[i].p_offset - ph[i].p_vaddr;
			have_load = 1;
		}
	/* the section headers are part of the image: the dynamic symbols and their count */
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
	for (int i = 0; have_load && eh->e_shoff && i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || !sh[i].sh_entsize || sh[i].sh_link >= eh->e_shnum)
			continue;
		const ElfW(Sym) *sym = (const ElfW(Sym) *)(base + sh[i].sh_offset);
		const char *str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		size_t n = sh[i].sh_size / sh[i].sh_entsize;
		for (size_t k = 0; k < n; k++) {
			const char *name = str + sym[k].st_name;
			if (sym[k].st_shndx != SHN_UNDEF && (sym[k].st_info & 0xf) == STT_FUNC &&
			    (!strcmp(name, "__vdso_clock_gettime") || !strcmp(name, "__kernel_clock_gettime")))
				return (vdso_clock_fn *)(bias + sym[k].st_value);
		}
	}
	return clock_by_syscall;
}

void ckt_clock_get(clockid_t id, struct timespec *ts)
{
	vdso_clock_fn *f = atomic_load_explicit(&vdso_clock, memory_order_relaxed);
	if (__builtin_expect(!f, 0)) {
		/* the first look: only from NULL, so it cannot undo ckt_clock_use_syscall */
		vdso_clock_fn *none = NULL, *found = find_vdso_clock();
		f = atomic_compare_exchange_strong(&vdso_clock, &none, found) ? found : none;
	}
	f(id, ts);
}

void ckt_clock_use_syscall(void)
{
	atomic_store(&vdso_clock, clock_by_syscall);
}

void ckt_nap(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	syscall(SYS_nanosleep, &ts, NULL);
}

uint64_t ckt_clock_raw(void)
{
	struct timespec ts;
	ckt_clock_get(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the early pool: a bump allocator over a static array. Blocks carry their size in a
 * 16-byte header so realloc can copy them. It is never freed (free() ignores pool blocks). */
#define POOL_SIZE CKT_POOL_SIZE
#define pool ckt_pool
_Alignas(4096) unsigned char ckt_pool[POOL_SIZE];
static atomic_size_t pool_used;

void *ckt_pool_alloc(size_t size, size_t align)
{
	if (align < 16)
		align = 16;
	for (;;) {
		size_t old = atomic_load(&pool_used);
		size_t start = (old + 16 + align - 1) & ~(align - 1);
		if (start + size > POOL_SIZE || size > POOL_SIZE)
			return NULL;
		if (atomic_compare_exchange_weak(&pool_used, &old, start + size)) {
			memcpy(pool + start - sizeof(size_t), &size, sizeof(size_t));
			return pool + start;
		}
	}
}

size_t ckt_pool_size(const void *p)
{
	size_t n;
	memcpy(&n, (const unsigned char *)p - sizeof(size_t), sizeof(size_t));
	return n;
}

/* ---- symbol resolution ---- */
/* The version a program's reference to a malloc-family function names (glibc's base version
 * on x86-64 and on arm64, later ones for functions added later). dlsym finds only a default
 * ("@@") or unversioned definition, dlvsym only a versioned one; a program's versioned
 * reference binds to the first object in load order that has either. glibc's
 * libc_malloc_debug.so (mtrace, MALLOC_CHECK_) defines them as non-default versions only:
 * looked up as the program binds, it is neither skipped (the tracer ahead of it called
 * glibc's malloc past it: the debugging asked for was off) nor missed (ahead of the tracer, it
 * took every allocation without the line that says so). */
struct ckt_rank_q {
	const void *base;
	int at, i;
};

static int ckt_rank_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct ckt_rank_q *q = data;
	for (int k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_LOAD) { /* the first: where the object begins */
			uintptr_t lo = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr - info->dlpi_phdr[k].p_offset;
			if ((const void *)lo == q->base) {
				q->at = q->i;
				return 1;
			}
			break;
		}
	q->i++;
	return 0;
}

/* where the object that defines f comes in load order (INT_MAX: not found) */
static int ckt_load_rank(void *f)
{
	Dl_info info;
	struct ckt_rank_q q = {NULL, INT_MAX, 0};
	if (!f || !dladdr(f, &info))
		return INT_MAX;
	q.base = info.dli_fbase;
	dl_iterate_phdr(ckt_rank_cb, &q);
	return q.at;
}

/* Each name's version in glibc, exactly: a dlvsym that finds nothing allocates its error
 * message, and bootstrap can run inside an allocator's initialization (rustc's jemalloc,
 * holding its init lock, deadlocked on it). Elsewhere: dlsym alone. */
static const char *ckt_glibc_version(const char *name)
{
#if defined(__x86_64__) || defined(__aarch64__)
#if defined(__x86_64__)
	const char *base = "GLIBC_2.2.5", *aligned = "GLIBC_2.16";
#else
	const char *base = "GLIBC_2.17", *aligned = "GLIBC_2.17";
#endif
	if (strcmp(name, "reallocarray") == 0)
		return "GLIBC_2.26";
	return strcmp(name, "aligned_alloc") == 0 ? aligned : base;
#else
	(void)name;
	return NULL;
#endif
}

static void *ckt_lookup_as_bound(void *handle, const char *name)
{
	const char *version = ckt_glibc_version(name);
	void *plain = ckt_sym(handle, name), *versioned = version ? dlvsym(handle, name, version) : NULL;
	if (!versioned || versioned == plain || !plain)
		return plain ? plain : versioned;
	return ckt_load_rank(versioned) < ckt_load_rank(plain) ? versioned : plain;
}

static int ckt_defined_at(void *f, Dl_info *info);

/* Where no object after the tracer defines `name`, the definition ahead of it that the
 * program's calls reach, when it is not the tracer's own: LD_PRELOAD="libc.so.6
 * libcuzktrace.so" puts the C library first. The tracer's hooks then see few of those calls,
 * which the check of allocators ahead of it says in one line (ckt_init); before 0.2.60 the
 * program did not run at all (status 70). A non-PIE program that takes malloc's address
 * answers with its PLT stub, which defines nothing: then the C library's own (the one object
 * that defines these where none comes after the tracer), from its handle. */
static void *ckt_defined_ahead(const char *name)
{
	void *f = ckt_lookup_as_bound(RTLD_DEFAULT, name);
	Dl_info it, self;
	if (f && !ckt_defined_at(f, &it)) {
		void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		f = h ? ckt_lookup_as_bound(h, name) : NULL;
		if (h)
			dlclose(h); /* still loaded: the program's C library */
	}
	if (!f || !dladdr(f, &it) || !dladdr((void *)&ckt_defined_ahead, &self) || it.dli_fbase == self.dli_fbase)
		return NULL;
	return f;
}

static const char *const hook_names[] = {
#define CKT_NAME(name, required) #name,
	CKT_HOOKS(CKT_NAME)
#undef CKT_NAME
};
static const int hook_required[] = {
#define CKT_REQ(name, required) required,
	CKT_HOOKS(CKT_REQ)
#undef CKT_REQ
};

/* A program's .preinit_array runs before libc sets environ (in its own initializer, after
 * the preinit functions): an allocation there bootstrapped the tracer with no environment,
 * and every CUZKTRACE_ setting was ignored without a word (ASan's runtime allocates there).
 * The environment is on the initial stack: argc, argv[0..argc-1], NULL, then it; ld.so's
 * __libc_stack_end points at argc (when ld.so runs the program itself, glibc 2.36 and later
 * move argv and the environment down in place; earlier ones leave the original argc and
 * environment there). libc sets environ to that same array moments later. */
extern void *__libc_stack_end;
char **ckt_initial_argv(long *argc)
{
	*argc = __libc_stack_end ? *(const long *)__libc_stack_end : -1;
	char **argv = (char **)__libc_stack_end + 1;
	if (*argc < 0 || *argc >= (1L << 24) || argv[*argc] != NULL)
		return NULL;
	/* glibc before 2.36 on x86_64, started as "ld.so prog": ld.so wrote the new argc over a
	 * skipped argument's slot; a number there is no string */
	for (long i = 0; i < *argc; i++)
		if ((uintptr_t)argv[i] < 4096)
			return NULL;
	return argv;
}

static void ckt_environ_early(void)
{
	long argc;
	char **argv = environ ? NULL : ckt_initial_argv(&argc);
	if (argv)
		environ = argv + argc + 1;
}

/* Resolves every real symbol eagerly, once: resolving lazily inside an mmap hook can deadlock
 * an allocator that calls mmap under its own init lock. Concurrent first calls from other
 * threads are served from the pool until this returns. */
/* A sanitizer's runtime the tracer cannot run beside (ckt_sanitizer_runtime), found by the
 * bootstrap: the constructor says so and leaves the tracer idle */
static const char *sanitizer, *sanitizer_obj, *sanitizer_flag;

/* The bootstrap beside such a runtime, maybe inside its start (its first allocation): the
 * real functions as the loader binds them after the tracer (the runtime's interceptors), by
 * dlsym alone, and nothing else; the tracer stays inactive. */
static void ckt_bootstrap_idle(void **slot)
{
	enum { n = sizeof(hook_names) / sizeof(hook_names[0]) };
	void *found[n];
	for (size_t i = 0; i < n; i++)
		found[i] = ckt_next(hook_names[i]);
	for (size_t i = 1; i < n; i++)
		slot[i] = found[i];
	atomic_store_explicit((_Atomic(void *) *)&slot[0], found[0], memory_order_release);
}

void ckt_bootstrap(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&ckt_boot_state, &expect, 1))
		return;
	int saved_errno = errno; /* from inside the program's first call: leave it as it was */
	ckt_t0 = ckt_clock_raw();
	ckt_tls.guard++;
	void **slot = (void **)&ckt_real;
	sanitizer = ckt_sanitizer_runtime(&sanitizer_obj, &sanitizer_flag);
	if (sanitizer) {
		ckt_bootstrap_idle(slot);
		atomic_store(&ckt_boot_state, 2);
		ckt_tls.guard--;
		errno = saved_errno;
		return;
	}
	void *found[sizeof(hook_names) / sizeof(hook_names[0])];
	for (size_t i = 0; i < sizeof(hook_names) / sizeof(hook_names[0]); i++) {
		found[i] = i < CKT_MALLOC_FAMILY ? ckt_lookup_as_bound(RTLD_NEXT, hook_names[i])
						 : ckt_next(hook_names[i]);
		if (!found[i] && hook_required[i])
			found[i] = ckt_defined_ahead(hook_names[i]);
		if (!found[i] && hook_required[i]) {
			ckt_log("error: cannot find the real '", hook_names[i],
				"' in the libraries after libcuzktrace.so", "; cannot run");
			_exit(70);
		}
	}
	ckt_callout_init(found[0]); /* before anything is traced: see CKT_GUARD_HOOK */
	/* publish free before malloc: once malloc is set, hooks stop using the pool, and every
	 * pointer they hand out must be releasable through the real free. */
	for (size_t i = 0; i < sizeof(hook_names) / sizeof(hook_names[0]); i++)
		if (i != 0)
			slot[i] = found[i];
	ckt_thread_init();
	/* settings are read here, not in the constructor: whether a block is counted exactly or
	 * sampled must not change between its allocation and its free */
	ckt_environ_early();
	ckt_config_load();
	ckt_sample_init_bound(found[0], ckt_lookup_as_bound(RTLD_NEXT, "malloc_usable_size"));
	atomic_store(&ckt_active, 1);
	atomic_store_explicit((_Atomic(void *) *)&slot[0], found[0], memory_order_release);
	atomic_store(&ckt_boot_state, 2);
	ckt_tls.guard--;
	errno = saved_errno;
}

/* ---- life cycle ---- */
static void on_fork_child(void)
{
	/* Only the forking thread exists in the child, the writer does not, and the trace file
	 * belongs to the parent: a child that does not exec runs untraced (an exec'd child is
	 * traced to its own file by its own copy of this library). */
	atomic_store(&ckt_active, 0);
	ckt_arena_after_fork_child();
	ckt_writer_after_fork_child();
	ckt_thread_after_fork_child();
	ckt_exec_after_fork_child();
	ckt_signals_after_fork_child();
	ckt_cxx_after_fork_child();
	ckt_modules_after_fork_child();
	ckt_log_after_fork_child();
}

/* An allocator linked into the program (jemallocator, mimalloc, tcmalloc built in) that
 * exports malloc itself comes before us in symbol lookup: then most heap allocations never
 * reach our hooks, and the report would show a small heap beside a large RSS. Say so once.
 * Also notes whether malloc and calloc are ours (ckt_alloc_foreign): glibc functions the
 * tracer calls that allocate would otherwise run that allocator inside our hooks. */
atomic_int ckt_alloc_foreign = 1; /* until checked */

/* Valgrind's tools that keep their own heap (memcheck, massif, helgrind, drd, dhat) replace
 * malloc and free in every object, this library's too (their vgpreload_<tool> library is
 * loaded for it): no allocation reaches the hooks, and the trace read "peak heap 0 B" without
 * a word. Say so once; mmap and the CUDA calls are still traced. */
static int vg_tool(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *n = info->dlpi_name ? strstr(info->dlpi_name, "/vgpreload_") : NULL;
	if (!n || !strncmp(n, "/vgpreload_core", 15))
		return 0;
	*(const char **)data = info->dlpi_name;
	return 1;
}

/* What the check below found, before the trace's header is written (its keys
 * allocator_ahead and allocator_ahead_function: the report says it too, where the stderr line
 * may be gone): the first of malloc, free, mmap, calloc defined ahead of the tracer and the
 * object defining it, or valgrind's preload library. */
static struct {
	const char *fn, *obj;
	const char *mmap_obj; /* the object defining mmap ahead of the tracer, if any */
	int valgrind, foreign; /* foreign: malloc or calloc is not ours (ckt_alloc_foreign) */
} ahead;

int ckt_allocator_ahead(const char **fn, const char **obj)
{
	*fn = ahead.fn;
	*obj = ahead.obj;
	return ahead.fn != NULL;
}

/* Whether f, what the program's calls of an allocator function bind to, is a function some
 * object defines. A non-PIE executable that takes malloc's address exports a PLT stub as the
 * "canonical" malloc, which still calls ours: an undefined symbol, not counted. The name is
 * not compared: allocators define malloc as an alias (tcmalloc's malloc is found as
 * __libc_malloc, its realloc as tc_realloc, mimalloc's as __libc_malloc), and with the name
 * compared, tcmalloc ahead of the tracer got no line and the tracer's reallocarray gave its
 * blocks to glibc's realloc: abort (sort, sed, grep -r). */
static int ckt_defined_at(void *f, Dl_info *info)
{
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(f, info, (void **)&sym, RTLD_DL_SYMENT) || !sym || sym->st_shndx == SHN_UNDEF)
		return 0;
	unsigned type = ELF64_ST_TYPE(sym->st_info); /* the same 4 bits in ELF32 */
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* The name of the object at position `want` in load order, copied out of the callback: the
 * caller opens it after dl_iterate_phdr has returned. dlopen, dlclose and dladdr take the
 * loader's load lock, and dl_iterate_phdr holds its write lock around the callback, while a
 * dlopen on another thread holds the load lock and takes the write lock to add its object:
 * calling them inside the callback could deadlock. (The hooks that run inside the program's
 * calls, hooks_cxx.c's local_of and hooks_cuda.c's driver lookup, do not open at all: elfsym.c.) */
struct ckt_nth_q {
	int want, index;
	char name[PATH_MAX];
};

static int ckt_nth_name(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct ckt_nth_q *q = data;
	if (q->index++ != q->want)
		return 0;
	const char *n = info->dlpi_name ? info->dlpi_name : "";
	size_t len = strlen(n);
	if (len >= sizeof(q->name))
		len = 0; /* not a path the loader could have opened: skipped */
	memcpy(q->name, n, len);
	q->name[len] = 0;
	return 1;
}

/* The definition of `name` that the object at `path` makes itself (not one of its
 * dependencies'), or NULL. */
static void *ckt_defined_by(const char *path, const char *name)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	/* the version the program binds to (glibc's libc_malloc_debug defines malloc as a
	 * non-default version) */
	void *f = ckt_lookup_as_bound(h, name);
	Dl_info di;
	/* by the object's name (its mapping's start is not its load bias when its first segment
	 * is not at address 0) */
	if (f && !(dladdr(f, &di) && di.dli_fname && !strcmp(di.dli_fname, path)))
		f = NULL;
	dlclose(h);
	return f;
}

/* What the program's calls of function `name` reach, found at f: f itself where an object
 * defines it, else (f is a non-PIE executable's canonical PLT stub, which the executable
 * exports when it takes the function's address) the first definition after the executable in
 * load order, where the stub leads: the tracer's, or an allocator's preloaded ahead of it
 * (tcmalloc and jemalloc ahead got no line, and reallocarray went to glibc's realloc:
 * "realloc(): invalid pointer", for a non-PIE program that takes realloc's address, as
 * Debian's python3 does malloc's). NULL when none is found. One walk of the loaded objects per
 * object looked at (a program loads tens; this runs once per function, at start, and only for
 * such a stub). */
static void *ckt_bound_to(const char *name, void *f, Dl_info *info)
{
	if (ckt_defined_at(f, info))
		return f;
	for (int k = 1; k < 4096; k++) { /* 0: the program */
		struct ckt_nth_q q = {k, 0, ""};
		if (!dl_iterate_phdr(ckt_nth_name, &q))
			break; /* past the last object */
		if (!q.name[0])
			continue; /* the vDSO */
		void *d = ckt_defined_by(q.name, name);
		if (d)
			return ckt_defined_at(d, info) ? d : NULL;
	}
	return NULL;
}

static void ckt_find_ahead(void)
{
	if (dl_iterate_phdr(vg_tool, &ahead.obj)) {
		ahead.fn = "malloc";
		ahead.valgrind = 1;
		return;
	}
	static const char *const names[] = {"malloc", "free", "mmap", "calloc"};
	void *ours[] = {(void *)ckt_self_malloc, (void *)ckt_self_free, (void *)ckt_self_mmap,
			(void *)ckt_self_calloc};
	for (int i = 0; i < 4; i++) {
		void *f = i == 2 ? dlsym(RTLD_DEFAULT, names[i]) : ckt_lookup_as_bound(RTLD_DEFAULT, names[i]);
		Dl_info info;
		if (!f || f == ours[i] || !(f = ckt_bound_to(names[i], f, &info)) || f == ours[i])
			continue;
		const char *obj = info.dli_fname && info.dli_fname[0] ? info.dli_fname : "the program";
		if (i != 1 && i != 2)
			ahead.foreign = 1;
		if (i == 2)
			ahead.mmap_obj = obj;
		if (!ahead.fn) {
			ahead.fn = names[i];
			ahead.obj = obj;
		}
	}
}

/* Says what ckt_find_ahead found, in one line. */
static void ckt_check_interposition(void)
{
	struct ckt_line l = {.len = 0};
	if (ahead.valgrind) {
		ckt_line_str(&l, "cuzktrace: warning: running under valgrind, whose '");
		ckt_line_str(&l, ahead.obj);
		ckt_line_str(&l, "' replaces malloc and free in every library, the tracer's too: heap "
				 "allocations are not traced (mmap and CUDA calls are)");
		ckt_line_emit(&l);
		return;
	}
	if (ahead.fn) {
		ckt_line_str(&l, "cuzktrace: warning: '");
		ckt_line_str(&l, ahead.fn);
		ckt_line_str(&l, "' is provided by '");
		ckt_line_str(&l, ahead.obj);
		ckt_line_str(&l, "' ahead of the tracer: allocations through it are not traced (an "
				 "allocator linked into the program?); expect RSS well above the traced heap");
		ckt_line_emit(&l);
		/* an allocator that defines mmap too (tcmalloc's minimal library, for its hooks)
		 * takes the program's own mappings out of the trace as well: said apart, as the
		 * mmap figures then miss them */
		if (ahead.mmap_obj && strcmp(ahead.fn, "mmap") != 0) {
			l.len = 0;
			ckt_line_str(&l, "cuzktrace: warning: 'mmap' is provided by '");
			ckt_line_str(&l, ahead.mmap_obj);
			ckt_line_str(&l, "' ahead of the tracer too: mappings made through it are not traced "
					 "(the mmap figures leave them out)");
			ckt_line_emit(&l);
		}
	}
	atomic_store(&ckt_alloc_foreign, ahead.foreign);
	(void)ckt_program_realloc();
}

/* The program's realloc when a definition of its own (or a library's ahead of the tracer)
 * comes before ours, else NULL: found at its first use (a library's constructor may call
 * reallocarray before ours runs, and a tracer that cannot trace runs no check at all). */
static __typeof__(realloc) *_Atomic foreign_realloc;
static atomic_int foreign_realloc_known;

__typeof__(realloc) *ckt_program_realloc(void)
{
	if (CKT_LIKELY(atomic_load_explicit(&foreign_realloc_known, memory_order_acquire)))
		return atomic_load_explicit(&foreign_realloc, memory_order_relaxed);
	void *re = ckt_lookup_as_bound(RTLD_DEFAULT, "realloc");
	Dl_info info;
	if (re && re != (void *)ckt_self_realloc && (re = ckt_bound_to("realloc", re, &info)) &&
	    re != (void *)ckt_self_realloc)
		atomic_store_explicit(&foreign_realloc, (__typeof__(realloc) *)re, memory_order_relaxed);
	atomic_store_explicit(&foreign_realloc_known, 1, memory_order_release);
	return atomic_load_explicit(&foreign_realloc, memory_order_relaxed);
}

static void ckt_quick_exit_handler(void);
extern int __cxa_at_quick_exit(void (*fn)(void), void *dso); /* glibc 2.18 */
atomic_int ckt_quick_armed, ckt_quick_elsewhere;

/* Another copy of the tracer ahead of this one (LD_PRELOAD names it twice, by two paths: an
 * installed copy and a build's): its path, else NULL. That copy's hooks are the program's;
 * this one's are its "real" functions. Both traced: two files, this one's warning that
 * malloc came from an allocator ahead of it, and a name for an exec that never was. */
static const char *ckt_other_copy(void)
{
	/* ours at least: no failed lookup. The phase API alone is not enough: a program may
	 * export stubs of it (weak fallbacks, -rdynamic); the tracer also defines malloc and the
	 * CUDA driver's allocators, and one object ahead of this one defining all three is a
	 * copy of it */
	static const char *const names[] = { "cuzktrace_phase_begin", "cuMemAlloc_v2", "malloc" };
	Dl_info a = {0}, b, self;
	if (!dladdr((void *)&ckt_other_copy, &self))
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *f = dlsym(RTLD_DEFAULT, names[i]);
		if (!f || !dladdr(f, &b) || b.dli_fbase == self.dli_fbase || (i && b.dli_fbase != a.dli_fbase))
			return NULL;
		if (!i)
			a = b;
	}
	return a.dli_fname ? a.dli_fname : "?";
}

/* ---- run as a program (`./libcuzktrace.so`, a tab completion away from LD_PRELOAD=) ----
 * The library names the dynamic loader and an entry point, as libc.so.6 does, so that running
 * it says what it is and exits 2 instead of crashing (it ended by SIGSEGV; since 0.2.51). The
 * loader runs the constructors first: ckt_init sees the entry is ours and starts no trace. */
#if defined(__x86_64__)
#define CKT_INTERP "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define CKT_INTERP "/lib/ld-linux-aarch64.so.1"
#endif
#ifdef CKT_INTERP
__attribute__((section(".interp"), used)) static const char ckt_interp[] = CKT_INTERP;

__attribute__((noreturn, used, visibility("hidden"), force_align_arg_pointer)) void ckt_run_as_program(void);

/* entered from the kernel (or the loader) with the stack as a process starts: 16-byte
 * aligned, where a function expects it 8 bytes off (a return address): force_align_arg_pointer */
void ckt_run_as_program(void)
{
	const char *me = (const char *)getauxval(AT_EXECFN);
	/* its path: the kernel's mapping of it, else (without /proc) the name it was run by where
	 * absolute, else the loader's where absolute (for the program, argv[0]: not made absolute
	 * against a directory it may not lie in) */
	static char path[PATH_MAX];
	Dl_info self;
	const char *known = ckt_mapped_file((uintptr_t)&ckt_run_as_program, path, sizeof(path)) ? path : NULL;
	if (!known && me && me[0] == '/')
		known = me;
	if (!known && dladdr((void *)&ckt_run_as_program, &self) && self.dli_fname && self.dli_fname[0] == '/')
		known = self.dli_fname;
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace ");
	ckt_line_str(&l, CKT_TRACER_VERSION);
	ckt_line_str(&l, ": '");
	ckt_line_str(&l, me ? me : "libcuzktrace.so");
	ckt_line_str(&l, "' is a library to preload, not a program: LD_PRELOAD=");
	ckt_line_str(&l, known ? known : "/full/path/to/libcuzktrace.so");
	ckt_line_str(&l, " PROGRAM [ARGS...], then cuzktrace-report on the trace it announces");
	ckt_line_emit(&l);
	_exit(2);
}

/* Run as a program: the entry is this copy's, or another copy's of this library (preloaded
 * into itself, LD_PRELOAD=lib lib, also run by the loader: that copy stays idle and says
 * nothing): the entry lies at this function's offset in its object, whose code there is this
 * function's. No /proc needed, nothing read but memory. */
static int run_as_program(void)
{
	uintptr_t e = (uintptr_t)getauxval(AT_ENTRY), f = (uintptr_t)&ckt_run_as_program;
	if (e == f)
		return 1;
	Dl_info me, it;
	return e && dladdr((void *)f, &me) && dladdr((void *)e, &it) && me.dli_fbase && it.dli_fbase &&
	       e - (uintptr_t)it.dli_fbase == f - (uintptr_t)me.dli_fbase && memcmp((const void *)e, (const void *)f, 32) == 0;
}
#else
static int run_as_program(void)
{
	return 0;
}
#endif

/* The end of a line that says the tracer cannot trace this program: "running untraced", or
 * with CUZKTRACE_STRICT=1 "exiting (CUZKTRACE_STRICT=1)", and the caller exits with status 70,
 * as where the trace cannot be created (since 0.2.53: these ran untraced, status 0). With
 * advice, "running untraced (<advice>" or "exiting (CUZKTRACE_STRICT=1; <advice>": the caller
 * ends it, and the parenthesis. */
static void line_untraced(struct ckt_line *l, const char *advice)
{
	ckt_line_str(l, ckt_config.strict ? "exiting (CUZKTRACE_STRICT=1" : "running untraced");
	if (advice) {
		ckt_line_str(l, ckt_config.strict ? "; " : " (");
		ckt_line_str(l, advice);
	} else if (ckt_config.strict)
		ckt_line_str(l, ")");
}

/* Says the line that ends with line_untraced, then exits with status 70 under
 * CUZKTRACE_STRICT=1, or leaves the constructor's set-up as untraced (its guard and errno) */
static void say_untraced(struct ckt_line *l, int saved_errno)
{
	ckt_line_emit(l);
	if (ckt_config.strict)
		_exit(70);
	ckt_children_off();
	ckt_tls.guard--;
	errno = saved_errno;
}

__attribute__((constructor(101))) static void ckt_init(void)
{
	/* the program starts with errno 0 (C); our set-up's failed probes (libunwind's memory
	 * checks, an existing file) must not show there */
	int saved_errno = errno;
	atomic_store(&ckt_init_ran, 1);
	ckt_cxx_startup(); /* before anything the program runs can dlopen */
	if (atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	ckt_tls.guard++;
	if (run_as_program()) { /* no trace: ckt_run_as_program says what this is */
		atomic_store(&ckt_active, 0);
		ckt_tls.guard--;
		errno = saved_errno;
		return;
	}
	if (sanitizer) { /* the bootstrap stayed idle: the settings are read here */
		ckt_environ_early();
		ckt_config_load();
	}
	if (syscall(SYS_gettid) <= 0) {
		/* gettid refused from the start (a seccomp filter): every thread's events would be
		 * recorded under id -1, which the reader refuses (the trace was announced as whole
		 * and read as corrupt) */
		atomic_store(&ckt_active, 0);
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: error: the system call gettid is refused (a seccomp filter?), so "
				 "the tracer cannot tell threads apart; ");
		line_untraced(&l, NULL);
		say_untraced(&l, saved_errno);
		return;
	}
	if (sanitizer) { /* found by the bootstrap: the runtime has started by now */
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: error: the program is built with ");
		ckt_line_str(&l, sanitizer);
		ckt_line_str(&l, " ('");
		ckt_line_str(&l, sanitizer_obj);
		ckt_line_str(&l, "'), whose runtime takes the C library's calls in the tracer too");
		if (sanitizer_flag) {
			ckt_line_str(&l, " and cannot run beside it; ");
			line_untraced(&l, "trace a build without ");
			ckt_line_str(&l, sanitizer_flag);
			ckt_line_str(&l, ")");
		} else {
			Dl_info self;
			ckt_line_str(&l, " and starts after it; ");
			line_untraced(&l, "preload the runtime ahead of the tracer: ");
			ckt_line_str(&l, "LD_PRELOAD=");
			ckt_line_str(&l, sanitizer_obj);
			ckt_line_str(&l, ":");
			ckt_line_str(&l, dladdr((void *)&ckt_bootstrap, &self) && self.dli_fname ? self.dli_fname
												 : "libcuzktrace.so");
			ckt_line_str(&l, ")");
		}
		say_untraced(&l, saved_errno);
		return;
	}
	const char *other = ckt_other_copy();
	if (other) { /* the first copy traces; this one passes every call through, keeps no
		      * descriptor, and takes itself out of LD_PRELOAD as the first does
		      * (CUZKTRACE_CHILDREN=0: the children loaded it alone and traced) */
		Dl_info self;
		struct ckt_line l = {.len = 0};
		atomic_store(&ckt_active, 0);
		ckt_line_str(&l, "cuzktrace: warning: the tracer is loaded twice ('");
		ckt_line_str(&l, other);
		ckt_line_str(&l, "' ahead of '");
		ckt_line_str(&l, dladdr((void *)&ckt_other_copy, &self) && self.dli_fname ? self.dli_fname : "?");
		ckt_line_str(&l, "'): the first traces, the second stays idle");
		ckt_line_emit(&l); /* (before the log's set-up: to descriptor 2) */
		ckt_children_off();
		ckt_tls.guard--;
		errno = saved_errno;
		return;
	}
	ckt_fd_start_window(1);
	ckt_log_init();
	ckt_phase_rules_load();
	ckt_children_off();
	pthread_atfork(NULL, NULL, on_fork_child);
	ckt_find_ahead(); /* before the header, which names it */
	if (ckt_writer_start() == 0) {
		ckt_child_relay_init();
		/* with no object's handle: __cxa_finalize of the tracer's object, which an exit's
		 * _dl_fini runs after the tracer's destructor, removes the at_quick_exit handlers
		 * registered under its handle, and a quick_exit on another thread then ran none of
		 * the tracer's and ended the process in the middle of that exit's final flush: a
		 * trace of 0 events and no line (a thread's exit racing main's quick_exit, 16 runs of
		 * 20; since 0.2.53) */
		if (__cxa_at_quick_exit(ckt_quick_exit_handler, NULL) == 0)
			atomic_store(&ckt_quick_armed, 1);
		ckt_exit_main_watch();
		ckt_check_interposition();
		ckt_thread_watch_main();
		(void)ckt_modules_check();
		ckt_stacks_init();
		if (ckt_config.rss_ms)
			ckt_rss_start();
		ckt_signals_start();
	} else {
		atomic_store(&ckt_active, 0);
		if (ckt_config.strict)
			_exit(70);
		ckt_log_drop_copy();
		ckt_proc_close();
	}
	ckt_fd_start_window(0); /* the program's threads may run from here on (ckt_fd_high) */
	ckt_tls.guard--;
	errno = saved_errno;
}

/* see ckt.h */
void ckt_hold_signals(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	ckt_tls.guard++;
}

void ckt_release_signals(const sigset_t *old)
{
	ckt_tls.guard--;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The last flush (the default mode's running totals, then the END record), for exit (fast:
 * without joining the writer, see below) or exec. Signals wait until the trace is finished: a
 * handler that ends the process (exit or _exit, which pass through with the guard raised) cut
 * the final flush short, without a word (tests/progs/sigflush.c); the caller's mask is back
 * afterwards, for the program's remaining exit handlers or the exec's new image, and a pending
 * signal is delivered then. The caller has raised the guard. */
void ckt_final_flush(int reason, int fast)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ckt_phase_flush_all_deferred(&ckt_tls);
	if (ckt_sample_r)
		ckt_sample_flush(&ckt_tls);
	if (fast)
		ckt_writer_finish_fast(reason);
	else
		ckt_writer_finish(reason);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The process ends (exit, return from main, _exit, quick_exit): the last flush and the END
 * record, without joining a thread (ckt_writer_finish_fast: exit may come from a signal
 * handler that interrupted the program inside malloc or pthread_join, whose locks a join
 * needs; it hung). */
void ckt_finish_exit(void)
{
	ckt_finish_process(CKT_END_EXIT);
}

void ckt_finish_process(int reason)
{
	/* A child made without fork's atfork handlers (_Fork, clone, a vfork child that calls
	 * exit or _exit): the trace and its threads are the parent's. Nothing is written, not
	 * even the guard: a vfork child shares the parent's memory. */
	pid_t tp = ckt_writer_pid();
	if (tp && getpid() != tp) {
		ckt_child_untraced_exit(); /* a forked process that did not exec */
		return;
	}
	/* signals first: a handler's _exit between the guard and the flush's own mask found the
	 * guard raised and ended the process with the trace cut short */
	sigset_t old;
	ckt_hold_signals(&old);
	ckt_final_flush(reason, 1);
	/* the guard stays raised: whatever this thread does after the final flush is not traced */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* a fatal signal's end, claimed meanwhile by another thread, goes first: a return from
	 * main (glibc's own exit, no hook sees it) ended the process with its status instead,
	 * 1 run in 30 */
	ckt_signal_wait_if_ending();
}

__attribute__((destructor(101))) static void ckt_fini(void)
{
	/* run by another process: a vfork child's exit runs the parent's _dl_fini in the parent's
	 * memory, so the parent's own exit will not run it (in a fork child the note changes only
	 * the child's copy) */
	pid_t tp = ckt_writer_pid();
	if (tp && getpid() != tp && atomic_load(&ckt_active) &&
	    ckt_thread_child_memory() != CKT_CHILD_OWN) {
		/* kcmp could not tell (a vfork child that shares the memory ends with _exit in the
		 * exit hook, so it comes here only from glibc's own exit, and kcmp said "unknown") */
		static atomic_int said;
		ckt_exit_fini_elsewhere();
		if (!atomic_exchange(&said, 1))
			ckt_log_process(", a child that may share the traced memory (a vfork child that "
					"called exit?), ran the parent's exit handlers: the trace may end "
					"cut short");
	}
	ckt_finish_exit();
}

/* quick_exit runs the at_quick_exit handlers, newest first, then an _exit the hook cannot see
 * (glibc calls it inside): this handler, registered at start, runs after the program's. */
static void ckt_quick_exit_handler(void)
{
	pid_t tp = ckt_writer_pid();
	if (tp && getpid() != tp) /* a vfork child's, in our memory: see quick_exit */
		atomic_store(&ckt_quick_elsewhere, 1);
	ckt_finish_exit();
}

/* glibc's count of the process's threads (__nptl_nthreads, GLIBC_PRIVATE, exported by libc
 * since 2.34; NULL where it is not): its last thread to end through glibc (start_thread, or
 * main's pthread_exit) finds it 0 and calls exit(0), which runs the atexit handlers and the
 * destructors. The tracer's helpers are taken out of it (since 0.2.37): counted, they kept it
 * above 0 after main's pthread_exit, so that the program's last thread ended without that
 * exit, the writer finished the trace when it saw no thread of the program left, and glibc's
 * exit ran later from the last helper: what the atexit handlers and destructors allocated was
 * not in the trace, and they ran on a helper (its TLS, its signal mask). */
static unsigned int *nptl_nthreads(void)
{
	static unsigned int *n;
	static int looked;
	if (!looked) {
		n = (unsigned int *)dlsym(RTLD_DEFAULT, "__nptl_nthreads");
		looked = 1;
	}
	return n;
}

/* A helper's start: as it ends it counts in glibc's count again (start_thread takes it off
 * then), so that its end is not the one that finds the count 0; unless the count is 0
 * already: glibc's exit(0) after the program's last thread is running, and the helper's end
 * (the writer's, after the final flush) must not make a second one (start_thread's decrement
 * of 0 reads as not the last) */
static void *ckt_helper_entry(void *fn)
{
	void *r = ((void *(*)(void *))fn)(NULL);
	unsigned int *n = nptl_nthreads(), c = n ? __atomic_load_n(n, __ATOMIC_SEQ_CST) : 0;
	while (c && !__atomic_compare_exchange_n(n, &c, c + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return r;
}

int ckt_spawn_helper(void *(*fn)(void *), unsigned long *thread_out, void **stack)
{
	/* Helper threads block every signal, so they never steal one the application expects on
	 * its own threads; they run with the guard raised (set by fn itself). Each runs on a
	 * stack of its own, mapped once and used again when the helper is restarted (after it
	 * was joined): never one from glibc's cache of thread stacks, so creating or joining a
	 * helper never makes glibc free the cached stacks' TLS blocks of the program's threads
	 * (blocks the trace holds) out of our sight. */
	/* glibc puts the thread's static TLS (every module's, the program's too: it can be
	 * megabytes) at the top of a given stack: add what it needs to ours */
	static size_t size;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return -ENOMEM;
	if (!size) {
		size_t (*minstack)(const pthread_attr_t *) =
			(size_t(*)(const pthread_attr_t *))dlsym(RTLD_DEFAULT, "__pthread_get_minstack");
		size_t tls = minstack ? minstack(&attr) : ((size_t)8 << 20);
		size = (CKT_HELPER_STACK + tls + 4095) & ~(size_t)4095;
	}
	int mapped_now = !*stack;
	if (!*stack) {
		void *m = ckt_ownmaps_map(size, MAP_NORESERVE | MAP_STACK);
		if (!m) {
			pthread_attr_destroy(&attr);
			return -ENOMEM;
		}
		(void)syscall(SYS_mprotect, m, 4096, PROT_NONE); /* a guard page below it */
		*stack = m;
	}
	int rc = pthread_attr_setstack(&attr, *stack, size);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t th;
	unsigned int *n = nptl_nthreads();
	if (rc == 0)
		rc = pthread_create(&th, &attr, ckt_helper_entry, (void *)fn);
	if (rc == EINVAL) /* a stack glibc still finds too small: one of glibc's own, then */
		rc = pthread_create(&th, NULL, ckt_helper_entry, (void *)fn);
	if (rc == 0 && n) /* (pthread_create counted it before it returned) */
		__atomic_sub_fetch(n, 1, __ATOMIC_SEQ_CST);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc == 0) {
		*thread_out = (unsigned long)th;
	} else if (mapped_now) { /* refused: its stack is not kept (address space a limit counts) */
		ckt_ownmaps_unmap(*stack, size);
		*stack = NULL;
	}
	return -rc;
}
