/* pyarena.c: the shape of CPython's object allocator where the interpreter is linked into a
 * program of another name, with symbols: `pyarena arena` takes 16 arenas of 1 MiB through
 * _PyObject_Malloc -> new_arena -> _PyObject_ArenaMmap (called through a pointer, as CPython's
 * arena allocator is), which maps them; `pyarena main` maps 16 MiB the same way from main. All
 * touched and held to the end. The report names pymalloc for the first, by the function's name
 * whatever the program's file is called, and not for the second, even from a program named as
 * the interpreter (tests/integration/t_allocators.sh). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA ((size_t)1 << 20)

__attribute__((noinline)) void *_PyObject_ArenaMmap(void *ctx, size_t n)
{
	(void)ctx;
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__asm__ volatile("" ::: "memory");
	return p == MAP_FAILED ? NULL : p;
}

static void *(*volatile arena_alloc)(void *, size_t) = _PyObject_ArenaMmap;

static __attribute__((noinline)) void *new_arena(void)
{
	void *p = arena_alloc(NULL, ARENA);
	if (p)
		memset(p, 1, ARENA);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *_PyObject_Malloc(size_t n)
{
	(void)n;
	void *p = new_arena();
	__asm__ volatile("" ::: "memory");
	return p;
}

int main(int argc, char **argv)
{
	int arena = argc > 1 && strcmp(argv[1], "arena") == 0;
	void *v[16];
	for (int i = 0; i < 16; i++) {
		if (arena) {
			v[i] = _PyObject_Malloc(32);
		} else {
			v[i] = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (v[i] == MAP_FAILED)
				v[i] = NULL;
			else
				memset(v[i], 2, ARENA);
		}
		if (!v[i])
			return 1;
	}
	__asm__ volatile("" ::: "memory");
	printf("pyarena: 16 MiB from %s\n", arena ? "_PyObject_ArenaMmap" : "main");
	return 0;
}
