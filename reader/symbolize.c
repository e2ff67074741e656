/* symbolize.c: return address -> function, file:line and inlined frames, offline, with one
 * libdwfl session per module of the trace, reported at its recorded load bias. Modules are
 * opened on first use and checked against their recorded build-id; a changed or unreadable
 * file degrades to module+offset with one warning. Stack handling and site rules are
 * sites.c's.
 */
#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <zlib.h>
#include <errno.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util.h"

enum ckt_sym_state { CKT_MOD_NEW, CKT_MOD_OK, CKT_MOD_BAD };

/* One ELF symbol, [lo, hi) in the module's reported addresses (hi = lo for a label, a symbol
 * without size; UINT64_MAX where lo + size passes the top). */
struct ckt_sym_symbol {
	uint64_t lo, hi, size;
	const char *name; /* in the ELF's string table: lives as long as the module's Dwfl */
	uint32_t index;   /* in libdwfl's symbol numbering: its scan order */
	int32_t sec;      /* labels: the section holding lo (-1 none; -2 absolute: lo alone) */
	uint8_t rank;     /* binding: 3 global, 2 weak, 1 local, 0 other */
	uint8_t group;    /* 0: libdwfl's first scan (globals), 1: its second (locals) */
	uint8_t label;    /* no size */
};

/* An allocated section of the main ELF, [lo, hi] in reported addresses (hi belongs to it unless
 * the next section starts there, as libdwfl counts). */
struct ckt_sym_section {
	uint64_t lo, hi;
	size_t ndx; /* in the section header table */
};

/* Sized symbols or labels of one scan group, sorted by start, then table order. */
struct ckt_sym_run {
	const struct ckt_sym_symbol *v;
	size_t n;
	const uint64_t *max_hi; /* sized: max_hi[k] is the highest end among v[0..k] */
};

/* A module's symbol table, read on the first address that has no DWARF function. */
struct ckt_sym_table {
	bool loaded;
	struct ckt_sym_symbol *syms; /* by group, then sized before labels, then start, index */
	uint64_t *max_hi;
	struct ckt_sym_run sized[2], labels[2];
	struct ckt_sym_section *secs; /* sorted by start */
	size_t n_secs;
};

/* The outermost function DIEs of one compile unit (those the CU reaches through namespaces and
 * types only), one entry per address range, sorted by start: see ckt_sym_cu_index. */
struct ckt_sym_fn {
	uint64_t lo, hi;  /* DWARF addresses (no load bias) */
	Dwarf_Off off;    /* DIE order: where ranges overlap, the first DIE wins, as in a walk */
	Dwarf_Die die;
};

/* A namespace or function DIE of a unit (ckt_sym_scopes_of) */
struct ckt_sym_scope {
	Dwarf_Off off;
	int32_t parent;   /* the enclosing namespace's entry; -1: the unit, or another DIE */
	int tag;
	const char *name; /* a namespace's (libdw's string), else NULL */
};

struct ckt_sym_cu {
	uintptr_t key;    /* the CU DIE's address in the debug data: unique across files */
	struct ckt_sym_fn *fns;
	size_t n;
	uint64_t *max_hi; /* max_hi[k]: the highest end among fns[0..k] */
	bool ok;          /* false: not indexed (no memory): walk the CU as before */
	/* its namespaces and functions in DIE order (offsets grow), built at the first need
	 * (scopes_state 1; -1: could not be, for want of memory) */
	struct ckt_sym_scope *scopes;
	size_t n_scopes;
	int scopes_state;
};

struct ckt_sym_module {
	uint64_t base, lo, hi;
	uint32_t map; /* the module map (run of MODULE records) that first listed it */
	/* index + 1 of the module of this file (path and build-id) that was looked up first, which
	 * serves this one at its own addresses (the file is opened at the base of the first: names
	 * and lines depend on the file alone, module+offset counts from each one's base, and the
	 * span only chooses the module of an address), itself included; 0 until this one is
	 * looked up (ckt_sym_twin) */
	uint32_t twin;
	/* the file at path when it was first looked up (ckt_sym_twin): one file under several
	 * spellings of one file name (/x, //x, /a/../x, a link to the directory) is opened once;
	 * has_file false when stat failed */
	bool has_file;
	dev_t dev;
	ino_t ino;
	const char *path, *build_id, *basename;
	enum ckt_sym_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct ckt_sym_table tab;
	struct ckt_sym_cu *cus; /* indexed compile units, sorted by key */
	size_t n_cus, cap_cus;
	size_t n_big; /* of cus, the big DIEs (ckt_sym_nest) */
	/* the compile units' address ranges, sorted by start, for addresses libdwfl's lookup
	 * (by .debug_aranges) misses: built at the first such address (ckt_sym_addrdie) */
	struct ckt_sym_curange *cur;
	size_t n_cur;
	bool cur_built;
	bool oom_set; /* libdw's out-of-memory handler is ours (ckt_sym_oom) */
	bool oom_said; /* a lookup lost file:line for want of memory: said once (ckt_sym_dwarf) */
	bool split_said; /* a skeleton unit whose split unit (.dwo) was not found: said once */
	bool nodebug_said; /* the program has no DWARF at all: said once (ckt_sym_nodebug) */
};

struct ckt_sym_curange {
	Dwarf_Addr lo, hi; /* [lo, hi), the module's DWARF addresses (bias not applied) */
	Dwarf_Die *cu;     /* libdwfl's own, valid while the module is open */
};

struct ckt_sym_cached {
	uint64_t pc;    /* 0: empty slot (0 is never a return address) */
	uint32_t mod;   /* the module it was resolved in, + 1; 0: none */
	uint32_t first; /* index into frames */
	uint32_t n;
};

struct ckt_sym_chunk {
	struct ckt_sym_chunk *next;
	size_t used, cap;
	char data[];
};

struct ckt_sym {
	struct ckt_sym_module *mods;
	size_t n_mods, cap_mods;
	/* index of mods by all their fields: open addressing, module index + 1, 0 empty; at most
	 * half full (a scan of every module for each MODULE record took 83 s for 200,000) */
	uint32_t *mod_slots;
	size_t mod_slots_cap;
	/* modules by file (ckt_sym_twin): the hash of path and build-id -> the index of the first
	 * looked up. One library listed at 500 bases was opened 500 times, its debug information
	 * read for each: a forged 5 KB trace naming libc so took 2 GB and 11 s. */
	struct ckt_util_map twins;
	uint32_t map;  /* module maps seen so far */
	bool in_map;   /* the last call added a module: the next one continues that map */
	/* which modules hold an address (ckt_sym_module_of): the spans of mods[0..ix_n) cut at
	 * every lo and hi into ix_nb - 1 pieces [ix_bounds[j], ix_bounds[j + 1]), each with the
	 * modules that cover it, by index (so by map), in ix_mods[ix_start[j]..ix_start[j + 1]).
	 * Modules added since are looked at one by one, and the index is rebuilt once they are a
	 * quarter of it. Scanning every module for every frame took 35 s for 32,000 dlopen'd
	 * libraries. */
	uint64_t *ix_bounds;
	uint32_t *ix_start, *ix_mods;
	size_t ix_nb, ix_n;
	/* modules nested in many others (more than 16 pieces per module): the pieces are the
	 * leaves of a segment tree instead, each module listed at the O(log n) nodes that cover
	 * its span, oldest first (ix_start by node, 1 to 2 * (ix_nb - 1) - 1), and a lookup
	 * walks up from pc's piece. Scanning every module for every frame, as before, took
	 * minutes for a forged trace of 100,000 nested modules. */
	bool ix_tree;
	bool ix_off; /* no memory for the index: scan them all */

	struct ckt_sym_cached *cache; /* open addressing, power of two */
	size_t cache_cap, cache_used;
	struct ckt_sym_frame *frames;  /* every cached frame, in cache order */
	size_t n_frames, cap_frames;

	const char **strs;             /* interned strings: open addressing set */
	size_t strs_cap, strs_used;
	struct ckt_sym_chunk *chunks;

	unsigned rust_main;            /* CKT_SYM_RUST_*: the mangling of the program crate's
					* main ("app::main"), once a frame named it */
	char **warnings;               /* the first CKT_SYM_MAX_WARNINGS distinct ones */
	size_t n_warnings;
	size_t more_warnings;          /* distinct ones past those, said in one line */
	char more_line[160];
	/* the modules' own strings (paths, build-ids) interned so far, and the modules left out
	 * past CKT_SYM_MAX_MOD_BYTES or CKT_SYM_MAX_MODS, said in one line after the others */
	size_t mod_bytes, mods_left_out;
	char left_line[224];

	char *debuginfo_path;          /* for dwfl_standard_find_debuginfo (NULL: default) */
	Dwfl_Callbacks cb;
	char *trace;                   /* the trace read, for the out-of-memory line (ckt_sym_oom) */
	uint64_t start_wall_ns;        /* when it began (ckt_sym_set_start; 0: unknown) */
};

/* The symbolizer at work on this thread (set by the entry points that reach libdw) */
static _Thread_local struct ckt_sym *ckt_sym_cur;

/* libdw's out-of-memory handler: libdw cannot go on (its default printed "libdw: Cannot
 * allocate memory", status 1, not the reader's own line), so the reader's line, and status 1
 * as for any out of memory. Must not return. Built without allocating. */
static _Noreturn void ckt_sym_oom(void)
{
	char line[PATH_MAX + 96];
	const char *t = ckt_sym_cur ? ckt_sym_cur->trace : NULL;
	int n = t ? snprintf(line, sizeof(line), "cuzktrace-report: error: '%s': out of memory\n", t)
		  : snprintf(line, sizeof(line), "cuzktrace-report: error: out of memory\n");
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (n > 0 && write(2, line, (size_t)n) < 0)
		n = 0;
	ckt_util_out_abandon(); /* no output half-written left behind under a temporary name */
	_exit(1);
}

void ckt_sym_set_trace(struct ckt_sym *s, const char *path)
{
	free(s->trace);
	s->trace = path ? strdup(path) : NULL;
}

void ckt_sym_set_start(struct ckt_sym *s, uint64_t start_wall_ns)
{
	s->start_wall_ns = start_wall_ns;
}

/* ---- strings ---- */

static uint64_t ckt_sym_strhash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static char *ckt_sym_alloc_str(struct ckt_sym *s, size_t n)
{
	struct ckt_sym_chunk *c = s->chunks;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 60000 ? n : 60000;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = s->chunks;
		s->chunks = c;
	}
	char *p = c->data + c->used;
	c->used += n;
	return p;
}

/* The slot of str in the interned set: the one holding it, or the empty one where it would
 * go (the set is never full: at most half) */
static size_t ckt_sym_str_slot(const struct ckt_sym *s, const char *str, size_t n)
{
	size_t k = ckt_sym_strhash(str, n) & (s->strs_cap - 1);
	for (; s->strs[k]; k = (k + 1) & (s->strs_cap - 1))
		if (strncmp(s->strs[k], str, n) == 0 && s->strs[k][n] == '\0')
			break;
	return k;
}

const char *ckt_sym_intern(struct ckt_sym *s, const char *str, size_t n)
{
	if (s->strs_used * 2 >= s->strs_cap) {
		size_t cap = s->strs_cap ? s->strs_cap * 2 : 1024;
		const char **t = calloc(cap, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < s->strs_cap; i++) {
			const char *o = s->strs[i];
			if (!o)
				continue;
			size_t k = ckt_sym_strhash(o, strlen(o)) & (cap - 1);
			while (t[k])
				k = (k + 1) & (cap - 1);
			t[k] = o;
		}
		free(s->strs);
		s->strs = t;
		s->strs_cap = cap;
	}
	size_t k = ckt_sym_str_slot(s, str, n);
	if (s->strs[k])
		return s->strs[k];
	char *p = ckt_sym_alloc_str(s, n + 1);
	if (!p)
		return NULL;
	memcpy(p, str, n);
	p[n] = '\0';
	s->strs[k] = p;
	s->strs_used++;
	return p;
}

static const char *ckt_sym_intern0(struct ckt_sym *s, const char *str)
{
	return str ? ckt_sym_intern(s, str, strlen(str)) : NULL;
}

/* ---- setup ---- */

struct ckt_sym *ckt_sym_new(void)
{
	struct ckt_sym *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = &s->debuginfo_path;
	return s;
}

/* Frees a module's symbol table and leaves it empty, not loaded. */
static void ckt_sym_table_clear(struct ckt_sym_table *t)
{
	free(t->syms);
	free(t->max_hi);
	free(t->secs);
	*t = (struct ckt_sym_table){ 0 };
}

void ckt_sym_free(struct ckt_sym *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_mods; i++) {
		if (s->mods[i].dwfl)
			dwfl_end(s->mods[i].dwfl);
		ckt_sym_table_clear(&s->mods[i].tab);
		for (size_t k = 0; k < s->mods[i].n_cus; k++) {
			free(s->mods[i].cus[k].fns);
			free(s->mods[i].cus[k].max_hi);
			free(s->mods[i].cus[k].scopes);
		}
		free(s->mods[i].cus);
		free(s->mods[i].cur);
	}
	free(s->mods);
	free(s->mod_slots);
	ckt_util_map_free(&s->twins);
	free(s->trace);
	if (ckt_sym_cur == s)
		ckt_sym_cur = NULL;
	free(s->ix_bounds);
	free(s->ix_start);
	free(s->ix_mods);
	free(s->cache);
	free(s->frames);
	free(s->strs);
	while (s->chunks) {
		struct ckt_sym_chunk *n = s->chunks->next;
		free(s->chunks);
		s->chunks = n;
	}
	for (size_t i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s);
}

static uint64_t ckt_sym_mod_key(const struct ckt_sym_module *m)
{
	return ckt_util_hash64(m->base ^ ckt_util_hash64(m->lo ^ ckt_util_hash64(
			       m->hi ^ ckt_util_hash64((uint64_t)(uintptr_t)m->path ^
						       ckt_util_hash64((uint64_t)(uintptr_t)m->build_id)))));
}

