// sites_cxx.cc: known call paths through C++ templates, operator new and std::vector growth,
// built -O2 -fomit-frame-pointer -g. Live at both peaks: 4,000,000 bytes from new int[] in
// make_table<int>, 2,000,000 bytes from std::vector<double>::reserve and 24 bytes from new
// std::vector in build_grid (the std:: and operator new frames fold into build_grid), and
// 3,000 bytes from with_callback, whose name holds a function type ("void (*)(int)"), and
// 500,000 bytes from the vector of a type local to with_local: its std::vector members have
// internal linkage, and the debug info names their inlined frames without "std::" ("allocate",
// "_M_allocate", in new_allocator.h and stl_vector.h), so only their files say they are the
// library's (they were the site before 0.2.19). Two lambdas inlined into with_lambdas keep
// 300,000 and 400,000 bytes: each named by its function and line (both were "operator()").
#include <cstring>
#include <unistd.h>
#include <vector>

void *volatile keep[8];

template <typename T>
__attribute__((noinline)) T *make_table(std::size_t n)
{
	T *t = new T[n]; // SITE:cxx_template
	std::memset(static_cast<void *>(t), 0x33, n * sizeof(T));
	keep[0] = t;
	return t;
}

__attribute__((noinline)) std::vector<double> *build_grid(std::size_t n)
{
	auto *v = new std::vector<double>(); // SITE:cxx_new
	v->reserve(n); // SITE:cxx_reserve
	v->push_back(1.5);
	keep[1] = v;
	keep[2] = v->data();
	return v;
}

static void on_item(int) {}

__attribute__((noinline)) void *with_callback(void (*cb)(int), std::size_t n)
{
	char *p = new char[n]; // SITE:cxx_callback
	std::memset(p, 0x44, n);
	cb(p[0]);
	keep[3] = p;
	return p;
}

__attribute__((noinline)) void *with_local(std::size_t n)
{
	struct Local {
		char b[1000];
	};
	auto *v = new std::vector<Local>();
	v->reserve(n); // SITE:cxx_local
	keep[4] = v;
	return v->data();
}

__attribute__((noinline)) void with_lambdas(std::size_t n)
{
	auto small = [](std::size_t k) { return new char[k]; }; // SITE:cxx_lambda1
	auto large = [](std::size_t k) { return new char[k]; }; // SITE:cxx_lambda2
	keep[5] = small(n);
	keep[6] = large(n + n / 3);
}

int main()
{
	with_lambdas(300000);
	with_callback(on_item, 3000);
	std::memset(with_local(500), 0x55, 500 * 1000);
	int *t = make_table<int>(1000000);
	std::vector<double> *g = build_grid(250000);
	std::memset(g->data(), 0, 250000 * sizeof(double));
	usleep(150 * 1000);
	delete[] t;
	delete g;
	usleep(30 * 1000);
	return 0;
}
