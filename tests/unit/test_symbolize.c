/* test_symbolize.c: reader/symbolize.c's symbol-table lookup against libdwfl's own
 * (dwfl_module_addrinfo, which reads the whole table on each call and is the oracle here), on the
 * libraries this test program has loaded: libc, libzstd, libdw, libelf, libcmocka... (with the
 * full .symtab of a debug file where one is installed: locals, labels, aliases). For every
 * symbol: its first byte, middle, last byte and the byte after it; for every label (a symbol
 * without size): its address and the next byte. Each must be named exactly as libdwfl names it.
 * Then every byte of build/tests/symfix.so (tests/unit/symfix.s: labels sharing addresses,
 * nested functions, 40 aliases of one function), where the answer depends on libdwfl's scan
 * order. Also a lookup in a module whose file is gone: module+offset, no name.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize.h"

struct libs {
	struct {
		char path[4096];
		uint64_t base, lo, hi;
	} v[64];
	int n;
};

static int add_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct libs *l = arg;
	if (!info->dlpi_name || info->dlpi_name[0] != '/' || l->n == 64)
		return 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (lo >= hi)
		return 0;
	snprintf(l->v[l->n].path, sizeof(l->v[l->n].path), "%s", info->dlpi_name);
	l->v[l->n].base = info->dlpi_addr;
	l->v[l->n].lo = lo;
	l->v[l->n].hi = hi;
	l->n++;
	return 0;
}

static const Dwfl_Callbacks oracle_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Compares the symbolizer with libdwfl at address a (the symbolizer looks up pc - 1). */
static void check_at(struct ckt_sym *s, uint32_t map, Dwfl_Module *mod, uint64_t a, const char *lib,
		     long *checked, long *bad)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *want = dwfl_module_addrinfo(mod, a, &off, &sym, NULL, NULL, NULL);
	int err;
	const char *got = ckt_sym_symbol_name(s, a, map, &err);
	assert_int_equal(err, 0);
	(*checked)++;
	if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
		if (++*bad <= 10)
			print_message("%s, address 0x%llx: libdwfl says %s, the symbolizer %s\n", lib,
				      (unsigned long long)a, want ? want : "(none)", got ? got : "(none)");
	}
}

static void test_symbol_table_matches_libdwfl(void **state)
{
	(void)state;
	static struct libs l;
	dl_iterate_phdr(add_lib, &l);
	int compared = 0;
	long checked = 0, bad = 0;
	for (int i = 0; i < l.n; i++) {
		const char *base = strrchr(l.v[i].path, '/') + 1;
		Dwfl *d = dwfl_begin(&oracle_cb);
		assert_non_null(d);
		dwfl_report_begin(d);
		Dwfl_Module *mod = dwfl_report_elf(d, base, l.v[i].path, -1, l.v[i].base, true);
		dwfl_report_end(d, NULL, NULL);
		if (!mod) {
			dwfl_end(d);
			continue;
		}
		struct ckt_sym *s = ckt_sym_new();
		assert_non_null(s);
		assert_int_equal(ckt_sym_add_module(s, l.v[i].base, l.v[i].lo, l.v[i].hi, l.v[i].path,
						    strlen(l.v[i].path), "", 0), 0);
		uint32_t map = ckt_sym_map_now(s);
		int n = dwfl_module_getsymtab(mod);
		for (int k = 0; k < n; k++) {
			GElf_Sym sym;
			GElf_Addr a;
			GElf_Word shndx;
			Elf *elf;
			Dwarf_Addr b;
			const char *name = dwfl_module_getsym_info(mod, k, &sym, &a, &shndx, &elf, &b);
			if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || a < l.v[i].lo || a >= l.v[i].hi)
				continue;
			uint64_t probes[4] = { a, a + sym.st_size / 2, a + sym.st_size - 1, a + sym.st_size };
			if (!sym.st_size)
				probes[1] = probes[2] = probes[3] = a + 1;
			for (int p = 0; p < 4; p++)
				if (probes[p] >= l.v[i].lo && probes[p] < l.v[i].hi)
					check_at(s, map, mod, probes[p], base, &checked, &bad);
		}
		ckt_sym_free(s);
		dwfl_end(d);
		compared++;
	}
	print_message("compared %ld addresses in %d libraries\n", checked, compared);
	assert_true(compared >= 2); /* libc and libzstd at least */
	assert_true(checked > 10000);
	assert_int_equal(bad, 0);
}

