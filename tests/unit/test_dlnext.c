/* test_dlnext.c: glibc's own dl* functions found by version (preload/dlnext.c). The version
 * this glibc has is asked first: a dlvsym that finds nothing allocates its error message,
 * which the tracer's bootstrap must not do (it can run inside an allocator's initialization). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <gnu/libc-version.h>

#include "ckt.h"

static void test_version_text(void **state)
{
	(void)state;
	assert_int_equal(ckt_glibc_has_234("2.34"), 1);
	assert_int_equal(ckt_glibc_has_234("2.36"), 1);
	assert_int_equal(ckt_glibc_has_234("2.39.9000"), 1);
	assert_int_equal(ckt_glibc_has_234("3.0"), 1);
	assert_int_equal(ckt_glibc_has_234("2.33"), 0);
	assert_int_equal(ckt_glibc_has_234("2.31"), 0);
	assert_int_equal(ckt_glibc_has_234("2.4"), 0); /* minor 4, not 40 */
	assert_int_equal(ckt_glibc_has_234("2.17"), 0);
	assert_int_equal(ckt_glibc_has_234("2"), 0);
	assert_int_equal(ckt_glibc_has_234(""), 0);
}

/* On this machine's glibc the first version asked is the one it has: no failed lookup (whose
 * message dlerror would hold) on the way to dlsym and dlclose. */
static void test_first_version_found(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "dlclose" : "dlsym";
		(void)dlerror();
		void *f = ckt_glibc_next(name);
		const char *err = dlerror();
		assert_non_null(f);
		if (err)
			fail_msg("glibc %s: looking up %s failed first: %s", gnu_get_libc_version(), name, err);
		assert_ptr_equal(f, dlsym(RTLD_DEFAULT, name));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_text),
		cmocka_unit_test(test_first_version_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
