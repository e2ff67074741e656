/* main.c: the cuzktrace-report command: parses options, wires decode -> replay -> reports,
 * and is the only place that prints errors and warnings or chooses the exit status
 * (0 ok, 1 bad trace or unwritable output, 2 usage).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "decode.h"
#include "phase_rules.h"
#include "phases.h"
#include "replay.h"
#include "report.h"
#include "symbolize.h"
#include "util.h"

#define CKT_PROG "cuzktrace-report"

enum ckt_exit { CKT_EXIT_OK = 0, CKT_EXIT_TRACE = 1, CKT_EXIT_USAGE = 2 };

enum ckt_opt_id { CKT_OPT_JSON, CKT_OPT_CSV, CKT_OPT_HELP, CKT_OPT_TOP, CKT_OPT_SITES_CSV, CKT_OPT_FOLDED,
		  CKT_OPT_FOLDED_HEAP,
		  CKT_OPT_BY, CKT_OPT_PHASES_CSV, CKT_OPT_PHASE_RULE, CKT_OPT_MAX_HELD, CKT_OPT_DIFF,
		  CKT_OPT_MODULES, CKT_OPT_JOBS, CKT_OPT_SALVAGE, CKT_OPT_VERSION };

/* One row per option: the parser and --help both read this table, so a new option (--top N,
 * --sites-csv FILE, --folded, --by, --phases-csv, --phase-rule) is a row plus a case below. */
struct ckt_opt {
	const char *name;
	const char *arg;  /* metavariable when the option takes a value, else NULL */
	enum ckt_opt_id id;
	const char *help;
};

static const struct ckt_opt ckt_opts[] = {
	{ "--json", NULL, CKT_OPT_JSON, "print one JSON object on stdout instead of the text report" },
	{ "--csv", "FILE", CKT_OPT_CSV,
	  "write the timeline CSV to FILE: one row per RSS sample, columns\n"
	  "t_s,rss_bytes,heap_bytes,mmap_bytes,gpu_bytes,pinned_bytes,active_phases" },
	{ "--top", "N", CKT_OPT_TOP, "show the N largest call sites at each peak, live at exit, by\nallocations and by temporary allocations (1 to 1000000, default\n10); with --diff, the N functions that changed most in the text" },
	{ "--sites-csv", "FILE", CKT_OPT_SITES_CSV,
	  "write one row per call site to FILE, columns site,bytes_at_peak_rss,\n"
	  "bytes_at_peak_heap,site_peak_bytes,allocated_bytes,allocations,\n"
	  "bytes_at_peak_gpu,stack,bytes_at_exit,estimated,gpu_allocated_bytes,\n"
	  "gpu_allocations,temporary_allocations" },
	{ "--folded", "FILE", CKT_OPT_FOLDED,
	  "write the stacks live at the peak RSS moment (peak heap without RSS\n"
	  "samples) to FILE as folded lines \"frame;frame;frame bytes\" for\n"
	  "flamegraph.pl, inferno-flamegraph or speedscope" },
	{ "--folded-heap", "FILE", CKT_OPT_FOLDED_HEAP,
	  "the same for the heap blocks live at the peak heap moment" },
	{ "--by", "thread", CKT_OPT_BY,
	  "also group the bytes by thread name (trailing digits folded:\n"
	  "rayon-synth-1, rayon-synth-17 -> rayon-synth-*)" },
	{ "--phases-csv", "FILE", CKT_OPT_PHASES_CSV,
	  "write live bytes by allocating phase at each RSS sample to FILE,\n"
	  "long format: t_s,phase,heap_bytes,mmap_bytes,estimated" },
	{ "--phase-rule", "RULE", CKT_OPT_PHASE_RULE,
	  "RULE is NAME=PATTERN: allocations whose stack has a frame matching\n"
	  "the glob PATTERN (function name or file:line) belong to phase NAME;\n"
	  "repeatable, the first rule given that matches wins" },
	{ "--diff", "BASE", CKT_OPT_DIFF,
	  "compare TRACE with the earlier trace BASE: each peak, live bytes by\n"
	  "phase and by function at the peaks, with the change (--top N: the\n"
	  "N functions that changed most); the file outputs describe TRACE" },
	{ "--modules", "DIR", CKT_OPT_MODULES,
	  "where to find a program or library that was rebuilt or moved since\n"
	  "it was traced: DIR/<its file name>, used when its build-id is the\n"
	  "one the trace recorded (copy the old build there before rebuilding\n"
	  "to compare with --diff); repeatable" },
	{ "--jobs", "N", CKT_OPT_JOBS,
	  "2 (the default where more than one CPU is available) decodes\n"
	  "the trace on a thread of its own, ahead of the replay; --diff\n"
	  "then reads its two traces at once (not with file outputs), which\n"
	  "holds both live sets in memory at once; 1 uses one thread" },
	{ "--max-held", "N", CKT_OPT_MAX_HELD,
	  "hold at most N events (40 bytes each) waiting for the trace's time\n"
	  "order (default 8388608); past it the oldest are replayed at once\n"
	  "and a warning says how many" },
	{ "--salvage", NULL, CKT_OPT_SALVAGE,
	  "read a trace that is corrupt after its first data frame up to the\n"
	  "start of its first corrupt frame, as a trace cut there, and report\n"
	  "that (a warning names the corruption); without it such a trace is\n"
	  "an error (status 1)" },
	{ "--help", NULL, CKT_OPT_HELP, "show this help and exit (also -h)" },
	{ "--version", NULL, CKT_OPT_VERSION, "show the version and the trace formats it reads, and exit" },
};
#define CKT_NOPTS (sizeof(ckt_opts) / sizeof(ckt_opts[0]))

#define CKT_MAIN_MAXREP 64 /* values of a repeatable option */

struct ckt_args {
	bool json;
	bool help, version;
	const char *csv;
	unsigned top;
	const char *sites_csv, *folded, *folded_heap;
	const char *trace;
	bool by_thread;
	const char *phases_csv;
	const char *rules[CKT_MAIN_MAXREP]; /* --phase-rule values, in order */
	size_t nrules;
	uint64_t max_held; /* 0: the replay's default */
	const char *diff;  /* --diff BASE */
	unsigned jobs;     /* --jobs: 0 = by the CPUs available */
	const char *modules[CKT_MAIN_MAXREP]; /* --modules values, in order */
	size_t nmodules;
	bool salvage;
};

static void ckt_main_help(void)
{
	printf("usage: " CKT_PROG " [options] TRACE\n"
	       "       " CKT_PROG " [options] --diff BASE TRACE\n\n"
	       "Reads a cuzktrace trace file and reports peak heap, mmap and RSS usage.\n\n"
	       "options:\n");
	/* the texts start one space past the longest "--option ARG" (--folded-heap FILE ran into
	 * its text) */
	int w = 0;
	for (size_t i = 0; i < CKT_NOPTS; i++) {
		int n = (int)strlen(ckt_opts[i].name) + (ckt_opts[i].arg ? 1 + (int)strlen(ckt_opts[i].arg) : 0);
		w = n > w ? n : w;
	}
	w++;
	for (size_t i = 0; i < CKT_NOPTS; i++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%s%s", ckt_opts[i].name, ckt_opts[i].arg ? " " : "",
			 ckt_opts[i].arg ? ckt_opts[i].arg : "");
		printf("  %-*s", w, left);
		/* continuation lines of a help text line up under its first line */
		for (const char *p = ckt_opts[i].help; *p; p++) {
			putchar(*p);
			if (*p == '\n')
				printf("  %-*s", w, "");
		}
		putchar('\n');
	}
	printf("\nA value may also be given as --option=VALUE. \"--\" ends the options.\n"
	       "FILE \"-\" is the standard output: that file is written there in place of the\n"
	       "report (not with --json). TRACE or BASE \"-\" is the standard input.\n\n"
	       "exit status:\n"
	       "  0  report written (also for a truncated trace: a warning says so)\n"
	       "  1  the trace is unreadable, empty, corrupt, not a trace or of an unsupported\n"
	       "     version, or an output file cannot be written\n"
	       "  2  usage error\n");
}

/* --diff reads its two traces at once (ckt_main_read_all): each read's lines wait in a log of
 * its own and are printed as a read of one trace after the other would print them, the base's
 * first. NULL on the thread that prints at once. */
struct ckt_main_log {
	char *buf;
	size_t len, cap;
};
static _Thread_local struct ckt_main_log *ckt_main_log_to;

static void ckt_main_emit(const char *s, size_t n)
{
	struct ckt_main_log *l = ckt_main_log_to;
	if (l && l->len + n > l->cap) {
		char *b = realloc(l->buf, (l->len + n) * 2);
		if (b) {
			l->buf = b;
			l->cap = (l->len + n) * 2;
		}
	}
	if (!l || l->len + n > l->cap) { /* at once (out of memory: out of order) */
		fwrite(s, 1, n, stderr);
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

/* One line on stderr, "cuzktrace-report: ", what and fmt, its bytes cleaned (ckt_util_clean): paths
 * and values from the command line or the trace may hold line breaks or terminal controls; then
 * tail as it is. One write, so that a reader of the first line (head -1) takes it all. */
__attribute__((format(printf, 3, 0))) static void ckt_main_vsay(const char *what, const char *tail,
								 const char *fmt, va_list ap)
{
	char small[512], *buf = small;
	size_t pre = strlen(CKT_PROG ": ") + strlen(what), post = 1 + strlen(tail);
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		n = 0;
	size_t len = pre + (size_t)n + post;
	if (len >= sizeof(small) && (buf = malloc(len + 1)) == NULL) {
		buf = small; /* out of memory: the message cut */
		n = (int)(sizeof(small) - 1 - pre - post);
		len = sizeof(small) - 1;
	}
	snprintf(buf, pre + 1, CKT_PROG ": %s", what);
	vsnprintf(buf + pre, (size_t)n + 1, fmt, again);
	va_end(again);
	size_t m = ckt_util_clean(buf + pre, (size_t)n);
	snprintf(buf + pre + m, post + 1, "\n%s", tail);
	ckt_main_emit(buf, pre + m + post);
	if (buf != small)
		free(buf);
}

__attribute__((format(printf, 1, 2))) static void ckt_main_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ckt_main_vsay("", "", fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 1, 2))) static int ckt_main_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ckt_main_vsay("error: ", "usage: " CKT_PROG " [options] TRACE (see --help)\n", fmt, ap);
	va_end(ap);
	return -1;
}

