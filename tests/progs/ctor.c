/* ctor.c: linked against libctorlib.so, whose constructor allocates 777,777 bytes before main;
 * main allocates 222,223 more. Peak and live heap at exit: exactly 1,000,000. */
#include <stdlib.h>
#include <string.h>

extern void *volatile ctorlib_block;
static void *volatile keep;

int main(void)
{
	keep = malloc(222223);
	memset(keep, 1, 64);
	return ctorlib_block ? 0 : 1;
}
