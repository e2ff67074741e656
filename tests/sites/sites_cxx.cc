// sites_cxx.cc: known call paths through C++ templates, operator new and std::vector growth,
// built -O2 -fomit-frame-pointer -g. Live at both peaks: 4,000,000 bytes from new int[] in
// make_table<int>, 2,000,000 bytes from std::vector<double>::reserve and 24 bytes from new
// std::vector in build_grid (the std:: and operator new frames fold into build_grid).
#include <cstring>
#include <unistd.h>
#include <vector>

void *volatile keep[4];

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

int main()
{
	int *t = make_table<int>(1000000);
	std::vector<double> *g = build_grid(250000);
	std::memset(g->data(), 0, 250000 * sizeof(double));
	usleep(150 * 1000);
	delete[] t;
	delete g;
	usleep(30 * 1000);
	return 0;
}