/* Opening the CSV for writing truncates it: if it is the trace itself, refuse before that. */
static bool ckt_main_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* path names a device, a FIFO or a socket (/dev/null, /dev/stdout on a terminal): outputs may
 * share it */
static bool ckt_main_not_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static bool ckt_main_canon_at(const char *path, char *out, size_t cap);

/* The absolute name path has or will have: its directory resolved, then its last part; a
 * last part that is a symbolic link to a file not made yet is followed (ckt_util_link_target). */
static bool ckt_main_canon(const char *path, char *out, size_t cap)
{
	char *target = ckt_util_link_target(path);
	bool ok = ckt_main_canon_at(target ? target : path, out, cap);
	free(target);
	return ok;
}

static bool ckt_main_canon_at(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return false;
	char *rp = realpath(dir, NULL);
	if (!rp)
		return false;
	int n = snprintf(out, cap, "%s/%s", rp, slash ? slash + 1 : path);
	free(rp);
	return n > 0 && (size_t)n < cap;
}

/* a and b name one file, or will once written: the same name, the same existing file, or the
 * same directory and last part (out.csv and ./out.csv before either exists) */
static bool ckt_main_same_output(const char *a, const char *b)
{
	char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
	return strcmp(a, b) == 0 || ckt_main_same_file(a, b) ||
	       (ckt_main_canon(a, ca, sizeof(ca)) && ckt_main_canon(b, cb, sizeof(cb)) && strcmp(ca, cb) == 0);
}

/* The file outputs given, with their options: CKT_MAIN_NOUT at most. */
#define CKT_MAIN_NOUT 5
struct ckt_main_out {
	const char *opt, *path;
};

static size_t ckt_main_outputs(const struct ckt_args *a, struct ckt_main_out o[CKT_MAIN_NOUT])
{
	const struct ckt_main_out all[] = { { "--csv", a->csv }, { "--sites-csv", a->sites_csv },
					    { "--folded", a->folded }, { "--phases-csv", a->phases_csv },
					    { "--folded-heap", a->folded_heap } };
	_Static_assert(sizeof(all) / sizeof(all[0]) == CKT_MAIN_NOUT, "every file output");
	size_t n = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].path)
			o[n++] = all[i];
	return n;
}

/* Two outputs given one file would truncate and interleave each other: refused, by name or by
 * the file an existing path names (not a device such as /dev/null). */
static int ckt_main_check_outputs(const struct ckt_args *a)
{
	struct ckt_main_out o[CKT_MAIN_NOUT];
	size_t n = ckt_main_outputs(a, o);
	struct stat out, st;
	/* the report goes to stdout: a file output that is that file (/dev/stdout with stdout
	 * redirected to a file) would be written over it, or renamed away from under it; one
	 * that is its pipe or socket (`--csv /dev/stdout | tool`) would reach the tool mixed with
	 * the report. A terminal may show both. So for stderr, where the warnings go (since
	 * 0.2.27: `--csv /dev/stderr 2>log` lost the CSV under them). */
	for (int fd = 1; fd <= 2; fd++) {
		bool out_file = fstat(fd, &out) == 0 &&
				(S_ISREG(out.st_mode) || S_ISFIFO(out.st_mode) || S_ISSOCK(out.st_mode));
		for (size_t i = 0; i < n; i++)
			if (out_file && strcmp(o[i].path, "-") != 0 && stat(o[i].path, &st) == 0 &&
			    st.st_dev == out.st_dev && st.st_ino == out.st_ino)
				return ckt_main_usage(fd == 1 ? "'%s' given to %s is the standard output, where the "
								"report goes"
							      : "'%s' given to %s is the standard error, where the "
								"warnings go",
						      o[i].path, o[i].opt);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(o[i].path, "-") == 0 ? strcmp(o[j].path, "-") == 0
			    : strcmp(o[j].path, "-") != 0 && !ckt_main_not_regular(o[i].path) &&
				      ckt_main_same_output(o[i].path, o[j].path))
				return ckt_main_usage("'%s' is given to both %s and %s", o[j].path, o[i].opt,
						      o[j].opt);
	/* "-" is stdout, in place of the report: not beside the JSON asked for there */
	for (size_t i = 0; i < n; i++)
		if (a->json && strcmp(o[i].path, "-") == 0)
			return ckt_main_usage("--json and %s - both write to standard output", o[i].opt);
	return 0;
}

/* A file output is "-": it goes to stdout, and the report does not */
static bool ckt_main_output_stdout(const struct ckt_args *a)
{
	struct ckt_main_out o[CKT_MAIN_NOUT];
	size_t n = ckt_main_outputs(a, o);
	for (size_t i = 0; i < n; i++)
		if (strcmp(o[i].path, "-") == 0)
			return true;
	return false;
}

/* Fills a from argv. Returns 0, or -1 after printing a usage error. */
/* An option's count: decimal digits only (no sign, no spaces, no base prefix), 1 to max. */
static bool ckt_main_count(const char *val, unsigned long long max, unsigned long long *out)
{
	uint64_t v;
	if (!ckt_util_dec_u64(val, &v) || v == 0 || v > max)
		return false;
	*out = v;
	return true;
}

/* A repeatable option's value appended to list (of cap); -1 after a usage error past cap. */
static int ckt_main_push(const char **list, size_t *n, size_t cap, const char *opt, const char *val)
{
	if (*n == cap)
		return ckt_main_usage("more than %zu %s options", cap, opt);
	list[(*n)++] = val;
	return 0;
}

/* The option whose name is the first n bytes of s, or NULL. */
static const struct ckt_opt *ckt_main_find_opt(const char *s, size_t n)
{
	for (size_t k = 0; k < CKT_NOPTS; k++)
		if (strlen(ckt_opts[k].name) == n && strncmp(s, ckt_opts[k].name, n) == 0)
			return &ckt_opts[k];
	return NULL;
}

static int ckt_main_parse(int argc, char **argv, struct ckt_args *a)
{
	bool opts_done = false;
	const char *given[CKT_NOPTS] = { 0 }; /* the value of each option that takes one */

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts_done || s[0] != '-' || s[1] == '\0') {
			if (a->trace && a->diff) /* --diff BASE TRACE: BASE is the option's value */
				return ckt_main_usage("more than one TRACE given ('%s' and '%s')", a->trace, s);
			if (a->trace) /* two traces where one is read: a diff meant, --diff left out */
				return ckt_main_usage("more than one TRACE given ('%s' and '%s'): to compare "
						      "them, --diff BASE TRACE (--diff '%s' '%s')", a->trace, s, a->trace, s);
			a->trace = s;
			continue;
		}
		if (strcmp(s, "--") == 0) {
			opts_done = true;
			continue;
		}
		if (strcmp(s, "-h") == 0)
			s = "--help";
		const char *val = NULL;
		size_t nlen = strcspn(s, "=");
		const struct ckt_opt *o = ckt_main_find_opt(s, nlen);
		if (!o) /* "--=x" whole: its name part "--" is the end of options, not this */
			return ckt_main_usage("unknown option '%.*s'",
					      (int)(nlen == 2 && s[1] == '-' ? strlen(s) : nlen), s);
		if (o->arg) {
			if (s[nlen] == '=') {
				val = s + nlen + 1;
			} else if (i + 1 < argc) {
				/* an option where the value should be (--diff --json a b took '--json'
				 * for BASE): a file of that name is given as --diff=--json or ./--json */
				const char *next = argv[i + 1];
				size_t vlen = strcspn(next, "=");
				if ((next[0] == '-' && next[1] == '-' && ckt_main_find_opt(next, vlen)) ||
				    strcmp(next, "-h") == 0)
					return ckt_main_usage("option '%s' needs a value (%s), not the option '%.*s'",
							      o->name, o->arg, (int)vlen, next);
				/* one that is no option of ours still looks like one (since 0.2.60:
				 * --csv --typo a.zst wrote a file named '--typo') */
				if (next[0] == '-' && next[1] == '-' && ((next[2] | 0x20) >= 'a' && (next[2] | 0x20) <= 'z')) {
					/* a path's way out where the value is one */
					bool path = !strcmp(o->arg, "FILE") || !strcmp(o->arg, "BASE") || !strcmp(o->arg, "DIR");
					return ckt_main_usage("option '%s' needs a value (%s), not '%s', which is no "
							      "option but looks like one (as its value: %s=%s%s%s)", o->name,
							      o->arg, next, o->name, next, path ? " or ./" : "", path ? next : "");
				}
				if (strcmp(next, "--") == 0) /* since 0.2.27: --csv -- a.zst wrote './--' */
					return ckt_main_usage("option '%s' needs a value (%s), not '--', the end of "
							      "the options", o->name, o->arg);
				val = argv[++i];
			} else {
				return ckt_main_usage("option '%s' needs a value (%s)", o->name, o->arg);
			}
			if (!*val)
				return ckt_main_usage("option '%s' needs a non-empty value", o->name);
		} else if (s[nlen] == '=') {
			return ckt_main_usage("option '%s' takes no value", o->name);
		}
		/* one value each, but for the repeatable ones: a second one was taken in place of
		 * the first without a word (--csv a.csv --csv b.csv wrote b.csv alone) */
		if (o->arg && o->id != CKT_OPT_PHASE_RULE && o->id != CKT_OPT_MODULES) {
			size_t k = (size_t)(o - ckt_opts);
			if (given[k])
				return ckt_main_usage("option '%s' given twice ('%s' and '%s')", o->name, given[k], val);
			given[k] = val;
		}
		switch (o->id) {
		case CKT_OPT_JSON:
			a->json = true;
			break;
		case CKT_OPT_CSV:
			a->csv = val;
			break;
		case CKT_OPT_HELP:
			a->help = true;
			break;
		case CKT_OPT_VERSION:
			a->version = true;
			break;
		case CKT_OPT_SALVAGE:
			a->salvage = true;
			break;
		case CKT_OPT_BY:
			if (strcmp(val, "thread") != 0)
				return ckt_main_usage("unknown --by value '%s' (expected 'thread')", val);
			a->by_thread = true;
			break;
		case CKT_OPT_PHASES_CSV:
			a->phases_csv = val;
			break;
		case CKT_OPT_PHASE_RULE: {
			const char *why = ckt_phase_rules_invalid(val);
			if (why)
				return ckt_main_usage("invalid --phase-rule '%s' (%s)", val, why);
			if (ckt_main_push(a->rules, &a->nrules, CKT_MAIN_MAXREP, o->name, val) < 0)
				return -1;
			break;
		}
		case CKT_OPT_TOP: {
			unsigned long long n;
			if (!ckt_main_count(val, 1000000, &n))
				return ckt_main_usage("option '--top' needs a number from 1 to 1000000, not '%s'", val);
			a->top = (unsigned)n;
			break;
		}
		case CKT_OPT_MAX_HELD: {
			unsigned long long n;
			if (!ckt_main_count(val, 1ull << 40, &n))
				return ckt_main_usage("option '--max-held' needs a number from 1 to 1099511627776, not '%s'", val);
			a->max_held = n;
			break;
		}
		case CKT_OPT_SITES_CSV:
			a->sites_csv = val;
			break;
		case CKT_OPT_FOLDED:
			a->folded = val;
			break;
		case CKT_OPT_FOLDED_HEAP:
			a->folded_heap = val;
			break;
		case CKT_OPT_DIFF:
			a->diff = val;
			break;
		case CKT_OPT_JOBS: {
			unsigned long long n;
			if (!ckt_main_count(val, 2, &n))
				return ckt_main_usage("option '--jobs' needs 1 or 2, not '%s'", val);
			a->jobs = (unsigned)n;
			break;
		}
		case CKT_OPT_MODULES: {
			struct stat md;
			if (stat(val, &md) != 0 || !S_ISDIR(md.st_mode))
				return ckt_main_usage("--modules: '%s' is not a directory", val);
			if (ckt_main_push(a->modules, &a->nmodules, CKT_MAIN_MAXREP, o->name, val) < 0)
				return -1;
			break;
		}
		}
	}
	if (!a->help && !a->version && !a->trace && a->diff)
		return ckt_main_usage("no TRACE file given: --diff BASE TRACE compares TRACE with BASE ('%s')",
				      a->diff);
	if (!a->help && !a->version && !a->trace)
		return ckt_main_usage("no TRACE file given");
	if (a->help || a->version)
		return 0;
	/* "-" is the standard input, as BASE or TRACE */
	if (strcmp(a->trace, "-") == 0)
		a->trace = "/dev/stdin";
	if (a->diff && strcmp(a->diff, "-") == 0)
		a->diff = "/dev/stdin";
	struct stat st;
	/* --phase-rule reads the trace twice (its stacks first), which a pipe cannot give */
	for (int k = 0; k < 2; k++) {
		const char *t = k ? a->diff : a->trace;
		if (t && a->nrules && stat(t, &st) == 0 &&
		    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			return ckt_main_usage("--phase-rule reads the trace twice: '%s' must be a regular file, "
					      "not a pipe or device", t);
	}
	/* one pipe given as both BASE and TRACE: the second read found it empty */
	if (a->diff && ckt_main_not_regular(a->diff) && ckt_main_same_file(a->diff, a->trace))
		return ckt_main_usage("'%s' is given as both BASE and TRACE: a pipe or device can be read once",
				      a->trace);
	return ckt_main_check_outputs(a);
}

