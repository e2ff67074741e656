/* phase_rules.c: --phase-rule. Owns the rules, the trace's stacks (kept as return addresses)
 * and a symbolizer for them; decides each stack id's phase when the replay first meets it.
 * Symbolization itself is symbolize.c's; applying the decision is phases.c's.
 */
#include "phase_rules.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "symbolize.h"
#include "util.h"

struct ckt_phase_rule {
	char *name;
	const char *pattern;
	bool used; /* gave some stack its phase */
};

struct ckt_rstack {
	uint64_t id;
	uint64_t *pcs;
	size_t n;
	uint32_t map; /* the module map current when its STACK record was read */
};

struct ckt_phase_rules {
	struct ckt_phase_rule *rules;
	size_t nrules;
	struct ckt_sym *sym;
	struct ckt_rstack *stacks; /* open addressing on id; n == 0 && !pcs: empty slot */
	size_t cap, nstacks;
	int err; /* a symbolization ran out of memory while deciding (CKT_ENOMEM) */
};

const char *ckt_phase_rules_invalid(const char *spec)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || eq[1] == '\0')
		return "expected NAME=PATTERN";
	/* 'synth = *synthesize*' named a phase "synth " whose pattern " *synthesize*" matched no
	 * function: a warning after the whole replay, where this is one line at once */
	if (isspace((unsigned char)spec[0]) || isspace((unsigned char)eq[-1]) || isspace((unsigned char)eq[1]))
		return "expected NAME=PATTERN, with no space at the name's start or next to '='";
	return NULL;
}

void ckt_phase_rules_set_trace(struct ckt_phase_rules *r, const char *path)
{
	ckt_sym_set_trace(r->sym, path);
}

struct ckt_phase_rules *ckt_phase_rules_new(const char *const *specs, size_t n)
{
	struct ckt_phase_rules *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->rules = calloc(n ? n : 1, sizeof(*r->rules));
	r->sym = ckt_sym_new();
	if (!r->rules || !r->sym) {
		ckt_phase_rules_free(r);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(specs[i], '=');
		r->rules[i].name = strndup(specs[i], (size_t)(eq - specs[i]));
		r->rules[i].pattern = eq + 1;
		r->nrules++;
		if (!r->rules[i].name) {
			ckt_phase_rules_free(r);
			return NULL;
		}
	}
	return r;
}

void ckt_phase_rules_free(struct ckt_phase_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrules; i++)
		free(r->rules[i].name);
	free(r->rules);
	for (size_t i = 0; i < r->cap; i++)
		free(r->stacks[i].pcs);
	free(r->stacks);
	ckt_sym_free(r->sym);
	free(r);
}

static struct ckt_rstack *ckt_phase_rules_slot(const struct ckt_phase_rules *r, uint64_t id)
{
	size_t i = ckt_util_home(id, r->cap);
	while (r->stacks[i].pcs && r->stacks[i].id != id)
		i = (i + 1) & (r->cap - 1);
	return &r->stacks[i];
}

static int ckt_phase_rules_put(struct ckt_phase_rules *r, uint64_t id, uint64_t *pcs, size_t n,
			       uint32_t map)
{
	if ((r->nstacks + 1) * 2 > r->cap) {
		struct ckt_phase_rules g = { .cap = r->cap ? r->cap * 2 : 1024 };
		g.stacks = calloc(g.cap, sizeof(*g.stacks));
		if (!g.stacks)
			return CKT_ENOMEM;
		for (size_t i = 0; i < r->cap; i++)
			if (r->stacks[i].pcs)
				*ckt_phase_rules_slot(&g, r->stacks[i].id) = r->stacks[i];
		free(r->stacks);
		r->stacks = g.stacks;
		r->cap = g.cap;
	}
	struct ckt_rstack *s = ckt_phase_rules_slot(r, id);
	if (s->pcs) { /* each stack is written once; keep the first if not */
		free(pcs);
		return 0;
	}
	*s = (struct ckt_rstack){ id, pcs, n, map };
	r->nstacks++;
	return 0;
}

