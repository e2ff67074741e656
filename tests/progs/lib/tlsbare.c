/* tlsbare.c: a library with thread-local data and nothing else (no allocation of its own):
 * tests/progs/tlsmany.c "many" opens copies of it. */
__thread char tlsbuf[64];

char *plug_tls(void)
{
	return tlsbuf;
}