/* A warning that names module paths from the trace; who: the trace it is about, or NULL when
 * there is only one. */
static void ckt_main_warn_clean(const char *who, const char *what, const char *msg)
{
	ckt_main_say("warning: %s%s%s%s%s", who ? "'" : "", who ? who : "", who ? "': " : "", what, msg);
}

/* The reader ran out of memory reading the trace at path: one line, naming it (it said
 * "error: out of memory", after a warning about the trace where that came first) */
static void ckt_main_oom(const char *path)
{
	ckt_main_say("error: '%s': out of memory", path);
}

/* The header's key as a number from min to max into *v (0 when the tracer did not write it),
 * or -1 after one line naming a corrupt header (the key named as `name`): anything else there
 * (letters, a sign, more than max) would make the figures that depend on it nonsense. */
static int ckt_main_header_key_uint(const char *path, struct ckt_decoder *dec, const char *key, const char *name,
				    uint64_t min, uint64_t max, uint64_t *v)
{
	const char *s = ckt_decode_header_get(dec, key);
	*v = 0;
	if (!s)
		return 0;
	size_t n = strlen(s);
	bool number = n > 0 && strspn(s, "0123456789") == n;
	uint64_t x;
	if (ckt_util_dec_u64(s, &x) && x >= min && x <= max) {
		*v = x;
		return 0;
	}
	ckt_main_say("error: '%s': corrupt header: %s=%.*s%s %s", path, name, n < 64 ? (int)n : 64, s,
		     n > 64 ? "..." : "", number ? "is out of range" : "is not a number");
	return -1;
}

/* the same for setting.<name> */
static int ckt_main_header_uint(const char *path, struct ckt_decoder *dec, const char *name,
				uint64_t min, uint64_t max, uint64_t *v)
{
	char key[64];
	snprintf(key, sizeof(key), "setting.%s", name);
	return ckt_main_header_key_uint(path, dec, key, name, min, max, v);
}

static void ckt_main_warnings(const char *path, const struct ckt_decoder *dec,
			       const struct ckt_replay_stats *st)
{
	char t[32];
	/* the tracer's line at start may be gone with the program's stderr (since 0.2.23) */
	const char *ahead = ckt_decode_header_get(dec, "allocator_ahead"),
		   *ahead_fn = ckt_decode_header_get(dec, "allocator_ahead_function");
	if (ahead)
		ckt_main_say("warning: '%s': '%s' was provided by '%s' ahead of the tracer: the "
			     "program's allocations through it are not in this trace",
			     path, ahead_fn ? ahead_fn : "malloc", ahead);
	/* a trace read while its process runs reads as one cut short: said apart (since 0.2.20;
	 * it read as a killed process's) */
	if (st->truncated)
		ckt_main_say("warning: '%s': trace is truncated (no end record%s); it covers %s s", path,
			     ckt_util_being_written(path) ? ": a process is still writing it" : "",
			     ckt_util_fmt_secs(t, sizeof(t), st->duration_ns, 3));
	/* a header and nothing after it: every figure 0, which read as a program that used none */
	if (st->truncated && !st->events)
		ckt_main_say("warning: '%s': the trace holds no event (the process was killed, or its "
			     "tracing stopped, before the first flush): its figures are not the program's",
			     path);
	if (st->lost)
		ckt_main_say("warning: '%s': %llu %s lost; totals are inexact", path,
			     (unsigned long long)st->lost, st->lost == 1 ? "event was" : "events were");
	/* the tracer's own line said so once on the program's stderr (since 0.2.34) */
	for (unsigned k = 1; k <= CKT_LIMIT_KINDS; k++)
		if (st->limit_at[k])
			ckt_main_say("warning: '%s': the tracer's %s at %s s: %s", path, ckt_report_limits[k].what,
				     ckt_util_fmt_secs(t, sizeof(t), st->limit_at[k] - 1, 3), ckt_report_limits[k].lacks);
	if (st->replayed_early)
		ckt_main_say("warning: '%s': up to %llu events were held waiting for time order (an event "
			     "written long after its timestamp, or a --max-held below the events of a flush "
			     "interval); %llu events in all were replayed without waiting (--max-held), so events "
			     "written later came late",
			     path, (unsigned long long)st->max_held, (unsigned long long)st->replayed_early);
	/* lost events explain them (that warning says it), and so do events replayed out of
	 * order: a free that came late (a --max-held of 1000 on a sound trace said "corrupt"), and
	 * a full set of samples: the frees of samples taken then are not recorded, and an
	 * allocation that reuses such an address finds it live (it read "corrupt") */
	if (st->inconsistencies && !st->lost)
		ckt_main_say(st->replayed_early
				     ? "warning: '%s': %llu allocation%s came at an address still live (replayed "
				       "without waiting, above: the frees before them came late); the blocks they "
				       "replaced were dropped there"
				 : st->limit_at[CKT_LIMIT_SAMPLES]
				     ? "warning: '%s': %llu allocation%s came at an address still live: the frees of "
				       "samples taken while the tracer's set of sampled blocks was full are not in "
				       "the trace (above); the blocks they replaced were dropped there"
				 : st->inconsistencies_after_sync == st->inconsistencies
				     ? "warning: '%s': %llu allocation%s came at an address still live, %sstamped "
				       "after the trace's last SYNC horizon (%s s), which no flush promises whole: "
				       "threads that ran on while the process ended were cut by its last flush at "
				       "different moments, so frees before them are missing; the blocks they "
				       "replaced were dropped there"
				     : "warning: '%s': %llu allocation%s came at an address still live: the trace "
				       "lacks the frees before them (corrupt, or spliced from another trace?); the "
				       "blocks they replaced were dropped there",
			     path, (unsigned long long)st->inconsistencies, st->inconsistencies == 1 ? "" : "s",
			     st->inconsistencies == 1 ? "" : "all ", ckt_util_fmt_secs(t, sizeof(t), st->last_sync_ns, 6));
	/* the default mode's running totals subtract every small free, seen allocated or not:
	 * frees of blocks allocated out of the tracer's sight drove the heap to 0 and kept it low
	 * (a peak of 164 KiB for 19.5 MiB live, without a word) */
	uint64_t bound = st->agg_threads_at_once * (uint64_t)CKT_AGG_STEP;
	if (st->sample_r && st->heap_below_zero > bound) {
		char b[32];
		/* with events lost, the frees of the blocks whose allocations were lost are the
		 * likelier cause (a signal handler that allocated inside a traced call, say) */
		ckt_main_say(st->lost ? "warning: '%s': the heap's running totals went %s below zero: "
					"events were lost (above), allocations among them whose frees "
					"were counted, or the program freed blocks the trace did not see "
					"allocated; heap figures may be low by as much"
				      : "warning: '%s': the heap's running totals went %s below zero: the program "
					"freed blocks the trace did not see allocated (allocated before the tracer "
					"started, or through an entry point it does not hook, such as glibc's "
					"__libc_malloc); heap figures may be low by as much (CUZKTRACE_SAMPLE=0 counts "
					"only frees of blocks it saw)",
			     path, ckt_util_fmt_bytes(b, sizeof(b), st->heap_below_zero));
	}
	if (st->cuda_device_overflow)
		ckt_main_say("warning: '%s': the trace names more than 256 CUDA devices (corrupt?); "
			     "figures per device are kept for the first 256, the totals count them all",
			     path);
	if (st->backward_events)
		ckt_main_say("warning: '%s': %llu %s stamped before the event before them on their "
			     "thread (corrupt?); they were replayed in their thread's order",
			     path, (unsigned long long)st->backward_events,
			     st->backward_events == 1 ? "event was" : "events were");
	if (st->end_before_events) {
		char e[32], l[32];
		ckt_main_say("warning: '%s': the end record is stamped at %s s, before events stamped up "
			     "to %s s (corrupt?): the trace's duration runs to its last event",
			     path, ckt_util_fmt_secs(e, sizeof(e), st->end_ts, 6),
			     ckt_util_fmt_secs(l, sizeof(l), st->last_ts, 6));
	}
	/* each thread waits for room at most as long as the trace runs (a second of slack: the
	 * duration runs to the end record, the waits are timed by the same clock) */
	if (st->wait_ns / (st->threads ? st->threads : 1) >
	    (st->duration_ns > UINT64_MAX - 1000000000ull ? UINT64_MAX : st->duration_ns + 1000000000ull)) {
		char w[32], d[32];
		ckt_main_say("warning: '%s': the trace says the program's threads waited %s s for the "
			     "tracer, more than its %zu thread%s could in its %s s (corrupt?): the wait "
			     "figures are not to be trusted",
			     path, ckt_util_fmt_secs(w, sizeof(w), st->wait_ns, 3), (size_t)st->threads,
			     st->threads == 1 ? "" : "s", ckt_util_fmt_secs(d, sizeof(d), st->duration_ns, 3));
	}
	if (st->end_far_after) {
		char e[32], l[32];
		ckt_main_say("warning: '%s': the end record is stamped at %s s, over an hour after the "
			     "trace's last event and flush, at %s s (corrupt?): the trace's duration runs to "
			     "that flush",
			     path, ckt_util_fmt_secs(e, sizeof(e), st->end_ts, 6),
			     ckt_util_fmt_secs(l, sizeof(l), st->duration_ns, 6));
	}
	if (st->late_events)
		ckt_main_say("warning: '%s': %llu event%s came after later events had been replayed "
			     "(%s); peaks near them may be off by their bytes",
			     path, (unsigned long long)st->late_events, st->late_events == 1 ? "" : "s",
			     st->replayed_early ? "replayed without waiting, above" : "the trace breaks its SYNC promise");
	if (ckt_replay_untraced_suspected(st)) {
		char u[32];
		uint64_t over = st->peak_rss.bytes - ckt_replay_traced_seen(st);
		/* the share is of the peak RSS (before 0.2.57 it read "(99%) above", which reads
		 * as a share of what is traced) */
		ckt_main_say("warning: '%s': the peak RSS is %s (%.0f%% of it) above everything traced "
			     "at its own peak: the program may allocate through an allocator the tracer "
			     "cannot see (one with its own symbol names, such as Rust's jemallocator), "
			     "move the heap's end itself (brk, sbrk), map memory with raw system calls, "
			     "or use it on thread stacks (glibc maps them out of the tracer's sight)",
			     path, ckt_util_fmt_bytes(u, sizeof(u), over),
			     100.0 * (double)over / (double)st->peak_rss.bytes);
	}
}

