/* report.h: the three presentations of a replayed trace: the text report, the JSON object
 * and the timeline CSV. They only format what decode (header) and replay (stats) computed;
 * choosing outputs and reporting errors is main.c's.
 */
#ifndef CKT_REPORT_H
#define CKT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"
#include "kin.h"
#include "phases.h"
#include "replay.h"
#include "sites.h"

struct ckt_report {
	const char *trace_path;
	const struct ckt_decoder *dec;      /* header */
	const struct ckt_replay_stats *st;  /* after ckt_replay_finish */
	const struct ckt_phases *phases;    /* after ckt_phases_finish; NULL: not observed */
	bool by_thread;                     /* --by thread: add the thread-group tables */
	const struct ckt_sites *sites;      /* after ckt_sites_finish; NULL: no site sections */
	const struct ckt_kin_list *kin;     /* traces of children and later images; NULL: not looked */
};

/* Whether the trace can say how long the program's threads waited for the tracer (format
 * version 7's WAITED; an older trace has no figure: JSON null). */
bool ckt_report_has_wait(const struct ckt_report *rep);

/* The tracer's tables that can fill (format version 8's LIMIT, CKT_LIMIT_*): the JSON's name,
 * what happened to the table, in words ("call-stack table filled": stderr puts "the tracer's"
 * before it, the text "its"), and what the trace may lack from then on. */
struct ckt_report_limit {
	const char *key, *what, *lacks;
};
extern const struct ckt_report_limit ckt_report_limits[CKT_LIMIT_KINDS + 1];
/* Whether the trace can say which tables filled (version 8, or a LIMIT seen): JSON null if not */
bool ckt_report_has_limits(const struct ckt_report *rep);
struct ckt_json;
/* "key": the tables that filled, [{table, t_s}] in the order of their kinds, or null */
void ckt_report_json_limits(struct ckt_json *j, const char *key, const struct ckt_report *rep);

/* "<exe> (pid <pid>)" from the header ("(unknown)" without an exe). */
void ckt_report_put_program(FILE *out, const struct ckt_report *rep);

/* How the traced process ended, in words ("exit", "signal SIGTERM", "exec", ...), for a trace
 * with an END record (st->ended). The string is static: use it before the next call. */
const char *ckt_report_end_text(uint64_t reason);

/* The JSON's end_reason ("exit", "signal", ...), NULL for a truncated trace. */
const char *ckt_report_end_key(const struct ckt_replay_stats *st);

/* Human-readable report. Returns 0, or -errno when writing to out failed. */
int ckt_report_text_print(FILE *out, const struct ckt_report *rep);

/* One JSON object (and a newline). Returns 0, or -errno when writing to out failed. */
int ckt_report_json_print(FILE *out, const struct ckt_report *rep);

/* --diff BASE: TRACE (cur) against BASE (base), both finished with every site shown
 * (report_diff.c). The text shows the top functions that changed most. Return 0, or -errno
 * when writing to out failed. */
int ckt_report_diff_text(FILE *out, const struct ckt_report *base, const struct ckt_report *cur, unsigned top);
int ckt_report_diff_json(FILE *out, const struct ckt_report *base, const struct ckt_report *cur);
/* --diff matches call sites by function name: true when the two programs' file names differ,
 * both traces hold functions at the peak heap and those found in both hold under 5% of
 * either's bytes there (two builds under different crate or program names: only the C
 * library's own functions match), in which case *example gets the base's largest function
 * (until the reports are freed) */
bool ckt_report_diff_disjoint(const struct ckt_report *base, const struct ckt_report *cur, const char **example,
			      size_t *len);

/* JSON writing, shared by report_json.c and report_diff.c: tracks whether the next member
 * needs a comma, so emitting code reads like the output. */
struct ckt_json {
	FILE *f;
	int depth;
	int first;
};
void ckt_report_json_str(struct ckt_json *j, const char *str, size_t n);
/* "key": ["name", ...] */
void ckt_report_json_names(struct ckt_json *j, const char *key, const char *const *names, size_t n);
void ckt_report_json_key(struct ckt_json *j, const char *key);
void ckt_report_json_null(struct ckt_json *j, const char *key); /* "key": null */
void ckt_report_json_open(struct ckt_json *j, const char *key); /* key NULL: a bare object */
void ckt_report_json_close(struct ckt_json *j);
void ckt_report_json_u64(struct ckt_json *j, const char *key, uint64_t v);
void ckt_report_json_u64_if(struct ckt_json *j, const char *key, uint64_t v, bool has);
void ckt_report_json_i64(struct ckt_json *j, const char *key, int64_t v);
void ckt_report_json_secs(struct ckt_json *j, const char *key, uint64_t ns, int valid);
void ckt_report_json_array_open(struct ckt_json *j, const char *key);
void ckt_report_json_array_close(struct ckt_json *j);
void ckt_report_json_elem_open(struct ckt_json *j); /* an object in an array */

/* Timeline CSV, streamed during replay so memory does not grow with the trace:
 * open it, pass ckt_report_csv_sample (with the handle as ctx) to
 * ckt_replay_set_sample_sink, close it. open and close return 0 or -errno; a failed write in
 * between is remembered and reported by close. */
struct ckt_report_csv;
int ckt_report_csv_open(const char *path, struct ckt_report_csv **out);
void ckt_report_csv_sample(void *ctx, const struct ckt_sample *s);
/* Closes c; with ok (the trace read to its end) the file is put in place (util.h). 0 or -errno. */
int ckt_report_csv_close(struct ckt_report_csv *c, bool ok);

#endif
