/* strdups.c: copies of strings by the C library, kept to the end: copy_name by strdup (9 bytes,
 * "abcdefgh" and its NUL), copy_part by strndup (the first 3 bytes and a NUL: 4). The C
 * library allocates them, the program's two functions own them. Nothing is printed. */
#include <stdlib.h>
#include <string.h>

void *volatile sink[2];
static volatile int calls; /* after each call: no tail call, the site's frame stays */

__attribute__((noinline)) static char *copy_name(const char *s)
{
	char *p = strdup(s);
	calls++;
	return p;
}

__attribute__((noinline)) static char *copy_part(const char *s)
{
	char *p = strndup(s, 3);
	calls++;
	return p;
}

int main(void)
{
	sink[0] = copy_name("abcdefgh");
	sink[1] = copy_part("abcdefgh");
	return 0;
}