/* The fixture symfix.so, reported to libdw at base: its absolute path in full (the
 * symbolizer opens absolute paths only), its module and its address range. */
static Dwfl *symfix_report(uint64_t base, char *full, Dwfl_Module **mod, Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	const char *path = getenv("CKT_SYMFIX") ? getenv("CKT_SYMFIX") : "build/tests/symfix.so";
	assert_non_null(realpath(path, full));
	Dwfl *d = dwfl_begin(&oracle_cb);
	assert_non_null(d);
	dwfl_report_begin(d);
	*mod = dwfl_report_elf(d, "symfix.so", full, -1, base, true);
	dwfl_report_end(d, NULL, NULL);
	assert_non_null(*mod);
	dwfl_module_info(*mod, NULL, lo, hi, NULL, NULL, NULL, NULL);
	return d;
}

static void test_overlapping_symbols(void **state)
{
	(void)state;
	char full[4096];
	const uint64_t base = 0x7f0000000000ull;
	Dwfl_Module *mod;
	Dwarf_Addr lo, hi;
	Dwfl *d = symfix_report(base, full, &mod, &lo, &hi);
	struct ckt_sym *s = ckt_sym_new();
	assert_non_null(s);
	assert_int_equal(ckt_sym_add_module(s, base, lo, hi, full, strlen(full), "", 0), 0);
	uint32_t map = ckt_sym_map_now(s);
	long checked = 0, bad = 0;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	assert_non_null(elf);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (uint64_t a = sh.sh_addr + bias; a <= sh.sh_addr + bias + sh.sh_size; a++)
			check_at(s, map, mod, a, "symfix.so", &checked, &bad);
	}
	ckt_sym_free(s);
	dwfl_end(d);
	print_message("symfix.so: compared %ld addresses\n", checked);
	assert_true(checked >= 20); /* the fixture's code is 27 bytes */
	assert_int_equal(bad, 0);
}

/* One address looked up both ways: as a return address (the call before it, at pc - 1) and
 * exactly (the pc a signal interrupted): each gets its own answer, whichever way came first
 * (they are cached apart). In symfix.so, at the first address whose byte before it another
 * symbol names. */
static void test_exact_lookup(void **state)
{
	(void)state;
	char full[4096];
	const uint64_t base = 0x7f0000000000ull;
	Dwfl_Module *mod;
	Dwarf_Addr lo, hi;
	dwfl_end(symfix_report(base, full, &mod, &lo, &hi));
	struct ckt_sym *o = ckt_sym_new();
	assert_non_null(o);
	assert_int_equal(ckt_sym_add_module(o, base, lo, hi, full, strlen(full), "", 0), 0);
	uint32_t map = ckt_sym_map_now(o);
	uint64_t a = 0;
	const char *at = NULL, *before = NULL;
	int err;
	for (uint64_t x = lo + 1; x < hi && !a; x++) {
		const char *n1 = ckt_sym_symbol_name(o, x, map, &err), *n0 = ckt_sym_symbol_name(o, x - 1, map, &err);
		if (n1 && n0 && strcmp(n1, n0) != 0) {
			a = x;
			at = n1;
			before = n0;
		}
	}
	assert_true(a != 0);
	for (int exact_first = 0; exact_first < 2; exact_first++) {
		struct ckt_sym *s = ckt_sym_new();
		assert_non_null(s);
		assert_int_equal(ckt_sym_add_module(s, base, lo, hi, full, strlen(full), "", 0), 0);
		uint32_t m = ckt_sym_map_now(s);
		for (int k = 0; k < 2; k++) {
			bool exact = k == 0 ? exact_first : !exact_first;
			const struct ckt_sym_frame *f;
			assert_int_equal(ckt_sym_lookup(s, a, m, exact, &f), 1);
			assert_non_null(f[0].func);
			assert_string_equal(f[0].func, exact ? at : before);
		}
		ckt_sym_free(s);
	}
	ckt_sym_free(o);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct ckt_sym *s = ckt_sym_new();
	assert_non_null(s);
	static const char path[] = "/nonexistent/libgone.so";
	assert_int_equal(ckt_sym_add_module(s, 0x10000, 0x10000, 0x20000, path, sizeof(path) - 1, "", 0), 0);
	const struct ckt_sym_frame *f;
	assert_int_equal(ckt_sym_lookup(s, 0x10123, ckt_sym_map_now(s), false, &f), 1);
	assert_null(f[0].func);
	assert_string_equal(f[0].module, "libgone.so");
	assert_int_equal(f[0].offset, 0x123);
	assert_int_equal(ckt_sym_nwarnings(s), 1);
	ckt_sym_free(s);
}

