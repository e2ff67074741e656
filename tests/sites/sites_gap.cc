// sites_gap.cc: a C++ program whose layout puts _start between the ranges of one compile unit
// (main in .text.startup, the other functions in .text) with g++ -O2 -g: libdwfl then names that
// unit for _start's address and its last line table row, a line of stl_vector.h. The report must
// show _start as module+offset. The allocations themselves are ordinary C++ containers.
#include <memory>
#include <string>
#include <vector>
#include <map>
#include <unordered_map>
#include <stdexcept>
#include <unistd.h>

template <typename T> struct Pool {
	std::vector<T> items;
	void fill(size_t n) { for (size_t i = 0; i < n; i++) items.push_back(T(i)); } 
};

static inline std::string make_str(size_t n) { return std::string(n, 'x'); } 

__attribute__((noinline)) std::shared_ptr<std::vector<int>> shared(size_t n)
{
	return std::make_shared<std::vector<int>>(n, 1); 
}

__attribute__((noinline)) int *arr(size_t n) { return new int[n](); } 

struct Big { char b[1000000]; };
__attribute__((noinline)) Big *one() { return new Big(); } 

__attribute__((noinline)) std::vector<double> *thrower(size_t n)
{
	auto *keep = new std::vector<double>(n); 
	try {
		std::vector<char> tmp(n);
		throw std::runtime_error("x");
	} catch (const std::exception &) {
	}
	return keep;
}

__attribute__((noinline)) std::map<int, std::string> *mapped(int n)
{
	auto *m = new std::map<int, std::string>;
	for (int i = 0; i < n; i++) (*m)[i] = std::string(100, 'a'); 
	return m;
}
__attribute__((noinline)) std::unordered_map<long, long> *umap(long n)
{
	auto *m = new std::unordered_map<long, long>;
	for (long i = 0; i < n; i++) (*m)[i] = i; 
	return m;
}

int main()
{
	Pool<long> p; p.fill(200000);
	std::string s = make_str(1300000);
	auto sp = shared(350000);
	int *a = arr(450000);
	Big *b = one();
	auto *t = thrower(160000);
	auto *m = mapped(5000);
	auto f = [](size_t n) { return std::vector<short>(n); }; 
	auto lv = f(700000);
	auto *um = umap(30000);
	usleep(100000);
	volatile long sink = p.items.size() + s.size() + sp->size() + a[0] + b->b[0] + t->size() + m->size() + lv.size() + um->size();
	(void)sink;
	return 0;
}
