/* report_csv.c: the timeline CSV, one row per RSS sample in replay (time) order. Columns come
 * from one table so later ones (per-phase, CUDA...) are appended in one place; rows are
 * written as samples arrive, never stored.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct ckt_report_csv {
	struct ckt_util_out out;
	FILE *f; /* out.f */
	int err; /* first errno seen while writing; 0 while all is well */
};

struct ckt_report_csv_column {
	const char *name;
	/* writes the cell for s into buf */
	void (*cell)(char *buf, size_t n, const struct ckt_sample *s);
};

static void ckt_report_csv_t_s(char *buf, size_t n, const struct ckt_sample *s)
{
	ckt_util_fmt_secs(buf, n, s->ts, 6);
}

static void ckt_report_csv_rss(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->rss);
}

static void ckt_report_csv_heap(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->heap);
}

static void ckt_report_csv_mmap(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->anon_mmap + s->file_mmap);
}

static void ckt_report_csv_gpu(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->gpu);
}

static void ckt_report_csv_pinned(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->pinned);
}

/* The bytes the character at p (left bytes on) takes in the list (*in) and in the cell (*out:
 * '?' for a control byte or invalid UTF-8, a quote doubled); 0 in *clean where it is '?'. */
static void ckt_report_csv_char(const char *p, size_t left, size_t *in, size_t *out, bool *clean)
{
	size_t len = ckt_util_clean_len((const unsigned char *)p, left);
	*clean = len != 0;
	*in = len ? len : ckt_util_unclean_len((const unsigned char *)p, left);
	*out = len ? len + (*p == '"') : 1;
}

/* Phase names joined by '+', quoted per RFC 4180 when a name holds a comma or quote; control
 * bytes (line breaks too) and invalid UTF-8 shown as '?' (ckt_util_clean_len). Longer than the
 * cell, cut after the last whole name that fits, as "+...", so that the list still splits at
 * the '+' outside a name's quotes (since 0.2.51; cut inside a quoted name, it left that quote
 * open), or where a first name alone is longer, in it, its quote closed, as "...". */
static void ckt_report_csv_phases(char *buf, size_t n, const struct ckt_sample *s)
{
	const char *p = s->active_phases ? s->active_phases : "";
	size_t k = 0, left = strlen(p), in, out;
	int quote = strpbrk(p, ",\"") != NULL;
	bool clean;

	size_t whole = 0; /* the whole list's bytes in the cell */
	for (size_t i = 0; i < left; i += in, whole += out)
		ckt_report_csv_char(p + i, left - i, &in, &out, &clean);
	bool cut_it = whole + (quote ? 2 : 0) + 1 > n; /* with the cell's quotes and the NUL */
	/* in_name: inside a name's own quotes; cut: the cell up to the last '+' outside them (0:
	 * none yet). Room kept, cut: a name's closing quote doubled, "...", the cell's quote, NUL */
	bool in_name = false;
	size_t cut = 0;
	if (quote)
		buf[k++] = '"';
	while (*p) {
		ckt_report_csv_char(p, left, &in, &out, &clean);
		if (cut_it && k + out + 7 > n)
			break;
		if (*p == '"')
			in_name = !in_name;
		else if (*p == '+' && !in_name)
			cut = k + 1;
		if (!clean) {
			buf[k++] = '?';
		} else {
			if (*p == '"')
				buf[k++] = '"';
			memcpy(buf + k, p, in);
			k += in;
		}
		p += in;
		left -= in;
	}
	if (*p) {
		if (cut)
			k = cut;
		else if (in_name)
			k += (memcpy(buf + k, "\"\"", 2), 2);
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	if (quote)
		buf[k++] = '"';
	buf[k] = '\0';
}

/* The header line `t_s,rss_bytes,heap_bytes,mmap_bytes` is a published interface: append
 * new columns at the end, never reorder. */
static const struct ckt_report_csv_column ckt_report_csv_columns[] = {
	{ "t_s", ckt_report_csv_t_s },
	{ "rss_bytes", ckt_report_csv_rss },
	{ "heap_bytes", ckt_report_csv_heap },
	{ "mmap_bytes", ckt_report_csv_mmap },
	{ "gpu_bytes", ckt_report_csv_gpu },       /* CUDA device + pool + VMM, all devices */
	{ "pinned_bytes", ckt_report_csv_pinned }, /* CUDA pinned host RAM */
	{ "active_phases", ckt_report_csv_phases }, /* names joined by '+' (phases.c fills them) */
};
#define CKT_REPORT_CSV_NCOLS (sizeof(ckt_report_csv_columns) / sizeof(ckt_report_csv_columns[0]))

static void ckt_report_csv_check(struct ckt_report_csv *c, int rc)
{
	if (rc < 0 && !c->err)
		c->err = errno ? errno : EIO;
}

int ckt_report_csv_open(const char *path, struct ckt_report_csv **out)
{
	struct ckt_report_csv *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	int e = ckt_util_out_open(&c->out, path);
	if (e < 0) {
		free(c);
		return e;
	}
	c->f = c->out.f;
	for (size_t i = 0; i < CKT_REPORT_CSV_NCOLS; i++) {
		ckt_report_csv_check(c, fputs(ckt_report_csv_columns[i].name, c->f) == EOF ? -1 : 0);
		ckt_report_csv_check(c, fputc(i + 1 < CKT_REPORT_CSV_NCOLS ? ',' : '\n', c->f) == EOF ? -1 : 0);
	}
	*out = c;
	return 0;
}

void ckt_report_csv_sample(void *ctx, const struct ckt_sample *s)
{
	struct ckt_report_csv *c = ctx;
	char cell[4096]; /* active_phases can be long */

	if (c->err)
		return;
	for (size_t i = 0; i < CKT_REPORT_CSV_NCOLS; i++) {
		ckt_report_csv_columns[i].cell(cell, sizeof(cell), s);
		ckt_report_csv_check(c, fputs(cell, c->f) == EOF ? -1 : 0);
		ckt_report_csv_check(c, fputc(i + 1 < CKT_REPORT_CSV_NCOLS ? ',' : '\n', c->f) == EOF ? -1 : 0);
	}
}

int ckt_report_csv_close(struct ckt_report_csv *c, bool ok)
{
	if (!c)
		return 0;
	int e = c->err, rc = ckt_util_out_close(&c->out, ok && !e);
	free(c);
	return e ? -e : rc;
}