/* Which module holds an address, against the rule written out here: the newest module that
 * holds it and was listed by the stack's map, else the newest that holds it. 3,000 modules in
 * 300 maps, their spans nested and overlapping at 50 bases, looked up after every map (so
 * through the index, its rebuilds and the modules added since). Files are missing, so each
 * frame names its module and nothing else. */
struct oracle_mod {
	uint64_t lo, hi;
	uint32_t map;
};

/* nested: spans inside one another, far more than 16 pieces a module (the segment tree) */
static void module_index_check(bool nested)
{
	enum { NMOD = 3000, PER_MAP = 10, LOOKUPS = 40 };
	static struct oracle_mod mods[NMOD];
	struct ckt_sym *s = ckt_sym_new();
	assert_non_null(s);
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t n = 0;
	uint32_t maps = 0;
	char path[64], want[32];
	for (int m = 0; m < NMOD / PER_MAP; m++) {
		for (int k = 0; k < PER_MAP; k++, n++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t lo = nested ? 0x1000 * ((rng >> 33) % 64) : 0x100000 * ((rng >> 33) % 50);
			uint64_t hi = nested ? lo + 0x10000 * (1 + (rng >> 20) % 800) : lo + 0x1000 * (1 + (rng >> 20) % 300);
			int len = snprintf(path, sizeof(path), "/nonexistent/m%zu.so", n);
			assert_int_equal(ckt_sym_add_module(s, lo, lo, hi, path, (size_t)len, "", 0), 0);
			mods[n] = (struct oracle_mod){ lo, hi, 0 };
		}
		maps = ckt_sym_map_now(s);
		for (size_t i = n - PER_MAP; i < n; i++)
			mods[i].map = maps;
		for (int q = 0; q < LOOKUPS; q++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t pc = 1 + (rng >> 24) % (51 * 0x100000);
			uint32_t map = 1 + (uint32_t)((rng >> 10) % maps);
			long pick = -1, any = -1;
			for (size_t i = n; i-- > 0;)
				if (pc >= mods[i].lo && pc < mods[i].hi) {
					if (mods[i].map <= map) {
						pick = (long)i;
						break;
					}
					if (any < 0)
						any = (long)i;
				}
			if (pick < 0)
				pick = any;
			const struct ckt_sym_frame *f;
			assert_int_equal(ckt_sym_lookup(s, pc, map, false, &f), 1);
			if (pick < 0) {
				assert_null(f[0].module);
			} else {
				snprintf(want, sizeof(want), "m%ld.so", pick);
				assert_non_null(f[0].module);
				assert_string_equal(f[0].module, want);
				assert_int_equal(f[0].offset, pc - mods[pick].lo);
			}
		}
	}
	ckt_sym_free(s);
}

static void test_module_index(void **state)
{
	(void)state;
	module_index_check(false);
}

static void test_module_index_nested(void **state)
{
	(void)state;
	module_index_check(true);
}

/* The modules' strings are bounded (64 MiB): past it a module of a new path is left out, its
 * frames shown as addresses, one line counts them; a module of a path kept already is still
 * added. 17,000 distinct paths of 4,000 bytes: 16,773 fit (4,001 bytes each, and the empty
 * build-id's one), 227 left out (a forged trace of such records took 1.1 GB before). */
