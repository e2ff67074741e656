/* test_phase_rules.c: the spellings of Rust v0 names that --phase-rule patterns also match
 * (reader/phase_rules.c), without a Rust compiler: generic arguments dropped, and the brackets
 * around a type whose own method follows taken away where the type is a path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "phase_rules.h"

static const char *uninherent(const char *name)
{
	static char buf[256];
	return ckt_phase_rules_uninherent(name, buf, sizeof(buf)) ? buf : "(none)";
}

static void test_uninherent(void **state)
{
	(void)state;
	assert_string_equal(uninherent("<app::Aux>::build"), "app::Aux::build");
	assert_string_equal(uninherent("<alloc::vec::Vec<u8>>::push"), "alloc::vec::Vec<u8>::push");
	assert_string_equal(uninherent("<<app::A>::B>::f"), "app::A::B::f");
	assert_string_equal(uninherent("<app::Foo<fn() -> u8>>::f"), "app::Foo<fn() -> u8>::f");
	assert_string_equal(uninherent("core::ptr::drop_in_place::<<app::A>::x>"),
			    "core::ptr::drop_in_place::<app::A::x>");
	/* a trait's impl, and types that are no path, keep their brackets */
	assert_string_equal(uninherent("<app::Aux as app::Fill>::fill"), "(none)");
	assert_string_equal(uninherent("<[T]>::to_vec"), "(none)");
	assert_string_equal(uninherent("<&str>::f"), "(none)");
	assert_string_equal(uninherent("<dyn core::any::Any>::is"), "(none)");
	assert_string_equal(uninherent("<fn() -> u8>::f"), "(none)");
	assert_string_equal(uninherent("<impl app::T>::f"), "(none)");
	assert_string_equal(uninherent("plain::f"), "(none)");
	assert_string_equal(uninherent("<app::Aux>"), "(none)");
	assert_string_equal(uninherent("<app::Aux::f"), "(none)");
}

static void test_uninherent_bounded(void **state)
{
	(void)state;
	char small[8];
	assert_false(ckt_phase_rules_uninherent("<app::Aux>::build", small, sizeof(small)));
}

/* name as ckt_phase_rules_ungeneric gives it, or "(none)" when it has no generic arguments */
static const char *ungeneric(const char *name)
{
	static char buf[256];
	return ckt_phase_rules_ungeneric(name, buf, sizeof(buf)) ? buf : "(none)";
}