/* An allocator linked in under its own names: its blocks are not in the trace, its mappings
 * are, at its own stacks (since 0.2.41: they read as the program's anonymous mmap, without a
 * word) */
static void ckt_main_untraced_allocators(const char *path, const struct ckt_sites *s,
					 const struct ckt_replay_stats *st)
{
	struct ckt_sites_untraced u;
	for (size_t i = 0; ckt_sites_untraced(s, i, &u); i++) {
		char b[32], lib[256];
		bool rss = st->peak_rss.seen && u.bytes_at_peak_rss;
		uint64_t bytes = rss ? u.bytes_at_peak_rss : u.bytes_at_peak_mmap;
		const char *so = u.module && strncmp(u.module, "lib", 3) == 0 && strstr(u.module, ".so") ? u.module : NULL;
		if (!so)
			snprintf(lib, sizeof(lib), "lib%s.so", u.name);
		/* what it serves, what the trace holds of it, whose sites they are and what to do:
		 * a language runtime's objects in its arenas (CPython's, since 0.2.49), or an
		 * allocator's blocks in its mappings */
		char preload[512];
		snprintf(preload, sizeof(preload),
			 "build the program with the system allocator (Rust: no #[global_allocator]), or "
			 "preload the allocator's shared library after the tracer where it exports malloc "
			 "(LD_PRELOAD=\"libcuzktrace.so %s\")", so ? so : lib);
		/* an allocator inside CPython (PYTHONMALLOC=mimalloc, the free-threaded build's
		 * own): libpython exports no malloc to preload, and PYTHONMALLOC picks malloc */
		bool in_python = u.module && (strncmp(u.module, "libpython3.", 11) == 0 ||
					      strncmp(u.module, "python3.", 8) == 0);
		const char *advice = u.arenas || in_python ? "run the program with PYTHONMALLOC=malloc" : preload;
		const char *what = u.arenas ? "objects" : "blocks";
		ckt_main_say("warning: '%s': the program allocates through %s%s (%s%s%s), whose %s are not "
			     "traced: the trace holds only its %s, %s (%" PRIu64 " bytes) of them at the "
			     "peak %s, whose sites and phases are the %s, not the program's calls; to trace "
			     "its %s, %s",
			     path, u.name, u.arenas ? ", CPython's object allocator" : "",
			     u.function ? u.function : "", u.function && u.module ? " in " : "",
			     u.module ? u.module : "", what, u.arenas ? "arenas" : "mappings",
			     ckt_util_fmt_bytes(b, sizeof(b), bytes), bytes, rss ? "RSS" : "mmap",
			     u.arenas ? "interpreter's" : "allocator's", what, advice);
	}
}

/* A file output could not be written: the others are written all the same, the report too,
 * and the exit status is 1 (since 0.2.36: the outputs after the failed one, and the report,
 * were not written, and a CI job lost its flame graph to a full disk's CSV) */
static bool ckt_main_unwritten;

/* A file output that could not be written: `-` is the standard output, named as the report's
 * own failed write names it. */
static void ckt_main_say_unwritten(const char *path, int rc)
{
	ckt_main_unwritten = true;
	const char *stage = ckt_util_out_stage_failed();
	if (strcmp(path, "-") != 0)
		ckt_main_say("error: cannot write '%s': %s", path, strerror(-rc));
	else if (stage && !*stage) /* neither $TMPDIR nor /tmp took one: a file in memory */
		ckt_main_say("error: cannot write to standard output: the file in memory it is put "
			     "together in (no temporary file could be made in $TMPDIR or /tmp) failed: %s",
			     strerror(-rc));
	else if (stage) /* the temporary failed, not the standard output (a full $TMPDIR) */
		ckt_main_say("error: cannot write to standard output: the temporary file it is put "
			     "together in, in '%s' ($TMPDIR, else /tmp), failed: %s", stage, strerror(-rc));
	else
		ckt_main_say("error: cannot write to standard output: %s", strerror(-rc));
}

/* --sites-csv and --folded, written after the replay; a failure is said (ckt_main_unwritten). */
static void ckt_main_write_sites(const char *path, const struct ckt_sites *s,
				int (*write)(const struct ckt_sites *, FILE *))
{
	struct ckt_util_out o;
	int rc = ckt_util_out_open(&o, path);
	if (rc == 0) {
		rc = write(s, o.f);
		int c = ckt_util_out_close(&o, rc == 0);
		rc = rc < 0 ? rc : c;
	}
	if (rc < 0)
		ckt_main_say_unwritten(path, rc);
}

/* 0 when this user may write path (a file, or a directory to make a file in: then search it
 * too), else the errno of faccessat (EACCES, EROFS, ...) */
static int ckt_main_writable(const char *path, bool dir)
{
	return faccessat(AT_FDCWD, path, dir ? W_OK | X_OK : W_OK, AT_EACCESS) == 0 ? 0 : errno;
}

/* Whether the file at path begins as a trace does: a zstd frame whose content starts with the
 * magic (its first 64 KiB looked at). */
static bool ckt_main_is_trace(const char *path)
{
	static unsigned char in[65536];
	unsigned char magic[CKT_MAGIC_LEN];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	ssize_t got = read(fd, in, sizeof(in));
	close(fd);
	ZSTD_DCtx *z = got > 0 ? ZSTD_createDCtx() : NULL;
	if (!z)
		return false;
	ZSTD_inBuffer ib = { in, (size_t)got, 0 };
	ZSTD_outBuffer ob = { magic, sizeof(magic), 0 };
	while (ob.pos < ob.size && ib.pos < ib.size && !ZSTD_isError(ZSTD_decompressStream(z, &ob, &ib)))
		;
	ZSTD_freeDCtx(z);
	return ob.pos == sizeof(magic) && memcmp(magic, CKT_MAGIC, CKT_MAGIC_LEN) == 0;
}

/* An output that would truncate a trace given (TRACE, or BASE of --diff) is refused before
 * any trace is read and any output opened (a --csv opened before --folded was found to be the
 * trace was left empty). Returns 0, or -1 after one error line. */
