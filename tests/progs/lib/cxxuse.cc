// cxxuse.cc: C++ code that calls new and delete, built twice for cxxlocal.c: libcxxvia.so is
// linked by the C compiler against libcxxplug.so only (libstdc++ is not among its own DT_NEEDED:
// its new is libstdc++'s, reached through libcxxplug.so); libcxxfirst.so is linked against
// libcxxown.so ahead of libstdc++ (its new is libcxxown.so's, the first of its DT_NEEDED).
// cxx_use returns the value of a new int (7).
static int *volatile keep;

extern "C" int cxx_use()
{
	keep = new int(7);
	int v = *keep;
	delete keep;
	return v;
}
