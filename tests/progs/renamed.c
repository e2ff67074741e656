/* renamed.c: the same program under two names, as two builds of a Rust crate renamed (its
 * functions carry the crate's name): built as renamed_a and renamed_b, whose functions are
 * a_load_params / b_load_params (8,000,000 bytes) and a_synthesize / b_synthesize
 * (4,000,000), all live at the peak heap. --diff matches functions by name: every one reads
 * as gone or new, which one warning now says. */
#include <stdlib.h>
#include <string.h>

#ifndef RENAMED_PREFIX
#define RENAMED_PREFIX r_
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(x) CAT(RENAMED_PREFIX, x)

static void *volatile keep[2];

__attribute__((noinline)) void *FN(load_params)(size_t n)
{
	void *p = malloc(n);
	return p ? memset(p, 1, n) : p;
}

__attribute__((noinline)) void *FN(synthesize)(size_t n)
{
	void *p = malloc(n);
	return p ? memset(p, 2, n) : p;
}

int main(void)
{
	keep[0] = FN(load_params)(8000000);
	keep[1] = FN(synthesize)(4000000);
	free(keep[1]);
	free(keep[0]);
	return 0;
}