static int ckt_main_outputs_not_inputs(const struct ckt_args *a)
{
	struct ckt_main_out o[CKT_MAIN_NOUT];
	size_t n = ckt_main_outputs(a, o);
	for (size_t i = 0; i < n; i++)
		if (strcmp(o[i].path, "-") != 0 &&
		    (ckt_main_same_file(o[i].path, a->trace) || (a->diff && ckt_main_same_file(o[i].path, a->diff)))) {
			/* (since 0.2.27 the base says so: it said "the trace") */
			ckt_main_say("error: cannot write '%s': it is the %s being read", o[i].path,
				     ckt_main_same_file(o[i].path, a->trace) ? "trace" : "base (--diff)");
			return -1;
		}
	/* a file output in a directory that is not there cannot be written: said now, before the
	 * trace is read (since 0.2.45: --sites-csv, --folded and --folded-heap, opened after it,
	 * were found unwritable only once a trace of minutes had been read; --csv and
	 * --phases-csv were refused at once) */
	/* since 0.2.50 also a directory, and a file or directory this user may not write (or on a
	 * read-only file system): they too were found only after the read (faccessat with
	 * AT_EACCESS: the permissions of the user the reader runs as, root's included) */
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (strcmp(o[i].path, "-") == 0)
			continue;
		int e;
		if (stat(o[i].path, &st) == 0) {
			e = S_ISDIR(st.st_mode) ? EISDIR : ckt_main_writable(o[i].path, false);
			if (!e && S_ISREG(st.st_mode) && ckt_main_is_trace(o[i].path)) {
				/* a trace not given: an option's FILE taken for the trace (`--csv
				 * before.zst after.zst` wrote the CSV over before.zst; since 0.2.51) */
				ckt_main_say("error: cannot write '%s': it is a trace (an output is never written over "
					     "one; name another file, or '-')", o[i].path);
				return -1;
			}
			if (S_ISREG(st.st_mode) && ckt_util_kernel_file(o[i].path)) {
				/* a file of the kernel's takes no report: it failed after the read
				 * (/proc/version: Input/output error), or took it (/proc/self/comm, a
				 * cgroup's control file); since 0.2.62 */
				ckt_main_say("error: cannot write '%s': it is a file of the kernel's (/proc, /sys, a "
					     "cgroup), not a file for output", o[i].path);
				return -1;
			}
		} else {
			e = errno; /* ENOTDIR: a file on the way, as in 'a.csv/x.folded' */
			const char *slash = strrchr(o[i].path, '/');
			if (e == ENOENT && slash && !slash[1]) {
				/* a name ending in '/' whose directory is not there (since 0.2.45: the
				 * open's EISDIR said `Is a directory`) */
			} else if (e == ENOENT && lstat(o[i].path, &st) == 0) {
				e = 0; /* a link to a file to be made: written where it leads, left to the open */
			} else if (e == ENOENT) {
				/* the directory it would be made in: ".", "/", or the path before the slash */
				char *dir = !slash ? strdup(".") : slash == o[i].path ? strdup("/")
								      : strndup(o[i].path, (size_t)(slash - o[i].path));
				e = !dir ? 0 : stat(dir, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : ckt_main_writable(dir, true);
				free(dir);
			}
		}
		if (e == ENOENT || e == ENOTDIR || e == EISDIR || e == EACCES || e == EROFS) {
			ckt_main_say("error: cannot write '%s': %s", o[i].path, strerror(e));
			return -1;
		}
	}
	return 0;
}

/* One trace read, replayed and its results computed (ckt_main_read), for the report or one
 * side of --diff. */
struct ckt_main_read {
	const char *path;
	struct ckt_decoder *dec;
	struct ckt_replay *rep;
	struct ckt_report_csv *csv;
	struct ckt_sites *sites;
	struct ckt_phases *ph;
	struct ckt_phase_rules *rules;
	struct ckt_report r;
	struct ckt_kin_list kin;
	uint64_t rate_bytes, depth; /* the header's CUZKTRACE_SAMPLE and CUZKTRACE_DEPTH */
	uint64_t rss_ms, flush_ms;  /* and CUZKTRACE_RSS_MS, CUZKTRACE_FLUSH_MS: the coarse clock's tick */
	bool ahead;                 /* decode on a thread of its own (ckt_replay_run_ahead) */
	bool salvage;               /* --salvage */
	uint64_t limit;             /* --salvage: the file is read up to here (0: all of it) */
	uint64_t max_held;          /* --max-held (0: the default) */
};

static void ckt_main_read_free(struct ckt_main_read *m)
{
	ckt_report_csv_close(m->csv, false); /* an unfinished --csv: what was there stays */
	ckt_sites_free(m->sites);
	ckt_phases_free(m->ph); /* closes an unfinished --phases-csv */
	ckt_phase_rules_free(m->rules);
	ckt_replay_free(m->rep);
	ckt_decode_close(m->dec);
	ckt_kin_free(&m->kin);
	memset(m, 0, sizeof(*m));
}

/* Phases (phases.c) observe every replay; --phase-rule first reads the trace for its stacks
 * (phase_rules.c). --phases-csv only when outputs. Prints its own errors; returns 0 or -1. */
static void ckt_main_say_read_error(const struct ckt_main_read *m, const struct ckt_error *err);

static int ckt_main_phases_setup(const struct ckt_args *a, struct ckt_main_read *m, bool outputs)
{
	struct ckt_error err = { 0 };
	int rc;

	m->ph = ckt_phases_new();
	if (!m->ph || ckt_phases_attach(m->ph, m->rep) < 0) {
		ckt_main_oom(m->path);
		return -1;
	}
	if (a->nrules) {
		m->rules = ckt_phase_rules_new(a->rules, a->nrules);
		if (!m->rules) {
			ckt_main_oom(m->path);
			return -1;
		}
		ckt_phase_rules_set_trace(m->rules, m->path);
		if (ckt_phase_rules_scan(m->rules, m->path, m->limit, &err) < 0) {
			ckt_main_say_read_error(m, &err);
			return -1;
		}
		ckt_phases_set_rule(m->ph, ckt_phase_rules_decide, m->rules);
	}
	if (outputs && a->phases_csv) {
		rc = ckt_phases_csv_open(m->ph, a->phases_csv);
		if (rc < 0) {
			ckt_main_say_unwritten(a->phases_csv, rc);
			return -1;
		}
	}
	return 0;
}

/* The --phase-rule symbolizer said msg already (a module it could not read): the report's
 * symbolizer says it once more only if it had not. */
static bool ckt_main_rules_said(const struct ckt_phase_rules *rules, const char *msg)
{
	for (size_t i = 0; rules && i < ckt_phase_rules_nwarnings(rules); i++)
		if (strcmp(ckt_phase_rules_warning(rules, i), msg) == 0)
			return true;
	return false;
}

static int ckt_main_phases_finish(const struct ckt_args *a, struct ckt_phases *ph,
				  const struct ckt_phase_rules *rules, const struct ckt_replay_stats *st,
				  const char *path, const char *who)
{
	int rc = ckt_phases_csv_close(ph, true);
	if (rc < 0)
		ckt_main_say_unwritten(a->phases_csv, rc);
	if (ckt_phases_finish(ph, st->duration_ns) < 0 || (rules && ckt_phase_rules_error(rules) < 0)) {
		ckt_main_oom(path);
		return -1;
	}
	for (size_t i = 0; rules && i < ckt_phase_rules_nwarnings(rules); i++)
		ckt_main_warn_clean(who, "--phase-rule: ", ckt_phase_rules_warning(rules, i));
	/* a rule that took nothing: a pattern that names a Rust function without its path
	 * (build_aux for app::build_aux) matched nothing without a word, read as a phase that
	 * held nothing */
	for (size_t i = 0; rules && i < ckt_phase_rules_count(rules); i++) {
		const char *pattern, *name = ckt_phase_rules_unused(rules, i, &pattern);
		if (!name)
			continue;
		ckt_main_say("warning: %s%s%s--phase-rule '%s=%s' gave no allocation its phase: no frame of "
			     "their stacks matched it, or an earlier rule matched first (a pattern matches a "
			     "function's whole name, its path included: 'crate::module::f' or '*::f', or "
			     "file:line)",
			     who ? "'" : "", who ? who : "", who ? "': " : "", name, pattern);
	}
	return 0;
}

/* A CUZKTRACE_PHASES rule (the header's setting) whose phase the trace never defines matched
 * no line the program wrote: one warning each, so that a marker the tracer cannot see
 * (printf's stdio, a name misspelt) is not taken for a phase that held nothing. */
static void ckt_main_rules_unmatched(const struct ckt_main_read *m)
{
	const char *rules = ckt_decode_header_get(m->dec, "setting.CUZKTRACE_PHASES");
	/* a wrapper's trace: where the traces of what it ran went (the first three), shown
	 * cleaned: a file name may hold control characters */
	char kin[3 * 256 + 64] = "";
	for (size_t i = 0, k = 0; i < m->kin.n && k < 3; i++, k++) {
		size_t l = strlen(kin);
		snprintf(kin + l, sizeof(kin) - l, "%s'%.250s'", k ? ", " : "; traces of what this process ran: ",
			 m->kin.v[i].path);
		kin[l + ckt_util_clean(kin + l, strlen(kin + l))] = '\0';
	}
	if (m->kin.n > 3) {
		size_t l = strlen(kin);
		snprintf(kin + l, sizeof(kin) - l, " and %zu more", m->kin.n - 3);
	}
	for (const char *r = rules; r && *r;) {
		size_t len = strcspn(r, ";"), name = strcspn(r, "=");
		if (name < len && name > 0 && !ckt_phases_defined(m->ph, r, name)) {
			char *n = strndup(r, name);
			if (n)
				n[ckt_util_clean(n, name)] = '\0';
			ckt_main_say("warning: '%s': the CUZKTRACE_PHASES rule for phase '%s' matched no line the "
				     "program wrote%s (markers in printf's stdio are not seen: see README)%s",
				     m->path, n ? n : "?",
				     ckt_replay_stats(m->rep)->ended ? "" : " before the trace was cut", kin);
			free(n);
		}
		r += len + (r[len] == ';');
	}
}

/* Where the first corrupt frame of the trace at path starts, found by decoding every record
 * (no replay), when whole data frames come before it in a regular file; 0 when there is none.
 * err (or NULL) gets that frame's error. For --salvage, and for the hint of the error line
 * without it. */