static int ckt_phase_rules_stack(struct ckt_phase_rules *r, const struct ckt_record *rec)
{
	const uint8_t *p = rec->u.stack.frames, *end = p + rec->u.stack.frames_len;
	size_t n = (size_t)rec->u.stack.nframes;
	/* one extra slot: an empty stack still needs a non-NULL array to mark its slot used */
	uint64_t *pcs = malloc((n + 1) * sizeof(*pcs)), prev = 0;
	if (!pcs)
		return CKT_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int64_t d = 0;
		p = ckt_get_sv(p, end, &d); /* validated by the decoder */
		if (!p) {
			n = i;
			break;
		}
		prev += (uint64_t)d;
		pcs[i] = prev;
	}
	return ckt_phase_rules_put(r, rec->u.stack.id, pcs, n, ckt_sym_map_now(r->sym));
}

int ckt_phase_rules_scan(struct ckt_phase_rules *r, const char *path, uint64_t limit, struct ckt_error *err)
{
	struct ckt_decoder *d = NULL;
	struct ckt_record rec;
	int rc = ckt_decode_open(path, &d, err);

	if (rc < 0)
		return rc;
	if (limit)
		ckt_decode_limit(d, limit);
	while ((rc = ckt_decode_next(d, &rec, err)) > 0) {
		if (rec.tag == CKT_TAG_STACK)
			rc = ckt_phase_rules_stack(r, &rec);
		else if (rec.tag == CKT_TAG_MODULE)
			rc = ckt_sym_add_module(r->sym, rec.u.module.base, rec.u.module.lo, rec.u.module.hi,
						(const char *)rec.u.module.path, rec.u.module.path_len,
						(const char *)rec.u.module.build_id, rec.u.module.build_id_len);
		if (rc < 0) {
			rc = ckt_util_err(err, rc, "out of memory");
			break;
		}
	}
	ckt_decode_close(d);
	return rc < 0 ? rc : 0;
}

/* The '>' that closes the '<' at p ("->" of a fn type is no '>'), or NULL: unbalanced. */
static const char *ckt_phase_rules_close(const char *p)
{
	int depth = 0;
	for (const char *q = p; *q; q++)
		if (*q == '<')
			depth++;
		else if (*q == '>' && (q == p || q[-1] != '-') && --depth == 0)
			return q;
	return NULL;
}

/* a character of a name (identifier) */
static bool ckt_phase_rules_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the name before p ends in the word "operator" (not "Cooperator"). */
static bool ckt_phase_rules_operator(const char *name, const char *p)
{
	return p - name >= 8 && strncmp(p - 8, "operator", 8) == 0 &&
	       (p - name == 8 || !ckt_phase_rules_ident(p[-9]));
}

/* name without its generic arguments into buf; false when it has none or does not fit. A
 * function's ("::<...>": Rust's v0 names keep them, arr::make::<[u8; 32]>) and, since 0.2.19,
 * a type's anywhere in the path ("app::Prover<T>::synthesize", legacy names; "Prover<u64>"
 * once uninherent has taken away v0's brackets): a '<' right after a name, nested brackets
 * balanced. A '<' after anything else ("<T as Trait>"), after "operator" (C++'s operator<,
 * operator<=>) or that nothing closes stays. */