static int ckt_sym_mod_index_grow(struct ckt_sym *s)
{
	size_t cap = s->mod_slots_cap ? s->mod_slots_cap * 2 : 64;
	uint32_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return CKT_ENOMEM;
	for (size_t k = 0; k < s->n_mods; k++) {
		size_t i = (size_t)ckt_sym_mod_key(&s->mods[k]) & (cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(s->mod_slots);
	s->mod_slots = slots;
	s->mod_slots_cap = cap;
	return 0;
}

/* The file by its device and inode where stat finds it, else by its path as spelled (paths
 * and build-ids are interned: equal strings, equal pointers), and its build-id either way. */
static uint64_t ckt_sym_twin_key(const struct ckt_sym_module *m)
{
	uint64_t f = m->has_file ? ckt_util_hash64((uint64_t)m->dev) ^ (uint64_t)m->ino : (uint64_t)(uintptr_t)m->path;
	return ckt_util_hash64(f ^ ckt_util_hash64((uint64_t)(uintptr_t)m->build_id));
}

static bool ckt_sym_twins(const struct ckt_sym_module *a, const struct ckt_sym_module *b)
{
	if (a->build_id != b->build_id || a->has_file != b->has_file)
		return false;
	/* and the same file name: frames without a symbol show it (module+offset) */
	return a->has_file ? a->dev == b->dev && a->ino == b->ino && !strcmp(a->basename, b->basename)
			   : a->path == b->path;
}

/* The module that serves m (m->twin), and *pc moved to its addresses: one file is opened
 * once, whatever bases and spans it was listed at (names and lines do not depend on the base,
 * and module+offset counts from it). m itself when the table cannot grow. */
static struct ckt_sym_module *ckt_sym_twin(struct ckt_sym *s, struct ckt_sym_module *m, uint64_t *pc)
{
	if (!m)
		return NULL;
	if (!m->twin) {
		/* another file of the same hash, or no memory: m serves itself */
		struct stat sb;
		if (stat(m->path, &sb) == 0) {
			m->has_file = true;
			m->dev = sb.st_dev;
			m->ino = sb.st_ino;
		}
		uint64_t key = ckt_sym_twin_key(m), first;
		size_t self = (size_t)(m - s->mods);
		if (!ckt_util_map_get(&s->twins, key, &first) &&
		    ckt_util_map_put(&s->twins, key, first = self) < 0)
			first = self;
		m->twin = (uint32_t)(ckt_sym_twins(&s->mods[first], m) ? first : self) + 1;
	}
	struct ckt_sym_module *o = &s->mods[m->twin - 1];
	*pc = *pc - m->base + o->base;
	return o;
}

/* A bound on what the modules listed take, whatever the trace: a real program's module maps
 * (256 KiB each at most, written again after each dlopen, kept once) come nowhere near it,
 * while a forged 1 MB trace of 240,000 distinct 4 KB paths, which compress to nearly nothing,
 * took 1.1 GB (0.2.49). Past it, a module of a path or build-id not seen yet is left out (its
 * frames show as addresses), said in one line. */
#define CKT_SYM_MAX_MOD_BYTES ((size_t)64 << 20)
#define CKT_SYM_MAX_MODS ((size_t)1 << 20)

/* str's interned copy, or NULL when it has none (nothing is added) */
static const char *ckt_sym_interned(const struct ckt_sym *s, const char *str, size_t n)
{
	return s->strs_cap ? s->strs[ckt_sym_str_slot(s, str, n)] : NULL;
}

/* str interned as a module's string: counted in mod_bytes when new; NULL past the bound (with
 * *full set) or without memory */
static const char *ckt_sym_intern_mod(struct ckt_sym *s, const char *str, size_t n, bool *full)
{
	const char *p = ckt_sym_interned(s, str, n);
	if (p)
		return p;
	if (s->mod_bytes + n + 1 > CKT_SYM_MAX_MOD_BYTES) {
		*full = true;
		return NULL;
	}
	if ((p = ckt_sym_intern(s, str, n)))
		s->mod_bytes += n + 1;
	return p;
}

static void ckt_sym_left_out(struct ckt_sym *s)
{
	s->mods_left_out++;
	snprintf(s->left_line, sizeof(s->left_line),
		 "the trace lists more modules than this reader keeps (%zu MiB of distinct paths and "
		 "build-ids, or %zu modules: a damaged trace?): %zu left out, their frames shown as "
		 "addresses",
		 CKT_SYM_MAX_MOD_BYTES >> 20, CKT_SYM_MAX_MODS, s->mods_left_out);
}

int ckt_sym_add_module(struct ckt_sym *s, uint64_t base, uint64_t lo, uint64_t hi, const char *path,
		       size_t path_len, const char *build_id, size_t build_id_len)
{
	bool full = false;
	const char *p = ckt_sym_intern_mod(s, path, path_len, &full);
	const char *b = p ? ckt_sym_intern_mod(s, build_id, build_id_len, &full) : NULL;
	if (full) {
		ckt_sym_left_out(s);
		return 0;
	}
	if (!p || !b)
		return CKT_ENOMEM;
	if (!s->in_map) {
		s->map++;
		s->in_map = true;
	}
	/* the whole map is written again after every dlopen: keep each module once (interned
	 * strings compare by pointer) */
	struct ckt_sym_module nm = {.base = base, .lo = lo, .hi = hi, .path = p, .build_id = b};
	if ((s->n_mods + 1) * 2 > s->mod_slots_cap && ckt_sym_mod_index_grow(s) < 0)
		return CKT_ENOMEM;
	size_t mask = s->mod_slots_cap - 1, i = (size_t)ckt_sym_mod_key(&nm) & mask;
	for (; s->mod_slots[i]; i = (i + 1) & mask) {
		struct ckt_sym_module *m = &s->mods[s->mod_slots[i] - 1];
		if (m->base == base && m->lo == lo && m->hi == hi && m->path == p && m->build_id == b)
			return 0;
	}
	if (s->n_mods >= CKT_SYM_MAX_MODS) {
		ckt_sym_left_out(s);
		return 0;
	}
	if (s->n_mods == s->cap_mods) {
		size_t cap = s->cap_mods ? s->cap_mods * 2 : 32;
		struct ckt_sym_module *n = realloc(s->mods, cap * sizeof(*n));
		if (!n)
			return CKT_ENOMEM;
		s->mods = n;
		s->cap_mods = cap;
	}
	const char *slash = strrchr(p, '/');
	nm.basename = slash ? slash + 1 : p;
	nm.state = CKT_MOD_NEW;
	nm.map = s->map;
	s->mod_slots[i] = (uint32_t)s->n_mods + 1;
	s->mods[s->n_mods++] = nm;
	return 0;
}

uint32_t ckt_sym_map_now(struct ckt_sym *s)
{
	s->in_map = false;
	return s->map;
}

/* Warnings, one line each: a module listed at several spans (a library dlopened again at
 * another address) is said once, and past CKT_SYM_MAX_WARNINGS modules the rest are counted
 * in one last line (a forged trace of 2,000 missing modules printed 2,000 lines). */
#define CKT_SYM_MAX_WARNINGS 20

unsigned ckt_sym_rust_mangling(const struct ckt_sym *s)
{
	return s->rust_main;
}

size_t ckt_sym_nwarnings(const struct ckt_sym *s)
{
	return s->n_warnings + (s->more_warnings ? 1 : 0) + (s->mods_left_out ? 1 : 0);
}

const char *ckt_sym_warning(const struct ckt_sym *s, size_t i)
{
	if (i < s->n_warnings)
		return s->warnings[i];
	if (i == s->n_warnings && s->more_warnings)
		return s->more_line;
	return i == s->n_warnings + (s->more_warnings ? 1 : 0) && s->mods_left_out ? s->left_line : NULL;
}

__attribute__((format(printf, 2, 3))) static void ckt_sym_warn(struct ckt_sym *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* said already? the interned set holds each text once (warnings are few and short) */
	size_t used = s->strs_used;
	if (!ckt_sym_intern(s, buf, strlen(buf)) || s->strs_used == used)
		return;
	if (s->n_warnings == CKT_SYM_MAX_WARNINGS) {
		s->more_warnings++;
		snprintf(s->more_line, sizeof(s->more_line),
			 "%zu more modules could not be used (unreadable, or changed since they were traced); "
			 "their frames are shown as module+offset",
			 s->more_warnings);
		return;
	}
	char **w = realloc(s->warnings, (s->n_warnings + 1) * sizeof(*w));
	if (!w)
		return;
	s->warnings = w;
	if ((w[s->n_warnings] = strdup(buf)))
		s->n_warnings++;
}

/* --modules DIR: where else to look for a module whose file changed or went away since it
 * was traced (DIR/<its file name>, taken only with the build-id the trace recorded). Set once
 * by main before any trace is read; the reader is single-threaded. */
static const char *const *ckt_sym_dirs;
static size_t ckt_sym_ndirs;

void ckt_sym_set_module_dirs(const char *const *dirs, size_t n)
{
	ckt_sym_dirs = dirs;
	ckt_sym_ndirs = n;
}

/* Whether the file opened as m loads the span the trace recorded for it ([lo, hi) of its PT_LOAD
 * segments, less the load bias, as the tracer takes it: preload/elfsym.c). True when the file's
 * program headers cannot be read (nothing to tell by). */
static bool ckt_sym_same_span(struct ckt_sym_module *m)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	size_t np;
	if (!elf || elf_getphdrnum(elf, &np) != 0)
		return true;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t k = 0; k < np; k++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)k, &ph))
			return true;
		if (ph.p_type != PT_LOAD)
			continue;
		lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
		hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
	}
	return lo == m->lo - m->base && hi == m->hi - m->base;
}

/* The bytes the ELF file at path says it has: where its section header table and each
 * section's file bytes end, or, in a file without section headers (sstrip), each segment's
 * (0 when its headers cannot be read). Not the segments where there are sections: a separate
 * debug file (eu-strip -f, as Fedora's and openSUSE's debuginfo packages are made) keeps the
 * program headers of the file it came from, whose code and data it has as SHT_NOBITS
 * sections, and is whole. A file shorter than that was
 * cut short after the run (a copy or an unpacking interrupted, a disk full while linking or
 * copying): read as it is, one that kept its symbol table was called stripped, and one cut in
 * its first page read as module+offset with nothing said (since 0.2.44). Read with pread, not
 * mapped: a file cut while read must not fault. */