static void test_ungeneric(void **state)
{
	(void)state;
	char small[8];
	const char *const cases[][2] = {
		{"arr::make::<[u8; 32]>", "arr::make"},
		{"arr::make", "(none)"},
		/* a type's generic arguments in the path (since 0.2.19): legacy names, and v0's
		 * once uninherent has taken its brackets away */
		{"app::Prover<T>::synthesize", "app::Prover::synthesize"},
		{"fft::Domain<_>::run::<4>", "fft::Domain::run"},
		{"app::Foo<fn() -> u8>::f", "app::Foo::f"},
		{"<app::Vec<u8> as app::Grow>::grow", "<app::Vec as app::Grow>::grow"},
		{"app::Cooperator<u64>::run", "app::Cooperator::run"},
		{"my_operator<T>::f", "my_operator::f"},
		{"std::operator<=>(std::pair<int, int> const&)", "std::operator<=>(std::pair const&)"},
		/* a '<' after no name, after the word operator, or that nothing closes, stays */
		{"std::ostream::operator<<(int)", "(none)"},
		{"Foo::operator<=>(Foo const&) const", "(none)"},
		{"<app::Aux as app::Fill>::fill", "(none)"},
		{"app::make::<u8", "(none)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(ungeneric(cases[i][0]), cases[i][1]);
	assert_string_equal(ungeneric(uninherent("<app::Prover<u64>>::synthesize")), "app::Prover::synthesize");
	assert_false(ckt_phase_rules_ungeneric("app::Prover<T>::synthesize", small, sizeof(small))); /* does not fit */
}

/* an inlined function's bare name (Rust line-tables-only), generic ones with their arguments
 * (since 0.2.26): which patterns take it, which paths --diff joins it to */
static void test_bare(void **state)
{
	(void)state;
	const char *const takes[][2] = {
		{"app::prover::build_aux", "build_aux"},
		{"*::build_aux", "build_aux"},
		{"app::prover::build_gen", "build_gen<u64>"},
		{"*::build_gen", "build_gen<alloc::vec::Vec<u8>>"},
	};
	const char *const not_takes[][2] = {
		{"prover::*", "build_gen<u64>"},    /* a glob in the last name */
		{"build_gen", "build_gen<u64>"},    /* no path: fnmatch's business */
		{"app::build_gen", "other<u64>"},
		{"app::build_gen", "build_gen_x"},
		{"app::build_gen", "{closure#0}<u64>"},
		{"app::build_gen", "app::build_gen<u64>"}, /* not bare */
	};
	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++)
		assert_true(ckt_phase_rules_bare_takes(takes[i][0], takes[i][1]));
	for (size_t i = 0; i < sizeof(not_takes) / sizeof(not_takes[0]); i++)
		assert_false(ckt_phase_rules_bare_takes(not_takes[i][0], not_takes[i][1]));

	const char *const joins[][2] = {
		{"app::prover::build_aux", "build_aux"},
		{"app::prover::build_gen", "build_gen<u64>"},       /* legacy: no arguments */
		{"app::prover::build_gen::<u64>", "build_gen<u64>"}, /* v0 */
		{"app::prover::build_gen<u64>", "build_gen<u64>"},   /* DWARF */
		{"inl_helper(unsigned long)", "inl_helper"},         /* C++: the symbol's parameters */
		{"ns::Buf<int, 3>::fill() const", "fill"},
		{"ns::Buf<int, 3>::fill(std::vector<int, std::allocator<int> >&) &&", "fill"},
		{"int* make<int>(unsigned long)", "make<int>"},               /* a template's return type */
		{"std::pair<int, int> ns::mk<int>(int)", "mk<int>"},
		{"ns::make_row[abi:cxx11](unsigned long)", "make_row"}, /* GCC's ABI tag left out */
		{"ns::Tab::name[abi:cxx11]() const", "name"},
	};
	const char *const not_joins[][2] = {
		{"app::prover::build_gen::<u32>", "build_gen<u64>"},
		{"app::prover::build_gen<u32>", "build_gen<u64>"},
		{"app::prover::xbuild_gen", "build_gen<u64>"},
		{"app::prover::build_aux", "build_gen<u64>"},
		{"build_gen", "build_gen<u64>"},
		{"::build_gen::<u64>", "build_gen<u64>"},
		{"app::prover::build_aux", "aux"},
		{"Cache::grow(int)", "grow(int)"}, /* C++: a free function is no bare name */
		{"xinl_helper(unsigned long)", "inl_helper"},
		{"main::{lambda(unsigned long)#2}::operator()(unsigned long) const", "operator"},
		{"ns::grow(int)", "ns"},
		{"int* make<int>(unsigned long)", "make<long>"},
		{"int* make<int>(unsigned long)", "int"},
		{"ns::grow<int>(int)", "grow<int>(int)"},
		{"app::x::{closure#0}", "{closure#0}"},
		{"ns::make_rowx[abi:cxx11](unsigned long)", "make_row"},
		{"ns::make_row[abi:cxx11](unsigned long)", "abi"},
	};
	for (size_t i = 0; i < sizeof(joins) / sizeof(joins[0]); i++)
		assert_true(ckt_phase_rules_bare_joins(joins[i][0], strlen(joins[i][0]), joins[i][1], strlen(joins[i][1])));
	for (size_t i = 0; i < sizeof(not_joins) / sizeof(not_joins[0]); i++)
		assert_false(ckt_phase_rules_bare_joins(not_joins[i][0], strlen(not_joins[i][0]), not_joins[i][1],
							strlen(not_joins[i][1])));
}

/* what ckt_phase_rules_invalid says of spec, or "(valid)" */
static const char *invalid(const char *spec)
{
	const char *why = ckt_phase_rules_invalid(spec);
	return why ? why : "(valid)";
}

/* NAME=PATTERN: both parts non-empty, no space at the name's start or on either side of '=' */
static void test_invalid(void **state)
{
	(void)state;
	static const char plain[] = "expected NAME=PATTERN";
	static const char spaced[] = "expected NAME=PATTERN, with no space at the name's start or next to '='";
	assert_string_equal(invalid("synth=*synthesize*"), "(valid)");
	assert_string_equal(invalid("a=b=c"), "(valid)");       /* the first '=' splits */
	assert_string_equal(invalid("my synth=x *"), "(valid)"); /* spaces elsewhere are the name's, the pattern's */
	assert_string_equal(invalid("nameonly"), plain);
	assert_string_equal(invalid("=x"), plain);
	assert_string_equal(invalid("x="), plain);
	assert_string_equal(invalid("="), plain);
	assert_string_equal(invalid(" synth=x"), spaced);
	assert_string_equal(invalid("synth =x"), spaced);
	assert_string_equal(invalid("synth= x"), spaced);
	assert_string_equal(invalid("synth=\tx"), spaced);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uninherent),
		cmocka_unit_test(test_uninherent_bounded),
		cmocka_unit_test(test_ungeneric),
		cmocka_unit_test(test_bare),
		cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
