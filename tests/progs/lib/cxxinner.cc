// cxxinner.cc: the shape of PyTorch's libc10 for cxxlocal.c's "nested" mode: a registry whose
// mutex is held while it calls operator new, filled from this library's constructor and, through
// cxx_reg, from the constructor of libcxxouter.so, which depends on this library. Each entry is a
// block of the size asked for, kept to the end (live at exit).
#include <cstddef>
#include <mutex>
#include <vector>

static std::mutex m;
static std::vector<char *> *entries;

void cxx_reg(std::size_t size)
{
	std::lock_guard<std::mutex> g(m);
	if (!entries)
		entries = new std::vector<char *>;
	entries->push_back(new char[size]);
}

std::size_t cxx_count()
{
	std::lock_guard<std::mutex> g(m);
	return entries ? entries->size() : 0;
}

static struct init {
	init() { cxx_reg(100001); }
} init_;