bool ckt_phase_rules_ungeneric(const char *name, char *buf, size_t cap)
{
	size_t n = 0;
	bool cut = false;
	for (const char *p = name; *p; p++) {
		bool turbofish = p[0] == ':' && p[1] == ':' && p[2] == '<';
		/* after a name, or after a Rust closure's "{closure#0}<u16>" (since 0.2.22) */
		bool after_name = *p == '<' && p > name && (ckt_phase_rules_ident(p[-1]) || p[-1] == '}') &&
				  !ckt_phase_rules_operator(name, p); /* operator<=> */
		if (turbofish || after_name) {
			const char *q = ckt_phase_rules_close(turbofish ? p + 2 : p);
			if (q) {
				p = q;
				cut = true;
				continue;
			}
			if (turbofish)
				return false;
		}
		if (n + 1 >= cap)
			return false;
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return cut;
}

/* name with the brackets Rust's v0 names put around a type that a method of its own impl
 * block follows unwrapped, as legacy names write it ("<app::prover::Aux>::build" ->
 * "app::prover::Aux::build"; "<alloc::vec::Vec<u8>>::push" -> "alloc::vec::Vec<u8>::push"),
 * into buf; false when it has none or does not fit. Not a trait's ("<T as Trait>::f", whose
 * brackets say which impl) nor a type that is no path ("<[T]>::to_vec", "<&str>::f",
 * "<dyn core::any::Any>::is": a space or a sign outside its generic arguments); nested ones
 * from the inside out ("<<app::A>::B>::f" -> "app::A::B::f"). */
bool ckt_phase_rules_uninherent(const char *name, char *buf, size_t cap)
{
	size_t len = strlen(name);
	bool cut = false;
	if (len >= cap)
		return false;
	memcpy(buf, name, len + 1);
	for (bool again = true; again;) {
		again = false;
		len = strlen(buf);
		for (size_t i = 0; i < len; i++) {
			if (buf[i] != '<' || (i && buf[i - 1] != '<' && buf[i - 1] != ' '))
				continue;
			if (!ckt_phase_rules_ident(buf[i + 1]) || (buf[i + 1] >= '0' && buf[i + 1] <= '9'))
				continue;
			int depth = 0;
			bool path = true;
			size_t j = i;
			for (; j < len; j++) {
				if (buf[j] == '<')
					depth++;
				else if (buf[j] == '>' && buf[j - 1] != '-') {
					if (--depth == 0)
						break;
				} else if (depth == 1 && !ckt_phase_rules_ident(buf[j]) && buf[j] != ':')
					path = false; /* " as ", "dyn ", "-> ", "&": not a path */
			}
			if (j == len || !path || strncmp(buf + j + 1, "::", 2) != 0)
				continue;
			buf[i] = buf[j] = '\1'; /* dropped below */
			cut = again = true;
		}
		size_t n = 0;
		for (size_t i = 0; i < len; i++)
			if (buf[i] != '\1')
				buf[n++] = buf[i];
		buf[n] = '\0';
	}
	return cut;
}

/* A file of the Rust standard library's sources: "library/alloc/src/alloc.rs" as rustc's own
 * build names them, "/rustc/<commit>/library/..." as a release's line tables do, or
 * ".../lib/rustlib/src/rust/library/..." (rust-src, a std built by -Zbuild-std). */
static bool ckt_phase_rules_rust_std_file(const char *file)
{
	if (!file)
		return false;
	if (strncmp(file, "library/", 8) == 0 || strstr(file, "/rustlib/src/rust/library/"))
		return true;
	const char *r = strstr(file, "/rustc/");
	const char *l = r ? strchr(r + 7, '/') : NULL;
	return l && strncmp(l, "/library/", 9) == 0;
}

/* Rust's debuginfo=line-tables-only names a function the optimiser inlined by its last name
 * alone ("build_aux", "build_aux<u64>" for a generic one): a rule for "prover::build_aux" or
 * "*::build_aux" takes such a frame
 * when its name is the pattern's last one, with no glob in it ("prover::*" takes none). Not
 * a frame of the standard library's sources (since 0.2.22): its inlined "alloc" (alloc.rs),
 * under every allocation, is no function of a program's ("app::gpu::alloc" took 3 MB). The
 * path before the last name is not checked: such a frame has none. */
bool ckt_phase_rules_bare_takes(const char *pattern, const char *name)
{
	char buf[4096];
	if (!name[0] || strchr("{<(", name[0]))
		return false;
	/* a generic function's name has its arguments ("build_aux<u64>": since 0.2.26) */
	if (ckt_phase_rules_ungeneric(name, buf, sizeof(buf)))
		name = buf;
	if (strstr(name, "::"))
		return false;
	const char *tail = NULL;
	for (const char *p = strstr(pattern, "::"); p; p = strstr(p + 2, "::"))
		tail = p + 2;
	return tail && !strpbrk(tail, "*?[\\") && strcmp(tail, name) == 0;
}

bool ckt_phase_rules_bare_name(const char *a, size_t la)
{
	size_t base = ckt_util_sans_generics(a, la);
	if (!base)
		return false;
	for (size_t k = 0; k < base; k++)
		if (a[k] == ':' || a[k] == '<' || a[k] == ' ' || a[k] == '{' || a[k] == '(')
			return false;
	return true;
}

/* The length of a C++ function's name b[0..lb) without its parameters and qualifiers
 * ("ns::f(int) const" -> "ns::f"), or lb when it has none (Rust, C). */
static size_t ckt_phase_rules_sans_params(const char *b, size_t lb)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	for (bool more = true; more;) {
		more = false;
		for (size_t q = 0; q < sizeof(quals) / sizeof(quals[0]); q++) {
			size_t ql = strlen(quals[q]);
			if (lb > ql && memcmp(b + lb - ql, quals[q], ql) == 0) {
				lb -= ql;
				more = true;
			}
		}
	}
	if (lb < 3 || b[lb - 1] != ')')
		return lb;
	size_t depth = 0, i = lb;
	while (i-- > 0) {
		if (b[i] == ')')
			depth++;
		else if (b[i] == '(' && --depth == 0)
			break;
	}
	/* "operator()" is a name, not parameters */
	return i == (size_t)-1 || i == 0 || (i >= 8 && memcmp(b + i - 8, "operator", 8) == 0) ? lb : i;
}

