/* cxxhigh.c: a library linked at a high address (-Ttext-segment), which cxxlocal.c's "highbias"
 * mode reserves before opening it, so the loader moves it lower: its load bias wraps below
 * zero (as for an old prelinked library). */
int cxx_high(void)
{
	return 3;
}
