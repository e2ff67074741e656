/* cxxdep.c: one of 40 small C libraries (built with -DDEP=1..40) that libcxxmany.so names in its
 * DT_NEEDED ahead of libstdc++, for cxxlocal.c's "many" mode. */
#define NAME2(n) cxx_dep_##n
#define NAME(n) NAME2(n)
int NAME(DEP)(void)
{
	return DEP;
}