/* Where a C++ function's name starts in b[0..lb) (without its parameters): after the return
 * type a function template's name carries ("int* make<int>" -> "make<int>"), the last space
 * outside its template arguments; 0 when there is none, or it belongs to a conversion
 * operator ("Conv::operator char*"). */
static size_t ckt_phase_rules_name_start(const char *b, size_t lb)
{
	size_t depth = 0, at = 0;
	for (size_t i = 0; i < lb; i++) {
		if (b[i] == '<')
			depth++;
		else if (b[i] == '>' && depth)
			depth--;
		else if (b[i] == ' ' && !depth && !(i >= 8 && memcmp(b + i - 8, "operator", 8) == 0))
			at = i + 1;
	}
	return at;
}

/* A C++ name b[0..lb) without GCC's ABI tags (ckt_util_sans_abi_tags) into buf; its length,
 * or (size_t)-1 where it has none (or buf is too small). The tag is no part of the name a
 * program's author writes: an inlined copy's DWARF name ("make_row") and a rule for
 * "ns::make_row" leave it out (since 0.2.59). */
static size_t ckt_phase_rules_unabi(const char *b, size_t lb, char *buf, size_t n)
{
	size_t w = ckt_util_sans_abi_tags(b, lb, buf, n);
	return w == lb ? (size_t)-1 : w;
}

bool ckt_phase_rules_bare_joins(const char *b, size_t lb, const char *a, size_t la)
{
	if (!ckt_phase_rules_bare_name(a, la))
		return false;
	char plain[4096];
	size_t lplain = ckt_phase_rules_unabi(b, lb, plain, sizeof(plain));
	if (lplain != (size_t)-1)
		return ckt_phase_rules_bare_joins(plain, lplain, a, la);
	/* C++: an inlined function's DWARF name has no parameters ("inl_helper"), its symbol's
	 * has ("inl_helper(unsigned long)", "ns::Buf::fill() const"): the same function (since
	 * 0.2.27; an -O2 against an -O0 build read every such function as gone and new) */
	size_t lp = ckt_phase_rules_sans_params(b, lb);
	if (lp < lb) {
		size_t s0 = ckt_phase_rules_name_start(b, lp); /* past a template's return type */
		return (lp - s0 == la && memcmp(b + s0, a, la) == 0) ||
		       (lp >= s0 + la + 3 && memcmp(b + lp - la, a, la) == 0 && memcmp(b + lp - la - 2, "::", 2) == 0);
	}
	size_t base = ckt_util_sans_generics(a, la), args = la - base;
	if (lb >= la + 3 && memcmp(b + lb - la, a, la) == 0 && memcmp(b + lb - la - 2, "::", 2) == 0)
		return true;
	if (!args)
		return false;
	if (lb >= base + 3 && memcmp(b + lb - base, a, base) == 0 && memcmp(b + lb - base - 2, "::", 2) == 0)
		return true;
	return lb >= la + 5 && memcmp(b + lb - args, a + base, args) == 0 &&
	       memcmp(b + lb - args - 2, "::", 2) == 0 && memcmp(b + lb - args - 2 - base, a, base) == 0 &&
	       memcmp(b + lb - la - 4, "::", 2) == 0;
}

static bool ckt_phase_rules_bare(const struct ckt_phase_rule *rule, const struct ckt_sym_frame *f)
{
	return f->inlined && f->name && !ckt_phase_rules_rust_std_file(f->file) &&
	       ckt_phase_rules_bare_takes(rule->pattern, f->name);
}

