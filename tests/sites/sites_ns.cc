// sites_ns.cc: a C++ program's own namespaces named as Rust's standard crates ("core",
// "alloc"), which the folding rule takes as allocator plumbing in Rust frames only: here each
// function is its own site. core::Buffer::resize keeps 2,000,000 bytes (malloc), alloc::arena_get
// 3,000,000 (new[]), and core::fill, inlined into make_rows, 1,000,000 (malloc). An inlined
// function of an anonymous namespace, which GCC gives no linkage name, keeps DWARF's last name
// (as --diff and --phase-rule join it): anon_grab keeps 700,000 bytes.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace core {
struct Buffer {
	char *p;
	__attribute__((noinline)) void resize(size_t n)
	{
		p = static_cast<char *>(malloc(n)); // SITE:ns_resize
		memset(p, 1, n);
	}
};
__attribute__((always_inline)) inline char *fill(size_t n)
{
	char *p = static_cast<char *>(malloc(n)); // SITE:ns_fill
	memset(p, 3, n);
	return p;
}
} // namespace core

namespace alloc {
__attribute__((noinline)) char *arena_get(size_t n)
{
	char *p = new char[n]; // SITE:ns_arena
	memset(p, 2, n);
	return p;
}
} // namespace alloc

namespace {
__attribute__((always_inline)) inline char *anon_grab(size_t n)
{
	char *p = static_cast<char *>(malloc(n)); // SITE:ns_anon
	memset(p, 4, n);
	return p;
}
} // namespace

__attribute__((noinline)) char *make_anon(size_t n)
{
	return anon_grab(n);
}

__attribute__((noinline)) char *make_rows(size_t n)
{
	return core::fill(n); // CALL:ns_fill
}

int main()
{
	core::Buffer b;
	b.resize(2000000);
	char *c = alloc::arena_get(3000000);
	char *r = make_rows(1000000);
	char *a = make_anon(700000);
	std::printf("sites_ns: %d %d %d %d\n", b.p[0], c[0], r[0], a[0]);
	free(a);
	free(b.p);
	delete[] c;
	free(r);
	return 0;
}