static void test_module_bound(void **state)
{
	(void)state;
	struct ckt_sym *s = ckt_sym_new();
	assert_non_null(s);
	static char path[4001];
	memset(path, 'a', 4000);
	path[0] = '/';
	for (int i = 0; i < 17000; i++) {
		snprintf(path + 3980, 21, "/m%08d.so", i);
		memset(path + 3980 + 12, 'x', 8); /* 4,000 bytes in all */
		uint64_t lo = 0x100000 * (uint64_t)(i + 1);
		assert_int_equal(ckt_sym_add_module(s, lo, lo, lo + 0x1000, path, 4000, "", 0), 0);
	}
	assert_int_equal(ckt_sym_nwarnings(s), 1);
	assert_string_equal(ckt_sym_warning(s, 0),
			    "the trace lists more modules than this reader keeps (64 MiB of distinct paths and "
			    "build-ids, or 1048576 modules: a damaged trace?): 227 left out, their frames shown "
			    "as addresses");
	uint32_t map = ckt_sym_map_now(s);
	const struct ckt_sym_frame *f;
	/* the last module kept, and the first left out */
	assert_int_equal(ckt_sym_lookup(s, 0x100000 * 16773ull + 0x10, map, false, &f), 1);
	assert_non_null(f[0].module);
	assert_int_equal(ckt_sym_lookup(s, 0x100000 * 16774ull + 0x10, map, false, &f), 1);
	assert_null(f[0].module);
	/* a path kept, at a base of its own: added */
	snprintf(path + 3980, 21, "/m%08d.so", 0);
	memset(path + 3980 + 12, 'x', 8);
	assert_int_equal(ckt_sym_add_module(s, 0x7000000000, 0x7000000000, 0x7000001000, path, 4000, "", 0), 0);
	assert_int_equal(ckt_sym_lookup(s, 0x7000000010, ckt_sym_map_now(s), false, &f), 1);
	assert_non_null(f[0].module);
	assert_int_equal(f[0].offset, 0x10);
	ckt_sym_free(s);
}

/* One file under two names (hard links), listed as two modules: one file to the reader (the
 * same device and inode), but each module's frames name it as its listing does (module+offset:
 * the file is no ELF, and each name says so once). */
static void test_twin_names(void **state)
{
	(void)state;
	char dir[] = "/tmp/ckt_twinXXXXXX", x[64], y[64];
	assert_non_null(mkdtemp(dir));
	snprintf(x, sizeof(x), "%s/libx.so", dir);
	snprintf(y, sizeof(y), "%s/liby.so", dir);
	FILE *f0 = fopen(x, "w");
	assert_non_null(f0);
	fputs("not an ELF file\n", f0);
	fclose(f0);
	assert_int_equal(link(x, y), 0);
	struct ckt_sym *s = ckt_sym_new();
	assert_non_null(s);
	assert_int_equal(ckt_sym_add_module(s, 0x10000, 0x10000, 0x20000, x, strlen(x), "", 0), 0);
	assert_int_equal(ckt_sym_add_module(s, 0x40000, 0x40000, 0x50000, y, strlen(y), "", 0), 0);
	uint32_t map = ckt_sym_map_now(s);
	const struct ckt_sym_frame *f;
	assert_int_equal(ckt_sym_lookup(s, 0x10123, map, false, &f), 1);
	assert_null(f[0].func);
	assert_string_equal(f[0].module, "libx.so");
	assert_int_equal(f[0].offset, 0x123);
	assert_int_equal(ckt_sym_lookup(s, 0x40456, map, false, &f), 1);
	assert_null(f[0].func);
	assert_string_equal(f[0].module, "liby.so");
	assert_int_equal(f[0].offset, 0x456);
	assert_int_equal(ckt_sym_nwarnings(s), 2);
	ckt_sym_free(s);
	unlink(x);
	unlink(y);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbol_table_matches_libdwfl),
		cmocka_unit_test(test_overlapping_symbols),
		cmocka_unit_test(test_exact_lookup),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_module_index),
		cmocka_unit_test(test_module_index_nested),
		cmocka_unit_test(test_module_bound),
		cmocka_unit_test(test_twin_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
