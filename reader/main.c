/* main.c: the cuzktrace-report command: parses options, wires decode -> replay -> reports,
 * and is the only place that prints errors and warnings or chooses the exit status
 * (0 ok, 1 bad trace or unwritable output, 2 usage).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode.h"
#include "replay.h"
#include "report.h"
#include "util.h"

#define CKT_PROG "cuzktrace-report"

enum ckt_exit { CKT_EXIT_OK = 0, CKT_EXIT_TRACE = 1, CKT_EXIT_USAGE = 2 };

enum ckt_opt_id { CKT_OPT_JSON, CKT_OPT_CSV, CKT_OPT_HELP };

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
	  "t_s,rss_bytes,heap_bytes,mmap_bytes" },
	{ "--help", NULL, CKT_OPT_HELP, "show this help and exit" },
};
#define CKT_NOPTS (sizeof(ckt_opts) / sizeof(ckt_opts[0]))

struct ckt_args {
	bool json;
	bool help;
	const char *csv;
	const char *trace;
};

static void ckt_main_help(void)
{
	printf("usage: " CKT_PROG " [options] TRACE\n\n"
	       "Reads a cuzktrace trace file and reports peak heap, mmap and RSS usage.\n\n"
	       "options:\n");
	for (size_t i = 0; i < CKT_NOPTS; i++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%s%s", ckt_opts[i].name, ckt_opts[i].arg ? " " : "",
			 ckt_opts[i].arg ? ckt_opts[i].arg : "");
		printf("  %-18s", left);
		/* continuation lines of a help text line up under its first line */
		for (const char *p = ckt_opts[i].help; *p; p++) {
			putchar(*p);
			if (*p == '\n')
				printf("  %-18s", "");
		}
		putchar('\n');
	}
	printf("\nA value may also be given as --option=VALUE. \"--\" ends the options.\n\n"
	       "exit status:\n"
	       "  0  report written (also for a truncated trace: a warning says so)\n"
	       "  1  the trace is unreadable, empty, corrupt, not a trace or of an unsupported\n"
	       "     version, or an output file cannot be written\n"
	       "  2  usage error\n");
}

__attribute__((format(printf, 1, 2))) static int ckt_main_usage(const char *fmt, ...)
{
	va_list ap;
	fputs(CKT_PROG ": error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nusage: " CKT_PROG " [options] TRACE (see --help)\n", stderr);
	return -1;
}

/* Fills a from argv. Returns 0, or -1 after printing a usage error. */
static int ckt_main_parse(int argc, char **argv, struct ckt_args *a)
{
	bool opts_done = false;

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts_done || s[0] != '-' || s[1] == '\0') {
			if (a->trace)
				return ckt_main_usage("more than one TRACE given ('%s' and '%s')", a->trace, s);
			a->trace = s;
			continue;
		}
		if (strcmp(s, "--") == 0) {
			opts_done = true;
			continue;
		}
		if (strcmp(s, "-h") == 0)
			s = "--help";
		const struct ckt_opt *o = NULL;
		const char *val = NULL;
		size_t nlen = strcspn(s, "=");
		for (size_t k = 0; k < CKT_NOPTS; k++)
			if (strlen(ckt_opts[k].name) == nlen && strncmp(s, ckt_opts[k].name, nlen) == 0)
				o = &ckt_opts[k];
		if (!o)
			return ckt_main_usage("unknown option '%.*s'", (int)nlen, s);
		if (o->arg) {
			if (s[nlen] == '=')
				val = s + nlen + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return ckt_main_usage("option '%s' needs a value (%s)", o->name, o->arg);
			if (!*val)
				return ckt_main_usage("option '%s' needs a non-empty value", o->name);
		} else if (s[nlen] == '=') {
			return ckt_main_usage("option '%s' takes no value", o->name);
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
		}
	}
	if (!a->help && !a->trace)
		return ckt_main_usage("no TRACE file given");
	return 0;
}

/* Opening the CSV for writing truncates it: if it is the trace itself, refuse before that. */
static bool ckt_main_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void ckt_main_warnings(const char *path, const struct ckt_replay_stats *st)
{
	char t[32];
	if (st->truncated)
		fprintf(stderr, CKT_PROG ": warning: '%s': trace is truncated (no end record); it covers %s s\n",
			path, ckt_util_fmt_secs(t, sizeof(t), st->duration_ns, 3));
	if (st->lost)
		fprintf(stderr, CKT_PROG ": warning: '%s': %llu events were lost; totals are inexact\n", path,
			(unsigned long long)st->lost);
}

int main(int argc, char **argv)
{
	struct ckt_args a = { 0 };
	struct ckt_error err = { 0 };
	struct ckt_decoder *dec = NULL;
	struct ckt_replay *rep = NULL;
	struct ckt_report_csv *csv = NULL;
	int status = CKT_EXIT_TRACE, rc;

	if (ckt_main_parse(argc, argv, &a) < 0)
		return CKT_EXIT_USAGE;
	if (a.help) {
		ckt_main_help();
		return fflush(stdout) == 0 ? CKT_EXIT_OK : CKT_EXIT_TRACE;
	}

	if (ckt_decode_open(a.trace, &dec, &err) < 0) {
		fprintf(stderr, CKT_PROG ": error: '%s': %s\n", a.trace, err.msg);
		return CKT_EXIT_TRACE;
	}
	rep = ckt_replay_new(ckt_decode_header(dec)->page_size);
	if (rep) {
		const char *rate = ckt_decode_header_get(dec, "setting.CUZKTRACE_SAMPLE");
		ckt_replay_set_sample(rep, rate ? strtoull(rate, NULL, 10) : 0);
	}
	if (!rep) {
		fprintf(stderr, CKT_PROG ": error: out of memory\n");
		goto out;
	}
	if (a.csv) {
		if (ckt_main_same_file(a.csv, a.trace)) {
			fprintf(stderr, CKT_PROG ": error: cannot write '%s': it is the trace being read\n", a.csv);
			goto out;
		}
		rc = ckt_report_csv_open(a.csv, &csv);
		if (rc < 0) {
			fprintf(stderr, CKT_PROG ": error: cannot write '%s': %s\n", a.csv, strerror(-rc));
			goto out;
		}
		ckt_replay_set_sample_sink(rep, ckt_report_csv_sample, csv);
	}
	if (ckt_replay_run(dec, rep, &err) < 0) {
		fprintf(stderr, CKT_PROG ": error: '%s': %s\n", a.trace, err.msg);
		goto out;
	}
	rc = ckt_report_csv_close(csv);
	csv = NULL;
	if (rc < 0) {
		fprintf(stderr, CKT_PROG ": error: cannot write '%s': %s\n", a.csv, strerror(-rc));
		goto out;
	}

	const struct ckt_replay_stats *st = ckt_replay_stats(rep);
	struct ckt_report r = { a.trace, dec, st };
	ckt_main_warnings(a.trace, st);
	rc = a.json ? ckt_report_json_print(stdout, &r) : ckt_report_text_print(stdout, &r);
	if (rc < 0) {
		fprintf(stderr, CKT_PROG ": error: cannot write to standard output: %s\n", strerror(-rc));
		goto out;
	}
	status = CKT_EXIT_OK;
out:
	ckt_report_csv_close(csv);
	ckt_replay_free(rep);
	ckt_decode_close(dec);
	return status;
}
