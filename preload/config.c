/* config.c: the CUZKTRACE_* settings, read once at init. An invalid value gets one line naming
 * the variable and the default used; it never stops the program. Leaves path expansion and
 * file handling to writer.c. */
#include "ckt.h"

#include <stdlib.h>
#include <string.h>

struct ckt_config ckt_config;

static void warn_invalid(const char *name, const char *value, const char *expect, const char *dflt)
{
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: invalid ");
	ckt_line_str(&l, name);
	ckt_line_str(&l, "='");
	ckt_line_str(&l, value);
	ckt_line_str(&l, "' (expected ");
	ckt_line_str(&l, expect);
	ckt_line_str(&l, "); using the default ");
	ckt_line_str(&l, dflt);
	ckt_line_emit(&l);
}

/* Unsigned decimal in [lo, hi]; anything else (sign, suffix, empty, overflow) is invalid. */
static unsigned env_uint(const char *name, unsigned dflt, unsigned lo, unsigned hi,
			 const char *expect, const char *dflt_text)
{
	const char *v = getenv(name);
	if (!v)
		return dflt;
	unsigned long long x = 0;
	const char *p = v;
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || x > 1000000000ull)
			goto bad;
		x = x * 10 + (unsigned)(*p - '0');
	}
	if (x < lo || x > hi)
		goto bad;
	return (unsigned)x;
bad:
	warn_invalid(name, v, expect, dflt_text);
	return dflt;
}

/* 1, yes, true; 0, no, false (or empty: the default 0 of most switches, off) */
static int env_bool(const char *name, int dflt)
{
	const char *v = getenv(name);
	/* empty is the default (CUZKTRACE_CHILDREN= turned the tracing of children off, the
	 * opposite of its default, without a word). A number's setting left empty gets the
	 * invalid-setting line instead (env_uint): "0" and "" would mean different things there */
	if (!v || !*v)
		return dflt;
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
		return 0;
	warn_invalid(name, v, "0, 1, yes, no, true or false", dflt ? "1" : "0");
	return dflt;
}

/* A misspelt setting (CUZKTRACE_SAMPEL=0) must not be ignored silently. */
static void warn_unknown(void)
{
	static const char *const known[] = {"OUT",	  "FLUSH_MS", "RSS_MS", "STRICT", "QUIET",
					    "ZSTD_LEVEL", "DEPTH",    "SAMPLE", "PHASES", "EXEC_FROM",
					    "EXEC_PID", "CHILDREN", "RUN",    "OUT_GIVEN", "SIGNALS",
					    "FORKED_BY"};
	extern char **environ;
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "CUZKTRACE_", 10))
			continue;
		const char *name = *e + 10, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		int ok = 0;
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]) && !ok; i++)
			ok = strlen(known[i]) == n && !strncmp(known[i], name, n);
		/* one line a name: the environment can hold one twice (since 0.2.51: two lines) */
		for (char **b = environ; !ok && b < e; b++)
			ok = !strncmp(*b, *e, 10 + n) && ((*b)[10 + n] == '=' || !(*b)[10 + n]);
		if (ok)
			continue;
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: warning: unknown variable CUZKTRACE_");
		/* whole, so that a control character of several bytes shows as '?' (since 0.2.51: put
		 * a byte at a time, U+0085 or U+202E went through), cut between UTF-8 characters */
		char shown[65];
		size_t k = ckt_utf8_cut(name, n, 64);
		memcpy(shown, name, k);
		shown[k] = 0;
		ckt_line_str(&l, shown);
		if (n > 64) /* a name cut short says so */
			ckt_line_str(&l, "...");
		ckt_line_str(&l, " ignored (known: CUZKTRACE_OUT, _SAMPLE, _DEPTH, _PHASES, "
				 "_FLUSH_MS, _RSS_MS, _STRICT, _QUIET, _ZSTD_LEVEL, _CHILDREN, _SIGNALS)");
		ckt_line_emit(&l);
	}
}

void ckt_config_load(void)
{
	warn_unknown();
	const char *out = getenv("CUZKTRACE_OUT");
	const char *dflt_out = "cuzktrace.%e.%p.zst";
	if (out && (!*out || strlen(out) >= sizeof(ckt_config.out) - 64)) {
		/* (a long one said only "a file path", which it was) */
		warn_invalid("CUZKTRACE_OUT", *out ? "<the value, too long>" : out,
			     *out ? "a file path of at most 4031 characters" : "a file path", dflt_out);
		out = NULL;
	} else if (out && !strcmp(out, "-")) {
		/* "-" reads as standard output, which is the program's and no regular file; a file of
		 * that name before 0.2.62, which `cuzktrace-report -` then did not read (it reads stdin) */
		warn_invalid("CUZKTRACE_OUT", out,
			     "a file path; a trace is not written to standard output: ./- names a file '-'",
			     dflt_out);
		out = NULL;
	}
	strcpy(ckt_config.out, out ? out : dflt_out);
	ckt_config.flush_ms =
		env_uint("CUZKTRACE_FLUSH_MS", 100, 1, 60000, "1..60000 milliseconds", "100");
	ckt_config.rss_ms =
		env_uint("CUZKTRACE_RSS_MS", 10, 0, 60000, "0..60000 milliseconds, 0 = off", "10");
	ckt_config.level = (int)env_uint("CUZKTRACE_ZSTD_LEVEL", 1, 1, 19, "1..19", "1");
	ckt_config.depth = env_uint("CUZKTRACE_DEPTH", 64, 0, CKT_MAX_DEPTH, "0..256 frames, 0 = no stacks", "64");
	ckt_config.sample = env_uint("CUZKTRACE_SAMPLE", 524288, 0, 1u << 30,
				     "0..1073741824 bytes, 0 = record every event", "524288");
	ckt_config.strict = env_bool("CUZKTRACE_STRICT", 0);
	ckt_config.quiet = env_bool("CUZKTRACE_QUIET", 0);
	ckt_config.children = env_bool("CUZKTRACE_CHILDREN", 1);
	ckt_config.signals = env_bool("CUZKTRACE_SIGNALS", 1);
}

static void u2s(char *buf, unsigned v)
{
	char tmp[12];
	int i = 11;
	tmp[i] = 0;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	strcpy(buf, tmp + i);
}

void ckt_config_each(void (*fn)(const char *, const char *, void *), void *arg)
{
	char b[16];
	fn("CUZKTRACE_OUT", ckt_config.out, arg);
	u2s(b, ckt_config.flush_ms);
	fn("CUZKTRACE_FLUSH_MS", b, arg);
	u2s(b, ckt_config.rss_ms);
	fn("CUZKTRACE_RSS_MS", b, arg);
	u2s(b, (unsigned)ckt_config.level);
	fn("CUZKTRACE_ZSTD_LEVEL", b, arg);
	u2s(b, ckt_config.depth);
	fn("CUZKTRACE_DEPTH", b, arg);
	fn("CUZKTRACE_STRICT", ckt_config.strict ? "1" : "0", arg);
	fn("CUZKTRACE_QUIET", ckt_config.quiet ? "1" : "0", arg);
	fn("CUZKTRACE_CHILDREN", ckt_config.children ? "1" : "0", arg);
	fn("CUZKTRACE_SIGNALS", ckt_config.signals ? "1" : "0", arg);
	u2s(b, ckt_config.sample);
	fn("CUZKTRACE_SAMPLE", b, arg);
	static char rules[CKT_PHASE_RULES_TEXT]; /* once, at start: no caller races */
	ckt_phase_rules_text(rules, sizeof(rules));
	fn("CUZKTRACE_PHASES", rules, arg);
}
