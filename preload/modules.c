/* modules.c: the module map (path, load bias, address span, build-id of every loaded object),
 * so the reader can symbolize offline and notice a changed binary. A snapshot is taken at init
 * and whenever glibc's load/unload counters (dlpi_adds/dlpi_subs) move: checked by the writer
 * on each flush and by the stack table whenever it meets a new stack, so a library that
 * allocated before being unloaded is always in the map. dlopen itself is not wrapped: glibc
 * resolves a bare library name against the RUNPATH of dlopen's caller, which a wrapper would
 * change. Snapshots are pre-encoded as MODULE records and handed to the writer on a
 * lock-free list. */
#include "ckt.h"

#include <elf.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ckt_aux *_Atomic ckt_auxs;
static _Atomic unsigned long long seen_gen = ~0ull;

struct known;
struct build {
	uint8_t *buf, *p, *end;
	int overflow;
	struct known *known; /* the objects listed, for unwind_lookup (NULL: none kept) */
};

/* glibc 2.35's r_debug_extended: r_version 2, and r_next the next namespace's (dlmopen) */
struct ckt_r_debug_ext {
	struct r_debug base;
	struct ckt_r_debug_ext *r_next;
};

/* The loader's own r_debug, as debuggers find it: the DT_DEBUG entry of the program's dynamic
 * section, which the loader points at it (the symbol _r_debug can be the program's own, or a
 * copy a non-PIE program took of it at start, which the loader never updates). NULL: none. */
static int find_dt_debug(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		     d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_DEBUG)
				*(const void **)arg = (const void *)d->d_un.d_ptr;
	}
	return 1; /* the program is the first object */
}

/* The sanitizer runtimes that cannot run under the tracer. Their interceptors take the C
 * library's names in every object, the tracer's too, and they start in the program's
 * .preinit_array, where their first allocation starts the tracer: its calls then reach
 * interceptors not set up yet (gcc's ThreadSanitizer: SIGSEGV in dl_iterate_phdr's;
 * LeakSanitizer: "CHECK failed ... lsan_init_is_running", status 23; clang's
 * MemorySanitizer: the same, status 1); started (clang's ThreadSanitizer, linked into the
 * program) they see the tracer's threads, not built for them, as data races, and the program
 * ends with status 66 after a screen of reports. AddressSanitizer, and LeakSanitizer linked
 * into the program or preloaded ahead of the tracer, trace (see README). A runtime linked into the program is told by the
 * program's own dynamic symbols (clang exports the runtime's interface); a runtime of its
 * own, by the loaded objects' names (the loader's list, from its r_debug). Both read in
 * memory, with no call an interceptor could take but getauxval's. */
static const struct {
	const char *init, *lib, *lib2, *name, *flag;
	int ahead_ok; /* linked into the program, or preloaded ahead of the tracer, it traces */
} sanitizers[] = {
	{ "__tsan_init", "libtsan.so", "libclang_rt.tsan", "ThreadSanitizer", "-fsanitize=thread", 0 },
	{ "__msan_init", "libmsan.so", "libclang_rt.msan", "MemorySanitizer", "-fsanitize=memory", 0 },
	{ "__lsan_init", "liblsan.so", "libclang_rt.lsan", "LeakSanitizer", "-fsanitize=leak", 1 },
};

/* the file name of path (past its last '/') starts with want */
static int file_starts(const char *path, const char *want)
{
	const char *f = path;
	for (const char *c = path; c && *c; c++)
		if (*c == '/')
			f = c + 1;
	if (!f)
		return 0;
	size_t i = 0;
	while (want[i] && f[i] == want[i])
		i++;
	return !want[i];
}