static uint64_t ckt_main_salvage_cut(const char *path, struct ckt_error *err)
{
	struct ckt_decoder *d = NULL;
	struct ckt_error e = { 0 };
	struct ckt_record rec;
	if (ckt_decode_open(path, &d, &e) < 0)
		return 0;
	int rc;
	while ((rc = ckt_decode_next(d, &rec, &e)) > 0)
		;
	uint64_t cut = rc < 0 && e.code == CKT_EFORMAT ? ckt_decode_error_frame(d) : 0;
	ckt_decode_close(d);
	if (cut && err)
		*err = e;
	return cut;
}

/* The trace's tracer_version ("0.2.33") is at least major.minor.patch (false without one). */
static bool ckt_main_tracer_at_least(const struct ckt_decoder *d, unsigned major, unsigned minor, unsigned patch)
{
	const char *v = ckt_decode_header_get(d, "tracer_version");
	unsigned x, y, z;
	if (!v || sscanf(v, "%u.%u.%u", &x, &y, &z) != 3)
		return false;
	return x != major ? x > major : y != minor ? y > minor : z >= patch;
}

/* The replay's settings for m's trace (its header's), as ckt_main_read and the check below
 * make them */
static void ckt_main_replay_setup(const struct ckt_main_read *m, struct ckt_replay *rep)
{
	ckt_replay_set_sample(rep, m->rate_bytes);
	ckt_replay_set_thread_gens(rep, ckt_main_tracer_at_least(m->dec, 0, 2, 33));
	ckt_replay_set_stack_small(rep, ckt_main_tracer_at_least(m->dec, 0, 2, 39));
	ckt_replay_set_late_frees(rep, ckt_main_tracer_at_least(m->dec, 0, 2, 58));
	/* the tracer's coarse clock ticks with the RSS sampler and the writer (ckt_format.h: AGG) */
	uint64_t flush = m->flush_ms ? m->flush_ms : 100, tick = m->rss_ms && m->rss_ms < flush ? m->rss_ms : flush;
	ckt_replay_set_agg_tick(rep, tick * 1000000);
	if (m->max_held)
		ckt_replay_set_max_held(rep, m->max_held);
}

/* Whether m's trace, read up to cut as --salvage reads it, replays without an error: the
 * replay finds some corruption only as it applies events, which it holds back as the trace
 * ends (more bytes live than any process can have, in the frames before cut), and one it met
 * in the corrupt frame itself, before the decoder's, is not in what --salvage reads. */
static bool ckt_main_salvage_replays(const struct ckt_main_read *m, uint64_t cut)
{
	struct ckt_decoder *d = NULL;
	struct ckt_error e = { 0 };
	struct ckt_replay *rep = NULL;
	bool ok = false;
	if (ckt_decode_open(m->path, &d, &e) == 0 && (rep = ckt_replay_new(ckt_decode_header(d)->page_size))) {
		ckt_decode_limit(d, cut);
		ckt_main_replay_setup(m, rep);
		ok = ckt_replay_run(d, rep, &e) == 0;
	}
	ckt_replay_free(rep);
	ckt_decode_close(d);
	return ok;
}

/* The line for an error met reading m's trace. The frames before a corrupt one can be read
 * (since 0.2.45): the line says how, where --salvage reports them (since 0.2.45: not where its
 * replay meets an error, and also where the error is one the replay met in the corrupt frame). */
static void ckt_main_say_read_error(const struct ckt_main_read *m, const struct ckt_error *err)
{
	/* not from a pipe: its second read would take what follows */
	uint64_t cut = err->code == CKT_EFORMAT && !m->salvage && ckt_decode_regular(m->dec)
			       ? ckt_main_salvage_cut(m->path, NULL)
			       : 0;
	/* only where --salvage reads what comes before that frame without an error: not where
	 * the replay found one in the frames before it (running totals in an exact trace, or
	 * more bytes live than any process can have, found as the trace ends) */
	if (cut && !ckt_main_salvage_replays(m, cut))
		cut = 0;
	if (cut)
		ckt_main_say("error: '%s': %s (--salvage reports the trace before byte offset %llu)", m->path,
			     err->msg, (unsigned long long)cut);
	else if (err->code == CKT_EFORMAT && m->salvage && !ckt_decode_regular(m->dec))
		/* since 0.2.59: it read as if --salvage had not been given (no promise that a file
		 * would be salvaged: its first data frame or header may be the corrupt one) */
		ckt_main_say("error: '%s': %s (--salvage reads only a file, not a pipe, which cannot be read "
			     "twice)", m->path, err->msg);
	else
		ckt_main_say("error: '%s': %s", m->path, err->msg);
}

/* Opens m->path and reads its header (ckt_main_read's first part: a missing file, not a
 * trace, an unsupported version are said before anything long begins). */
static bool ckt_main_stdin_closed; /* descriptor 0 was closed when the reader started */
static bool ckt_main_on_thread;     /* ckt_main_run runs on a thread of its own (main, below) */

static int ckt_main_open(struct ckt_main_read *m)
{
	struct ckt_error err = { 0 };

	/* "-" is /dev/stdin: a closed standard input read "No such file or directory", or what
	 * the reader itself had opened as descriptor 0 */
	if (!strcmp(m->path, "/dev/stdin") && ckt_main_stdin_closed) {
		ckt_main_say("error: the standard input ('-', /dev/stdin) is closed");
		return -1;
	}
	if (ckt_decode_open(m->path, &m->dec, &err) < 0) {
		ckt_main_say("error: '%s': %s", m->path, err.msg);
		return -1;
	}
	/* the tracer takes rates up to 2^30 bytes: a bigger one would make every estimate huge;
	 * and stacks of up to 256 frames */
	if (ckt_main_header_uint(m->path, m->dec, "CUZKTRACE_SAMPLE", 0, (uint64_t)1 << 30, &m->rate_bytes) < 0 ||
	    ckt_main_header_uint(m->path, m->dec, "CUZKTRACE_DEPTH", 0, CKT_MAX_DEPTH, &m->depth) < 0 ||
	    ckt_main_header_uint(m->path, m->dec, "CUZKTRACE_RSS_MS", 0, 60000, &m->rss_ms) < 0 ||
	    /* the writer flushes at least every millisecond: 0 is no setting of the tracer's (since
	     * 0.2.50 refused as out of range; before, read as the default) */
	    ckt_main_header_uint(m->path, m->dec, "CUZKTRACE_FLUSH_MS", 1, 60000, &m->flush_ms) < 0)
		return -1;
	/* the process's identity, as the report, the child-trace listing and --diff show it:
	 * Linux's ids run to 2^22 (PID_MAX_LIMIT; a parent in another pid namespace is 0), the
	 * start a wall-clock time in ns (before 0.2.57 "(pid -1)" and JSON null went unsaid) */
	uint64_t id;
	if (ckt_main_header_key_uint(m->path, m->dec, "pid", "pid", 1, (uint64_t)1 << 22, &id) < 0 ||
	    ckt_main_header_key_uint(m->path, m->dec, "ppid", "ppid", 0, (uint64_t)1 << 22, &id) < 0 ||
	    ckt_main_header_key_uint(m->path, m->dec, "start_wall_ns", "start_wall_ns", 0, INT64_MAX, &id) < 0)
		return -1;
	/* every tracer writes the page size, which rounds mapping lengths (64 KiB pages: a
	 * mapping of 5,000 bytes holds 65,536) */
	const char *ps = ckt_decode_header_get(m->dec, "page_size");
	if (!ps) {
		ckt_main_say("warning: '%s': the header has no page_size (damaged?): mapping lengths are "
			     "rounded to 4096-byte pages", m->path);
	} else if (!ckt_decode_header(m->dec)->page_size) {
		size_t n = strlen(ps);
		ckt_main_say("error: '%s': corrupt header: page_size=%.*s%s is not a page size (a power of "
			     "two from 4096 to 1 GiB)", m->path, n < 64 ? (int)n : 64, ps, n > 64 ? "..." : "");
		return -1;
	}
	/* --salvage (since 0.2.45): a pass of the decoder alone finds the first corrupt frame,
	 * and the trace is read up to its start, as a trace cut there */
	struct ckt_error cerr = { 0 };
	if (m->salvage && ckt_decode_regular(m->dec) && (m->limit = ckt_main_salvage_cut(m->path, &cerr))) {
		ckt_main_say("warning: '%s': %s; --salvage: the trace is read up to byte offset %llu, where "
			     "that frame starts, as if it were cut there", m->path, cerr.msg,
			     (unsigned long long)m->limit);
		ckt_decode_limit(m->dec, m->limit);
	}
	return 0;
}

/* Reads and replays the trace ckt_main_open opened, says what is wrong with it on stderr, and
 * computes the sites (top of each peak shown) and phases; with outputs, writes --csv,
 * --phases-csv, --sites-csv and --folded. Returns 0, or -1 after one error line. */
