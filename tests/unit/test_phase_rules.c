/* test_phase_rules.c: the spellings of Rust v0 names that --phase-rule patterns also match
 * (reader/phase_rules.c), without a Rust compiler: generic arguments dropped, and the brackets
 * around a type whose own method follows taken away where the type is a path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

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

static void test_ungeneric(void **state)
{
	(void)state;
	char buf[64];
	assert_true(ckt_phase_rules_ungeneric("arr::make::<[u8; 32]>", buf, sizeof(buf)));
	assert_string_equal(buf, "arr::make");
	assert_false(ckt_phase_rules_ungeneric("arr::make", buf, sizeof(buf)));
	/* a type's generic arguments in the path (since 0.2.19): legacy names, and v0's once
	 * uninherent has taken its brackets away */
	assert_true(ckt_phase_rules_ungeneric("app::Prover<T>::synthesize", buf, sizeof(buf)));
	assert_string_equal(buf, "app::Prover::synthesize");
	assert_true(ckt_phase_rules_ungeneric(uninherent("<app::Prover<u64>>::synthesize"), buf, sizeof(buf)));
	assert_string_equal(buf, "app::Prover::synthesize");
	assert_true(ckt_phase_rules_ungeneric("fft::Domain<_>::run::<4>", buf, sizeof(buf)));
	assert_string_equal(buf, "fft::Domain::run");
	assert_true(ckt_phase_rules_ungeneric("app::Foo<fn() -> u8>::f", buf, sizeof(buf)));
	assert_string_equal(buf, "app::Foo::f");
	assert_true(ckt_phase_rules_ungeneric("<app::Vec<u8> as app::Grow>::grow", buf, sizeof(buf)));
	assert_string_equal(buf, "<app::Vec as app::Grow>::grow");
	/* a '<' after no name, or that nothing closes, stays */
	assert_false(ckt_phase_rules_ungeneric("std::ostream::operator<<(int)", buf, sizeof(buf)));
	assert_false(ckt_phase_rules_ungeneric("Foo::operator<=>(Foo const&) const", buf, sizeof(buf)));
	assert_true(ckt_phase_rules_ungeneric("app::Cooperator<u64>::run", buf, sizeof(buf)));
	assert_string_equal(buf, "app::Cooperator::run");
	assert_true(ckt_phase_rules_ungeneric("my_operator<T>::f", buf, sizeof(buf)));
	assert_string_equal(buf, "my_operator::f");
	assert_true(ckt_phase_rules_ungeneric("std::operator<=>(std::pair<int, int> const&)", buf, sizeof(buf)));
	assert_string_equal(buf, "std::operator<=>(std::pair const&)");
	assert_false(ckt_phase_rules_ungeneric("<app::Aux as app::Fill>::fill", buf, sizeof(buf)));
	assert_false(ckt_phase_rules_ungeneric("app::make::<u8", buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uninherent),
		cmocka_unit_test(test_uninherent_bounded),
		cmocka_unit_test(test_ungeneric),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