const char *ckt_sanitizer_runtime(const char **object, const char **flag)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	size_t n = getauxval(AT_PHNUM);
	*object = NULL;
	if (!ph || !n)
		return NULL;
	struct dl_phdr_info exe = { .dlpi_phdr = ph, .dlpi_phnum = (ElfW(Half))n };
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			exe.dlpi_addr = (uintptr_t)ph - ph[i].p_vaddr;
	struct ckt_dynobj o;
	const struct ckt_r_debug_ext *dbg = NULL;
	if (ckt_dynobj_of(&exe, &o)) {
		for (size_t k = 0; k < sizeof(sanitizers) / sizeof(sanitizers[0]); k++)
			if (!sanitizers[k].ahead_ok && ckt_dynobj_lookup(&o, sanitizers[k].init)) {
				*object = "the program";
				*flag = sanitizers[k].flag;
				return sanitizers[k].name;
			}
		/* gcc's ThreadSanitizer linked in (-static-libtsan) exports its interceptors, not
		 * its interface: known by interceptors of C library names no program defines
		 * (mprobe, mcheck_pedantic: every sanitizer's) and by several of its own that
		 * AddressSanitizer's and LeakSanitizer's, which trace, lack (a program built with
		 * AddressSanitizer and -rdynamic that wraps pthread_cond_wait itself was taken for
		 * ThreadSanitizer's by that one name) */
		static const char *const tsan_only[] = { "mprobe", "mcheck_pedantic", "pthread_cond_wait",
							 "closedir", "creat", "dup3", "epoll_wait" };
		size_t hits = 0;
		while (hits < sizeof(tsan_only) / sizeof(tsan_only[0]) && ckt_dynobj_lookup(&o, tsan_only[hits]))
			hits++;
		if (hits == sizeof(tsan_only) / sizeof(tsan_only[0])) {
			*object = "the program";
			*flag = sanitizers[0].flag;
			return sanitizers[0].name;
		}
	}
	find_dt_debug(&exe, sizeof(exe), &dbg);
	extern ElfW(Dyn) _DYNAMIC[]; /* the tracer's own: its entry in the list */
	int past_tracer = 0;
	for (const struct link_map *m = dbg ? dbg->base.r_map : NULL; m; m = m->l_next) {
		past_tracer |= m->l_ld == _DYNAMIC;
		for (size_t k = 0; k < sizeof(sanitizers) / sizeof(sanitizers[0]); k++)
			if ((past_tracer || !sanitizers[k].ahead_ok) &&
			    (file_starts(m->l_name, sanitizers[k].lib) || file_starts(m->l_name, sanitizers[k].lib2))) {
				*object = m->l_name;
				*flag = sanitizers[k].ahead_ok ? NULL : sanitizers[k].flag;
				return sanitizers[k].name;
			}
	}
	return NULL;
}

/* A namespace of dlmopen's or of an LD_AUDIT module (LD_PRELOAD loads the tracer into the first
 * namespace only): what runs there allocates through a C library of its own, untraced.
 * dl_iterate_phdr lists the caller's namespace alone; the loader's r_debug (glibc 2.35's
 * r_debug_extended: r_version 2, r_next) lists them all. Said once (since 0.2.51; nothing did,
 * and that memory read as unexplained RSS). */
static void note_namespaces(void)
{
	static atomic_int said;
	if (atomic_load(&said))
		return;
	const struct ckt_r_debug_ext *e = NULL;
	dl_iterate_phdr(find_dt_debug, &e);
	if (!e || e->base.r_version < 2 || !e->r_next || atomic_exchange(&said, 1))
		return;
	const struct link_map *m = e->r_next->base.r_map;
	while (m && !(m->l_name && m->l_name[0]))
		m = m->l_next;
	ckt_log("warning: the program loaded objects into a namespace of their own (dlmopen or LD_AUDIT",
		m ? ", first '" : "", m ? m->l_name : "",
		m ? "'): LD_PRELOAD loads the tracer into the first namespace only, so what runs there allocates "
		    "past it and is not traced; said once"
		  : "): LD_PRELOAD loads the tracer into the first namespace only, so what runs there allocates "
		    "past it and is not traced; said once");
}

