/* elfsym.c: definitions looked up in the loaded objects' dynamic symbol tables, read in memory
 * from the program headers dl_iterate_phdr hands out, without the loader's help: no dlopen,
 * dlsym or dladdr. For the hooks that must find a definition where calling the loader is not
 * safe: inside operator new (a library's constructor may be running, and a dlopen there, even
 * RTLD_NOLOAD of an object already loaded, may run other libraries' pending constructors inside
 * it), or inside a CUDA call. No allocation; the callers call these inside dl_iterate_phdr
 * callbacks, where the loader's lock is held. */
#include "ckt.h"

#include <string.h>

void ckt_span_of(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi, int *holds,
		    uintptr_t addr)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	*holds = 0;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		*lo = a < *lo ? a : *lo;
		*hi = a + ph->p_memsz > *hi ? a + ph->p_memsz : *hi;
		*holds |= addr - a < ph->p_memsz;
	}
}

/* An address the dynamic section holds: glibc adds the load bias to it in place, except where
 * the section is read-only (the vDSO), so it is taken as it is when that falls in the object,
 * else with the bias added when that does (a bias below the link address wraps: the test is
 * on the object's span, not on the bias); 0 when neither does. */
static uintptr_t dyn_addr(const struct ckt_dynobj *o, uintptr_t v)
{
	if (v - o->lo < o->hi - o->lo)
		return v;
	v += o->bias;
	return v - o->lo < o->hi - o->lo ? v : 0;
}

int ckt_dynobj_of(const struct dl_phdr_info *info, struct ckt_dynobj *o)
{
	int holds;
	memset(o, 0, sizeof(*o));
	o->bias = info->dlpi_addr;
	ckt_span_of(info, &o->lo, &o->hi, &holds, 0);
	const ElfW(Dyn) *dyn = NULL;
	for (int k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	if (!dyn || (uintptr_t)dyn - o->lo >= o->hi - o->lo)
		return 0;
	uintptr_t soname = UINTPTR_MAX;
	unsigned entries = 0;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL && entries < CKT_DYN_MAX; d++, entries++) {
		uintptr_t a = dyn_addr(o, d->d_un.d_ptr);
		switch (d->d_tag) {
		case DT_STRSZ: o->strsz = d->d_un.d_val; break;
		case DT_SYMTAB: o->sym = (const ElfW(Sym) *)a; break;
		case DT_STRTAB: o->str = (const char *)a; break;
		case DT_GNU_HASH: o->gnu = (const uint32_t *)a; break;
		case DT_HASH: o->sysv = (const uint32_t *)a; break;
		case DT_VERSYM: o->versym = (const ElfW(Half) *)a; break;
		case DT_SONAME: soname = d->d_un.d_val; break;
		}
	}
	/* strings are read only within DT_STRSZ, and within the object */
	if (o->str && o->strsz > o->hi - (uintptr_t)o->str)
		o->strsz = o->hi - (uintptr_t)o->str;
	if (!o->sym || !o->str || !o->strsz)
		return 0;
	o->dyn = dyn;
	o->soname = soname < o->strsz ? o->str + soname : NULL;
	return 1;
}

/* symbol ix defines `name` as a function the object exports by default */
static void *dynobj_def(const struct ckt_dynobj *o, uint32_t ix, const char *name)
{
	const ElfW(Sym) *s = &o->sym[ix];
	unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
	if (s->st_shndx == SHN_UNDEF || !s->st_value || type != STT_FUNC ||
	    (bind != STB_GLOBAL && bind != STB_WEAK) || (o->versym && (o->versym[ix] & 0x8000)) ||
	    s->st_name >= o->strsz || strncmp(o->str + s->st_name, name, o->strsz - s->st_name) != 0)
		return NULL;
	return (void *)(o->bias + s->st_value);
}