static uint64_t ckt_sym_elf_extent(const char *path, uint64_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	uint64_t need = 0;
	GElf_Ehdr eh;
	size_t np;
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh)) {
		if (eh.e_shoff)
			need = eh.e_shoff + (uint64_t)(eh.e_shnum ? eh.e_shnum : 1) * eh.e_shentsize;
		if (eh.e_shoff && need <= size) {
			for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
				GElf_Shdr sh;
				if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
				    sh.sh_offset + sh.sh_size > need)
					need = sh.sh_offset + sh.sh_size;
			}
		} else if (!eh.e_shoff) {
			for (size_t k = 0; elf_getphdrnum(elf, &np) == 0 && k < np; k++) {
				GElf_Phdr ph;
				if (gelf_getphdr(elf, (int)k, &ph) && ph.p_filesz && ph.p_offset + ph.p_filesz > need)
					need = ph.p_offset + ph.p_filesz;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return need;
}

/* Opens the ELF file at path as m, with its own Dwfl (so modules that occupied the same
 * addresses at different times never collide), and checks m's build-id. Returns true, or
 * false with the reason in why (NULL: not wanted) and nothing left open; *changed (when not
 * NULL) tells a file whose build-id differs from the trace's (rebuilt since). */
static bool ckt_sym_try(struct ckt_sym *s, struct ckt_sym_module *m, const char *path, char *why, size_t n,
			bool *changed)
{
	/* the trace names the file: a FIFO or a device there now would block the open */
	struct stat sb;
	bool there = stat(path, &sb) == 0;
	if (there && !S_ISREG(sb.st_mode)) {
		if (why)
			snprintf(why, n, "cannot read '%s': not a regular file", path);
		return false;
	}
	/* nor a kernel file that says it is regular (/proc/kmsg: a read blocks, and takes the
	 * kernel's messages away from whoever reads them) */
	if (ckt_util_kernel_file(path)) {
		if (why)
			snprintf(why, n, "cannot read '%s': a kernel file (/proc, /sys), not a program", path);
		return false;
	}
	uint64_t need = there ? ckt_sym_elf_extent(path, (uint64_t)sb.st_size) : 0;
	if (there && need > (uint64_t)sb.st_size) {
		if (why)
			snprintf(why, n, "'%s' is cut short (%llu bytes, where its ELF headers describe %llu): it was "
				 "cut after the run (a copy or unpacking interrupted, a full disk?)", path,
				 (unsigned long long)sb.st_size, (unsigned long long)need);
		if (changed && m->build_id[0])
			*changed = true;
		return false;
	}
	m->dwfl = dwfl_begin(&s->cb);
	if (!m->dwfl) {
		if (why)
			snprintf(why, n, "cannot read '%s': %s", path, dwfl_errmsg(-1));
		return false;
	}
	dwfl_report_begin(m->dwfl);
	/* add_p_vaddr: base is the load bias itself, right even for prelinked objects */
	m->mod = dwfl_report_elf(m->dwfl, m->basename, path, -1, m->base, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	bool ok = m->mod != NULL;
	if (!ok && why)
		snprintf(why, n, "cannot read '%s': %s", path, dwfl_errmsg(-1));
	if (ok && m->build_id[0]) {
		const unsigned char *bits = NULL;
		GElf_Addr bias;
		/* loads the ELF, so the build-id is known; where that fails (out of memory) the
		 * file is unread, not another build (it read "changed since it was traced") */
		Elf *elf = dwfl_module_getelf(m->mod, &bias);
		GElf_Addr vaddr;
		char hex[260];
		int nb = elf ? dwfl_module_build_id(m->mod, &bits, &vaddr) : -1;
		if (nb > 0 && (size_t)nb * 2 < sizeof(hex)) {
			for (int i = 0; i < nb; i++)
				snprintf(hex + 2 * i, 3, "%02x", bits[i]);
		} else {
			hex[0] = '\0';
		}
		ok = nb >= 0 && strcmp(hex, m->build_id) == 0;
		if (nb < 0 && why)
			snprintf(why, n, "cannot read '%s': %s", path, dwfl_errmsg(-1));
		else if (!ok && changed)
			*changed = true;
		if (!ok && nb >= 0 && why)
			snprintf(why, n, "'%s' changed since it was traced (build-id differs)", path);
	}
	/* no build-id (lld and mold write none unless asked): the span of its loaded segments,
	 * which the trace recorded, tells most rebuilds apart, whatever the file's mtime (code
	 * that grew or shrank moves the segments after it); since 0.2.43 */
	if (ok && !m->build_id[0] && m->hi > m->lo && !ckt_sym_same_span(m)) {
		ok = false;
		if (why)
			snprintf(why, n, "'%s' changed since it was traced (its loaded segments' span differs, and it has "
				 "no build-id to find the traced build by)", path);
	}
	if (!ok) {
		dwfl_end(m->dwfl);
		m->dwfl = NULL;
		m->mod = NULL;
	}
	return ok;
}

/* Opens m from the path the trace names, or from a --modules directory with its build-id. */
static void ckt_sym_open(struct ckt_sym *s, struct ckt_sym_module *m)
{
	char why[PATH_MAX + 128], alt[PATH_MAX];
	m->state = CKT_MOD_BAD;
	/* "linux-vdso.so.1" and other names without a file: module+offset, silently. A relative
	 * path (a trace of a tracer before 0.2.1) is tried from the working directory; when that
	 * fails the warning below says so. */
	if (!strchr(m->path, '/'))
		return;
	bool changed = false;
	bool ok = ckt_sym_try(s, m, m->path, why, sizeof(why), &changed);
	/* only where the trace recorded a build-id: another file of that name is another build */
	for (size_t i = 0; !ok && m->build_id[0] && i < ckt_sym_ndirs; i++) {
		int k = snprintf(alt, sizeof(alt), "%s/%s", ckt_sym_dirs[i], m->basename);
		ok = k > 0 && (size_t)k < sizeof(alt) && ckt_sym_try(s, m, alt, NULL, 0, NULL);
	}
	if (!ok) {
		/* rebuilt in place since the trace (changed): the usual case of "did my change
		 * move the peak?", where --modules finds the traced build kept elsewhere; so is a
		 * file moved or deleted since (a build directory cleaned, a container gone), when
		 * the trace has the build-id to find it by (since 0.2.43) */
		struct stat sb;
		bool gone = !changed && m->build_id[0] && stat(m->path, &sb) != 0 &&
			    (errno == ENOENT || errno == ENOTDIR);
		ckt_sym_warn(s, "%s; its frames are shown as module+offset%s", why,
			     ckt_sym_ndirs && m->build_id[0] ? " (no file of its name and build-id in --modules)"
			     : changed || gone ? " (--modules DIR finds the traced build in DIR)" : "");
		return;
	}
	/* no build-id to tell another build by (lld and mold write none unless asked): a file
	 * modified after the trace began may have been rebuilt since, and its names and lines would
	 * be another build's, silently (since 0.2.42). Read as it is, with one line. */
	struct stat sb;
	if (!m->build_id[0] && s->start_wall_ns && stat(m->path, &sb) == 0 &&
	    (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec > s->start_wall_ns)
		ckt_sym_warn(s, "'%s' was modified after the trace began and has no build-id to tell whether it is "
			     "the build that ran: if it was rebuilt since, the names and lines shown for its frames "
			     "are wrong (link with -Wl,--build-id to have it checked; lld and mold write none by "
			     "default)", m->path);
	m->state = CKT_MOD_OK;
}

static int ckt_sym_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The first j with v[j] >= x (n if none). */
static size_t ckt_sym_lower(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index built (ckt_sym_index_tree, ckt_sym_index_modules): bounds b[0..nb), each piece's
 * (or node's) modules ix[start[k]..start[k + 1]) of mods[0..n); tree: nodes of a segment tree */
static void ckt_sym_index_keep(struct ckt_sym *s, uint64_t *b, uint32_t *start, uint32_t *ix, size_t nb,
			       size_t n, bool tree)
{
	s->ix_bounds = b;
	s->ix_start = start;
	s->ix_mods = ix;
	s->ix_nb = nb;
	s->ix_n = n;
	s->ix_tree = tree;
	s->ix_off = false;
}

/* No memory for the index: its parts freed, lookups scan every module */
static void ckt_sym_index_drop(struct ckt_sym *s, uint64_t *b, uint32_t *start, uint32_t *ix)
{
	free(b);
	free(start);
	free(ix);
	s->ix_off = true;
}

/* The segment tree of ckt_sym.ix_tree over the nb - 1 pieces between the sorted, distinct
 * bounds b (taken over, or freed): node p + j is piece j (p = nb - 1), node k's children are 2k
 * and 2k + 1, and a span of pieces [l, r) is listed at the nodes the usual bottom-up walk
 * takes (at most 2 log2(p) of them). On failure (memory) the index is left off. */
static void ckt_sym_index_tree(struct ckt_sym *s, uint64_t *b, size_t nb)
{
	size_t n = s->n_mods, p = nb > 1 ? nb - 1 : 1, total = 0;
	uint32_t *start = calloc(2 * p + 1, sizeof(*start)), *ix = NULL, *fill = NULL;
	if (!start)
		goto off;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			if (s->mods[i].lo >= s->mods[i].hi)
				continue;
			size_t l = ckt_sym_lower(b, nb, s->mods[i].lo) + p, r = ckt_sym_lower(b, nb, s->mods[i].hi) + p;
			for (; l < r; l >>= 1, r >>= 1) {
				size_t at[2], k = 0;
				if (l & 1)
					at[k++] = l++;
				if (r & 1)
					at[k++] = --r;
				for (size_t q = 0; q < k; q++) {
					if (pass) {
						ix[start[at[q]] + fill[at[q]]++] = (uint32_t)i;
					} else {
						start[at[q] + 1]++;
						total++;
					}
				}
			}
		}
		if (pass)
			break;
		if (total > UINT32_MAX)
			goto off;
		for (size_t k = 0; k < 2 * p; k++)
			start[k + 1] += start[k];
		if (!(ix = malloc((total ? total : 1) * sizeof(*ix))) || !(fill = calloc(2 * p, sizeof(*fill))))
			goto off;
	}
	free(fill);
	ckt_sym_index_keep(s, b, start, ix, nb, n, true);
	return;
off:
	free(fill);
	ckt_sym_index_drop(s, b, start, ix);
}

/* Indexes mods[0..n_mods) (see ckt_sym.ix_*): by pieces, or by a segment tree of them where
 * they would be more than 16 per module. On failure (memory) the index is left off and lookups
 * scan every module, as before it existed. */
static void ckt_sym_index_modules(struct ckt_sym *s)
{
	size_t n = s->n_mods, nb = 0, total = 0;
	uint64_t *b = malloc(2 * n * sizeof(*b));
	uint32_t *start = NULL, *ix = NULL;
	free(s->ix_bounds);
	free(s->ix_start);
	free(s->ix_mods);
	s->ix_bounds = NULL;
	s->ix_start = s->ix_mods = NULL;
	s->ix_nb = s->ix_n = 0;
	if (!b)
		goto off;
	for (size_t i = 0; i < n; i++) {
		b[nb++] = s->mods[i].lo;
		b[nb++] = s->mods[i].hi;
	}
	qsort(b, nb, sizeof(*b), ckt_sym_cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < nb; i++)
		if (!u || b[i] != b[u - 1])
			b[u++] = b[i];
	nb = u;
	for (size_t i = 0; i < n; i++)
		if (s->mods[i].lo < s->mods[i].hi)
			total += ckt_sym_lower(b, nb, s->mods[i].hi) - ckt_sym_lower(b, nb, s->mods[i].lo);
	if (total > 16 * n + 4096) {
		ckt_sym_index_tree(s, b, nb);
		return;
	}
	if (!(start = calloc(nb + 1, sizeof(*start))) || !(ix = malloc((total ? total : 1) * sizeof(*ix))))
		goto off;
	for (size_t i = 0; i < n; i++) {
		if (s->mods[i].lo >= s->mods[i].hi)
			continue;
		for (size_t j = ckt_sym_lower(b, nb, s->mods[i].lo), e = ckt_sym_lower(b, nb, s->mods[i].hi); j < e; j++)
			start[j + 1]++;
	}
	for (size_t j = 0; j < nb; j++)
		start[j + 1] += start[j];
	/* fill in index order, so each piece lists its modules oldest first */
	uint32_t *fill = calloc(nb ? nb : 1, sizeof(*fill));
	if (!fill)
		goto off;
	for (size_t i = 0; i < n; i++) {
		if (s->mods[i].lo >= s->mods[i].hi)
			continue;
		for (size_t j = ckt_sym_lower(b, nb, s->mods[i].lo), e = ckt_sym_lower(b, nb, s->mods[i].hi); j < e; j++)
			ix[start[j] + fill[j]++] = (uint32_t)i;
	}
	free(fill);
	ckt_sym_index_keep(s, b, start, ix, nb, n, false);
	return;
off:
	ckt_sym_index_drop(s, b, start, ix);
}

/* How many of the modules l[0..k) (oldest first, so their maps never decrease) were listed
 * by module map `map`: l[that - 1] is the newest of them. */
static size_t ckt_sym_listed_by(const struct ckt_sym *s, const uint32_t *l, size_t k, uint32_t map)
{
	size_t lo = 0, hi = k;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->mods[l[mid]].map <= map)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The module holding pc in module map `map`: the newest listed by then; failing that (a
 * stack read before the map of its library) the newest of all. Modules are in the order they
 * were first listed, so their maps never decrease with their index. */
static struct ckt_sym_module *ckt_sym_module_of(struct ckt_sym *s, uint64_t pc, uint32_t map)
{
	if (!s->ix_off && s->n_mods - s->ix_n > 16 + s->ix_n / 4)
		ckt_sym_index_modules(s);
	size_t done = s->ix_off ? 0 : s->ix_n; /* indexed: mods[0..done) */
	struct ckt_sym_module *any = NULL;
	for (size_t i = s->n_mods; i-- > done;)
		if (pc >= s->mods[i].lo && pc < s->mods[i].hi) {
			if (s->mods[i].map <= map)
				return &s->mods[i];
			if (!any)
				any = &s->mods[i];
		}
	if (!done || pc < s->ix_bounds[0])
		return any;
	size_t j = ckt_sym_lower(s->ix_bounds, s->ix_nb, pc);
	if (j == s->ix_nb || s->ix_bounds[j] != pc)
		j--; /* the piece starting at or before pc */
	if (j + 1 >= s->ix_nb)
		return any; /* at or past the last bound */
	if (s->ix_tree) {
		/* the nodes from pc's piece up to the root list every module that holds pc: the
		 * newest of them listed by `map`, else the newest */
		struct ckt_sym_module *best = NULL, *newest = NULL;
		for (size_t node = j + s->ix_nb - 1; node >= 1; node >>= 1) {
			const uint32_t *l = s->ix_mods + s->ix_start[node];
			size_t k = s->ix_start[node + 1] - s->ix_start[node];
			if (!k)
				continue;
			if (!newest || &s->mods[l[k - 1]] > newest)
				newest = &s->mods[l[k - 1]];
			size_t lo = ckt_sym_listed_by(s, l, k, map);
			if (lo && (!best || &s->mods[l[lo - 1]] > best))
				best = &s->mods[l[lo - 1]];
		}
		return best ? best : any ? any : newest;
	}
	const uint32_t *l = s->ix_mods + s->ix_start[j];
	size_t k = s->ix_start[j + 1] - s->ix_start[j];
	if (!k)
		return any;
	/* the last of l (oldest first) listed by `map` */
	size_t lo = ckt_sym_listed_by(s, l, k, map);
	if (lo)
		return &s->mods[l[lo - 1]];
	return any ? any : &s->mods[l[k - 1]];
}

/* ---- names ---- */

/* Rust's legacy mangling writes a character outside ASCII identifiers as "$u<hex>$"
 * ("gr$uf6$$udf$e_alloc" for größe_alloc), which libiberty leaves as it is: decoded in place
 * into UTF-8 (never longer than the escape). Code points that are no characters
 * (surrogates, past U+10FFFF) and controls stay escaped. */
static void ckt_sym_rust_unescape(char *d)
{
	char *w = d;
	for (const char *r = d; *r;) {
		uint32_t cp = 0;
		const char *h = r + 2;
		int nd = 0;
		if (r[0] == '$' && r[1] == 'u')
			for (; nd < 7 && ((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')); h++, nd++)
				cp = cp * 16 + (uint32_t)(*h <= '9' ? *h - '0' : *h - 'a' + 10);
		if (nd == 0 || nd > 6 || *h != '$' || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
		    (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) {
			*w++ = *r++;
			continue;
		}
		if (cp < 0x80) {
			*w++ = (char)cp;
		} else if (cp < 0x800) {
			*w++ = (char)(0xc0 | cp >> 6);
			*w++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*w++ = (char)(0xe0 | cp >> 12);
			*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*w++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*w++ = (char)(0xf0 | cp >> 18);
			*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*w++ = (char)(0x80 | (cp & 0x3f));
		}
		r = h + 1;
	}
	*w = 0;
}

static bool ckt_sym_rust_symbol_at(const char *symbol, size_t n);
static size_t ckt_sym_base_len(const char *n);

/* cplus_demangle, with a legacy Rust name's "$u<hex>$" escapes decoded. malloc'd or NULL. */
static char *ckt_sym_demangle(const char *raw, int opts)
{
	char *d = cplus_demangle(raw, opts);
	if (d && strstr(d, "$u") && ckt_sym_rust_symbol_at(raw, ckt_sym_base_len(raw)))
		ckt_sym_rust_unescape(d); /* not a C++ name's: GCC takes '$' in identifiers */
	return d;
}

/* Sets f->func and f->name from a symbol or DWARF name, demangling C++ (_Z) and Rust
 * (legacy _ZN..17h<hash>E and v0 _R) names. */
static void ckt_sym_set_name(struct ckt_sym *s, struct ckt_sym_frame *f, const char *raw)
{
	if (!raw || !*raw)
		return;
	if (raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R')) {
		f->cxx = raw[1] == 'Z' && !ckt_sym_rust_symbol_at(raw, ckt_sym_base_len(raw));
		char *full = ckt_sym_demangle(raw, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
		char *plain = ckt_sym_demangle(raw, DMGL_ANSI | DMGL_AUTO);
		/* the program crate's mangling, from its main's symbol: the standard library's and
		 * the crates it bundles are the toolchain's (v0 in Rust 1.95), whatever the
		 * program's is */
		const char *sep = plain ? strstr(plain, "::") : NULL;
		if (sep && strcmp(sep, "::main") == 0 && strncmp(plain, "std::", 5) != 0 && !strpbrk(plain, "<{ ") &&
		    (raw[1] == 'R' || ckt_sym_rust_symbol_at(raw, ckt_sym_base_len(raw))))
			s->rust_main = raw[1] == 'R' ? CKT_SYM_RUST_V0 : CKT_SYM_RUST_LEGACY;
		if (full && plain) {
			f->func = ckt_sym_intern0(s, full);
			f->name = ckt_sym_intern0(s, plain);
		}
		free(full);
		free(plain);
		if (f->func)
			return;
	}
	f->func = f->name = ckt_sym_intern0(s, raw);
}

/* A DIE's linkage name, else its plain name (*plain set). */
static const char *ckt_sym_die_name(Dwarf_Die *d, bool *plain)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	*plain = false;
	/* dwarf_attr_integrate follows DW_AT_abstract_origin and DW_AT_specification */
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) || dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(d, DW_AT_name, &a)) {
		n = dwarf_formstring(&a);
		*plain = true;
	}
	return n;
}

/* The length of a symbol's name without the suffixes a compiler gives its copies of a
 * function (fill.constprop.0, .isra.0, .part.0, .cold, .llvm.123, .lto_priv.0): DWARF's
 * linkage names have none. Only those: a legacy Rust name holds dots of its own
 * (_ZN..$LT$lt..Proof$u20$as$u20$lt..Fill$GT$4fill17h...E). */
static size_t ckt_sym_base_len(const char *n)
{
	static const char *const words[] = { "constprop", "isra", "part", "cold", "llvm", "lto_priv", "localalias", "clone" };
	size_t len = strlen(n);
	for (;;) {
		const char *dot = n + len;
		while (dot > n && *--dot != '.')
			;
		if (dot == n)
			return len;
		const char *c = dot + 1;
		size_t cl = (size_t)(n + len - c), d = 0, w = 0;
		while (d < cl && c[d] >= '0' && c[d] <= '9')
			d++;
		while (w < sizeof(words) / sizeof(words[0]) && !(strlen(words[w]) == cl && memcmp(c, words[w], cl) == 0))
			w++;
		if (!(cl && d == cl) && w == sizeof(words) / sizeof(words[0]))
			return len;
		len = (size_t)(dot - n);
	}
}


/* A Rust symbol, of n bytes: v0 ("_R...") or legacy (its path ends in a hash, "17h<16 hex
 * digits>E"). */
static bool ckt_sym_rust_symbol_at(const char *symbol, size_t n)
{
	if (symbol[0] == '_' && symbol[1] == 'R')
		return true;
	if (n < 22 || strncmp(symbol, "_ZN", 3) != 0 || symbol[n - 1] != 'E' || memcmp(symbol + n - 20, "17h", 3) != 0)
		return false;
	return strspn(symbol + n - 17, "0123456789abcdef") == 16;
}

static bool ckt_sym_rust_symbol(const char *symbol)
{
	return ckt_sym_rust_symbol_at(symbol, strlen(symbol));
}

static const char *ckt_sym_last_component(const char *n);
static bool ckt_sym_body_agrees(const char *last, const char *plain);

/* s[0..n) as both DWARF and v0 would write it (malloc'd; NULL when out of memory): a closure's
 * type "{closure_env#0}" (DWARF) is "{closure#0}" (v0), a one-element tuple "(usize)" is
 * "(usize,)", "f::<T>" inside the arguments is "f<T>", and no spaces ("Output=usize" is
 * "Output = usize"). Other arguments keep their text: "drop_in_place<app::A>" still does not
 * agree with "drop_in_place<app::B>". */
static char *ckt_sym_args_form(const char *s, size_t n)
{
	char *o = malloc(n + 1), *w = o;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ')
			continue;
		if (s[i] == ',' && i + 1 < n && s[i + 1] == ')')
			continue;
		if (s[i] == ':' && i + 2 < n && s[i + 1] == ':' && s[i + 2] == '<') {
			i++;
			continue;
		}
		if (n - i >= 13 && memcmp(s + i, "{closure_env#", 13) == 0) {
			memcpy(w, "{closure#", 9);
			w += 9;
			i += 12;
			continue;
		}
		*w++ = s[i];
	}
	*w = 0;
	return o;
}

/* A demangled C++ name as DWARF's short names write it: without ABI tags
 * ("app::make_string[abi:cxx11]" is "app::make_string": clang's -gline-tables-only names the
 * function "make_string", and its symbol's full name was not taken). In place. */
static void ckt_sym_cxx_plain_form(char *n)
{
	size_t len = strlen(n);
	(void)ckt_util_sans_abi_tags(n, len, n, len + 1);
}

/* A conversion operator's type as its last name without arguments: "std::vector<int, ...>"
 * and "vector<int>" are "vector" (t[0..*len) of t). */
static const char *ckt_sym_conversion_type(const char *t, size_t *len)
{
	size_t l = ckt_util_sans_generics(t, strlen(t));
	const char *last = t;
	int depth = 0;
	for (size_t i = 0; i < l; i++) {
		if (t[i] == '<')
			depth++;
		else if (t[i] == '>' && depth > 0)
			depth--;
		else if (depth == 0 && t[i] == ':' && i + 1 < l && t[i + 1] == ':')
			last = t + i + 2;
	}
	*len = l - (size_t)(last - t);
	return last;
}

/* Whether demangled C++ name n ("app::Buf::operator std::vector<int, ...>") is the
 * conversion operator DWARF names plain ("operator vector", clang's -gline-tables-only;
 * "operator std::vector<int>"): the same type by its last name. */
static bool ckt_sym_conversion_agrees(const char *n, const char *plain)
{
	const char *op = NULL;
	if (strncmp(plain, "operator ", 9) != 0)
		return false;
	for (const char *p = strstr(n, "operator "); p; p = strstr(p + 1, "operator "))
		if (p == n || (p >= n + 2 && p[-1] == ':' && p[-2] == ':'))
			op = p;
	if (!op)
		return false;
	size_t la, lb;
	const char *a = ckt_sym_conversion_type(op + 9, &la), *b = ckt_sym_conversion_type(plain + 9, &lb);
	return la > 0 && la == lb && memcmp(a, b, la) == 0;
}

/* n[0..ln) is plain[0..lp) after a path ("a::b::plain") */
static bool ckt_sym_ends_with_path(const char *n, size_t ln, const char *plain, size_t lp)
{
	return ln > lp + 2 && memcmp(n + ln - lp, plain, lp) == 0 && memcmp(n + ln - lp - 2, "::", 2) == 0;
}

/* Whether symbol (a linkage name without its suffixes, or a C name) names the function DWARF
 * calls plain: the same name once demangled without parameters, or (not exact) one that ends
 * in "::" plain. A Rust symbol (not exact) also agrees when DWARF's generic arguments are
 * the symbol's: v0's "app::prover::make::<4194304>" (read as "...::make<4194304>") is DWARF's
 * "make<4194304>"; a symbol that carries none (legacy mangling drops them from a generic
 * function's path) agrees with DWARF's name without them: "app::prover::build_aux" is
 * "build_aux<u64>". Arguments that differ never agree ("drop_in_place<app::A>" is not
 * "drop_in_place<app::B>"), unless only in how DWARF and v0 write them (ckt_sym_args_form:
 * "run<app::main::{closure_env#0}>" is "app::run::<app::main::{closure#0}>"). A closure's or
 * coroutine's symbol agrees with DWARF's body name (ckt_sym_body_agrees:
 * "app::make_fn::{{closure}}" is "{closure#0}"). */
static bool ckt_sym_names_agree(const char *symbol, const char *plain, bool exact)
{
	char *dm = NULL;
	if (symbol[0] == '_' && (symbol[1] == 'Z' || symbol[1] == 'R'))
		dm = ckt_sym_demangle(symbol, DMGL_ANSI | DMGL_AUTO);
	if (dm && symbol[1] == 'Z')
		ckt_sym_cxx_plain_form(dm);
	const char *n = dm ? dm : symbol;
	size_t ln = strlen(n), lp = strlen(plain);
	bool same = strcmp(n, plain) == 0 ||
		    (!exact && ln > lp + 2 && strcmp(n + ln - lp, plain) == 0 && memcmp(n + ln - lp - 2, "::", 2) == 0) ||
		    (!exact && dm && symbol[1] == 'Z' && ckt_sym_conversion_agrees(n, plain));
	if (!same && !exact && dm && ckt_sym_rust_symbol(symbol)) {
		const char *last = ckt_sym_last_component(n);
		if (last != n && ckt_sym_body_agrees(last, plain)) {
			free(dm);
			return true;
		}
		size_t g = ckt_util_sans_generics(n, ln), gp = ckt_util_sans_generics(plain, lp);
		if (g == ln) { /* the symbol carries no arguments: compare without DWARF's */
			lp = gp;
		} else if (g >= 2 && n[g - 1] == ':' && n[g - 2] == ':') {
			/* v0's "f::<A>": its arguments after the name, as DWARF's "f<A>" */
			memmove(dm + g - 2, dm + g, ln - g + 1);
			ln -= 2;
			g -= 2;
		}
		same = ckt_sym_ends_with_path(n, ln, plain, lp);
		/* both carry arguments, which DWARF and v0 print differently (a generic that took
		 * a closure kept DWARF's short name, and no --phase-rule on its path matched):
		 * compared as ckt_sym_args_form writes them */
		if (!same && g != ln && gp != lp) {
			char *fn = ckt_sym_args_form(n, ln), *fp = ckt_sym_args_form(plain, lp);
			same = fn && fp && ckt_sym_ends_with_path(fn, strlen(fn), fp, strlen(fp));
			free(fn);
			free(fp);
		}
	}
	free(dm);
	return same;
}

/* The function's name qualified by the namespaces and classes DWARF declares it in (C++:
 * "(anonymous namespace)::Witness::fill", from the declaration its definition points to), or
 * NULL when DWARF puts it in none (a function at file scope; Rust's line-tables-only, whose
 * functions sit in the unit alone) or out of memory. */
/* The DIE that declares function fn (in mem): an out-of-line copy or an inlined instance
 * points to its abstract instance, a definition to its declaration. */
static Dwarf_Die *ckt_sym_decl_die(Dwarf_Die *fn, Dwarf_Die mem[2])
{
	Dwarf_Die *d = fn;
	Dwarf_Attribute at;
	if (dwarf_attr(d, DW_AT_abstract_origin, &at) && dwarf_formref_die(&at, &mem[0]))
		d = &mem[0];
	if (dwarf_attr(d, DW_AT_specification, &at) && dwarf_formref_die(&at, &mem[1]))
		d = &mem[1];
	return d;
}

static char *ckt_sym_qualified(Dwarf_Die *fn, const char *plain)
{
	Dwarf_Die mem[2], *scopes = NULL;
	int n = dwarf_getscopes_die(ckt_sym_decl_die(fn, mem), &scopes);
	char *q = NULL;
	size_t len = 0;
	FILE *f = n > 2 ? open_memstream(&q, &len) : NULL;
	bool ok = f != NULL;
	/* scopes[0] is d, scopes[n - 1] its unit */
	for (int i = n - 2; ok && i >= 1; i--) {
		const char *name = dwarf_diename(&scopes[i]);
		switch (dwarf_tag(&scopes[i])) {
		case DW_TAG_namespace:
			fputs(name ? name : "(anonymous namespace)", f);
			break;
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			ok = name != NULL;
			if (ok)
				fputs(name, f);
			break;
		default:
			ok = false; /* a function's local class: left to the symbol table's rule */
			break;
		}
		fputs("::", f);
	}
	if (f) {
		fputs(plain, f);
		ok = fclose(f) == 0 && ok;
	}
	free(scopes);
	if (!ok) {
		free(q);
		return NULL;
	}
	return q;
}

/* An inlined C++ lambda's name: its operator() belongs to an unnamed class local to the
 * function that wrote it, "main::{lambda at line 46}::operator()" (the class's line; the
 * function qualified as ckt_sym_qualified does), malloc'd; NULL when fn is no such operator()
 * or out of memory. An inlined lambda was "operator()" alone before 0.2.27, and --diff summed
 * every lambda's bytes in that one row (an out-of-line one has its symbol's name,
 * "main::{lambda(unsigned long)#2}::operator()(unsigned long) const"). */
static char *ckt_sym_lambda_name(Dwarf_Die *fn)
{
	Dwarf_Die mem[2], *scopes = NULL;
	Dwarf_Attribute at;
	Dwarf_Word line;
	int n = dwarf_getscopes_die(ckt_sym_decl_die(fn, mem), &scopes);
	char *out = NULL;
	/* scopes: the operator() itself, its class, the function holding the class, ... */
	const char *fname = n > 3 ? dwarf_diename(&scopes[2]) : NULL;
	int ct = n > 3 ? dwarf_tag(&scopes[1]) : 0;
	if (fname && (ct == DW_TAG_structure_type || ct == DW_TAG_class_type) && !dwarf_diename(&scopes[1]) &&
	    dwarf_tag(&scopes[2]) == DW_TAG_subprogram && dwarf_attr(&scopes[1], DW_AT_decl_line, &at) &&
	    dwarf_formudata(&at, &line) == 0) {
		char *fq = ckt_sym_qualified(&scopes[2], fname);
		size_t len = strlen(fq ? fq : fname) + 64;
		out = malloc(len);
		if (out)
			snprintf(out, len, "%s::{lambda at line %llu}::operator()", fq ? fq : fname,
				 (unsigned long long)line);
		free(fq);
	}
	free(scopes);
	return out;
}

/* ---- lookup ---- */

static int ckt_sym_push(struct ckt_sym *s, const struct ckt_sym_frame *f)
{
	if (s->n_frames == s->cap_frames) {
		size_t cap = s->cap_frames ? s->cap_frames * 2 : 256;
		struct ckt_sym_frame *n = realloc(s->frames, cap * sizeof(*n));
		if (!n)
			return CKT_ENOMEM;
		s->frames = n;
		s->cap_frames = cap;
	}
	s->frames[s->n_frames++] = *f;
	return 0;
}

#define CKT_SYM_MAX_NEST 128

static struct ckt_sym_cu *ckt_sym_cu_index(struct ckt_sym_module *m, Dwarf_Die *cu);
static struct ckt_sym_cu *ckt_sym_cu_find(const struct ckt_sym_module *m, const Dwarf_Die *d);
static const struct ckt_sym_fn *ckt_sym_cu_best(const struct ckt_sym_cu *c, Dwarf_Addr pc);

/* A DIE whose children a walk passed more than this many of is indexed as a unit is (below),
 * for the next addresses under it: a function that calls 20,000 functions has 20,000 call-site
 * DIEs, which each of its 20,000 return addresses walked (a generated function's stacks: 250 s
 * to report; since 0.2.51 0.5 s). */
#define CKT_SYM_BIG_DIE 512

/* Appends to path[depth..] the DIEs of functions, inlined instances and blocks under parent
 * that contain pc, outermost first, and returns the new depth. Descends through namespaces and
 * types without addresses too: rustc nests every function in DW_TAG_namespace DIEs, which
 * dwarf_getscopes (elfutils 0.188) does not enter, and past an inlined instance
 * dwarf_getscopes continues with its abstract origin's scopes, not the caller's. m (NULL: none)
 * keeps the indexes of big DIEs. */
static int ckt_sym_nest(struct ckt_sym_module *m, Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth)
{
	Dwarf_Die child;
	if (depth >= CKT_SYM_MAX_NEST)
		return depth;
	const struct ckt_sym_cu *big = m && m->n_big ? ckt_sym_cu_find(m, parent) : NULL;
	if (big && big->ok) {
		const struct ckt_sym_fn *best = ckt_sym_cu_best(big, pc);
		if (!best)
			return depth;
		path[depth] = best->die;
		return ckt_sym_nest(m, &path[depth], pc, path, depth + 1);
	}
	if (dwarf_child(parent, &child) != 0)
		return depth;
	unsigned seen = 0;
	do {
		if (++seen == CKT_SYM_BIG_DIE && m && !big && ckt_sym_cu_index(m, parent)) {
			m->n_big++;
			return ckt_sym_nest(m, parent, pc, path, depth);
		}
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_entry_point:
			if (dwarf_haspc(&child, pc) == 1) {
				path[depth] = child;
				return ckt_sym_nest(m, &path[depth], pc, path, depth + 1);
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type: {
			int d = ckt_sym_nest(m, &child, pc, path, depth);
			if (d > depth)
				return d;
			break;
		}
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

/* ---- compile unit index ----
 * ckt_sym_nest from the CU DIE walks every function of the unit before it finds the one
 * holding the address: a unit of 40,000 functions took 3 ms an address (a Rust codegen unit
 * holds thousands), 2 minutes for 40,000 distinct return addresses. So each unit's outermost
 * function DIEs (what that walk tests with dwarf_haspc) are collected once, with their address
 * ranges, and an address finds its function by bisection; the walk then goes on inside that
 * function only. */

struct ckt_sym_fnvec {
	struct ckt_sym_fn *v;
	size_t n, cap;
};

static int ckt_sym_fn_cmp(const void *x, const void *y)
{
	const struct ckt_sym_fn *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* Collects the function DIEs ckt_sym_nest would test under parent. Returns 0 or CKT_ENOMEM. */
static int ckt_sym_cu_collect(Dwarf_Die *parent, struct ckt_sym_fnvec *fv, int depth)
{
	Dwarf_Die child;
	if (depth >= CKT_SYM_MAX_NEST || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_entry_point: {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0) {
				if (end <= start)
					continue;
				if (fv->n == fv->cap) {
					size_t cap = fv->cap ? fv->cap * 2 : 64;
					struct ckt_sym_fn *v = realloc(fv->v, cap * sizeof(*v));
					if (!v)
						return CKT_ENOMEM;
					fv->v = v;
					fv->cap = cap;
				}
				fv->v[fv->n++] = (struct ckt_sym_fn){ start, end, dwarf_dieoffset(&child), child };
			}
			break;
		}
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			if (ckt_sym_cu_collect(&child, fv, depth + 1) < 0)
				return CKT_ENOMEM;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The index of d (a unit, or a big DIE: ckt_sym_nest) in m, or NULL where it has none yet. */
static struct ckt_sym_cu *ckt_sym_cu_find(const struct ckt_sym_module *m, const Dwarf_Die *d)
{
	uintptr_t key = (uintptr_t)d->addr;
	size_t lo = CKT_UTIL_LOWER_BOUND(m->cus, m->n_cus, key, key);
	return lo < m->n_cus && m->cus[lo].key == key ? &m->cus[lo] : NULL;
}

/* The index of cu in m, built on first use; NULL when out of memory. */
static struct ckt_sym_cu *ckt_sym_cu_index(struct ckt_sym_module *m, Dwarf_Die *cu)
{
	uintptr_t key = (uintptr_t)cu->addr;
	size_t lo = CKT_UTIL_LOWER_BOUND(m->cus, m->n_cus, key, key);
	if (lo < m->n_cus && m->cus[lo].key == key)
		return &m->cus[lo];
	if (m->n_cus == m->cap_cus) {
		size_t cap = m->cap_cus ? m->cap_cus * 2 : 16;
		struct ckt_sym_cu *v = realloc(m->cus, cap * sizeof(*v));
		if (!v)
			return NULL;
		m->cus = v;
		m->cap_cus = cap;
	}
	memmove(&m->cus[lo + 1], &m->cus[lo], (m->n_cus - lo) * sizeof(*m->cus));
	m->n_cus++;
	struct ckt_sym_cu *c = &m->cus[lo];
	*c = (struct ckt_sym_cu){ .key = key };
	struct ckt_sym_fnvec fv = { 0 };
	if (ckt_sym_cu_collect(cu, &fv, 0) == 0 &&
	    (c->max_hi = malloc((fv.n ? fv.n : 1) * sizeof(*c->max_hi)))) {
		if (fv.n) /* a unit with no functions (assembly without .type) has no vector */
			qsort(fv.v, fv.n, sizeof(*fv.v), ckt_sym_fn_cmp);
		for (size_t k = 0; k < fv.n; k++)
			c->max_hi[k] = k && c->max_hi[k - 1] > fv.v[k].hi ? c->max_hi[k - 1] : fv.v[k].hi;
		c->fns = fv.v;
		c->n = fv.n;
		c->ok = true;
	} else {
		free(fv.v); /* not indexed: this unit is walked per address */
	}
	return c;
}

/* ckt_sym_nest from cu, through the index: the function holding pc (the first in DIE order
 * where ranges overlap), then the walk inside it. */
/* The DIE of c holding pc that a walk finds first (the first in DIE order where ranges
 * overlap), or NULL. */
static const struct ckt_sym_fn *ckt_sym_cu_best(const struct ckt_sym_cu *c, Dwarf_Addr pc)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->fns[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ckt_sym_fn *best = NULL;
	for (size_t k = lo; k-- > 0 && c->max_hi[k] > pc;)
		if (pc < c->fns[k].hi && (!best || c->fns[k].off < best->off))
			best = &c->fns[k];
	return best;
}

static int ckt_sym_nest_cu(struct ckt_sym_module *m, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *path)
{
	struct ckt_sym_cu *c = ckt_sym_cu_index(m, cu);
	if (!c || !c->ok)
		return ckt_sym_nest(NULL, cu, pc, path, 0);
	const struct ckt_sym_fn *best = ckt_sym_cu_best(c, pc);
	if (!best)
		return 0;
	path[0] = best->die;
	return ckt_sym_nest(m, &path[0], pc, path, 1);
}

static int ckt_sym_table_load(struct ckt_sym_module *m);
static char *ckt_sym_full_name(const struct ckt_sym_table *t, uint64_t a, const char *plain, bool exact);

/* The language of a unit's functions, as far as naming needs it */
enum ckt_sym_lang { CKT_SYM_LANG_OTHER, CKT_SYM_LANG_C, CKT_SYM_LANG_CXX };

static enum ckt_sym_lang ckt_sym_lang(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		return CKT_SYM_LANG_C;
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a: /* DW_LANG_C_plus_plus_17 (DWARF 6; elfutils' header names it since 0.190) */
	case 0x2b: /* DW_LANG_C_plus_plus_20 */
	case DW_LANG_ObjC_plus_plus:
		return CKT_SYM_LANG_CXX;
	default:
		return CKT_SYM_LANG_OTHER;
	}
}

/* C's names are whole already (no namespaces): its units need no symbol table for them */
static bool ckt_sym_lang_c(Dwarf_Die *cu)
{
	return ckt_sym_lang(cu) == CKT_SYM_LANG_C;
}

/* The bodies rustc's debuginfo=line-tables-only names "{kind#N}" alone, and the type of each
 * body's environment as generic arguments name it: closures, and since 0.2.22 the coroutines of
 * async fns, blocks and closures. */
static const char *const ckt_sym_bodies[][2] = {
	{ "{closure#", "{closure_env#" },
	{ "{async_fn#", "{async_fn_env#" },
	{ "{async_block#", "{async_block_env#" },
	{ "{async_closure#", "{async_closure_env#" },
};

/* The kind of body name is ("{closure#0}", "{async_fn#0}<u64>": an index of ckt_sym_bodies),
 * with its number's digits in [*num, *end) and the generic arguments after it at *end + 1;
 * -1 when it is none. */
static int ckt_sym_body_kind(const char *name, const char **num, const char **end)
{
	for (size_t k = 0; name && k < sizeof(ckt_sym_bodies) / sizeof(ckt_sym_bodies[0]); k++) {
		size_t hl = strlen(ckt_sym_bodies[k][0]);
		if (strncmp(name, ckt_sym_bodies[k][0], hl) != 0)
			continue;
		const char *d = name + hl, *e = d;
		while (*e >= '0' && *e <= '9')
			e++;
		if (e == d || *e != '}' || (e[1] && (e[1] != '<' || e[strlen(e) - 1] != '>')))
			return -1;
		*num = d;
		*end = e;
		return (int)k;
	}
	return -1;
}

/* The last component of a demangled path: after its last "::" outside generic arguments. */
static const char *ckt_sym_last_component(const char *n)
{
	int depth = 0;
	for (size_t i = strlen(n); i-- > 1;) {
		if (n[i] == '>' && n[i - 1] != '-')
			depth++;
		else if (n[i] == '<')
			depth--;
		else if (depth == 0 && n[i] == ':' && n[i - 1] == ':')
			return n + i + 1;
	}
	return n;
}

/* Whether a Rust symbol's last component (demangled) is the body DWARF calls plain: legacy
 * names write every closure and coroutine "{{closure}}", v0 names "{closure#N}" with DWARF's
 * number (an async fn's body, "{async_fn#0}", is v0's "{closure#0}"). */
static bool ckt_sym_body_agrees(const char *last, const char *plain)
{
	const char *num, *end;
	if (ckt_sym_body_kind(plain, &num, &end) < 0)
		return false;
	if (strcmp(last, "{{closure}}") == 0)
		return true;
	return strncmp(last, "{closure#", 9) == 0 && strncmp(last + 9, num, (size_t)(end - num)) == 0 &&
	       last[9 + (end - num)] == '}';
}

/* The name of an out-of-line Rust closure or coroutine whose symbol (demangled: "sym") is
 * "app::make_fn::{{closure}}" where DWARF says "{closure#0}" (or v0's "{closure#0}" where
 * DWARF says "{async_fn#0}"): the symbol's path with DWARF's last name, as inlined ones are
 * named, malloc'd; NULL when the symbol's last name is DWARF's already (or out of memory). */
static char *ckt_sym_body_named(const char *sym, const char *plain)
{
	const char *num, *end;
	if (ckt_sym_body_kind(plain, &num, &end) < 0)
		return NULL;
	const char *last = ckt_sym_last_component(sym);
	if (last == sym || strncmp(last, plain, (size_t)(end + 1 - plain)) == 0 || !ckt_sym_body_agrees(last, plain))
		return NULL;
	size_t len = (size_t)(last - sym) + strlen(plain) + 1;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%.*s%s", (int)(last - sym), sym, plain);
	return out;
}

/* The name of a Rust function whose symbol (demangled: "sym") writes a closure or coroutine as
 * legacy mangling does, "app::main::{{closure}}", where DWARF (rustc -g) says which one it is:
 * the function's own name ("{closure#1}", "{async_fn#0}", "{closure#0}<u16>") for the last
 * component, and the namespaces it is declared in for a body inside another ("app::run::
 * {{closure}}::{{closure}}" is "app::run::{closure#0}::{closure#1}"). Components are matched
 * right to left, each namespace to the component before: one of sym's bodies that agrees with
 * DWARF's (ckt_sym_body_agrees) takes DWARF's name, another component must be the namespace's
 * name, else the walk stops there. v0's "{closure#0}" where DWARF says "{async_fn#0}" alike.
 * Malloc'd; NULL when no component changes (or out of memory). */
/* The scopes of d's unit (struct ckt_sym_cu's), built once: its namespaces and functions, each
 * with the namespace that encloses it (none where another DIE does, a type or a function: the
 * names are read up to there only). dwarf_getscopes_die finds a DIE's
 * parents by walking its unit from the top, once per function named: a -g program of 1,500
 * functions with closures in closures took 6.7 s to report where 0.18 s had (quadratic).
 * *at gets d's entry. NULL where d is not in it (another unit's, a type unit's) or memory
 * lacks: the caller asks libdw. */
static const struct ckt_sym_scope *ckt_sym_scopes_of(struct ckt_sym_module *m, Dwarf_Die *d, size_t *at)
{
	Dwarf_Die cu;
	struct ckt_sym_cu *c = m && dwarf_diecu(d, &cu, NULL, NULL) ? ckt_sym_cu_index(m, &cu) : NULL;
	if (!c || c->scopes_state < 0)
		return NULL;
	if (!c->scopes_state) {
		Dwarf_Die st[CKT_SYM_MAX_NEST];
		int32_t par[CKT_SYM_MAX_NEST];
		size_t cap = 0;
		int k = 0, rc = dwarf_child(&cu, &st[0]);
		c->scopes_state = -1;
		par[0] = -1;
		while (rc == 0) {
			int tag = dwarf_tag(&st[k]);
			bool kids = dwarf_haschildren(&st[k]) > 0;
			int32_t me = -1;
			if (tag == DW_TAG_namespace || tag == DW_TAG_subprogram) {
				if (c->n_scopes == cap) {
					struct ckt_sym_scope *v = ckt_util_grow(c->scopes, &cap, sizeof(*v), 256);
					if (!v) {
						free(c->scopes);
						c->scopes = NULL;
						c->n_scopes = 0;
						return NULL;
					}
					c->scopes = v;
				}
				me = (int32_t)c->n_scopes;
				c->scopes[c->n_scopes++] = (struct ckt_sym_scope){
					dwarf_dieoffset(&st[k]), par[k], tag,
					tag == DW_TAG_namespace ? dwarf_diename(&st[k]) : NULL };
			}
			if (kids && k + 1 < CKT_SYM_MAX_NEST && dwarf_child(&st[k], &st[k + 1]) == 0) {
				par[++k] = tag == DW_TAG_namespace ? me : -1;
				continue;
			}
			/* the next sibling here, else up */
			while ((rc = dwarf_siblingof(&st[k], &st[k])) == 1 && k > 0)
				k--;
		}
		c->scopes_state = 1;
	}
	Dwarf_Off off = dwarf_dieoffset(d);
	size_t lo = CKT_UTIL_LOWER_BOUND(c->scopes, c->n_scopes, off, off);
	if (lo == c->n_scopes || c->scopes[lo].off != off)
		return NULL;
	*at = lo;
	return c->scopes;
}

static char *ckt_sym_bodies_named(struct ckt_sym_module *m, const char *sym, Dwarf_Die *fn)
{
	enum { MAXC = 64 };
	Dwarf_Attribute at;
	const char *own = dwarf_attr_integrate(fn, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
	if (!own || !strchr(sym, '{'))
		return NULL;
	/* sym's components, split at "::" outside generic arguments */
	const char *cs[MAXC];
	size_t cl[MAXC];
	const char *rep[MAXC] = { NULL }; /* DWARF's name for a component, NULL: kept */
	int nc = 0, depth = 0;
	const char *start = sym;
	for (const char *p = sym;; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && p > sym && p[-1] != '-')
			depth--;
		if (*p == 0 || (depth == 0 && p[0] == ':' && p[1] == ':')) {
			if (nc == MAXC)
				return NULL;
			cs[nc] = start;
			cl[nc++] = (size_t)(p - start);
			if (*p == 0)
				break;
			start = p + 2;
			p++;
		}
	}
	if (nc < 2)
		return NULL;
	char *last = strndup(cs[nc - 1], cl[nc - 1]);
	if (!last)
		return NULL;
	const char *num, *end;
	bool any = false;
	/* the function's own name: as ckt_sym_body_named, DWARF's arguments with it */
	if (ckt_sym_body_kind(own, &num, &end) >= 0 && strncmp(last, own, (size_t)(end + 1 - own)) != 0 &&
	    ckt_sym_body_agrees(last, own)) {
		rep[nc - 1] = own;
		any = true;
	}
	free(last);
	/* the namespaces it is declared in, innermost first, when a component before the last
	 * may be a body: from the unit's scopes (ckt_sym_scopes_of), else libdw's (scopes[0]:
	 * the function's DIE, scopes[n - 1] its unit) */
	Dwarf_Die mem[2], *scopes = NULL, *decl = ckt_sym_decl_die(fn, mem);
	const struct ckt_sym_scope *sc = NULL;
	size_t j = 0;
	int n = 0;
	if (memchr(sym, '{', (size_t)(cs[nc - 1] - sym)) && !(sc = ckt_sym_scopes_of(m, decl, &j)))
		n = dwarf_getscopes_die(decl, &scopes);
	int32_t up = sc ? sc[j].parent : -1;
	for (int i = 1, c = nc - 2; c >= 0 && (sc ? up >= 0 : i < n - 1); i++, c--) {
		const char *ns = sc ? sc[up].name : dwarf_diename(&scopes[i]);
		if ((sc ? sc[up].tag : dwarf_tag(&scopes[i])) != DW_TAG_namespace || !ns)
			break;
		if (sc)
			up = sc[up].parent;
		if (strlen(ns) == cl[c] && memcmp(ns, cs[c], cl[c]) == 0)
			continue;
		char *comp = strndup(cs[c], cl[c]);
		bool body = comp && ckt_sym_body_kind(ns, &num, &end) >= 0 && !end[1] && ckt_sym_body_agrees(comp, ns);
		free(comp);
		if (!body)
			break;
		rep[c] = ns;
		any = true;
	}
	char *out = NULL;
	size_t len = 0;
	FILE *f = any ? open_memstream(&out, &len) : NULL;
	for (int c = 0; f && c < nc; c++) {
		if (c)
			fputs("::", f);
		if (rep[c])
			fputs(rep[c], f);
		else
			fwrite(cs[c], 1, cl[c], f);
	}
	if (f && fclose(f) != 0) {
		free(out);
		out = NULL;
	}
	free(scopes);
	return out;
}

/* The path of the function that defines an inlined Rust closure named "{closure#N}" alone (the
 * DWARF of debuginfo=line-tables-only has no linkage names: the closures of every function read
 * alike, and a site "{closure#0} (prover.rs:80)" said nothing of whose it was), from the name of
 * the frame it is inlined into: generic code called with the closure names its type in its
 * arguments ("fold<..., prover::synth::run::{closure_env#0}, ...>"). The one such path out of
 * the standard library's crates is taken, else the one in them; two different ones (a generic
 * function given closures of two functions, each #0) tell nothing sure: no path then. The
 * arguments are read from the caller's DWARF name (dwarf, when not NULL): an out-of-line
 * caller's name is its symbol's, and a legacy symbol has none ("install", where DWARF says
 * "install<u8, app::prove::{closure_env#0}>"). A closure inlined straight into the function
 * that defines it finds no such argument: that function's name is its path. The coroutines of
 * async code ("{async_fn#0}", "{async_block#1}") alike, from "{async_fn_env#0}" and kin, but
 * never from the caller's own name: a coroutine is polled where it is awaited, not where it
 * is defined (load_params's body inlined into load_all's, which awaits it). Returns a
 * malloc'd "PATH::{closure#N}" (with the generic arguments of a generic function's closure:
 * "PATH::{closure#N}<u64>"), or NULL (not such a body, no path, out of memory). */
static char *ckt_sym_closure_path(const char *name, const char *caller, const char *dwarf)
{
	const char *num, *e;
	int kind = ckt_sym_body_kind(name, &num, &e);
	if (kind < 0 || !caller)
		return NULL;
	/* a closure of a generic function carries its arguments, "{closure#0}<u64>", as its
	 * environment type does in the caller's name, "prover::build::{closure_env#0}<u64>" */
	const char *args = e + 1;
	size_t nargs = strlen(args);
	char env[48];
	int envlen = snprintf(env, sizeof(env), "::%s%.*s}", ckt_sym_bodies[kind][1], (int)(e - num), num);
	if (envlen <= 0 || (size_t)envlen >= sizeof(env))
		return NULL;
	const char *gen = dwarf ? dwarf : caller;
	/* the candidates: one of the program's (not core, alloc or std), else one of those; two
	 * different ones of a kind (a generic function given closures of two functions) say
	 * nothing sure: none taken */
	const char *best[2] = { NULL, NULL }, *best_end[2] = { NULL, NULL };
	bool many[2] = { false, false }, any = false;
	for (const char *m = strstr(gen, env); m; m = strstr(m + 1, env)) {
		const char *b = m;
		while (b > gen && !strchr("<, (&*", b[-1]))
			b--;
		if (b == m || strncmp(m + envlen, args, nargs) != 0)
			continue;
		any = true;
		int std = !strncmp(b, "core::", 6) || !strncmp(b, "alloc::", 7) || !strncmp(b, "std::", 5);
		if (!best[std]) {
			best[std] = b;
			best_end[std] = m;
		} else if (m - b != best_end[std] - best[std] || memcmp(b, best[std], (size_t)(m - b)) != 0) {
			many[std] = true;
		}
	}
	int pick = best[0] ? 0 : 1;
	const char *from = best[pick], *to = best_end[pick];
	if (many[pick])
		return NULL;
	/* none: inlined straight into the function that defines it, whose name is a path (a
	 * method's "<T as Trait>::m" too; not a generic instance's "f<u32>") */
	if (!any && !nargs && kind == 0 && (caller[0] == '<' || !strpbrk(caller, "< ")) &&
	    (strstr(caller, "::") || !strchr(caller, '{'))) {
		from = caller;
		to = caller + strlen(caller);
	}
	if (!from)
		return NULL;
	size_t len = (size_t)(to - from) + 2 + strlen(name) + 1;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%.*s::%s", (int)(to - from), from, name);
	return out;
}

/* a character of an identifier */
static bool ckt_sym_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The span of the generic arguments of a method's type in its demangled symbol d (ty: after
 * the module's path), "<MOD::Type<ARGS>>::meth" or "<MOD::Type<ARGS> as Trait>::meth", into
 * *a and *al (0: none); returns false unless d is "MOD::Type::meth" (legacy, the type's
 * parameters' names as arguments: "MOD::Type<E>::meth"), "<MOD::Type>::meth" (v0) or
 * "<MOD::Type as TRAIT>::meth" (a trait's, both manglings), Type one component (end: where
 * "::meth" starts). */
static bool ckt_sym_impl_type(const char *d, const char *ty, const char *end, const char **a, size_t *al)
{
	bool bracketed = d[0] == '<';
	const char *te = end - (bracketed ? 1 : 0);
	if (bracketed && te[0] != '>')
		return false;
	*a = NULL;
	*al = 0;
	int depth = 0;
	for (const char *p = ty; p < te; p++) {
		if (*p == '<') {
			if (depth++ == 0)
				*a = p + 1;
		} else if (*p == '>') {
			if (--depth < 0)
				return false;
			if (depth == 0)
				*al = (size_t)(p - *a);
		} else if (depth == 0 && bracketed && strncmp(p, " as ", 4) == 0) {
			return p > ty; /* a trait's impl: the trait's path, whatever it is, up to te */
		} else if (depth == 0 && !ckt_sym_ident(*p)) {
			return false; /* "::": a path deeper than one type */
		}
	}
	return depth == 0 && te > ty;
}

static Dwarf_Die *ckt_sym_addrdie(struct ckt_sym_module *m, uint64_t a, Dwarf_Addr *bias, bool *own);

/* What a function's DWARF name says of a closure's environment, when it holds one as a
 * generic argument ("scope<app::{impl#1}::run::{closure_env#0}, ...>"). env:
 * "app::{impl#1}::run::{closure_env#0}", "{impl#" at env + impl_at, "run" ml bytes long;
 * cargs: the closure's generic arguments in ckt_sym_args_form's form (NULL: none). 1 when
 * name holds env with those arguments; else -1 when it holds another impl block's method of
 * that name ("app::{impl#0}::run::"), or that environment with other arguments (another
 * instance's); else 0. block_only: 1 for any name of this block's method, -1 for another's. */
static int ckt_sym_env_says(const char *name, const char *env, size_t impl_at, size_t ml, const char *cargs,
			    bool block_only)
{
	size_t headl = impl_at + 6;                  /* "app::{impl#" */
	const char *num = env + headl;
	size_t nl = strspn(num, "0123456789");
	const char *tail = num + nl;                 /* "}::run::{closure_env#0}" */
	size_t mtl = 3 + ml + 2, tl = strlen(tail); /* "}::run::" */
	int said = 0;
	if (!nl || tl < mtl)
		return 0;
	for (const char *h = name; h && (h = strstr(h, "{impl#")) != NULL; h++) {
		if ((size_t)(h - name) < impl_at || memcmp(h - impl_at, env, headl) != 0)
			continue;
		const char *e = h + 6;
		size_t n = strspn(e, "0123456789");
		if (!n || strncmp(e + n, tail, mtl) != 0)
			continue; /* not this method */
		if (n != nl || memcmp(e, num, n) != 0) {
			said = -1; /* another block's method of that name */
			continue;
		}
		if (block_only)
			return 1;
		if (strncmp(e + n, tail, tl) != 0)
			continue; /* another closure of this method */
		const char *a = e + n + tl;
		bool same = !cargs && *a != '<';
		if (*a == '<' && cargs) {
			const char *z = a + 1;
			int dd = 1;
			for (; *z && dd; z++)
				dd += *z == '<' ? 1 : *z == '>' ? -1 : 0;
			/* unbalanced (a corrupt name: "...{closure_env#0}<"): no arguments to compare */
			char *f = dd ? NULL : ckt_sym_args_form(a + 1, (size_t)(z - a - 2));
			same = f && strcmp(f, cargs) == 0;
			free(f);
		}
		if (same)
			return 1;
		said = -1; /* this environment with other arguments: another instance's */
	}
	return said;
}

/* The first line of file that the code of [lo, hi) of module m comes from, at or before
 * line (a closure is written inside its method, so after the method's first line; the
 * method's code may end before it: a tail call that takes the closure): the method's start.
 * 0 when none; 1 when it cannot tell (no line table). */
static unsigned ckt_sym_first_line(struct ckt_sym_module *m, uint64_t lo, uint64_t hi, const char *file,
				   unsigned line)
{
	Dwarf_Addr bias;
	bool own;
	Dwarf_Die *cu = ckt_sym_addrdie(m, lo, &bias, &own);
	Dwarf_Lines *lines;
	size_t n;
	unsigned first = 0;
	if (!cu || hi <= lo || dwarf_getsrclines(cu, &lines, &n) != 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		const char *f;
		if (l && dwarf_lineaddr(l, &a) == 0 && a >= lo - bias && a < hi - bias && dwarf_lineno(l, &ln) == 0 &&
		    ln > 0 && (unsigned)ln <= line && (!first || (unsigned)ln < first) &&
		    (f = dwarf_linesrc(l, NULL, NULL)) && strcmp(f, file) == 0)
			first = (unsigned)ln;
	}
	return first;
}

/* The function DIE (outermost) holding address lo of module m into *fn; false when none. */
static bool ckt_sym_fn_die(struct ckt_sym_module *m, uint64_t lo, Dwarf_Die *fn)
{
	Dwarf_Addr bias;
	bool own;
	Dwarf_Die *cu = ckt_sym_addrdie(m, lo, &bias, &own);
	Dwarf_Die path[CKT_SYM_MAX_NEST];
	if (!cu || ckt_sym_nest_cu(m, cu, lo - bias, path) < 1)
		return false;
	*fn = path[0];
	return true;
}

/* ckt_sym_env_says of the name of the function at lo and of those inlined into it: what the
 * code of a method, or of a function that takes or is a closure of one, says of the closures
 * made there (the first 1, else -1 if any, else 0). A closure made inside another method of
 * that name inlined there ("meth", ml bytes: Inner::run inlined into Outer::run) is that
 * one's: -1 for this function. */
static int ckt_sym_impl_evidence(struct ckt_sym_module *m, uint64_t lo, const char *env, size_t impl_at,
				 const char *meth, size_t ml, const char *cargs, bool block_only)
{
	Dwarf_Die fn, stack[CKT_SYM_MAX_NEST];
	bool inside[CKT_SYM_MAX_NEST];
	Dwarf_Attribute at;
	int said = 0, depth = 0;
	long budget = 20000; /* DIEs looked at, at most: a function's own, not a unit's */
	if (!ckt_sym_fn_die(m, lo, &fn))
		return 0;
	const char *own = dwarf_attr_integrate(&fn, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
	said = own ? ckt_sym_env_says(own, env, impl_at, ml, cargs, block_only) : 0;
	if (said > 0 || dwarf_child(&fn, &stack[0]) != 0)
		return said;
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		const char *name = dwarf_tag(d) == DW_TAG_inlined_subroutine && dwarf_attr_integrate(d, DW_AT_name, &at)
					   ? dwarf_formstring(&at)
					   : NULL;
		inside[depth] = (depth && inside[depth - 1]) ||
				(name && strncmp(name, meth, ml) == 0 && (!name[ml] || name[ml] == '<'));
		int says = name ? ckt_sym_env_says(name, env, impl_at, ml, cargs, block_only) : 0;
		if (says > 0 && !inside[depth])
			return 1;
		said = says != 0 ? -1 : said;
		if (--budget == 0)
			return said;
		Dwarf_Die c;
		if (depth + 1 < CKT_SYM_MAX_NEST && dwarf_child(d, &c) == 0) {
			stack[++depth] = c;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0)
			if (depth-- == 0)
				return said;
	}
}

/* Whether d ("MOD::Type::meth", "<MOD::Type>::meth", "<MOD::Type as Trait>::meth") is a
 * method of an impl block of the module (mod[0..modlen)); its type's arguments into *a, *al. */
static bool ckt_sym_impl_shape(const char *d, const char *mod, size_t modlen, size_t ml, const char **a, size_t *al)
{
	size_t dl = strlen(d);
	const char *ty = d + (d[0] == '<' ? 1 : 0);
	*a = NULL;
	*al = 0;
	return dl > modlen + ml + 3 && strncmp(ty, mod, modlen) == 0 && ckt_sym_impl_type(d, ty + modlen, d + dl - ml - 2, a, al);
}

/* Whether two candidates are one impl's method but for its type's arguments (a generic
 * type's instances: "Prover<T>::par", "Prover<u16>::par"; "<Prover<u8>>::par") */
static bool ckt_sym_same_impl(const char *x, const char *xa, size_t xal, const char *y, const char *ya, size_t yal)
{
	if (!xa || !ya)
		return strcmp(x, y) == 0;
	size_t xp = (size_t)(xa - x), yp = (size_t)(ya - y);
	return xp == yp && memcmp(x, y, xp) == 0 && strcmp(xa + xal, ya + yal) == 0;
}

/* Where the path that ends at d + p starts inside a demangled name: after the '<', ',', ' '
 * or '&' that opens it, generic arguments and "<T as Trait>" kept whole. */
static size_t ckt_sym_owner_start(const char *d, size_t p)
{
	int depth = 0;
	while (p > 0) {
		char ch = d[p - 1];
		if (ch == '>') {
			depth++;
		} else if (ch == '<') {
			if (depth == 0)
				break;
			depth--;
		} else if (depth == 0 && (ch == ',' || ch == ' ' || ch == '&' || ch == '(' || ch == '*')) {
			break;
		}
		p--;
	}
	return p;
}

/* The method "meth" of an impl block of the module MOD (mod[0..modlen), "MOD::") whose code
 * makes the closure (env: "MOD::{impl#N}::meth::{closure_env#J}"; cargs[0..cl): the
 * closure's generic arguments, the impl's and the method's), demangled and malloc'd: an
 * inherent one, "MOD::Type::meth" (legacy; the type's parameters' names as arguments) or
 * "<MOD::Type>::meth" (v0, a generic type's instances apart: "<MOD::Prover<MOD::Fq>>::meth"),
 * or a trait's, "<MOD::Type as Trait>::meth". The candidates are the methods with a symbol
 * of their own, and the methods other symbols name with a closure of theirs (v0 names the
 * functions given a closure by the closure's path: "std::thread::scoped::scope::<<MOD::Quick
 * as MOD::Msm>::run::{closure#0}, ...>", legacy a drop_in_place's: a method inlined
 * everywhere has no symbol of its own). What says which, from DWARF's names (which carry the
 * environment's type with its impl block's number and arguments: "scope<MOD::{impl#2}::run::
 * {closure_env#0}, ...>"): those of the functions inlined into a candidate, and those of the
 * functions that name its closures (ckt_sym_impl_evidence). The one that makes this closure,
 * with these arguments, is taken (*same set when they are all its type's, which the name
 * then shows); else the one of this block (legacy instances are one name); where nothing
 * says, only a method with a symbol, alone of its name about the module's types, whose code
 * starts before the closure's line (file, line) is taken. NULL then, when none, or out of
 * memory. */
#define CKT_SYM_IMPL_CANDS 32
static char *ckt_sym_impl_method(struct ckt_sym_module *md, const char *mod, size_t modlen, const char *meth,
				 size_t ml, const char *env, const char *cargs, size_t cl, const char *file,
				 unsigned line, bool *same)
{
	const struct ckt_sym_table *t = &md->tab;
	struct {
		char *name;
		const char *a;
		size_t al;
		int pos;
		bool neg, sym;
		uint64_t lo, hi;
	} c[CKT_SYM_IMPL_CANDS];
	size_t nc = 0;
	char enc[80], lenc[80], m0[160], needle[96];
	int el = snprintf(enc, sizeof(enc), "%zu%.*s", ml, (int)ml, meth);
	/* a legacy symbol's generic arguments (a drop_in_place's) sit in one identifier, their
	 * paths' "::" written ".." */
	int ll = snprintf(lenc, sizeof(lenc), "..%.*s..", (int)ml, meth);
	int nl = snprintf(needle, sizeof(needle), "::%.*s::", (int)ml, meth);
	*same = false;
	if (el <= 0 || (size_t)el >= sizeof(enc) || ll <= 0 || (size_t)ll >= sizeof(lenc) || nl <= 0 ||
	    (size_t)nl >= sizeof(needle) || modlen >= sizeof(m0))
		return NULL;
	memcpy(m0, mod, modlen);
	m0[modlen] = 0;
	char *want = cl ? ckt_sym_args_form(cargs, cl) : NULL, *out = NULL;
	bool others = false, many = false;
	if (cl && !want)
		return NULL;
	for (int g = 0; g < 2 && !many; g++) {
		for (size_t k = 0; k < t->sized[g].n && !many; k++) {
			const struct ckt_sym_symbol *sy = &t->sized[g].v[k];
			if (!sy->name || sy->name[0] != '_' || (!strstr(sy->name, enc) && !strstr(sy->name, lenc)) ||
			    !ckt_sym_rust_symbol(sy->name))
				continue;
			char *d = ckt_sym_demangle(sy->name, DMGL_ANSI | DMGL_AUTO);
			if (!d)
				continue;
			size_t dl = strlen(d);
			/* the symbol is a method of that name (v0: with its own arguments after it,
			 * "...::run::<u16>"), or names such methods' closures ("...::run::{closure#0}",
			 * "...::run::<u16>::{closure#0}") */
			size_t me = ckt_util_sans_generics(d, dl);
			if (me >= 2 && me < dl && memcmp(d + me - 2, "::", 2) == 0)
				me -= 2;
			else
				me = dl;
			bool is_meth = me > ml + 2 && memcmp(d + me - ml, meth, ml) == 0 && memcmp(d + me - ml - 2, "::", 2) == 0;
			/* a symbol that shares its address with another (identical code folded into
			 * one) has the other's DWARF there: it says nothing */
			bool alias = (k > 0 && t->sized[g].v[k - 1].lo == sy->lo) ||
				     (k + 1 < t->sized[g].n && t->sized[g].v[k + 1].lo == sy->lo);
			for (const char *h = is_meth ? d + me - ml - 2 : strstr(d, needle); h;
			     h = is_meth ? NULL : strstr(h + 1, needle)) {
				if (!is_meth) {
					const char *x = h + nl;
					if (*x == '<') { /* the method's own arguments */
						int dd = 0;
						do
							dd += *x == '<' ? 1 : *x == '>' ? -1 : 0;
						while (*++x && dd);
						x = strncmp(x, "::", 2) == 0 ? x + 2 : NULL;
					}
					if (!x || *x != '{')
						continue;
				}
				size_t os = is_meth ? 0 : ckt_sym_owner_start(d, (size_t)(h - d));
				size_t cnl = (size_t)(h - d) - os + 2 + ml;
				char *cn = malloc(cnl + 1);
				if (!cn)
					break;
				memcpy(cn, d + os, cnl);
				cn[cnl] = 0;
				const char *a;
				size_t al;
				if (!ckt_sym_impl_shape(cn, mod, modlen, ml, &a, &al)) {
					/* another of the name about the module's types or traits ("<&app::Bar
					 * as app::Go>::go"): which one made the closure is not known */
					others |= is_meth && strstr(cn, m0) != NULL;
					free(cn);
					continue;
				}
				size_t i = 0;
				while (i < nc && strcmp(c[i].name, cn) != 0)
					i++;
				if (i == nc) {
					if (nc == CKT_SYM_IMPL_CANDS) {
						many = true;
						free(cn);
						break;
					}
					c[nc++] = (__typeof__(c[0])){ cn, NULL, 0, 0, false, false, 0, 0 };
					c[i].a = a ? c[i].name + (a - cn) : NULL;
					c[i].al = al;
				} else {
					free(cn);
				}
				if (is_meth && !c[i].sym) {
					c[i].sym = true;
					c[i].lo = sy->lo;
					c[i].hi = sy->hi;
				}
				/* this very closure (its environment with its arguments), else its block */
				if (env && c[i].pos < 2 && !alias) {
					int says = ckt_sym_impl_evidence(md, sy->lo, env, modlen, meth, ml, want, false);
					if (says <= 0 && !c[i].pos) {
						int blk = ckt_sym_impl_evidence(md, sy->lo, env, modlen, meth, ml, want, true);
						says = blk > 0 ? 1 : blk < 0 || says < 0 ? -1 : 0;
					} else if (says > 0) {
						says = 2;
					}
					if (says > c[i].pos)
						c[i].pos = says;
					c[i].neg |= says < 0;
				}
			}
			free(d);
		}
	}
	/* 1. the one that makes this very closure */
	size_t pick = nc, n2 = 0;
	for (size_t i = 0; i < nc; i++)
		if (c[i].pos == 2) {
			pick = i;
			n2++;
		}
	if (many || n2 > 1)
		pick = nc;
	/* 2. else by block: a generic type's instances are one ("Prover<T>", legacy's
	 * drop_in_place "Prover<u16>"), the one with a symbol named, else the instance of the
	 * closure's arguments, else the first; 3. else alone of its name, nearest before */
	size_t best1 = nc, best0 = nc, groups1 = 0;
	unsigned first0 = 0;
	bool tie0 = false;
	for (size_t i = 0; i < nc && !many && !n2; i++) {
		bool seen = false, pos = false, neg = false, sym = false;
		size_t rep = i, rank = 0; /* the member named: 4 shown this block, with a symbol; 3 no
					   * word against it, with a symbol; 2 shown it, of the
					   * closure's arguments; 1 shown it */
		for (size_t j = 0; j < nc; j++) {
			if (!ckt_sym_same_impl(c[i].name, c[i].a, c[i].al, c[j].name, c[j].a, c[j].al))
				continue;
			seen |= j < i; /* the group was looked at from its first member */
			pos |= c[j].pos == 1;
			neg |= c[j].neg;
			sym |= c[j].sym && !c[j].neg;
			size_t r = c[j].pos == 1 && c[j].sym ? 4 : !c[j].neg && c[j].sym ? 3 : c[j].pos == 1 ? 1 : 0;
			if (r == 1 && want && c[j].a && c[j].al) {
				char *ia = ckt_sym_args_form(c[j].a, c[j].al);
				r = ia && strcmp(ia, want) == 0 ? 2 : 1;
				free(ia);
			}
			if (r > rank) {
				rank = r;
				rep = j;
			}
		}
		if (seen)
			continue;
		if (pos) {
			groups1++;
			best1 = rep;
		} else if (!neg && sym) {
			unsigned fl = file && line ? ckt_sym_first_line(md, c[rep].lo, c[rep].hi, file, line) : 1;
			if (fl && fl == first0)
				tie0 = true;
			if (fl > first0) {
				first0 = fl;
				best0 = rep;
				tie0 = false;
			}
		}
	}
	if (!many && !n2)
		pick = groups1 == 1 ? best1 : !groups1 && best0 < nc && !tie0 && !others ? best0 : nc;
	if (pick < nc) {
		out = c[pick].name;
		if (want && c[pick].a && c[pick].al) {
			char *ia = ckt_sym_args_form(c[pick].a, c[pick].al);
			*same = ia && strcmp(ia, want) == 0;
			free(ia);
		}
	}
	for (size_t i = 0; i < nc; i++)
		if (c[i].name != out)
			free(c[i].name);
	free(want);
	return out;
}

/* A closure's path as the environment type names it holds "{impl#N}" for an impl block
 * ("app::{impl#0}::rows::{closure#0}"), where -g and the symbols name the type
 * ("app::Aux::rows::{{closure}}", v0 "<app::Aux>::rows::{closure#0}"). The method's own frame,
 * the first frame out of it (outer[0..n), innermost first) whose last name is the method's,
 * has the symbol's name when it is out of line: that name then replaces the path up to the
 * method. Else (the method inlined, or not on this chain: a thread's closure runs under std's
 * code, a tail call leaves its method's frame) the one method of that name of an impl block
 * of the impl's module among the module's symbols (t; NULL: none read; see
 * ckt_sym_impl_method: a trait's too, a generic type's instance by the closure's arguments,
 * which then go when they are all the instance's). Returns the new name malloc'd, or NULL
 * (no "{impl#", no such method or several, out of memory). */
static char *ckt_sym_impl_path(const char *path, const struct ckt_sym_frame *outer, size_t n,
			       struct ckt_sym_module *md, const char *file, unsigned line)
{
	/* in the path itself, not in a generic argument ("map_fold::{closure#0}<..., app::{impl#0}::...>") */
	const char *imp = NULL, *lt = strchr(path, '<');
	for (const char *p = strstr(path, "::{impl#"); p && (!lt || p < lt); p = strstr(p + 1, "::{impl#"))
		imp = p;
	const char *m = imp ? strstr(imp + 2, "}::") : NULL;
	if (!m)
		return NULL;
	m += 3;
	const char *rest = strstr(m, "::");
	if (!rest)
		return NULL;
	size_t ml = (size_t)(rest - m);
	const char *found = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *f = outer[i].name;
		if (!f)
			continue;
		size_t fl = strlen(f);
		/* v0's "<app::Aux>::rows::<u8>": the method's arguments after it */
		if (fl > 2 && f[fl - 1] == '>') {
			size_t g = ckt_util_sans_generics(f, fl);
			if (g >= 2 && g < fl && f[g - 1] == ':' && f[g - 2] == ':')
				fl = g - 2;
		}
		if (fl < ml || memcmp(f + fl - ml, m, ml) != 0 || (fl > ml && f[fl - ml - 1] != ':'))
			continue;
		if (fl != ml && !strchr(f, '{'))
			found = f;
		break; /* the method's frame: out of line (its name), or inlined ("rows" alone) */
	}
	/* the closure's own arguments, the impl's first: "::{closure#0}<app::Fq>" */
	size_t rl = strlen(rest), ra = rl;
	if (rl > 2 && rest[rl - 1] == '>')
		ra = ckt_util_sans_generics(rest, rl);
	const char *cargs = ra < rl ? rest + ra + 1 : NULL;
	size_t cl = ra < rl ? rl - ra - 2 : 0;
	/* the environment the method's code names: "app::{impl#1}::run::{closure_env#0}" for
	 * "app::{impl#1}::run::{closure#0}::..." */
	char env[512];
	int envl = -1;
	for (size_t k = 0; k < sizeof(ckt_sym_bodies) / sizeof(ckt_sym_bodies[0]) && envl < 0; k++) {
		size_t hl = strlen(ckt_sym_bodies[k][0]);
		const char *num = rest + 2, *bend;
		if (strncmp(num, ckt_sym_bodies[k][0], hl) != 0)
			continue;
		num += hl;
		bend = num + strspn(num, "0123456789");
		if (bend > num && *bend == '}')
			envl = snprintf(env, sizeof(env), "%.*s::%s%.*s}", (int)(rest - path), path,
					ckt_sym_bodies[k][1], (int)(bend - num), num);
	}
	bool same = false;
	char *own = !found && md ? ckt_sym_impl_method(md, path, (size_t)(imp + 2 - path), m, ml,
						       envl > 0 && (size_t)envl < sizeof(env) ? env : NULL, cargs, cl,
						       file, line, &same)
				 : NULL;
	if (own)
		found = own;
	if (!found)
		return NULL;
	/* the instance's name says what the closure's arguments said: they go */
	if (same)
		rl = ra;
	size_t len = strlen(found) + rl + 1;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%s%.*s", found, (int)rl, rest);
	free(own);
	return out;
}

static int ckt_sym_curange_cmp(const void *pa, const void *pb)
{
	const struct ckt_sym_curange *a = pa, *b = pb;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Every compile unit's address ranges, sorted (m->cur); none when out of memory. */
static void ckt_sym_curanges_build(struct ckt_sym_module *m)
{
	size_t cap = 0;
	Dwarf_Addr bias;
	m->cur_built = true;
	for (Dwarf_Die *cu = dwfl_module_nextcu(m->mod, NULL, &bias); cu; cu = dwfl_module_nextcu(m->mod, cu, &bias)) {
		Dwarf_Addr base, lo, hi;
		for (ptrdiff_t off = dwarf_ranges(cu, 0, &base, &lo, &hi); off > 0;
		     off = dwarf_ranges(cu, off, &base, &lo, &hi)) {
			if (hi <= lo)
				continue;
			if (m->n_cur == cap) {
				struct ckt_sym_curange *v = ckt_util_grow(m->cur, &cap, sizeof(*v), 64);
				if (!v) {
					free(m->cur);
					m->cur = NULL;
					m->n_cur = 0;
					return;
				}
				m->cur = v;
			}
			m->cur[m->n_cur++] = (struct ckt_sym_curange){ lo, hi, cu };
		}
	}
	if (m->n_cur)
		qsort(m->cur, m->n_cur, sizeof(*m->cur), ckt_sym_curange_cmp);
}

/* The compile unit that holds address a (bias in *bias), or NULL. libdwfl finds it by
 * .debug_aranges, which clang does not write (elfutils 0.188 has no other way): every frame of
 * a clang build had no file:line and no inlined functions, its sites read "main
 * (prog+0x1243)". Where libdwfl finds none, the units' own ranges are looked at (since
 * 0.2.27). */
static Dwarf_Die *ckt_sym_addrdie(struct ckt_sym_module *m, uint64_t a, Dwarf_Addr *bias, bool *own)
{
	*own = false;
	if (!m->oom_set) { /* the module's DWARF, loaded here as the lookup would: our handler */
		Dwarf *dw = dwfl_module_getdwarf(m->mod, bias);
		if (dw)
			dwarf_new_oom_handler(dw, ckt_sym_oom);
		m->oom_set = true;
	}
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, a, bias);
	if (cu)
		return cu;
	if (!m->cur_built)
		ckt_sym_curanges_build(m);
	if (!m->n_cur || !dwfl_module_getdwarf(m->mod, bias))
		return NULL;
	Dwarf_Addr pc = a - *bias;
	size_t lo = 0, hi = m->n_cur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->cur[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the unit whose range starting last at or before pc holds it (units do not overlap) */
	if (lo == 0 || pc >= m->cur[lo - 1].hi)
		return NULL;
	*own = true;
	return m->cur[lo - 1].cu;
}

/* The file and line of address a in unit cu (own: found by ckt_sym_addrdie's ranges, where
 * libdwfl's lookup of the line finds no unit either). */
static const char *ckt_sym_srcline(struct ckt_sym_module *m, Dwarf_Die *cu, uint64_t a, Dwarf_Addr bias, bool own,
				   int *line)
{
	*line = 0;
	if (!own) {
		Dwfl_Line *l = dwfl_module_getsrc(m->mod, a);
		return l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
	}
	Dwarf_Line *l = dwarf_getsrc_die(cu, a - bias);
	if (!l || dwarf_lineno(l, line) != 0)
		return NULL;
	return dwarf_linesrc(l, NULL, NULL);
}

/* A lookup found no file:line for an address of m. Said once a module where that is a failure
 * rather than a module without line information: libdwfl or libdw ran out of memory in it (by
 * their error's text: they export no codes), or, with no compilation unit at all, the module
 * has a separate debug file by its build-id that libdwfl did not read (an allocation failed
 * while it loaded it, and it said "No DWARF information found"). */
static void ckt_sym_lost(struct ckt_sym *s, struct ckt_sym_module *m, bool had_cu)
{
	int e = dwfl_errno(), d = dwarf_errno();
	const char *why = e ? dwfl_errmsg(e) : NULL, *dwhy = d ? dwarf_errmsg(d) : NULL;
	bool oom = (why && strstr(why, "memory")) || (dwhy && strstr(dwhy, "memory"));
	bool unread = false;
	if (!oom && !had_cu && m->build_id && strlen(m->build_id) > 2) {
		char dbg[PATH_MAX];
		int n = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", m->build_id,
				 m->build_id + 2);
		unread = n > 0 && (size_t)n < sizeof(dbg) && access(dbg, R_OK) == 0;
		/* a file that is there but cannot be opened now: libdwfl says only "No DWARF
		 * information found"; the open's error says why (out of descriptors: ulimit -n) */
		int fd = unread ? open(dbg, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0)
			close(fd);
		else if (unread)
			why = strerror(errno);
	}
	if (!oom && !unread)
		return;
	m->oom_said = true;
	if (oom)
		ckt_sym_warn(s, "out of memory reading the debug information of '%s': some of its frames "
			     "are shown without file:line", m->path);
	else
		ckt_sym_warn(s, "cannot read the debug information of '%s' (%s): its frames are shown "
			     "without file:line", m->path, why ? why : "no reason given");
}

/* A skeleton unit of m whose split unit libdw did not find: said once a module, naming the
 * file it looked for (the unit's DW_AT_dwo_name, under its DW_AT_comp_dir when relative) and a
 * DWARF package beside the module (rustc's -C split-debuginfo=packed), which libdw reads only
 * since elfutils 0.191. */
static void ckt_sym_split_lost(struct ckt_sym *s, struct ckt_sym_module *m, Dwarf_Die *cu)
{
	m->split_said = true;
	Dwarf_Attribute at;
	const char *dwo = dwarf_formstring(dwarf_attr(cu, DW_AT_dwo_name, &at));
	if (!dwo)
		dwo = dwarf_formstring(dwarf_attr(cu, DW_AT_GNU_dwo_name, &at));
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	char want[PATH_MAX], dwp[PATH_MAX];
	if (!dwo)
		snprintf(want, sizeof(want), "a split unit");
	else if (dwo[0] != '/' && dir)
		snprintf(want, sizeof(want), "'%s/%s'", dir, dwo);
	else
		snprintf(want, sizeof(want), "'%s'", dwo);
	int n = snprintf(dwp, sizeof(dwp), "%s.dwp", m->path);
	bool pkg = n > 0 && (size_t)n < sizeof(dwp) && access(dwp, R_OK) == 0;
	ckt_sym_warn(s, "the debug information of '%s' is split out (split DWARF), and %s was not found%s%s%s: "
		     "its frames are shown without inlined functions, by their symbols' names, and a site may be "
		     "library code inlined into its functions", m->path, want,
		     pkg ? "; the package '" : "", pkg ? dwp : "", pkg ? "' beside it is not read by this libdw" : "");
}

/* Expands the inline chain at a (= pc - 1): the innermost function gets the line of a; each
 * outer one gets the call site (DW_AT_call_file/line) of the function inlined into it.
 * Returns the number of frames pushed (0: no function DIE holds a), or CKT_ENOMEM. */
static int ckt_sym_dwarf(struct ckt_sym *s, struct ckt_sym_module *m, uint64_t a, const struct ckt_sym_frame *tmpl)
{
	Dwarf_Addr bias;
	bool cu_own;
	/* libdw returns "none" where an allocation failed (a separate debug file it could not
	 * load, a line table it could not read) and the frame loses its file:line (it was
	 * silent): said once a module (ckt_sym_lost) */
	dwfl_errno(); /* the errors of this lookup only (reading one clears it) */
	dwarf_errno();
	Dwarf_Die *cu = ckt_sym_addrdie(m, a, &bias, &cu_own);
	int line;
	const char *file = cu ? ckt_sym_srcline(m, cu, a, bias, cu_own, &line) : NULL;
	if (!file && !m->oom_said)
		ckt_sym_lost(s, m, cu != NULL);
	if (!cu)
		return 0;
	/* split DWARF (rustc -C split-debuginfo=unpacked or packed, gcc -gsplit-dwarf): the unit
	 * in the program is a skeleton, with the line table but no functions; they are in the
	 * split unit (a .dwo file, or a .dwp package), which libdw finds by the skeleton's
	 * DW_AT_comp_dir and DW_AT_dwo_name. Without it every frame was its symbol's function at
	 * its inlined code's line, and the allocator's lines inlined into a function made the
	 * site its caller (since 0.2.42). The line above is the skeleton's, as it should be. */
	Dwarf_Die split;
	uint8_t unit_type = 0;
	if (dwarf_cu_info(cu->cu, NULL, &unit_type, NULL, &split, NULL, NULL, NULL) == 0 &&
	    unit_type == DW_UT_skeleton) {
		if (split.addr)
			cu = &split;
		else if (!m->split_said)
			ckt_sym_split_lost(s, m, cu);
	}
	Dwarf_Die *path = malloc(CKT_SYM_MAX_NEST * sizeof(*path));
	/* each pushed frame's plain DWARF name (NULL: a linkage name), which keeps the generic
	 * arguments a legacy symbol's name drops (ckt_sym_closure_path) */
	const char **dwname = malloc(CKT_SYM_MAX_NEST * sizeof(*dwname));
	if (!path || !dwname) {
		free(path);
		free(dwname);
		return CKT_ENOMEM;
	}
	int n = ckt_sym_nest_cu(m, cu, a - bias, path);
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int pushed = 0;
	for (int i = n; i-- > 0;) {
		int tag = dwarf_tag(&path[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		struct ckt_sym_frame f = *tmpl;
		char *own = NULL;
		bool plain;
		const char *name = ckt_sym_die_name(&path[i], &plain);
		dwname[pushed] = plain ? name : NULL;
		/* No linkage name: C++ functions of internal linkage (an anonymous namespace,
		 * static) and every function of Rust's debuginfo=line-tables-only carry only
		 * their last name ("fill", "new"), so distinct functions merged in --diff and
		 * escaped --phase-rule patterns. The function itself (not an inlined one) has
		 * its full name in the symbol table: taken when it agrees. */
		if (plain && name && tag == DW_TAG_subprogram && !ckt_sym_lang_c(cu)) {
			if (!m->tab.loaded && ckt_sym_table_load(m) < 0) {
				free(path);
				free(dwname);
				return CKT_ENOMEM;
			}
			/* C++: the scopes DWARF gives must be the symbol's exactly (the linker's
			 * identical-code folding can leave one function's symbol alone at another's
			 * address), else they name the function themselves, without parameters */
			char *qual = ckt_sym_qualified(&path[i], name);
			own = ckt_sym_full_name(&m->tab, a, qual ? qual : name, qual != NULL);
			if (!own) {
				own = qual;
				qual = NULL;
			}
			free(qual);
			if (own)
				name = own;
		} else if (plain && name && tag == DW_TAG_inlined_subroutine && strcmp(name, "operator()") == 0 &&
			   !ckt_sym_lang_c(cu)) {
			own = ckt_sym_lambda_name(&path[i]);
			if (own)
				name = own;
		}
		ckt_sym_set_name(s, &f, name);
		/* an out-of-line closure's or coroutine's symbol: its path, DWARF's last name */
		char *body = own && f.name ? ckt_sym_body_named(f.name, dwname[pushed]) : NULL;
		/* ... or one that DWARF names by a linkage name (rustc -g), whose legacy symbol
		 * writes every closure "{{closure}}": DWARF's names, as line-tables-only's and v0
		 * symbols' (since 0.2.38; a function's closures were one name) */
		if (!body && !plain && name && f.name && !ckt_sym_lang_c(cu) && ckt_sym_rust_symbol(name))
			body = ckt_sym_bodies_named(m, f.name, &path[i]);
		if (body) {
			f.name = f.func = ckt_sym_intern0(s, body);
			free(body);
			if (!f.name) {
				free(own);
				free(path);
				free(dwname);
				return CKT_ENOMEM;
			}
		}
		free(own);
		own = NULL;
		f.file = ckt_sym_intern0(s, file);
		f.line = line > 0 ? (unsigned)line : 0;
		f.inlined = tag == DW_TAG_inlined_subroutine;
		/* a linkage name says its language (ckt_sym_set_name; a Rust function inlined into
		 * a C++ unit by cross-language LTO is Rust's), else the unit does */
		if (plain)
			f.cxx = ckt_sym_lang(cu) == CKT_SYM_LANG_CXX;
		if (ckt_sym_push(s, &f) < 0) {
			free(path);
			free(dwname);
			return CKT_ENOMEM;
		}
		pushed++;
		if (!f.inlined)
			break;
		/* the next frame out is at this inlined call's site */
		Dwarf_Attribute at;
		Dwarf_Word cf = 0, cl = 0;
		file = NULL;
		line = 0;
		if (dwarf_attr(&path[i], DW_AT_call_file, &at) && dwarf_formudata(&at, &cf) == 0 &&
		    (files || dwarf_getsrcfiles(cu, &files, &nfiles) == 0) && cf < nfiles)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		if (dwarf_attr(&path[i], DW_AT_call_line, &at) && dwarf_formudata(&at, &cl) == 0)
			line = (int)cl;
	}
	free(path);
	if (pushed && s->frames[s->n_frames - 1].inlined)
		s->frames[s->n_frames - 1].inlined = false; /* no enclosing subprogram found */
	/* an inlined closure of no path gets its function's, from the frame it is inlined into;
	 * outermost first, so that a closure inlined into another takes the other's new name */
	size_t first = s->n_frames - (size_t)pushed;
	for (size_t k = s->n_frames - 1; pushed > 1 && k-- > first;) {
		char *named = ckt_sym_closure_path(s->frames[k].name, s->frames[k + 1].name, dwname[k + 1 - first]);
		if (named && strstr(named, "::{impl#") && !m->tab.loaded && ckt_sym_table_load(m) < 0) {
			free(named);
			free(dwname);
			return CKT_ENOMEM;
		}
		char *typed = named ? ckt_sym_impl_path(named, &s->frames[k + 1], s->n_frames - k - 1,
							m->tab.loaded ? m : NULL, s->frames[k].file, s->frames[k].line)
				    : NULL;
		if (typed) {
			free(named);
			named = typed;
		}
		if (named) {
			const char *in = ckt_sym_intern0(s, named);
			free(named);
			if (!in) {
				free(dwname);
				return CKT_ENOMEM;
			}
			s->frames[k].name = s->frames[k].func = in;
		}
	}
	free(dwname);
	return pushed;
}

/* ---- symbol tables ----
 * dwfl_module_addrinfo reads every symbol of the module on each call (elfutils 0.188): 0.7 ms
 * an address in a library of 40,000 functions, and a PyTorch trace, whose stacks hold 150,000
 * distinct return addresses in libraries of that size, took over 100 s to symbolize. So each
 * module's table is read once (dwfl_module_getsym_info, the symbols libdwfl searches), sorted,
 * and bisected. The answer is libdwfl's (__libdwfl_addrsym), whose scan order matters where
 * symbols overlap, so it is replayed on the few candidates: globals are scanned first, in table
 * order, and locals only if no global symbol covers the address and no global label sits
 * exactly at it. A symbol with a size covering the address replaces the one kept if it starts
 * closer or binds more strongly (global, weak, local), or at the same start if it is smaller and
 * binds no weaker; failing any, a label (no size) is taken: the last in scan order at the
 * closest start at or below the address, if it lies in the address's section (an absolute one:
 * at the address itself) and no sized symbol below the address ends past it.
 * tests/unit/test_symbolize.c checks every symbol of the libraries it loads against libdwfl; by
 * hand, 2,171 programs and libraries of a Debian system agreed at every symbol and every 512th
 * byte of code, except data labels (__bss_start) next to an empty allocated section that starts
 * where the label's section does: which of the two holds the label depends on how libdwfl's
 * sort orders sections starting together. Return addresses are never there. */

static uint8_t ckt_sym_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int ckt_sym_symbol_cmp(const void *x, const void *y)
{
	const struct ckt_sym_symbol *a = x, *b = y;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->label != b->label)
		return a->label < b->label ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static int ckt_sym_section_cmp(const void *x, const void *y)
{
	const struct ckt_sym_section *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	/* sections that start together (.tbss and the next) come the later header first, as
	 * libdwfl's sort gave them for libasan's .init_array and .tbss (elfutils 0.188) */
	return a->ndx > b->ndx ? -1 : a->ndx < b->ndx;
}

/* The index of the section holding a, or -1 (libdwfl's bisection, kept as it is so that a label
 * matches exactly the addresses libdwfl counts as its section's). */
static int32_t ckt_sym_section_of(const struct ckt_sym_table *t, uint64_t a)
{
	size_t l = 0, u = t->n_secs;
	while (l < u) {
		size_t i = (l + u) / 2;
		if (a < t->secs[i].lo) {
			u = i;
		} else if (a > t->secs[i].hi) {
			l = i + 1;
		} else {
			if (a == t->secs[i].hi && i + 1 < t->n_secs && a == t->secs[i + 1].lo)
				i++;
			return (int32_t)i;
		}
	}
	return -1;
}

/* The main ELF's allocated sections. Returns 0 (none readable: an empty list) or CKT_ENOMEM. */
static int ckt_sym_sections_load(struct ckt_sym_module *m)
{
	struct ckt_sym_table *t = &m->tab;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	size_t n = 0;
	if (!elf || elf_getshdrnum(elf, &n) < 0 || !n)
		return 0;
	t->secs = malloc(n * sizeof(*t->secs));
	if (!t->secs)
		return CKT_ENOMEM;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && t->n_secs < n)
			t->secs[t->n_secs++] = (struct ckt_sym_section){ sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size,
									elf_ndxscn(scn) };
	}
	qsort(t->secs, t->n_secs, sizeof(*t->secs), ckt_sym_section_cmp);
	return 0;
}

/* Reads m's symbol table. Returns 0 (an unreadable table leaves it empty) or CKT_ENOMEM (then
 * nothing is kept, and the next lookup tries again). */
static int ckt_sym_table_load(struct ckt_sym_module *m)
{
	struct ckt_sym_table *t = &m->tab;
	int n = dwfl_module_getsymtab(m->mod);
	int first_global = dwfl_module_getsymtab_first_global(m->mod);
	if (n <= 0) {
		t->loaded = true;
		return 0;
	}
	size_t kept = 0;
	if (ckt_sym_sections_load(m) < 0 || !(t->syms = malloc((size_t)n * sizeof(*t->syms))))
		goto nomem;
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		struct ckt_sym_symbol v = { addr, addr, sym.st_size, name, (uint32_t)i, 0, ckt_sym_rank(sym.st_info),
					    first_global > 0 && i < first_global, sym.st_size == 0 };
		if (sym.st_size)
			v.hi = sym.st_size > UINT64_MAX - addr ? UINT64_MAX : addr + sym.st_size;
		else
			v.sec = shndx >= SHN_LORESERVE ? -2 : ckt_sym_section_of(t, addr);
		t->syms[kept++] = v;
	}
	qsort(t->syms, kept, sizeof(*t->syms), ckt_sym_symbol_cmp);
	size_t n_sized = 0;
	for (size_t k = 0; k < kept; k++) {
		const struct ckt_sym_symbol *v = &t->syms[k];
		struct ckt_sym_run *r = v->label ? &t->labels[v->group] : &t->sized[v->group];
		if (!r->n++)
			r->v = v;
		n_sized += !v->label;
	}
	if (!(t->max_hi = malloc((n_sized ? n_sized : 1) * sizeof(*t->max_hi))))
		goto nomem;
	uint64_t *mh = t->max_hi;
	for (int g = 0; g < 2; g++) {
		struct ckt_sym_run *r = &t->sized[g];
		r->max_hi = mh;
		for (size_t k = 0; k < r->n; k++)
			mh[k] = k && mh[k - 1] > r->v[k].hi ? mh[k - 1] : r->v[k].hi;
		mh += r->n;
	}
	t->loaded = true;
	return 0;
nomem:
	ckt_sym_table_clear(t);
	return CKT_ENOMEM;
}

/* The number of symbols in v[0..n) that start at or below a (they are sorted by start). */
static size_t ckt_sym_upto(const struct ckt_sym_symbol *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* libdwfl's rule: does symbol c, met after kept, replace it? */
static bool ckt_sym_replaces(const struct ckt_sym_symbol *kept, const struct ckt_sym_symbol *c)
{
	if (kept->lo < c->lo || kept->rank < c->rank)
		return true;
	return kept->lo == c->lo && ((kept->size > c->size && kept->rank <= c->rank) ||
				     (kept->size >= c->size && kept->rank < c->rank));
}

/* The sized symbol of run r that libdwfl's scan keeps for a, or NULL; *end: the highest end
 * below or at a among the run's symbols that start at or below a (for labels). */
/* The sized symbols of r that cover a (one, unless symbols nest or code was folded: a C++
 * library had 40 aliases of one function): their count, the first cap of them in c; *end gets
 * the highest end of the symbols starting at or below a. */
static size_t ckt_sym_covering(const struct ckt_sym_run *r, uint64_t a, const struct ckt_sym_symbol **c,
			       size_t cap, uint64_t *end)
{
	size_t j = ckt_sym_upto(r->v, r->n, a), nc = 0;
	*end = j ? r->max_hi[j - 1] : 0;
	for (size_t k = j; k-- > 0 && r->max_hi[k] > a;)
		if (a < r->v[k].hi) {
			if (nc < cap)
				c[nc] = &r->v[k];
			nc++;
		}
	return nc;
}

static const struct ckt_sym_symbol *ckt_sym_sized_at(const struct ckt_sym_run *r, uint64_t a, uint64_t *end)
{
	/* the covering symbols, replayed in table order */
	const struct ckt_sym_symbol *local[32], **c = local;
	size_t nc = ckt_sym_covering(r, a, c, 32, end);
	if (nc > 32) {
		if (!(c = malloc(nc * sizeof(*c))))
			return NULL; /* out of memory: no name (the frame keeps module+offset) */
		nc = ckt_sym_covering(r, a, c, nc, end);
	}
	const struct ckt_sym_symbol *kept = NULL;
	for (size_t done = 0; done < nc; done++) {
		size_t first = done; /* the next in table order */
		for (size_t k = done + 1; k < nc; k++)
			if (c[k]->index < c[first]->index)
				first = k;
		const struct ckt_sym_symbol *x = c[first];
		c[first] = c[done];
		if (!kept || ckt_sym_replaces(kept, x))
			kept = x;
	}
	if (c != local)
		free(c);
	return kept;
}

/* The whole name of the function DWARF names plain at a, from the symbol table (t loaded): a
 * copy of the one name without suffixes that covers a and agrees with plain, or NULL (none,
 * out of memory, or several: code folded by the linker's identical-code folding or rustc's
 * merged functions puts two functions at one address, and the name would not be the one the
 * file:line is of). */
static char *ckt_sym_full_name(const struct ckt_sym_table *t, uint64_t a, const char *plain, bool exact)
{
	char *found = NULL;
	for (int g = 0; g < 2; g++) {
		const struct ckt_sym_symbol *c[32];
		uint64_t end;
		size_t nc = ckt_sym_covering(&t->sized[g], a, c, 32, &end);
		if (nc > 32)
			goto ambiguous;
		for (size_t k = 0; k < nc; k++) {
			char *n = strndup(c[k]->name, ckt_sym_base_len(c[k]->name));
			if (!n || !ckt_sym_names_agree(n, plain, exact) || (found && strcmp(found, n) == 0)) {
				free(n);
				continue;
			}
			if (found) {
				free(n);
				goto ambiguous;
			}
			found = n;
		}
	}
	return found;
ambiguous:
	free(found);
	return NULL;
}

/* The labels of run r at the closest start at or below a: *n of them from *v (table order). */
static uint64_t ckt_sym_labels_at(const struct ckt_sym_run *r, uint64_t a, const struct ckt_sym_symbol **v, size_t *n)
{
	size_t j = ckt_sym_upto(r->v, r->n, a), i = j;
	*n = 0;
	if (!j)
		return 0;
	while (i > 0 && r->v[i - 1].lo == r->v[j - 1].lo)
		i--;
	*v = &r->v[i];
	*n = j - i;
	return r->v[j - 1].lo;
}

/* The last of v[0..n) that may name a (in a's section: sec_a), or NULL. */
static const struct ckt_sym_symbol *ckt_sym_label_pick(const struct ckt_sym_symbol *v, size_t n, uint64_t a,
							int32_t sec_a)
{
	for (size_t k = n; k-- > 0;)
		if (v[k].sec == -2 ? v[k].lo == a : v[k].sec == sec_a)
			return &v[k];
	return NULL;
}

/* The symbol naming address a of m (rules above), or NULL. */
static const char *ckt_sym_symbol_at(const struct ckt_sym_table *t, uint64_t a)
{
	uint64_t end[2] = { 0, 0 };
	const struct ckt_sym_symbol *hit = ckt_sym_sized_at(&t->sized[0], a, &end[0]);
	if (hit)
		return hit->name;
	int32_t sec_a = ckt_sym_section_of(t, a);
	const struct ckt_sym_symbol *lv[2] = { NULL, NULL };
	size_t ln[2] = { 0, 0 };
	uint64_t at[2];
	at[0] = ckt_sym_labels_at(&t->labels[0], a, &lv[0], &ln[0]);
	const struct ckt_sym_symbol *g = ckt_sym_label_pick(lv[0], ln[0], a, sec_a);
	bool locals = t->sized[1].n || t->labels[1].n;
	if (g && at[0] == a && at[0] >= end[0])
		locals = false; /* a global label exactly at a: libdwfl skips the locals */
	if (locals) {
		if ((hit = ckt_sym_sized_at(&t->sized[1], a, &end[1])))
			return hit->name;
		at[1] = ckt_sym_labels_at(&t->labels[1], a, &lv[1], &ln[1]);
	}
	/* the closest start among the labels; locals come later in the scan than globals */
	uint64_t best = 0, floor = end[0] > end[1] ? end[0] : end[1];
	bool any = false;
	for (int k = 0; k < 2; k++)
		if (ln[k] && (!any || at[k] > best)) {
			best = at[k];
			any = true;
		}
	if (!any || best < floor)
		return NULL;
	for (int k = 1; k >= 0; k--) {
		const struct ckt_sym_symbol *c = ln[k] && at[k] == best ? ckt_sym_label_pick(lv[k], ln[k], a, sec_a) : NULL;
		if (c)
			return c->name;
	}
	return NULL;
}

const char *ckt_sym_symbol_name(struct ckt_sym *s, uint64_t a, uint32_t map, int *err)
{
	ckt_sym_cur = s;
	struct ckt_sym_module *m = ckt_sym_twin(s, ckt_sym_module_of(s, a, map), &a);
	*err = 0;
	if (!m)
		return NULL;
	if (m->state == CKT_MOD_NEW)
		ckt_sym_open(s, m);
	if (m->state != CKT_MOD_OK)
		return NULL;
	if (!m->tab.loaded && (*err = ckt_sym_table_load(m)) < 0)
		return NULL;
	return ckt_sym_symbol_at(&m->tab, a);
}

/* Symbol table only (no DWARF for this address): name, and file:line if a line table has it. */
static int ckt_sym_symtab(struct ckt_sym *s, struct ckt_sym_module *m, uint64_t a, struct ckt_sym_frame *f)
{
	if (!m->tab.loaded && ckt_sym_table_load(m) < 0)
		return CKT_ENOMEM;
	ckt_sym_set_name(s, f, ckt_sym_symbol_at(&m->tab, a));
	/* libdwfl answers for an address in a gap between a compile unit's ranges (_start between
	 * main in .text.startup and the rest) with the unit's last line: only a unit that really
	 * covers the address gives it a file:line */
	Dwarf_Addr bias = 0;
	bool own;
	Dwarf_Die *cu = ckt_sym_addrdie(m, a, &bias, &own);
	int line = 0;
	const char *file = cu && dwarf_haspc(cu, a - bias) == 1 ? ckt_sym_srcline(m, cu, a, bias, own, &line) : NULL;
	if (file && line > 0) {
		f->file = ckt_sym_intern0(s, file);
		f->line = (unsigned)line;
	}
	return ckt_sym_push(s, f);
}

/* The traced program (the module map's first entry, not a system directory's) has no debug
 * information at all: said once, since its sites then cannot be right in the usual way (no
 * file:line, no inlined functions: the standard library's code inlined into the program,
 * Rust's RawVec growth or C++'s containers, is the program's function) or at all (no symbol
 * table either: every frame module+offset). Libraries without debug information (a distribution's, most often) are not
 * said: their frames are rarely sites. */
/* What an ELF file's sections say of its symbols and debug information: *symtab when it has
 * a symbol table (SHT_SYMTAB), *zstd when a .debug_ section is compressed with zstd
 * (ELFCOMPRESS_ZSTD: `ld --compress-debug-sections=zstd`), which libdw before 0.189 cannot
 * read (its frames read as those of a program with no debug information at all). */
static void ckt_sym_elf_kinds(Elf *elf, bool *symtab, bool *zstd)
{
	size_t shstr = 0;
	bool names = elf_getshdrstrndx(elf, &shstr) == 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*symtab = true;
		const char *nm = names ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		GElf_Chdr ch;
		if ((sh.sh_flags & SHF_COMPRESSED) && nm && strncmp(nm, ".debug_", 7) == 0 &&
		    gelf_getchdr(scn, &ch) && ch.ch_type == 2 /* ELFCOMPRESS_ZSTD */)
			*zstd = true;
	}
}

/* ckt_sym_elf_kinds of the file at path (read, not mapped, as ckt_sym_elf_extent: a file cut
 * while read must not fault) */
static void ckt_sym_file_kinds(const char *path, bool *symtab, bool *zstd)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (elf) {
		ckt_sym_elf_kinds(elf, symtab, zstd);
		elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
}

static void ckt_sym_nodebug(struct ckt_sym *s, struct ckt_sym_module *m)
{
	m->nodebug_said = true;
	/* a distribution's programs are stripped by design (their debug information is a package
	 * of its own, found under /usr/lib/debug where installed): not said, as for its libraries */
	if ((strncmp(m->path, "/usr/", 5) == 0 && strncmp(m->path, "/usr/local/", 11) != 0) ||
	    strncmp(m->path, "/bin/", 5) == 0 || strncmp(m->path, "/sbin/", 6) == 0)
		return;
	Dwarf_Addr bias;
	if (m->oom_said || m->split_said || dwfl_module_getdwarf(m->mod, &bias))
		return;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	if (!elf)
		return;
	bool symtab = false, zstd = false, zstd_link = false;
	ckt_sym_elf_kinds(elf, &symtab, &zstd);
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	char named[2 * PATH_MAX + 160] = "";
	if (link) {
		/* where libdwfl looks for it: a file found there that it did not take is another
		 * build's (its CRC differs), or one it cannot read, or one with no debug
		 * information either, which "found neither" misread (since 0.2.51) */
		const char *slash = strrchr(m->path, '/');
		int dl = slash ? (int)(slash - m->path) : 1;
		const char *dir = slash ? m->path : ".";
		char cand[PATH_MAX];
		bool there = false;
		for (int k = 0; k < 3 && !there && !strchr(link, '/'); k++) {
			int n = snprintf(cand, sizeof(cand), k == 0 ? "%.*s/%s" : k == 1 ? "%.*s/.debug/%s" : "/usr/lib/debug%.*s/%s",
					 dl, dir, link);
			there = n > 0 && (size_t)n < sizeof(cand) && access(cand, F_OK) == 0;
		}
		int fd = there ? open(cand, O_RDONLY | O_CLOEXEC) : -1;
		if (there && fd < 0) {
			snprintf(named, sizeof(named), " (its debug link names '%.*s', and '%.*s' cannot be read: %s)",
				 NAME_MAX, link, PATH_MAX, cand, strerror(errno));
		} else if (there) {
			uLong sum = crc32(0L, Z_NULL, 0);
			unsigned char buf[65536];
			ssize_t got;
			while ((got = read(fd, buf, sizeof(buf))) > 0)
				sum = crc32(sum, buf, (uInt)got);
			close(fd);
			if (got < 0)
				snprintf(named, sizeof(named), " (its debug link names '%.*s', and '%.*s' cannot be read: %s)",
					 NAME_MAX, link, PATH_MAX, cand, strerror(errno));
			else if ((GElf_Word)sum != crc)
				snprintf(named, sizeof(named), " (its debug link names '%.*s', and '%.*s' is another build's: "
					 "its checksum is not the one the link records)", NAME_MAX, link, PATH_MAX, cand);
			else /* libdwfl takes the linked file's symbol table where the program has none */
				ckt_sym_file_kinds(cand, &symtab, &zstd_link);
			if (got >= 0 && (GElf_Word)sum == crc && !zstd_link)
				snprintf(named, sizeof(named), " (its debug link names '%.*s', and '%.*s' holds none either)",
					 NAME_MAX, link, PATH_MAX, cand);
			else if (got >= 0 && (GElf_Word)sum == crc)
				snprintf(named, sizeof(named), " in '%.*s', which its debug link names,", PATH_MAX, cand);
		} else {
			snprintf(named, sizeof(named), " (its debug link names '%.*s', found neither beside it, in .debug/ "
				 "there nor under /usr/lib/debug)", NAME_MAX, link);
		}
	}
	if (zstd || zstd_link) /* since 0.2.58 (it read "has no debug information (built without it...)") */
		ckt_sym_warn(s, "'%s' has its debug information%s compressed with zstd, which libdw %s cannot "
			     "read: its frames are shown %s (decompress it with objcopy --decompress-debug-sections, "
			     "or link without --compress-debug-sections=zstd)", m->path, zstd_link ? named : "",
			     dwfl_version(NULL), symtab ? "without file:line and without inlined functions, and a site "
			     "may be library code inlined into its functions" : "as module+offset");
	else if (symtab)
		ckt_sym_warn(s, "'%s' has no debug information%s: its frames are shown without file:line and "
			     "without inlined functions, and a site may be library code inlined into its functions "
			     "(build with -g, or Cargo's debug = \"line-tables-only\")", m->path,
			     link ? named : " (built without it, or stripped of it)");
	else
		ckt_sym_warn(s, "'%s' has no debug information and no symbol table%s: its frames are shown as "
			     "module+offset (build with -g, or Cargo's debug = \"line-tables-only\", and do not "
			     "strip the traced build)", m->path, link ? named : " (stripped)");
}

/* Whether the code at pc (an address the module loads) is the signal trampoline a handler
 * returns to: the C library's sa_restorer, which makes the rt_sigreturn system call
 * (x86_64 glibc's and musl's: mov $15,%rax; syscall. aarch64's: mov x8,#139; svc #0). The
 * unwinder gives its address itself (the handler's return address is the trampoline's first
 * instruction, which a stripped libc names with no symbol; pc - 1 lies in the function
 * before it), and the frame past it is the instruction the signal interrupted. */
static bool ckt_sym_sigtramp_at(struct ckt_sym_module *m, uint64_t pc)
{
	static const uint8_t x86_64[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	static const uint8_t aarch64[] = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 };
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	if (!elf || pc < bias)
		return false;
	uint64_t a = pc - bias;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    a < sh.sh_addr || a - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t at = a - sh.sh_addr;
		if (!d || !d->d_buf || at >= d->d_size)
			return false;
		const uint8_t *b = (const uint8_t *)d->d_buf + at;
		size_t left = d->d_size - at;
		return (left >= sizeof(x86_64) && memcmp(b, x86_64, sizeof(x86_64)) == 0) ||
		       (left >= sizeof(aarch64) && memcmp(b, aarch64, sizeof(aarch64)) == 0);
	}
	return false;
}

/* The frames of pc (see ckt_sym_lookup), looked up at pc - 1 but where exact. */
static int ckt_sym_resolve(struct ckt_sym *s, uint64_t pc, struct ckt_sym_module *m, bool exact)
{
	struct ckt_sym_frame f = { 0 };
	f.offset = pc;
	if (!m)
		return ckt_sym_push(s, &f) < 0 ? CKT_ENOMEM : 1;
	f.module = m->basename;
	f.offset = pc - m->base;
	if (m->state == CKT_MOD_NEW)
		ckt_sym_open(s, m);
	if (m->state != CKT_MOD_OK)
		return ckt_sym_push(s, &f) < 0 ? CKT_ENOMEM : 1;
	if (ckt_sym_sigtramp_at(m, pc)) { /* gdb's name for it */
		f.func = f.name = ckt_sym_intern0(s, "<signal handler called>");
		f.sigtramp = true;
		return !f.name || ckt_sym_push(s, &f) < 0 ? CKT_ENOMEM : 1;
	}
	uint64_t a = exact ? pc : pc - 1;
	int n = ckt_sym_dwarf(s, m, a, &f);
	if (n != 0)
		return n;
	if (!m->nodebug_said && s->n_mods && m->path == s->mods[0].path)
		ckt_sym_nodebug(s, m);
	return ckt_sym_symtab(s, m, a, &f) < 0 ? CKT_ENOMEM : 1;
}

static size_t ckt_sym_cache_home(uint64_t pc, uint32_t mod, size_t cap)
{
	return ckt_util_home(pc ^ (uint64_t)mod << 56 ^ mod, cap);
}

static int ckt_sym_cache_grow(struct ckt_sym *s)
{
	size_t cap = s->cache_cap ? s->cache_cap * 2 : 1024;
	struct ckt_sym_cached *t = calloc(cap, sizeof(*t));
	if (!t)
		return CKT_ENOMEM;
	for (size_t i = 0; i < s->cache_cap; i++) {
		if (!s->cache[i].pc)
			continue;
		size_t k = ckt_sym_cache_home(s->cache[i].pc, s->cache[i].mod, cap);
		while (t[k].pc)
			k = (k + 1) & (cap - 1);
		t[k] = s->cache[i];
	}
	free(s->cache);
	s->cache = t;
	s->cache_cap = cap;
	return 0;
}

int ckt_sym_lookup(struct ckt_sym *s, uint64_t pc, uint32_t map, bool exact, const struct ckt_sym_frame **out)
{
	ckt_sym_cur = s;
	if (s->cache_used * 2 >= s->cache_cap && ckt_sym_cache_grow(s) < 0)
		return CKT_ENOMEM;
	/* one pc may belong to different modules at different times: cached per (pc, module) */
	struct ckt_sym_module *m = ckt_sym_twin(s, ckt_sym_module_of(s, pc, map), &pc);
	uint32_t mod = m ? (uint32_t)(m - s->mods) + 1 : 0;
	/* an exact lookup's key has the top bit (no user-space address has it) */
	uint64_t key = (pc ? pc : 1) | (exact ? UINT64_C(1) << 63 : 0);
	size_t k = ckt_sym_cache_home(key, mod, s->cache_cap);
	for (; s->cache[k].pc; k = (k + 1) & (s->cache_cap - 1))
		if (s->cache[k].pc == key && s->cache[k].mod == mod) {
			*out = s->frames + s->cache[k].first;
			return (int)s->cache[k].n;
		}
	size_t first = s->n_frames;
	int n = ckt_sym_resolve(s, pc, m, exact);
	if (n < 0)
		return n;
	s->cache[k] = (struct ckt_sym_cached){ key, mod, (uint32_t)first, (uint32_t)n };
	s->cache_used++;
	*out = s->frames + first;
	return n;
}