static void build_id_hex(const struct dl_phdr_info *info, char *out, size_t cap)
{
	out[0] = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const unsigned char *name = p + sizeof(*nh);
			const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    desc + nh->n_descsz <= end && nh->n_descsz * 2 < cap) {
				static const char hex[] = "0123456789abcdef";
				for (unsigned k = 0; k < nh->n_descsz; k++) {
					out[2 * k] = hex[desc[k] >> 4];
					out[2 * k + 1] = hex[desc[k] & 15];
				}
				out[2 * nh->n_descsz] = 0;
				return;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

/* dir/path with the working directory (the reader needs only a path that opens the file).
 * Not realpath: past 1 KiB it mallocs, and that malloc may be an allocator the program
 * exports, called from inside one of our hooks. getcwd with a buffer is one system call. */
static int absolute(const char *path, char *out, size_t cap)
{
	if (!getcwd(out, cap))
		return 0;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	size_t d = strlen(out), n = strlen(path);
	if (d + 1 + n >= cap)
		return 0;
	if (d > 1 || out[0] != '/')
		out[d++] = '/';
	memcpy(out + d, path, n + 1);
	return 1;
}

/* The path of the file mapped at address `at`, as /proc/self/maps gives it (absolute, the
 * kernel's), into out (cap bytes): 1, or 0 (no such mapping, not a file, unreadable). A static
 * buffer: a hook's stack may be short, and the module maps are built one at a time. */
struct mapped_walk {
	uintptr_t at;
	char *out;
	size_t cap;
	int found; /* 1: out holds it; -1: the mapping holds no file path we can take */
};

static int mapped_line(void *ctx, const char *p, const char *end, int whole)
{
	struct mapped_walk *w = ctx;
	uintptr_t v[2];
	const char *q = ckt_maps_range(p, end, v);
	if (!q || v[0] > w->at || w->at >= v[1])
		return 0;
	/* then: perms, offset, device, inode, and the path */
	for (int f = 0; f < 5; f++) {
		while (q < end && *q == ' ')
			q++;
		while (f < 4 && q < end && *q != ' ')
			q++;
	}
	size_t n = q < end ? (size_t)(end - q) : 0;
	w->found = whole && n && *q == '/' && n < w->cap ? 1 : -1;
	if (w->found > 0) {
		memcpy(w->out, q, n);
		w->out[n] = 0;
	}
	return 1;
}

int ckt_mapped_file(uintptr_t at, char *out, size_t cap)
{
	static char buf[8192];
	struct mapped_walk w = {at, out, cap, 0};
	return ckt_maps_walk(buf, sizeof(buf), mapped_line, &w) == 0 && w.found > 0;
}

/* The main program's file (its entry in dl_iterate_phdr has no name; `at`: an address in it):
 * the process's executable, except where the dynamic loader was run as the program
 * (`/lib64/ld-linux-x86-64.so.2 ./prog`): the executable is then the loader, which has an entry
 * of its own, and the program is the file the loader mapped, which /proc/self/maps names. The
 * kernel passes no AT_BASE then (the loader had no interpreter). Taken when it names a regular
 * file other than the executable. Read at the first module map. (The name the loader was
 * given, AT_EXECFN, is relative to a directory a library's constructor may have left before
 * the tracer's init: it named another file of that name there.) */
static const char *exe_path(uintptr_t at)
{
	static char path[4096], mapped[sizeof(path)]; /* static: a hook's stack may be short */
	if (!path[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = 0;
		struct stat a, b;
		if (!getauxval(AT_BASE) && ckt_mapped_file(at, mapped, sizeof(mapped)) && stat(mapped, &a) == 0 &&
		    S_ISREG(a.st_mode) &&
		    (stat("/proc/self/exe", &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino))
			strcpy(path, mapped);
		/* no /proc (an empty tmpfs over it, a sandbox): the name the kernel ran, made
		 * absolute from the directory now (the first walk is at start), where the loader
		 * ran as the program's interpreter (AT_BASE); the reader checks it by its build-id.
		 * Before, the program's frames had no module: "+0x1228" */
		const char *fn = (const char *)getauxval(AT_EXECFN);
		static char cwd[sizeof(path)]; /* static: as path */
		if (!path[0] && getauxval(AT_BASE) && fn && fn[0] == '/' && strlen(fn) < sizeof(path))
			strcpy(path, fn);
		else if (!path[0] && getauxval(AT_BASE) && fn && fn[0] && getcwd(cwd, sizeof(cwd)) &&
			 strlen(cwd) + 1 + strlen(fn) < sizeof(path))
			snprintf(path, sizeof(path), "%s%s%s", cwd, cwd[1] ? "/" : "",
				 fn[0] == '.' && fn[1] == '/' ? fn + 2 : fn);
	}
	return path;
}

/* The objects of the last module map, for unwind_lookup: gathered while the map is taken (inside
 * dl_iterate_phdr) and copied here under maps_lock, between two steps of known_seq (odd while
 * it changes, or while no set is kept: then nothing is answered from it). Each entry holds what
 * _dl_find_object's answer is checked against (the load bias, the name string's address, the
 * PT_GNU_EH_FRAME segment's address, the span of the PT_LOAD segments) and a copy of the
 * program headers libunwind's callback reads (PT_LOAD, PT_GNU_EH_FRAME, PT_DYNAMIC), so that an
 * entry left over from an object unloaded since answers nothing and is never read through.
 * Static: about 0.5 MiB of address space, touched as used. */
#define KNOWN_MAX 1024
#define KNOWN_PHDRS 8 /* a library has 4 PT_LOAD, PT_DYNAMIC, PT_GNU_EH_FRAME; the copy is on the stack */
struct known_obj {
	uintptr_t addr, eh, lo, hi;
	const char *name;
	size_t phnum; /* 0: its headers did not fit: unusable */
	ElfW(Phdr) phdr[KNOWN_PHDRS];
};
struct known {
	unsigned long long walk; /* the loader's loads + unloads when the list was walked */
	uint32_t n;
	int over;
	struct known_obj obj[KNOWN_MAX];
};
static struct known known_now;
static atomic_uint known_seq = 1;

/* the entry of the object `info` describes */
static void known_add(struct known *k, const struct dl_phdr_info *info, size_t size)
{
	if (!k->n && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		k->walk = info->dlpi_adds + info->dlpi_subs;
	if (k->n == KNOWN_MAX) {
		k->over = 1;
		return;
	}
	struct known_obj *o = &k->obj[k->n++];
	*o = (struct known_obj){ .addr = info->dlpi_addr, .name = info->dlpi_name, .lo = UINTPTR_MAX };
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD && ph->p_type != PT_GNU_EH_FRAME && ph->p_type != PT_DYNAMIC)
			continue;
		if (o->phnum == KNOWN_PHDRS) {
			o->phnum = 0;
			return;
		}
		o->phdr[o->phnum++] = *ph;
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_GNU_EH_FRAME)
			o->eh = at;
		if (ph->p_type == PT_LOAD && at < o->lo)
			o->lo = at;
		if (ph->p_type == PT_LOAD && at + ph->p_memsz > o->hi)
			o->hi = at + ph->p_memsz;
	}
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct build *b = arg;
	if (b->known)
		known_add(b->known, info, size);
	uintptr_t lo, hi;
	int holds;
	ckt_span_of(info, &lo, &hi, &holds, 0);
	if (hi <= lo)
		return 0;
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe_path(lo);
	/* loaded by a relative path (LD_LIBRARY_PATH=lib, dlopen("./x.so")): the reader runs
	 * elsewhere, so name the file absolutely (as seen from the working directory now) */
	char abs[PATH_MAX];
	if (path[0] != '/' && strchr(path, '/') && absolute(path, abs, sizeof(abs)))
		path = abs;
	char bid[129];
	build_id_hex(info, bid, sizeof(bid));
	uint8_t *q = ckt_record_module(b->p, b->end, info->dlpi_addr, lo, hi, path, bid);
	if (q)
		b->p = q;
	else
		b->overflow = 1;
	return 0;
}

static int read_gen(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*(unsigned long long *)arg = info->dlpi_adds * 1000003ull + info->dlpi_subs;
	return 1; /* the counters are global: the first object is enough */
}

static atomic_uint maps_taken;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t ckt_modules_current(void)
{
	return atomic_load(&maps_taken);
}

/* Takes a snapshot if the set of loaded objects changed since the last one; returns its
 * number, or 0 when none was taken. Caller holds the guard (the snapshot buffer comes from
 * glibc's allocator, ckt_malloc). */
uint32_t ckt_modules_check(void)
{
	unsigned long long gen = 0;
	dl_iterate_phdr(read_gen, &gen);
	unsigned long long old = atomic_load(&seen_gen);
	if (gen == old || !atomic_compare_exchange_strong(&seen_gen, &old, gen))
		return 0;
	note_namespaces();
	size_t cap = 256 * 1024;
	struct ckt_aux *s = ckt_aux_new(cap);
	static atomic_int said_oom, said_big; /* each once: one must not hide the other */
	if (!s) {
		atomic_store(&seen_gen, old); /* try again at the next new stack */
		if (!atomic_exchange(&said_oom, 1)) {
			ckt_log("warning: out of memory for the module map; frames of libraries loaded "
				"now may show as addresses", NULL, NULL, NULL);
			ckt_writer_limit_reached(CKT_LIMIT_MODULES);
		}
		return 0;
	}
	struct known *k = ckt_big_alloc(sizeof(*k)); /* mapped: touched as the entries are written */
	if (k) {
		k->walk = 0;
		k->n = 0;
		k->over = 0;
	}
	struct build b = {s->bytes, s->bytes, s->bytes + cap, 0, k};
	dl_iterate_phdr(add_module, &b);
	s->len = (size_t)(b.p - b.buf);
	if (b.overflow && !atomic_exchange(&said_big, 1)) {
		ckt_log("warning: the module map exceeds 256 KiB; frames of the modules left out show "
			"as addresses", NULL, NULL, NULL);
		ckt_writer_limit_reached(CKT_LIMIT_MODULES);
	}
	ckt_mutex_take(&maps_lock);
	/* the objects for unwind_lookup: a seqlock's writer: odd, a release fence before the entries' stores, even by a release
	 * store after them. Two maps taken at once publish the later walk (its counts are
	 * higher), whichever comes here last */
	if (k && !k->over && ((atomic_load_explicit(&known_seq, memory_order_relaxed) & 1) ||
			      k->walk >= known_now.walk)) {
		unsigned q = atomic_load_explicit(&known_seq, memory_order_relaxed) | 1;
		atomic_store_explicit(&known_seq, q, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		known_now.walk = k->walk;
		known_now.n = k->n;
		memcpy(known_now.obj, k->obj, k->n * sizeof(k->obj[0]));
		atomic_store_explicit(&known_seq, q + 1, memory_order_release);
	} /* (no memory, too many objects: the last set stays; its entries are checked one by one) */
	/* the map numbered and queued in one step (not under the loader's lock): a map numbered N
	 * is on the writer's list before any stack can be told to follow it */
	uint32_t map = s->map = atomic_load(&maps_taken) + 1;
	ckt_aux_push(s);
	atomic_store(&maps_taken, map);
	ckt_mutex_give(&maps_lock);
	ckt_big_free(k);
	return map;
}

/* See ckt.h. A 16-byte header holds the block's whole size, which says how it was taken (zstd
 * frees by pointer alone). */
void *ckt_big_alloc(size_t n)
{
	size_t total = n + 16;
	size_t *h;
	if (total < n)
		return NULL;
	if (total >= CKT_BIG_MAPPED) {
		h = ckt_ownmaps_map(total, 0);
	} else {
		h = ckt_malloc(total);
	}
	if (!h)
		return NULL;
	h[0] = total;
	return h + 2;
}

size_t ckt_big_room(const void *p)
{
	return ((const size_t *)p)[-2] - 16;
}

void ckt_big_free(void *p)
{
	if (!p)
		return;
	size_t *h = (size_t *)p - 2;
	if (h[0] >= CKT_BIG_MAPPED)
		ckt_ownmaps_unmap(h, h[0]);
	else
		ckt_free(h);
}

/* freed with ckt_big_free (the module map's 256 KiB of room come mapped) */
struct ckt_aux *ckt_aux_new(size_t cap)
{
	struct ckt_aux *a = ckt_big_alloc(sizeof(*a) + cap);
	if (a) {
		a->len = 0;
		a->map = 0;
	}
	return a;
}

/* A record encoded on the caller's stack, queued at its own size, not at the room a string may
 * need (1 KiB): a program that renamed a thread 1,000,000 times in a second held 217 MiB of
 * such room until the writer took it (447 MiB in the size classes of arena.c); 33 MiB now. */
struct ckt_aux *ckt_aux_of(const uint8_t *bytes, size_t len)
{
	struct ckt_aux *a = ckt_aux_new(len);
	if (a) {
		memcpy(a->bytes, bytes, len);
		a->len = len;
	}
	return a;
}

void ckt_aux_push(struct ckt_aux *a)
{
	struct ckt_aux *head = atomic_load(&ckt_auxs);
	do
		a->next = head;
	while (!atomic_compare_exchange_weak(&ckt_auxs, &head, a));
}

/* dl_iterate_phdr holds the loader's lock (dl_load_write_lock) from its start to its end, across
 * the program's callback. A callback that allocates (Rust's backtrace collects the modules'
 * names so, as do profilers) reached the tracer's stack capture, and libunwind's step takes a
 * lock of its own (its register-state cache: Debian's build has no per-thread one), then looks
 * frames up through dl_iterate_phdr: another thread capturing a new stack took that lock and
 * waited for the loader's, the callback's thread the other way round, and the program hung
 * for good (a dl_iterate_phdr loop whose callback mallocs beside 3 allocating threads: 5 runs
 * of 10, both modes, before 0.2.56). So the calls inside a dl_iterate_phdr capture no stack
 * (stacks.c): a counter on the thread around the real call, whoever calls it (libunwind's and
 * the tracer's own lookups come here too, at a few instructions). */
typedef int phdr_cb(struct dl_phdr_info *, size_t, void *);

/* That left one hang (before 0.2.57): a callback that takes a lock of the program's which
 * another thread holds while it allocates (a profiler's or crash reporter's module cache, its
 * mutex also taken around code that allocates). That thread's capture of a new stack waited
 * for the loader's lock twice over: in libunwind's lookup of a frame it has no rule for yet,
 * and in the module-map check of the new stack (ckt_modules_check); the callback's thread
 * waited for the program's lock (tests/progs/phdrlock.c: 6 runs of 6 hung for good). So the
 * calls are told apart:
 * - a capture's: libunwind's lookups inside it (its callback, on a thread in_unwind), the
 *   module check of a new stack (ckt_phdr_capture_enter); counted in phdr_cap_in;
 * - the tracer's other calls (from its own text: at start, in the C++ and CUDA lookups), whose
 *   callbacks wait for nothing: neither counted nor waiting, as before;
 * - the program's: every other; counted in phdr_prog_in.
 * Dekker's way: each side raises its count, then reads the other's (sequentially consistent,
 * so of two that meet at least one sees the other):
 * - a capture that sees a program's call inside takes no loader's lock: its frame lookups are
 *   answered from the last module map (unwind_lookup), its module check is skipped (the stack
 *   goes after the last map);
 * - a program's call waits, before it takes the loader's lock, for the captures' calls under
 *   way, which take that lock alone and return (a lookup: microseconds; a new module map: up to
 *   milliseconds with many objects). Bounded: past 1 s (a count a longjmp or a raw clone left
 *   raised) one line says so and the program's calls no longer wait (wait_captures).
 * So a capture never waits for the loader's lock while a program's callback may hold it, and
 * a program's call never waits for a capture that waits for it. Cost: an atomic add and a load
 * a call; on the capture's side nothing but at a new stack and at libunwind's lookups. The
 * thread's own count changes around the shared one's (raised before it, lowered after), so a
 * signal handler that calls dl_iterate_phdr inside a capture's section takes the nested path,
 * not a wait for its own thread. */
static atomic_int phdr_prog_in, phdr_cap_in, phdr_nowait;

int ckt_phdr_capture_enter(struct ckt_tls *t)
{
	if (t->phdr_cap) { /* inside this thread's own counted look (nested): the count holds */
		t->phdr_cap++;
		return 1;
	}
	t->phdr_cap = 1;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_fetch_add(&phdr_cap_in, 1);
	if (atomic_load(&phdr_prog_in) > t->phdr_prog) {
		atomic_fetch_sub(&phdr_cap_in, 1);
		atomic_signal_fence(memory_order_seq_cst);
		t->phdr_cap = 0;
		return 0;
	}
	return 1;
}

void ckt_phdr_capture_leave(struct ckt_tls *t)
{
	if (t->phdr_cap > 1) {
		t->phdr_cap--;
		return;
	}
	atomic_fetch_sub(&phdr_cap_in, 1);
	atomic_signal_fence(memory_order_seq_cst);
	t->phdr_cap = 0;
}

/* In a forked child only the forking thread runs: the counts are its own. */
void ckt_modules_after_fork_child(void)
{
	atomic_store(&phdr_prog_in, ckt_tls.phdr_prog);
	atomic_store(&phdr_cap_in, ckt_tls.phdr_cap ? 1 : 0);
}

/* A program's call waits for the captures' calls under way (its own thread has none: see
 * above). Spins 100 times, then sleeps 20 us a round; 1 s at most of its own waiting: each
 * round counts the time it took up to 100 us, so a process stopped meanwhile (Ctrl-Z, a
 * debugger) does not pass the bound at once (by the clock it did, and turned the waits off: the
 * hang came back). A count that never comes down (a capture left by longjmp) then costs one
 * wait and the line, and the program's calls wait no more. A child with memory of its own
 * (made by a raw clone or _Fork, which run no fork handler, while a capture of its parent's was
 * under way) has the parent's counts: its own are none (kcmp tells; not by the pid alone: a
 * CLONE_VM child, as vfork and posix_spawn make them, shares the parent's counts). */
static void wait_captures(const struct ckt_tls *t)
{
	if (atomic_load_explicit(&phdr_nowait, memory_order_relaxed))
		return;
	uint64_t waited = 0, last = 0;
	for (unsigned spin = 0; atomic_load(&phdr_cap_in) > 0; spin++) {
		if (spin < 100) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			continue;
		}
		uint64_t now = ckt_clock_raw();
		if (last)
			waited += now - last < 100000 ? now - last : 100000;
		last = now;
		if (spin == 150 && ckt_writer_pid() && getpid() != ckt_writer_pid() &&
		    ckt_thread_child_memory() == CKT_CHILD_OWN) {
			atomic_store(&phdr_cap_in, 0);
			atomic_store(&phdr_prog_in, t->phdr_prog); /* this call's, counted */
			return;
		}
		if (waited >= 1000000000ull) {
			if (!atomic_exchange(&phdr_nowait, 1))
				ckt_log("warning: a stack capture's look at the loaded objects did not end "
					"in 1 s; the program's dl_iterate_phdr calls no longer wait for the "
					"tracer's",
					NULL, NULL, NULL);
			return;
		}
		ckt_nap(20000); /* a raw system call: no cancellation point where dl_iterate_phdr has none */
	}
}

/* libunwind's lookup of a frame inside the tracer's stack capture while a program's call is
 * inside dl_iterate_phdr: dwarf_find_proc_info calls it with its callback and data whose first
 * member is the instruction pointer sought (libunwind 1.3 to 1.8). Answered with the one object
 * that holds it: found by glibc 2.35's _dl_find_object, which takes no lock (the frames unwound
 * are on this thread's stack: their objects stay loaded), and its entry in the last module
 * map, taken only where the two agree (load bias, name, PT_GNU_EH_FRAME, the ip inside the
 * PT_LOAD span): libunwind's callback gets the entry's copy of the program headers. 0
 * (libunwind: no unwind information, the stack ends at that frame) where there is none: an
 * object loaded since the last map, glibc before 2.35, JIT code. */
static int unwind_lookup(phdr_cb *cb, void *data)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
	uintptr_t ip = *(const uintptr_t *)data;
	struct dl_find_object fo;
	if (_dl_find_object((void *)ip, &fo) != 0 || !fo.dlfo_link_map)
		return 0;
	uintptr_t addr = fo.dlfo_link_map->l_addr, eh = (uintptr_t)fo.dlfo_eh_frame;
	const char *name = fo.dlfo_link_map->l_name;
	struct known_obj o; /* a copy, read between two looks at the sequence (on the capture's
			     * stack: 0.5 KiB, on this path only; not TLS, which the tracer keeps small) */
	unsigned q = atomic_load_explicit(&known_seq, memory_order_acquire);
	if (q & 1)
		return 0;
	uint32_t n = known_now.n < KNOWN_MAX ? known_now.n : KNOWN_MAX, j = 0;
	while (j < n && (known_now.obj[j].addr != addr || known_now.obj[j].name != name || known_now.obj[j].eh != eh))
		j++;
	if (j == n)
		return 0;
	memcpy(&o, &known_now.obj[j], sizeof(o));
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&known_seq, memory_order_relaxed) != q) /* changed meanwhile */
		return 0;
	if (!o.phnum || o.phnum > KNOWN_PHDRS || ip < o.lo || ip >= o.hi)
		return 0;
	struct dl_phdr_info info;
	memset(&info, 0, sizeof(info));
	info.dlpi_addr = o.addr;
	info.dlpi_name = o.name;
	info.dlpi_phdr = o.phdr;
	info.dlpi_phnum = (ElfW(Half))o.phnum;
	/* the size says the entry ends before dlpi_adds: the counters are not known here */
	return cb(&info, offsetof(struct dl_phdr_info, dlpi_adds), data);
