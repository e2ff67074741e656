/* plainlib.c: a library with code and unwind tables but no constructor, for dlopen/dlclose
 * loops (unwind_stress.c). */
int plainlib_twice(int x);
int plainlib_twice(int x)
{
	return 2 * x;
}