static int ckt_main_read(const struct ckt_args *a, struct ckt_main_read *m, bool outputs, unsigned top)
{
	struct ckt_error err = { 0 };
	int rc;

	m->rep = ckt_replay_new(ckt_decode_header(m->dec)->page_size);
	if (!m->rep) {
		ckt_main_oom(m->path);
		return -1;
	}
	ckt_main_replay_setup(m, m->rep);
	if (outputs && a->csv) {
		rc = ckt_report_csv_open(a->csv, &m->csv);
		if (rc < 0) {
			ckt_main_say_unwritten(a->csv, rc);
			return -1;
		}
	}
	const char *site_out[3] = { outputs ? a->sites_csv : NULL, outputs ? a->folded : NULL,
				    outputs ? a->folded_heap : NULL };
	/* each site's own peak needs every stack's site during the replay: only for the CSV */
	m->sites = ckt_sites_new(site_out[0] != NULL);
	if (m->sites) {
		if (a->diff) /* its sites of device memory alone: see ckt_sites_key */
			ckt_sites_keep_gpu(m->sites);
		ckt_sites_set_depth(m->sites, (unsigned)m->depth);
		ckt_sites_set_trace(m->sites, m->path);
		uint64_t start = 0; /* 0: unknown (absent, or not a number) */
		if (!ckt_util_dec_u64(ckt_decode_header_get(m->dec, "start_wall_ns"), &start))
			start = 0;
		ckt_sites_set_start(m->sites, start);
	}
	if (!m->sites || ckt_sites_attach(m->sites, m->rep) < 0) {
		ckt_main_oom(m->path);
		return -1;
	}
	if (ckt_main_phases_setup(a, m, outputs) < 0)
		return -1;
	ckt_phases_set_format(m->ph, ckt_decode_header(m->dec)->format_version);
	ckt_phases_set_by_thread(m->ph, a->by_thread);
	ckt_phases_set_top(m->ph, top);
	/* phases.c fills each sample's active_phases and writes --phases-csv, then passes it on */
	ckt_phases_set_next_sink(m->ph, m->csv ? ckt_report_csv_sample : NULL, m->csv);
	ckt_replay_set_sample_sink(m->rep, ckt_phases_sample, m->ph);
	if ((m->ahead ? ckt_replay_run_ahead : ckt_replay_run)(m->dec, m->rep, &err) < 0) {
		ckt_main_say_read_error(m, &err);
		return -1;
	}
	rc = ckt_report_csv_close(m->csv, true);
	m->csv = NULL;
	if (rc < 0)
		ckt_main_say_unwritten(a->csv, rc);

	const struct ckt_replay_stats *st = ckt_replay_stats(m->rep);
	/* with --diff, warnings about the trace's modules and rules say which trace */
	const char *who = a->diff ? m->path : NULL;
	if (ckt_main_phases_finish(a, m->ph, m->rules, st, m->path, who) < 0)
		return -1;
	/* where a wrapper's children wrote theirs (not for --diff: each side is one trace) */
	if (!a->diff && ckt_kin_find(m->path, m->dec, &m->kin) < 0) {
		ckt_main_oom(m->path);
		return -1;
	}
	m->r = (struct ckt_report){ m->path, m->dec, st, m->ph, a->by_thread, m->sites, a->diff ? NULL : &m->kin };
	ckt_main_warnings(m->path, m->dec, st);
	/* a complete trace whose events name a stack it never defines is damaged (their bytes
	 * showed as "(stack <id> missing from the trace)", status 0 and no word) */
	uint64_t undef_first, undef = st->truncated ? 0 : ckt_sites_undefined(m->sites, &undef_first);
	if (undef)
		ckt_main_say("warning: '%s': the events name %llu call stack%s that the trace never "
			     "defines (corrupt?), the first id %llu: their bytes show as '(stack <id> "
			     "missing from the trace)'",
			     m->path, (unsigned long long)undef, undef == 1 ? "" : "s",
			     (unsigned long long)undef_first);
	ckt_main_rules_unmatched(m);
	uint64_t zero_from, zeros_end = ckt_decode_zero_tail_bytes(m->dec, &zero_from);
	const char *zs = zeros_end == 1 ? "" : "s";
	if (zeros_end && ckt_decode_dropped_partial(m->dec))
		ckt_main_say("warning: '%s': the file ends inside the zstd frame at byte offset %llu, "
			     "in %llu zero byte%s from byte offset %llu (writes lost in a crash, or a "
			     "preallocated file): that frame is not read",
			     m->path, (unsigned long long)ckt_decode_partial_offset(m->dec),
			     (unsigned long long)zeros_end, zs, (unsigned long long)zero_from);
	else if (zeros_end)
		ckt_main_say("warning: '%s': the file ends in %llu zero byte%s from byte offset %llu "
			     "(writes lost in a crash, or a preallocated file): the trace is read up to there",
			     m->path, (unsigned long long)zeros_end, zs, (unsigned long long)zero_from);
	else if (ckt_decode_dropped_partial(m->dec))
		ckt_main_say("warning: '%s': the file ends inside the zstd frame at byte offset "
			     "%llu (cut while it was written, or corrupt): that frame is not read",
			     m->path, (unsigned long long)ckt_decode_partial_offset(m->dec));
	bool zeros;
	uint64_t trailing = ckt_decode_trailing(m->dec, &zeros);
	if (zeros)
		ckt_main_say("warning: '%s': %llu zero byte%s after the end record %s not read "
			     "(a preallocated file, or writes lost in a crash)",
			     m->path, (unsigned long long)trailing, trailing == 1 ? "" : "s",
			     trailing == 1 ? "is" : "are");
	else if (trailing == UINT64_MAX)
		ckt_main_say("warning: '%s': data after the end record is not read "
			     "(another trace appended to this one?)", m->path);
	else if (trailing)
		ckt_main_say("warning: '%s': %llu bytes after the end record are not read "
			     "(another trace appended to this one?)",
			     m->path, (unsigned long long)trailing);
	if (ckt_sites_finish(m->sites, st, top) < 0) {
		ckt_main_oom(m->path);
		return -1;
	}
	for (size_t i = 0; i < ckt_sites_nwarnings(m->sites); i++)
		if (!ckt_main_rules_said(m->rules, ckt_sites_warning(m->sites, i)))
			ckt_main_warn_clean(who, "", ckt_sites_warning(m->sites, i));
	ckt_main_untraced_allocators(m->path, m->sites, st);
	/* each output on its own (ckt_main_unwritten) */
	if (site_out[0])
		ckt_main_write_sites(site_out[0], m->sites, ckt_sites_write_csv);
	if (site_out[1])
		ckt_main_write_sites(site_out[1], m->sites, ckt_sites_write_folded);
	if (site_out[2])
		ckt_main_write_sites(site_out[2], m->sites, ckt_sites_write_folded_heap);
	if (a->diff) /* each live set can go once its results are made (the base's before the
		      * trace is read) */
		ckt_replay_drop_state(m->rep);
	return 0;
}

/* --jobs, or 2 where more than one CPU is available to this process */
static unsigned ckt_main_jobs(const struct ckt_args *a)
{
	cpu_set_t set;
	if (a->jobs)
		return a->jobs;
	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 1 ? 2 : 1;
}

struct ckt_main_job {
	const struct ckt_args *a;
	struct ckt_main_read *m;
	unsigned top;
	struct ckt_main_log log;
	int rc;
};

static void *ckt_main_job_run(void *arg)
{
	struct ckt_main_job *j = arg;
	ckt_main_log_to = &j->log;
	j->rc = ckt_main_read(j->a, j->m, false, j->top);
	ckt_main_log_to = NULL;
	return NULL;
}

/* Reads the trace, and with --diff the base too: on a thread of its own while this one reads
 * the trace (the two reads share nothing but the arguments, read only), unless --jobs 1, one
 * CPU, or file outputs (--csv and the like describe TRACE: read one after the other, a base
 * that fails midway leaves none written, whatever the CPUs). Their stderr lines come out as a
 * read of one after the other prints them: the base's, then the trace's unless the base
 * failed. */
static int ckt_main_read_all(const struct ckt_args *a, struct ckt_main_read *base,
			     struct ckt_main_read *cur, unsigned top)
{
	struct ckt_main_job j = { a, base, top, { 0 }, 0 };
	pthread_t th;
	/* one trace at a time: its decoding on a second thread where there is one */
	base->ahead = cur->ahead = ckt_main_jobs(a) >= 2;
	if (!a->diff)
		return ckt_main_read(a, cur, true, top);
	bool files = a->csv || a->sites_csv || a->folded || a->folded_heap || a->phases_csv;
	if (!files && ckt_main_jobs(a) >= 2)
		base->ahead = cur->ahead = false; /* two at once, a thread each */
	if (files || ckt_main_jobs(a) < 2 || pthread_create(&th, NULL, ckt_main_job_run, &j) != 0) {
		if (ckt_main_read(a, base, false, top) < 0)
			return -1;
		return ckt_main_read(a, cur, true, top);
	}
	struct ckt_main_log mine = { 0 };
	ckt_main_log_to = &mine;
	int rc = ckt_main_read(a, cur, true, top);
	ckt_main_log_to = NULL;
	pthread_join(th, NULL);
	if (j.log.len)
		fwrite(j.log.buf, 1, j.log.len, stderr);
	if (j.rc == 0 && mine.len)
		fwrite(mine.buf, 1, mine.len, stderr);
	free(j.log.buf);
	free(mine.buf);
	return j.rc < 0 || rc < 0 ? -1 : 0;
}

/* --diff: what makes every change meaningless or misleading, one line each (since 0.2.33: a
 * trace against itself read "no change" everywhere, and a run killed by a timeout, or a
 * wrapper's trace that ended by exec, read as a change of the program) */
static void ckt_main_diff_sides(const struct ckt_main_read *base, const struct ckt_main_read *cur)
{
	if (ckt_main_same_file(base->path, cur->path))
		ckt_main_say("warning: --diff: BASE and TRACE are one file ('%s'): every change reads 0", cur->path);
	/* since 0.2.42: traces of two tracers. What a tracer records changed between versions
	 * (format 5 added mprotect, so that address space reserved PROT_NONE counts once opened;
	 * 6 the moment of late running totals), and a diff of a format 4 trace against a format 5
	 * one of the same run read +60% at the peak mmap without a word. A header without a
	 * tracer_version is compared by its format alone. */
	unsigned fb = ckt_decode_header(base->dec)->format_version, fc = ckt_decode_header(cur->dec)->format_version;
	const char *vb = ckt_decode_header_get(base->dec, "tracer_version");
	const char *vc = ckt_decode_header_get(cur->dec, "tracer_version");
	if (fb != fc || (vb && vc && strcmp(vb, vc) != 0))
		ckt_main_say("warning: --diff: '%s' and '%s' were written by different tracers (%s%.*s, trace format "
			     "%u, and %s%.*s, format %u): what a tracer records changed between versions, so part "
			     "of a change may be the tracer's, not the program's; trace both with the same tracer",
			     base->path, cur->path, vb ? "" : "version unknown", vb ? 32 : 0, vb ? vb : "", fb,
			     vc ? "" : "version unknown", vc ? 32 : 0, vc ? vc : "", fc);
	const struct ckt_main_read *side[2] = { base, cur };
	for (int k = 0; k < 2; k++) {
		const struct ckt_replay_stats *st = side[k]->r.st;
		if (!st->ended || st->end_reason == CKT_END_EXIT)
			continue; /* a truncated trace has its own warning */
		const struct ckt_header_kv *exe = ckt_decode_header_kv(side[k]->dec, "exe");
		char secs[32];
		ckt_util_fmt_secs(secs, sizeof(secs), st->duration_ns, 3);
		if (st->end_reason == CKT_END_EXEC)
			ckt_main_say("warning: --diff: the %s, '%s', ended by exec at %s s: it holds '%.*s' until "
				     "it replaced itself, not the program it started (whose trace is a file of its own)",
				     k ? "trace" : "base", side[k]->path, secs, exe ? (int)exe->value_len : 9,
				     exe ? exe->value : "(unknown)");
		else
			ckt_main_say("warning: --diff: the %s, '%s', ended by %s at %s s: its peaks and live bytes "
				     "are those of a run cut short", k ? "trace" : "base", side[k]->path,
				     ckt_report_end_text(st->end_reason), secs);
	}
}