static bool ckt_phase_rules_match(const struct ckt_phase_rule *rule, const struct ckt_sym_frame *f)
{
	char buf[4096], plain[4096];
	if (f->name && fnmatch(rule->pattern, f->name, 0) == 0)
		return true;
	if (ckt_phase_rules_bare(rule, f))
		return true;
	if (f->name && ckt_phase_rules_ungeneric(f->name, buf, sizeof(buf)) && fnmatch(rule->pattern, buf, 0) == 0)
		return true;
	if (f->name && ckt_phase_rules_uninherent(f->name, plain, sizeof(plain)) &&
	    (fnmatch(rule->pattern, plain, 0) == 0 ||
	     (ckt_phase_rules_ungeneric(plain, buf, sizeof(buf)) && fnmatch(rule->pattern, buf, 0) == 0)))
		return true;
	if (f->func && fnmatch(rule->pattern, f->func, 0) == 0)
		return true;
	/* a C++ name with an ABI tag: as written without it ("ns::make_row"), and as the report
	 * shows it, brackets and all, which the glob would read as a set */
	if (f->name && strstr(f->name, "[abi:")) {
		if (strcmp(rule->pattern, f->name) == 0 || (f->func && strcmp(rule->pattern, f->func) == 0))
			return true;
		size_t ln = ckt_phase_rules_unabi(f->name, strlen(f->name), plain, sizeof(plain));
		if (ln != (size_t)-1 && (fnmatch(rule->pattern, plain, 0) == 0 ||
					 (ckt_phase_rules_ungeneric(plain, buf, sizeof(buf)) && fnmatch(rule->pattern, buf, 0) == 0)))
			return true;
		if (f->func && ckt_phase_rules_unabi(f->func, strlen(f->func), plain, sizeof(plain)) != (size_t)-1 &&
		    fnmatch(rule->pattern, plain, 0) == 0)
			return true;
	}
	if (!f->file)
		return false;
	snprintf(buf, sizeof(buf), "%s:%u", f->file, f->line);
	if (fnmatch(rule->pattern, buf, 0) == 0)
		return true;
	const char *base = strrchr(f->file, '/');
	if (!base)
		return false;
	snprintf(buf, sizeof(buf), "%s:%u", base + 1, f->line);
	return fnmatch(rule->pattern, buf, 0) == 0;
}

const char *ckt_phase_rules_decide(void *ctx, uint64_t stack)
{
	struct ckt_phase_rules *r = ctx;
	size_t best = r->nrules;

	if (!stack || !r->cap)
		return NULL;
	const struct ckt_rstack *s = ckt_phase_rules_slot(r, stack);
	if (!s->pcs)
		return NULL;
	/* every frame against the rules not yet beaten: the earliest rule given wins */
	bool interrupted = false; /* the frame is the one a signal interrupted */
	for (size_t i = 0; i < s->n && best > 0; i++) {
		const struct ckt_sym_frame *f;
		int nf = ckt_sym_lookup(r->sym, s->pcs[i], s->map, interrupted, &f);
		if (nf < 0) {
			r->err = nf;
			return NULL;
		}
		interrupted = f[nf - 1].sigtramp;
		for (int k = 0; k < nf; k++)
			for (size_t q = 0; q < best; q++)
				if (ckt_phase_rules_match(&r->rules[q], &f[k])) {
					best = q;
					break;
				}
	}
	if (best == r->nrules)
		return NULL;
	r->rules[best].used = true;
	return r->rules[best].name;
}

const char *ckt_phase_rules_unused(const struct ckt_phase_rules *r, size_t i, const char **pattern)
{
	if (i >= r->nrules || r->rules[i].used)
		return NULL;
	*pattern = r->rules[i].pattern;
	return r->rules[i].name;
}

size_t ckt_phase_rules_count(const struct ckt_phase_rules *r)
{
	return r->nrules;
}

int ckt_phase_rules_error(const struct ckt_phase_rules *r)
{
	return r->err;
}

size_t ckt_phase_rules_nwarnings(const struct ckt_phase_rules *r)
{
	return ckt_sym_nwarnings(r->sym);
}

const char *ckt_phase_rules_warning(const struct ckt_phase_rules *r, size_t i)
{
	return ckt_sym_warning(r->sym, i);
}