#else
	(void)cb, (void)data;
	return 0;
#endif
}

struct phdr_call {
	struct ckt_tls *t;
	int kind; /* 1: a capture's, counted; 2: the program's, counted */
};

/* in_phdr goes down last: a signal handler that captures a stack once it is down finds this
 * call's counts gone from the thread's and the shared ones alike */
static void phdr_out(struct phdr_call *c)
{
	if (c->kind == 1) {
		ckt_phdr_capture_leave(c->t);
	} else if (c->kind == 2) {
		atomic_fetch_sub(&phdr_prog_in, 1);
		atomic_signal_fence(memory_order_seq_cst);
		c->t->phdr_prog--;
	}
	atomic_signal_fence(memory_order_seq_cst);
	c->t->in_phdr--;
}

CKT_EXPORT int dl_iterate_phdr(phdr_cb *cb, void *data)
{
	static int (*real)(phdr_cb *, void *);
	int (*r)(phdr_cb *, void *) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	if (CKT_UNLIKELY(!r)) {
		r = (int (*)(phdr_cb *, void *))ckt_next("dl_iterate_phdr");
		if (!r)
			return 0; /* no loader to ask (a static program cannot preload us) */
		__atomic_store_n(&real, r, __ATOMIC_RELEASE);
	}
	/* a callback may throw through glibc's dl_iterate_phdr, which releases its lock as the
	 * exception passes (this file is built with -fexceptions): the count goes down with it,
	 * else the thread recorded no stack again */
	struct phdr_call c __attribute__((cleanup(phdr_out))) = { &ckt_tls, 0 };
	struct ckt_tls *t = c.t;
	t->in_phdr++;
	/* inside this thread's counted module check, or the tracer's own call: as before 0.2.57 */
	if (t->phdr_cap || ckt_from_out(CKT_OUT_SELF, __builtin_return_address(0)))
		return r(cb, data);
	if (t->in_unwind && data && ckt_from_out(CKT_OUT_UNWIND, (const void *)cb)) {
		if (!ckt_phdr_capture_enter(t))
			return unwind_lookup(cb, data);
		c.kind = 1;
		return r(cb, data);
	}
	t->phdr_prog++;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_fetch_add(&phdr_prog_in, 1);
	c.kind = 2;
	wait_captures(t);
	return r(cb, data);
}