static int ckt_main_run(int argc, char **argv)
{
	struct ckt_args a = { 0 };
	struct ckt_main_read base = { 0 }, cur = { 0 };
	int status = CKT_EXIT_TRACE, rc;

	/* before anything is opened: a descriptor opened later takes 0, and "-" read it (`--diff
	 * BASE -` with the standard input closed read BASE twice: since 0.2.51 the error below) */
	ckt_main_stdin_closed = fcntl(0, F_GETFD) < 0 && errno == EBADF;
	uint64_t stack_small = ckt_main_on_thread ? 0 : ckt_util_stack_reserve();
	ckt_util_hash_init();
	if (stack_small)
		ckt_main_say("warning: the stack limit is %llu KiB (ulimit -s, its hard limit too), under "
			     "the 512 KiB that reading debug information can take, and no thread with a "
			     "stack of its own could be made: the reader may crash (raise it)",
			     (unsigned long long)(stack_small >> 10));
	/* a write past the file-size limit (ulimit -f) fails with EFBIG and is said as any
	 * failed write, instead of SIGXFSZ ending the reader without a word */
	signal(SIGXFSZ, SIG_IGN);
	/* likewise a reader of our standard output that went away (a closed pipe): EPIPE, one
	 * line and status 1, where SIGPIPE ended the reader with 141 and no word */
	signal(SIGPIPE, SIG_IGN);
	if (ckt_main_parse(argc, argv, &a) < 0)
		return CKT_EXIT_USAGE;
	if (a.help || a.version) {
		if (a.help)
			ckt_main_help();
		else
			printf(CKT_PROG " %s (trace format versions 1 to %d)\n", CKT_TRACER_VERSION, CKT_FORMAT_VERSION);
		if (fflush(stdout) == 0 && !ferror(stdout))
			return CKT_EXIT_OK;
		ckt_main_say("error: cannot write the %s to standard output: %s", a.help ? "help" : "version",
			     strerror(errno ? errno : EIO));
		return CKT_EXIT_TRACE;
	}
	ckt_sym_set_module_dirs(a.modules, a.nmodules);
	/* --diff: every site of each trace, to match them by function */
	unsigned top = a.diff ? UINT_MAX : a.top ? a.top : 10;
	base.path = a.diff;
	cur.path = a.trace;
	base.salvage = cur.salvage = a.salvage;
	base.max_held = cur.max_held = a.max_held;
	if (ckt_main_outputs_not_inputs(&a) < 0)
		goto out;
	if ((a.diff && ckt_main_open(&base) < 0) || ckt_main_open(&cur) < 0)
		goto out;
	if (ckt_main_read_all(&a, &base, &cur, top) < 0)
		goto out;
	if (a.diff && base.r.st->sample_r != cur.r.st->sample_r) {
		ckt_main_say("warning: --diff: '%s' and '%s' were traced with different modes or sampling "
			     "rates (CUZKTRACE_SAMPLE %llu and %llu): their bytes by phase and by function "
			     "differ by sampling too%s",
			     base.path, cur.path, (unsigned long long)base.r.st->sample_r,
			     (unsigned long long)cur.r.st->sample_r,
			     /* exact mode counts blocks at the size asked for, the default mode small
			      * ones at their usable size: the live heaps differ by that alone */
			     base.r.st->sample_r && cur.r.st->sample_r
				     ? ""
				     : ", and the heap totals by size (exact mode counts a block at the size "
				       "asked for, the default mode a small one at its usable size)");
	}
	/* since 0.2.40: the sampled peak RSS is the highest sample, and a peak shorter than the
	 * interval can fall between two: traced every 5 and every 100 ms, one program read "-16.1
	 * MiB (-69.3%)" at its peak RSS, in another phase, where VmHWM read -0.8%, without a word.
	 * Where both have samples (a trace without any has its own row) */
	if (a.diff && base.rss_ms != cur.rss_ms && base.rss_ms && cur.rss_ms && base.r.st->peak_rss.seen &&
	    cur.r.st->peak_rss.seen)
		ckt_main_say("warning: --diff: '%s' and '%s' sampled RSS at different intervals (CUZKTRACE_RSS_MS "
			     "%llu and %llu): a peak shorter than an interval can fall between two samples, so "
			     "the peak RSS, its phases and the bytes live at it differ by sampling too (the "
			     "VmHWM row does not)",
			     base.path, cur.path, (unsigned long long)base.rss_ms, (unsigned long long)cur.rss_ms);
	/* since 0.2.45: a site is the innermost frame of the program's own code in its stack, and
	 * a stack cut shorter may not reach it (CUZKTRACE_DEPTH=0: no stack, every block is "(no
	 * call stack)"); traced with 64 and 0 frames, one program read every function as gone and
	 * "(no call stack)" +72 MiB as new, without a word. Where both headers say their depth. */
	if (a.diff && base.depth != cur.depth && ckt_decode_header_get(base.dec, "setting.CUZKTRACE_DEPTH") &&
	    ckt_decode_header_get(cur.dec, "setting.CUZKTRACE_DEPTH"))
		ckt_main_say("warning: --diff: '%s' and '%s' recorded call stacks of different depths "
			     "(CUZKTRACE_DEPTH %llu and %llu): a stack cut shorter may not reach the function "
			     "that allocated (with 0 every block is '(no call stack)'), so functions can read as "
			     "gone in one trace and new in the other; trace both with the same depth",
			     base.path, cur.path, (unsigned long long)base.depth, (unsigned long long)cur.depth);
	if (a.diff)
		ckt_main_diff_sides(&base, &cur);
	const char *fn = NULL;
	size_t fn_len = 0;
	if (a.diff && ckt_report_diff_disjoint(&base.r, &cur.r, &fn, &fn_len))
		ckt_main_say("warning: --diff: the functions found in both traces hold under 5%% of the "
			     "bytes at the peak heap, so nearly every function reads as gone or new: "
			     "functions are matched by their whole names, crate or namespace included "
			     "('%.*s' is in the base only): were the two built under different names?",
			     (int)(fn_len < 200 ? fn_len : 200), fn);
	/* a Rust program built with v0 symbols in one trace and legacy ones in the other: generic
	 * functions and closures are named apart ("build_gen::<u64>", "build_gen"), and read as
	 * gone in one and new in the other (since 0.2.27; 16 of 21 functions "changed" without a
	 * word for a program whose peaks did not move). */
	unsigned mb = a.diff && base.r.sites ? ckt_sites_rust_mangling(base.r.sites) : 0;
	unsigned mc = a.diff && cur.r.sites ? ckt_sites_rust_mangling(cur.r.sites) : 0;
	if (mb && mc && mb != mc)
		ckt_main_say("warning: --diff: '%s' names Rust functions by v0 symbols and '%s' by legacy "
			     "ones (-C symbol-mangling-version): a generic function or a closure is named "
			     "apart in each ('f::<u64>' against 'f'), and reads as gone in one and new in "
			     "the other; build both with the same mangling",
			     mb & CKT_SYM_RUST_V0 ? base.path : cur.path, mb & CKT_SYM_RUST_V0 ? cur.path : base.path);
	if (ckt_main_output_stdout(&a))
		rc = 0; /* a file output went there instead */
	else if (a.diff)
		rc = a.json ? ckt_report_diff_json(stdout, &base.r, &cur.r)
			    : ckt_report_diff_text(stdout, &base.r, &cur.r, a.top ? a.top : 10);
	else
		rc = a.json ? ckt_report_json_print(stdout, &cur.r) : ckt_report_text_print(stdout, &cur.r);
	if (rc < 0) {
		ckt_main_say("error: cannot write to standard output: %s", strerror(-rc));
		goto out;
	}
	status = ckt_main_unwritten ? CKT_EXIT_TRACE : CKT_EXIT_OK;
out:
	ckt_main_read_free(&base);
	ckt_main_read_free(&cur);
	return status;
}

/* Under a small stack limit that the hard limit keeps (bash's `ulimit -s 128` sets both), the
 * reader runs on a thread with a stack of CKT_MAIN_STACK (a mapping, which RLIMIT_STACK does not
 * bound): libdw's line tables recursed past 128 KiB and the reader died of SIGSEGV with no
 * line. Where the thread cannot be made (an address-space limit), it runs here and says so. */
#define CKT_MAIN_STACK (8u << 20)
struct ckt_main_call {
	int argc, rc;
	char **argv;
};

static void *ckt_main_thread(void *p)
{
	struct ckt_main_call *c = p;
	c->rc = ckt_main_run(c->argc, c->argv);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rlimit stk;
	pthread_attr_t at;
	pthread_t t;
	struct ckt_main_call c = { argc, 0, argv };
	/* (a soft limit under a higher hard one is raised instead: ckt_util_stack_reserve) */
	if (getrlimit(RLIMIT_STACK, &stk) == 0 && stk.rlim_max != RLIM_INFINITY && stk.rlim_max < (1u << 20) &&
	    pthread_attr_init(&at) == 0) {
		ckt_main_on_thread = true; /* before the thread reads it */
		int sized = pthread_attr_setstacksize(&at, CKT_MAIN_STACK) == 0;
		/* the threads it makes (--jobs 2's decoder, --diff's base) likewise, set before it
		 * runs: glibc sizes a thread's default stack by the soft limit it saw at start */
		if (sized)
			(void)pthread_setattr_default_np(&at);
		int made = sized && pthread_create(&t, &at, ckt_main_thread, &c) == 0;
		pthread_attr_destroy(&at);
		if (made) {
			pthread_join(t, NULL);
			return c.rc;
		}
		ckt_main_on_thread = false;
	}
	return ckt_main_run(argc, argv);
}