/* The object's own definition of `name`, through its hash table (GNU's, else System V's). */
void *ckt_dynobj_lookup(const struct ckt_dynobj *o, const char *name)
{
	if (o->gnu) {
		uint32_t h = 5381;
		for (const unsigned char *c = (const unsigned char *)name; *c; c++)
			h = h * 33 + *c;
		uint32_t nbuckets = o->gnu[0], symoffset = o->gnu[1], nbloom = o->gnu[2], shift = o->gnu[3];
		const ElfW(Addr) *bloom = (const ElfW(Addr) *)(o->gnu + 4);
		const uint32_t *buckets = (const uint32_t *)(bloom + nbloom), *chain = buckets + nbuckets;
		const unsigned bits = sizeof(ElfW(Addr)) * 8;
		if (!nbuckets || !nbloom)
			return NULL;
		ElfW(Addr) word = bloom[(h / bits) % nbloom];
		ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) | ((ElfW(Addr))1 << ((h >> shift) % bits));
		if ((word & mask) != mask)
			return NULL;
		/* a chain ends at its odd entry; bounded all the same */
		for (uint32_t ix = buckets[h % nbuckets]; ix >= symoffset && ix - symoffset < (1u << 24); ix++) {
			uint32_t ch = chain[ix - symoffset];
			void *f = (h | 1) == (ch | 1) ? dynobj_def(o, ix, name) : NULL;
			if (f)
				return f;
			if (ch & 1)
				break;
		}
		return NULL;
	}
	if (!o->sysv)
		return NULL;
	uint32_t h = 0;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		h = (h << 4) + *c;
		h = (h ^ ((h & 0xf0000000u) >> 24)) & 0x0fffffffu;
	}
	uint32_t nbucket = o->sysv[0];
	const uint32_t *bucket = o->sysv + 2, *chain = bucket + nbucket;
	if (!nbucket)
		return NULL;
	for (uint32_t ix = bucket[h % nbucket], n = 0; ix && n < o->sysv[1]; ix = chain[ix], n++) {
		void *f = dynobj_def(o, ix, name);
		if (f)
			return f;
	}
	return NULL;
}


/* find_soname's query: the object named `soname`, and its definition of `name` */
struct soname_q {
	const char *soname, *name;
	void *f;
};

static int find_soname(struct dl_phdr_info *info, size_t size, void *data)
{
	struct soname_q *q = data;
	struct ckt_dynobj o;
	(void)size;
	if (!ckt_dynobj_of(info, &o) || !o.soname || strcmp(o.soname, q->soname) != 0)
		return 0;
	q->f = ckt_dynobj_lookup(&o, q->name);
	return 1;
}

void *ckt_elf_lookup_in(const char *soname, const char *name)
{
	struct soname_q q = {soname, name, NULL};
	dl_iterate_phdr(find_soname, &q);
	return q.f;
}

/* find_near's query: the object that holds addr (after: the first object loaded after it) that
 * defines `name`, and that definition */
struct near_q {
	uintptr_t addr;
	const char *name;
	int after, past;
	void *f;
};

static int find_near(struct dl_phdr_info *info, size_t size, void *data)
{
	struct near_q *q = data;
	struct ckt_dynobj o;
	uintptr_t lo, hi;
	int holds;
	(void)size;
	ckt_span_of(info, &lo, &hi, &holds, q->addr);
	if (q->after && !q->past) {
		q->past = holds;
		return 0;
	}
	if (!q->after && !holds)
		return 0;
	if (ckt_dynobj_of(info, &o))
		q->f = ckt_dynobj_lookup(&o, q->name);
	return !q->after || q->f != NULL;
}

void *ckt_elf_lookup_at(const void *addr, const char *name)
{
	struct near_q q = {(uintptr_t)addr, name, 0, 0, NULL};
	dl_iterate_phdr(find_near, &q);
	return q.f;
}

void *ckt_elf_lookup_after(const void *self, const char *name)
{
	struct near_q q = {(uintptr_t)self, name, 1, 0, NULL};
	dl_iterate_phdr(find_near, &q);
	return q.f;
}
