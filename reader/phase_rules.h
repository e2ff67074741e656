/* phase_rules.h: --phase-rule NAME=PATTERN, re-attributing allocations to phases after the
 * fact: an allocation whose stack has a frame matching the glob PATTERN (fnmatch(3)) belongs
 * to phase NAME. A frame matches when PATTERN matches its function name without parameters
 * ("prove"), with them ("prove(partition*)"), or "file:line" with the file as the debug info
 * names it or only its last component ("mini_prover.c:97"). Rules are tried in the order
 * given; the first rule with a matching frame wins; no match keeps the captured phase.
 * Stacks (STACK records) may come after the events naming them, so the trace is read once
 * here for stacks and modules before the replay asks, lazily, for each stack id's decision.
 */
#ifndef CKT_PHASE_RULES_H
#define CKT_PHASE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct ckt_phase_rules;

/* NULL when spec is NAME=PATTERN with both parts non-empty and no space next to the '=' or
 * at the name's start (CUZKTRACE_PHASES refuses such names too); else what it lacks. */
const char *ckt_phase_rules_invalid(const char *spec);

/* specs: n valid specs (kept by pointer: they must outlive the rules). NULL when out of memory. */
struct ckt_phase_rules *ckt_phase_rules_new(const char *const *specs, size_t n);
void ckt_phase_rules_free(struct ckt_phase_rules *r);
/* the trace read, for the line when symbolizing runs out of memory (ckt_sym_set_trace) */
void ckt_phase_rules_set_trace(struct ckt_phase_rules *r, const char *path);

/* Pass 1: reads the trace at path (its first limit bytes, when not 0: --salvage) for its
 * STACK and MODULE records. Returns 0 or a negative
 * CKT_E* code with err set. */
int ckt_phase_rules_scan(struct ckt_phase_rules *r, const char *path, uint64_t limit, struct ckt_error *err);

/* The phase name stack id's allocations belong to, or NULL when no rule matches (or the stack
 * is unknown). Has the shape of ckt_phases_rule_fn (ctx = the rules). */
const char *ckt_phase_rules_decide(void *ctx, uint64_t stack);

/* CKT_ENOMEM when a decision ran out of memory (that stack was given no rule), else 0. */
int ckt_phase_rules_error(const struct ckt_phase_rules *r);

/* The other spellings of a function name that a pattern also matches (Rust's v0 names; both
 * true and the result in buf when the name has one, false otherwise or when it does not fit):
 * without its generic arguments ("arr::make::<32>" -> "arr::make"), and without the brackets
 * around a type whose own method follows ("<app::Aux>::build" -> "app::Aux::build"; not
 * "<app::Aux as app::Fill>::fill" nor a type that is no path, "<[T]>::to_vec"). */
bool ckt_phase_rules_ungeneric(const char *name, char *buf, size_t cap);
bool ckt_phase_rules_uninherent(const char *name, char *buf, size_t cap);

/* Rust's debuginfo=line-tables-only names a function the optimiser inlined by its last name
 * alone, with its generic arguments if it has any ("build_aux", "build_aux<u64>"), where the
 * symbol table names a copy it did not inline by its path ("app::prover::build_aux", v0's
 * "app::prover::build_aux::<u64>"). Whether a --phase-rule pattern takes such a bare name:
 * the pattern's last name after "::", with no glob in it, is the name without its arguments
 * ("app::prover::build_aux", "*::build_aux"; not "prover::*"). */
bool ckt_phase_rules_bare_takes(const char *pattern, const char *name);
/* Whether a[0..la) is a bare name: one identifier, perhaps with generic arguments
 * ("build_aux", "build_gen<u64>"); not a path, nor a C++ function's "grow(int)" (a free
 * function of C++ joined "Cache::grow(int)" in --diff before 0.2.27). */
bool ckt_phase_rules_bare_name(const char *a, size_t la);
/* Whether path b[0..lb) is the bare name a[0..la) (ckt_phase_rules_bare_name) after a path: with its arguments as DWARF
 * writes them ("...::f<u64>"), as v0 does ("...::f::<u64>"), or without them, as legacy
 * symbols drop them ("...::f"). */
bool ckt_phase_rules_bare_joins(const char *b, size_t lb, const char *a, size_t la);

/* Symbolizer warnings met while deciding (changed or unreadable modules), one line each. */
size_t ckt_phase_rules_nwarnings(const struct ckt_phase_rules *r);
const char *ckt_phase_rules_warning(const struct ckt_phase_rules *r, size_t i);

/* The number of rules; rule i's name when it gave no stack the replay met its phase (no frame
 * matched, or an earlier rule always did first), with its pattern in *pattern; else NULL */
size_t ckt_phase_rules_count(const struct ckt_phase_rules *r);
const char *ckt_phase_rules_unused(const struct ckt_phase_rules *r, size_t i, const char **pattern);

#endif
