/* report_json.c: the --json object, the machine-readable report that scripts and tests read.
 * Key names are an interface: add keys, never rename. All bytes are exact integers, times are
 * seconds with 6 decimals, and strings are escaped to valid UTF-8 JSON whatever the trace holds.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void ckt_report_json_indent(struct ckt_json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

void ckt_report_json_str(struct ckt_json *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	FILE *f = j->f;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = ckt_util_utf8_len(s + i, n - i);
		if (len == 0) {
			fputs("\\ufffd", f); /* invalid byte: JSON text must be valid Unicode */
			i++;
			continue;
		}
		if (len > 1) {
			if (ckt_util_clean_len(s + i, n - i) == len)
				fwrite(s + i, 1, len, f);
			else /* C1 control, separator or bidi override: 2 or 3 bytes, below U+10000 */
				fprintf(f, "\\u%04x", len == 2 ? (unsigned)(c & 0x1f) << 6 | (s[i + 1] & 0x3f)
							: (unsigned)(c & 0x0f) << 12 |
								  (unsigned)(s[i + 1] & 0x3f) << 6 |
								  (s[i + 2] & 0x3f));
			i += len;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
		i++;
	}
	fputc('"', f);
}

void ckt_report_json_key(struct ckt_json *j, const char *key)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = 0;
	ckt_report_json_indent(j);
	ckt_report_json_str(j, key, strlen(key));
	fputs(": ", j->f);
}

void ckt_report_json_null(struct ckt_json *j, const char *key)
{
	ckt_report_json_key(j, key);
	fputs("null", j->f);
}

void ckt_report_json_open(struct ckt_json *j, const char *key)
{
	if (key)
		ckt_report_json_key(j, key);
	fputc('{', j->f);
	j->depth++;
	j->first = 1;
}

void ckt_report_json_close(struct ckt_json *j)
{
	j->depth--;
	if (!j->first)
		ckt_report_json_indent(j);
	fputc('}', j->f);
	j->first = 0;
}

void ckt_report_json_u64(struct ckt_json *j, const char *key, uint64_t v)
{
	ckt_report_json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

/* v, or null when the trace does not have the figure */
void ckt_report_json_u64_if(struct ckt_json *j, const char *key, uint64_t v, bool has)
{
	if (has) {
		ckt_report_json_u64(j, key, v);
		return;
	}
	ckt_report_json_null(j, key);
}

void ckt_report_json_i64(struct ckt_json *j, const char *key, int64_t v)
{
	ckt_report_json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void ckt_report_json_secs(struct ckt_json *j, const char *key, uint64_t ns, int valid)
{
	char buf[32];
	ckt_report_json_key(j, key);
	fputs(valid ? ckt_util_fmt_secs(buf, sizeof(buf), ns, 6) : "null", j->f);
}

/* "key": the NUL-terminated s, or null where s is NULL */
static void ckt_report_json_cstr(struct ckt_json *j, const char *key, const char *s)
{
	ckt_report_json_key(j, key);
	if (s)
		ckt_report_json_str(j, s, strlen(s));
	else
		fputs("null", j->f);
}

static void ckt_report_json_bool(struct ckt_json *j, const char *key, int v)
{
	ckt_report_json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* A header value as a JSON string, or null when the key is absent. */
static void ckt_report_json_hdr_str(struct ckt_json *j, const char *key, const struct ckt_decoder *d,
			     const char *hkey)
{
	const struct ckt_header_kv *kv = ckt_decode_header_kv(d, hkey);
	ckt_report_json_key(j, key);
	if (kv)
		ckt_report_json_str(j, kv->value, kv->value_len);
	else
		fputs("null", j->f);
}

/* A header value that should be a decimal integer; null when absent or not a number. */
static void ckt_report_json_hdr_int(struct ckt_json *j, const char *key, const struct ckt_decoder *d,
			     const char *hkey)
{
	const char *v = ckt_decode_header_get(d, hkey);
	char *end;
	ckt_report_json_key(j, key);
	if (v && *v) {
		errno = 0;
		long long n = strtoll(v, &end, 10);
		if (!errno && !*end) {
			fprintf(j->f, "%lld", n);
			return;
		}
	}
	fputs("null", j->f);
}

static void ckt_report_json_argv(struct ckt_json *j, const struct ckt_decoder *d)
{
	char sep;
	const struct ckt_header_kv *kv = ckt_decode_args(d, &sep);

	ckt_report_json_key(j, "argv");
	if (!kv) {
		fputs("[]", j->f);
		return;
	}
	fputc('[', j->f);
	for (size_t start = 0, i = 0;; i++) {
		if (i == kv->value_len || kv->value[i] == sep) {
			if (start)
				fputs(", ", j->f);
			ckt_report_json_str(j, kv->value + start, i - start);
			start = i + 1;
			if (i == kv->value_len)
				break;
		}
	}
	fputc(']', j->f);
}

const char *ckt_report_end_key(const struct ckt_replay_stats *st)
{
	if (!st->ended)
		return NULL;
	switch (st->end_reason) {
	case CKT_END_EXIT: return "exit";
	case CKT_END_EXEC: return "exec";
	case CKT_END_ERROR: return "error";
	case CKT_END_ABORT: return "abort";
	default: return ckt_end_signal(st->end_reason) ? "signal" : "unknown";
	}
}

/* ---- CUDA figures ---- */

void ckt_report_json_array_open(struct ckt_json *j, const char *key)
{
	ckt_report_json_key(j, key);
	fputc('[', j->f);
	j->depth++;
	j->first = 1;
}

void ckt_report_json_array_close(struct ckt_json *j)
{
	j->depth--;
	if (!j->first)
		ckt_report_json_indent(j);
	fputc(']', j->f);
	j->first = 0;
}

void ckt_report_json_elem_open(struct ckt_json *j)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = 0;
	ckt_report_json_indent(j);
	fputc('{', j->f);
	j->depth++;
	j->first = 1;
}

void ckt_report_json_names(struct ckt_json *j, const char *key, const char *const *names, size_t n)
{
	ckt_report_json_key(j, key);
	fputc('[', j->f);
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(", ", j->f);
		ckt_report_json_str(j, names[k], strlen(names[k]));
	}
	fputc(']', j->f);
}

/* ---- phases ---- */

/* active_phases (names, oldest activation first) and by_phase ([{phase, bytes}], largest
 * first) at the peak of moment m; with --by thread also by_thread ([{thread, bytes}]) for the
 * heap and RSS peaks. Empty lists without a phase observer or for m == CKT_AT_COUNT (a peak
 * phases do not follow). */
static void ckt_report_json_phases_at(struct ckt_json *j, const struct ckt_phases *ph,
				      enum ckt_moment m, bool by_thread)
{
	const char *const *names = NULL;
	const struct ckt_phases_share *sh = NULL;
	size_t na = 0, n = 0;

	if (ph && m < CKT_AT_COUNT) {
		na = ckt_phases_active_at(ph, m, &names);
		n = ckt_phases_by_phase(ph, m, &sh);
	}
	ckt_report_json_names(j, "active_phases", names, na);
	ckt_report_json_array_open(j, "by_phase");
	for (size_t k = 0; k < n; k++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, "phase");
		ckt_report_json_str(j, sh[k].name, strlen(sh[k].name));
		ckt_report_json_u64(j, "bytes", sh[k].bytes);
		/* since 0.2.40: the default mode's samples among them and the estimate's standard
		 * error (0 and 0 for exact bytes) */
		ckt_report_json_u64(j, "samples", sh[k].samples);
		ckt_report_json_u64(j, "estimate_error_bytes", ckt_phases_share_error(ph, &sh[k]));
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
	if (!ph || !by_thread || (m != CKT_AT_PEAK_HEAP && m != CKT_AT_PEAK_RSS))
		return;
	const struct ckt_phases_group *g;
	n = ckt_phases_groups(ph, &g);
	ckt_report_json_array_open(j, "by_thread");
	for (size_t k = 0; k < n; k++) {
		uint64_t b = m == CKT_AT_PEAK_HEAP ? g[k].at_peak_heap : g[k].at_peak_rss;
		if (!b)
			continue;
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, "thread");
		ckt_report_json_str(j, g[k].name, strlen(g[k].name));
		ckt_report_json_u64(j, "bytes", b);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
}

/* phases: [{name, active_s, allocated_bytes, peak_bytes, ...}] in order of first use, "(none)"
 * last (active_s null: never marked); phase_notes: the log lines that drove CUZKTRACE_PHASES
 * rules; thread_groups with --by thread. */
/* rss: the trace has RSS samples (else the bytes at the peak RSS are null) */
static void ckt_report_json_phases(struct ckt_json *j, const struct ckt_phases *ph, bool by_thread, bool rss)
{
	const struct ckt_phases_row *rows;
	const struct ckt_phases_note *notes;
	uint64_t total;
	size_t n = ckt_phases_table(ph, &rows);

	ckt_report_json_array_open(j, "phases");
	for (size_t k = 0; k < n; k++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, "name");
		ckt_report_json_str(j, rows[k].name, strlen(rows[k].name));
		ckt_report_json_secs(j, "active_s", rows[k].active_ns, rows[k].marked);
		ckt_report_json_u64(j, "allocated_bytes", rows[k].allocated_bytes);
		ckt_report_json_u64(j, "peak_bytes", rows[k].peak_bytes);
		ckt_report_json_u64(j, "at_peak_heap_bytes", rows[k].at_peak_heap);
		ckt_report_json_u64_if(j, "at_peak_rss_bytes", rows[k].at_peak_rss, rss);
		ckt_report_json_u64(j, "gpu_allocated_bytes", rows[k].gpu_allocated_bytes);
		ckt_report_json_u64(j, "gpu_peak_bytes", rows[k].gpu_peak_bytes);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);

	n = ckt_phases_notes(ph, &notes, &total);
	ckt_report_json_u64(j, "phase_notes_total", total);
	ckt_report_json_array_open(j, "phase_notes");
	for (size_t k = 0; k < n; k++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_secs(j, "t_s", notes[k].ts, 1);
		ckt_report_json_key(j, "phase");
		ckt_report_json_str(j, notes[k].phase, strlen(notes[k].phase));
		ckt_report_json_key(j, "text");
		ckt_report_json_str(j, notes[k].text, notes[k].len);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);

	if (!by_thread)
		return;
	const struct ckt_phases_group *g;
	n = ckt_phases_groups(ph, &g);
	ckt_report_json_array_open(j, "thread_groups");
	for (size_t k = 0; k < n; k++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, "name");
		ckt_report_json_str(j, g[k].name, strlen(g[k].name));
		ckt_report_json_u64(j, "threads", g[k].threads);
		ckt_report_json_u64(j, "allocated_bytes", g[k].allocated_bytes);
		ckt_report_json_u64(j, "at_peak_heap_bytes", g[k].at_peak_heap);
		ckt_report_json_u64_if(j, "at_peak_rss_bytes", g[k].at_peak_rss, rss);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
}

/* bytes, t_s, and the phase split at moment m (CKT_AT_COUNT: none is followed) */
static void ckt_report_json_cuda_peak(struct ckt_json *j, const char *key, const struct ckt_peak *p,
				      const struct ckt_phases *ph, enum ckt_moment m)
{
	ckt_report_json_open(j, key);
	ckt_report_json_u64(j, "bytes", p->bytes);
	ckt_report_json_secs(j, "t_s", p->ts, p->bytes > 0);
	ckt_report_json_phases_at(j, ph, m, false);
}

static void ckt_report_json_cuda(struct ckt_json *j, const struct ckt_replay_stats *st,
				 const struct ckt_phases *ph)
{
	ckt_report_json_cuda_peak(j, "peak_gpu", &st->peak_gpu, ph, CKT_AT_PEAK_GPU);
	ckt_report_json_u64(j, "device_bytes", st->peak_gpu_kind[CKT_CUDA_DEVICE]);
	ckt_report_json_u64(j, "pool_bytes", st->peak_gpu_kind[CKT_CUDA_POOL]);
	ckt_report_json_u64(j, "vmm_bytes", st->peak_gpu_kind[CKT_CUDA_VMM]);
	ckt_report_json_array_open(j, "devices");
	for (size_t i = 0; i < st->n_cuda_devices; i++) {
		const struct ckt_cuda_device *d = &st->cuda_devices[i];
		ckt_report_json_elem_open(j);
		ckt_report_json_cstr(j, "uuid", d->uuid[0] ? d->uuid : NULL);
		ckt_report_json_u64(j, "ordinal", d->ordinal);
		ckt_report_json_cstr(j, "name", d->name);
		ckt_report_json_u64(j, "peak_bytes", d->peak.bytes);
		ckt_report_json_secs(j, "t_s", d->peak.ts, d->peak.bytes > 0);
		ckt_report_json_u64(j, "live_bytes", d->bytes);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
	/* since 0.2.45: GPU memory whose device the driver did not say, at its own highest */
	ckt_report_json_u64(j, "no_device_peak_bytes", st->peak_nodev.bytes);
	ckt_report_json_u64(j, "no_device_live_bytes", st->nodev_bytes);
	ckt_report_json_close(j);

	ckt_report_json_cuda_peak(j, "peak_pinned", &st->peak_pinned, ph, CKT_AT_PEAK_PINNED);
	ckt_report_json_close(j);
	ckt_report_json_cuda_peak(j, "peak_managed", &st->peak_managed, ph, CKT_AT_COUNT);
	ckt_report_json_close(j);
	ckt_report_json_cuda_peak(j, "peak_registered", &st->peak_registered, ph, CKT_AT_COUNT);
	ckt_report_json_close(j);
}

/* a site's "site" and "frames" keys */
static void ckt_report_json_site(struct ckt_json *j, const char *site, const char *const *frames, size_t n)
{
	ckt_report_json_cstr(j, "site", site);
	ckt_report_json_key(j, "frames");
	fputc('[', j->f);
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(", ", j->f);
		ckt_report_json_str(j, frames[k], strlen(frames[k]));
	}
	fputc(']', j->f);
}

/* sites_at_peak (peak RSS), sites_at_peak_heap, sites_at_peak_gpu, sites_at_peak_pinned (since
 * 0.2.22) and sites_at_exit (heap
 * blocks live at the end of the trace; sites_at_exit_gpu and _pinned since 0.2.43, CUDA memory): [{bytes, count, estimate, samples, site,
 * frames, stacks, callers_bytes}], largest first, as many as --top; frames are the stack shown
 * (the heaviest branch of callers), innermost first. Then each list's <key>_rest. */
static void ckt_report_json_sites(struct ckt_json *j, const char *key, const struct ckt_sites *s,
				  enum ckt_moment m)
{
	struct ckt_sites_entry e;
	ckt_report_json_array_open(j, key);
	for (size_t i = 0; s && ckt_sites_top(s, m, i, &e); i++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_u64(j, "bytes", e.bytes);
		ckt_report_json_u64(j, "count", e.count);
		ckt_report_json_key(j, "estimate");
		fputs(e.estimate ? "true" : "false", j->f);
		ckt_report_json_u64(j, "samples", e.samples);
		ckt_report_json_site(j, e.site, e.frames, e.nframes);
		ckt_report_json_u64(j, "stacks", e.stacks);
		ckt_report_json_key(j, "callers_bytes");
		for (size_t k = 0; k < CKT_SITES_CALLERS; k++)
			fprintf(j->f, "%s%" PRIu64, k ? ", " : "[", e.callers_bytes[k]);
		fputc(']', j->f);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
	/* <key>_rest (since 0.2.26): what the list leaves out (sites.h, ckt_sites_rest) */
	struct ckt_sites_rest r = {0};
	if (s)
		ckt_sites_rest(s, m, &r);
	char rest[64];
	snprintf(rest, sizeof(rest), "%s_rest", key);
	ckt_report_json_open(j, rest);
	ckt_report_json_u64(j, "other_sites", r.other_sites);
	ckt_report_json_u64(j, "other_bytes", r.other_bytes);
	if (r.has_unattributed)
		ckt_report_json_i64(j, "unattributed_bytes", r.unattributed);
	else
		ckt_report_json_u64_if(j, "unattributed_bytes", 0, false);
	ckt_report_json_u64(j, "estimate_error_bytes", r.error_bytes);
	ckt_report_json_close(j);
}

/* sites_by_allocations (since 0.2.26): [{count, count_error, bytes, estimate, site, frames}],
 * most first, as many as --top; then sites_by_allocations_rest {sites, count, count_error,
 * estimate, other_sites, other_count, other_bytes} */
static void ckt_report_json_calls(struct ckt_json *j, const struct ckt_sites *s)
{
	struct ckt_sites_calls c;
	ckt_report_json_array_open(j, "sites_by_allocations");
	for (size_t i = 0; s && ckt_sites_by_calls(s, i, &c); i++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_u64(j, "count", c.count);
		ckt_report_json_u64(j, "count_error", c.error);
		ckt_report_json_u64(j, "bytes", c.bytes);
		ckt_report_json_bool(j, "estimate", c.estimate);
		ckt_report_json_u64_if(j, "temporary", c.temps, c.temps_known); /* since 0.2.33 */
		ckt_report_json_site(j, c.site, c.frames, c.nframes);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
	struct ckt_sites_calls_rest r = {0};
	if (s)
		ckt_sites_calls_total(s, &r);
	ckt_report_json_open(j, "sites_by_allocations_rest");
	ckt_report_json_u64(j, "sites", r.sites);
	ckt_report_json_u64(j, "count", r.count);
	ckt_report_json_u64(j, "count_error", r.error);
	ckt_report_json_bool(j, "estimate", r.estimate);
	ckt_report_json_u64(j, "other_sites", r.other_sites);
	ckt_report_json_u64(j, "other_count", r.other_count);
	ckt_report_json_u64(j, "other_bytes", r.other_bytes);
	ckt_report_json_close(j);

	/* since 0.2.33, exact mode (null in the default mode): heap blocks freed by their thread
	 * before it allocated again, by site, most first, as many as --top */
	if (!r.temps_known) {
		ckt_report_json_null(j, "sites_by_temporary_allocations");
		ckt_report_json_null(j, "sites_by_temporary_allocations_rest");
		return;
	}
	ckt_report_json_array_open(j, "sites_by_temporary_allocations");
	for (size_t i = 0; s && ckt_sites_by_temps(s, i, &c); i++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_u64(j, "temporary", c.temps);
		ckt_report_json_u64(j, "count", c.count);
		ckt_report_json_u64(j, "bytes", c.bytes);
		ckt_report_json_site(j, c.site, c.frames, c.nframes);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
	ckt_report_json_open(j, "sites_by_temporary_allocations_rest");
	ckt_report_json_u64(j, "sites", r.temp_sites);
	ckt_report_json_u64(j, "temporary", r.temps);
	ckt_report_json_u64(j, "other_sites", r.other_temp_sites);
	ckt_report_json_u64(j, "other_temporary", r.other_temps);
	ckt_report_json_close(j);
}

const struct ckt_report_limit ckt_report_limits[CKT_LIMIT_KINDS + 1] = {
	[CKT_LIMIT_STACKS] = {"call_stacks", "call-stack table filled",
			      "allocations from call stacks new since then may have none (the site '(no call stack)')"},
	[CKT_LIMIT_SAMPLES] = {"samples", "set of sampled blocks filled",
			       "blocks sampled since then may be missing from it, their frees not recorded, so the "
			       "estimates by site and phase count them live to the end (heap totals are not affected)"},
	[CKT_LIMIT_PHASES] = {"phase_names", "table of 4096 phase names filled",
			      "phase events of names new since then are not recorded"},
	[CKT_LIMIT_MODULES] = {"module_map", "module map outgrew 256 KiB (or the memory for it ran out)",
			       "frames in the modules left out of a map show as addresses"},
};

bool ckt_report_has_limits(const struct ckt_report *rep)
{
	for (unsigned k = 1; k <= CKT_LIMIT_KINDS; k++)
		if (rep->st->limit_at[k])
			return true;
	return ckt_decode_header(rep->dec)->format_version >= 8;
}

void ckt_report_json_limits(struct ckt_json *j, const char *key, const struct ckt_report *rep)
{
	if (!ckt_report_has_limits(rep)) {
		ckt_report_json_null(j, key);
		return;
	}
	ckt_report_json_array_open(j, key);
	for (unsigned k = 1; k <= CKT_LIMIT_KINDS; k++) {
		if (!rep->st->limit_at[k])
			continue;
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, "table");
		ckt_report_json_str(j, ckt_report_limits[k].key, strlen(ckt_report_limits[k].key));
		ckt_report_json_secs(j, "t_s", rep->st->limit_at[k] - 1, 1);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
}

bool ckt_report_has_wait(const struct ckt_report *rep)
{
	return ckt_decode_header(rep->dec)->format_version >= 7 || rep->st->waits || rep->st->wait_ns;
}

int ckt_report_json_print(FILE *out, const struct ckt_report *rep)
{
	const struct ckt_replay_stats *st = rep->st;
	const struct ckt_header *h = ckt_decode_header(rep->dec);
	struct ckt_json jj = { out, 0, 1 }, *j = &jj;
	const char *reason = ckt_report_end_key(st);

	ckt_report_json_open(j, NULL);
	ckt_report_json_u64(j, "format_version", h->format_version);
	ckt_report_json_hdr_str(j, "tracer_version", rep->dec, "tracer_version");
	ckt_report_json_hdr_str(j, "exe", rep->dec, "exe");
	ckt_report_json_hdr_int(j, "pid", rep->dec, "pid");
	ckt_report_json_hdr_int(j, "ppid", rep->dec, "ppid");
	ckt_report_json_argv(j, rep->dec);
	/* the tracer keeps 32 KiB of the command line; a longer one is cut (args_total) */
	ckt_report_json_key(j, "argv_cut");
	fputs(ckt_decode_args_total(rep->dec) ? "true" : "false", j->f);
	ckt_report_json_hdr_str(j, "hostname", rep->dec, "hostname");
	ckt_report_json_hdr_int(j, "start_wall_ns", rep->dec, "start_wall_ns");
	ckt_report_json_u64(j, "page_size", h->page_size ? h->page_size : 4096); /* absent: said */
	/* an allocator the program's calls reached ahead of the tracer (tracer 0.2.23 on): its
	 * allocations are not in the trace */
	if (ckt_decode_header_get(rep->dec, "allocator_ahead")) {
		ckt_report_json_open(j, "allocator_ahead");
		ckt_report_json_hdr_str(j, "function", rep->dec, "allocator_ahead_function");
		ckt_report_json_hdr_str(j, "object", rep->dec, "allocator_ahead");
		ckt_report_json_close(j);
	} else {
		ckt_report_json_null(j, "allocator_ahead");
	}
	/* allocators linked in under their own names (sites.h): their blocks are not traced, their
	 * mappings are (since 0.2.41) */
	ckt_report_json_array_open(j, "untraced_allocators");
	struct ckt_sites_untraced u;
	for (size_t i = 0; rep->sites && ckt_sites_untraced(rep->sites, i, &u); i++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_cstr(j, "name", u.name);
		ckt_report_json_cstr(j, "module", u.module);
		ckt_report_json_cstr(j, "function", u.function);
		if (st->peak_rss.seen)
			ckt_report_json_u64(j, "bytes_at_peak_rss", u.bytes_at_peak_rss);
		else
			ckt_report_json_null(j, "bytes_at_peak_rss");
		ckt_report_json_u64(j, "bytes_at_peak_mmap", u.bytes_at_peak_mmap);
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
	if (rep->kin) { /* kin.h: the traces of its children and later images */
		ckt_report_json_array_open(j, "child_traces");
		for (size_t i = 0; i < rep->kin->n; i++) {
			const struct ckt_kin *k = &rep->kin->v[i];
			ckt_report_json_elem_open(j);
			ckt_report_json_cstr(j, "path", k->path);
			ckt_report_json_u64(j, "pid", k->pid);
			ckt_report_json_cstr(j, "exe", k->exe);
			const char *rel = k->rel == CKT_KIN_CHILD  ? "child"
					  : k->rel == CKT_KIN_EXEC ? "exec"
								   : "descendant";
			ckt_report_json_cstr(j, "relation", rel);
			ckt_report_json_u64(j, "parent_pid", k->parent);
			static const char *const status[] = { "complete", "truncated", "no_events", "corrupt" };
			ckt_report_json_cstr(j, "status", status[k->state]);
			if (k->state == CKT_KIN_COMPLETE)
				ckt_report_json_u64(j, "events", k->events);
			else if (k->state == CKT_KIN_EMPTY)
				ckt_report_json_u64(j, "events", 0);
			else
				ckt_report_json_null(j, "events");
			ckt_report_json_bool(j, "being_written", k->being_written);
			ckt_report_json_cstr(j, "error", k->error);
			/* since 0.2.51: a later image of the process it was found from (parent_pid is
			 * then its own), told apart from a child with its parent's pid in a pid
			 * namespace of its own */
			ckt_report_json_bool(j, "after_exec", k->rel == CKT_KIN_EXEC || k->after_exec);
			ckt_report_json_close(j);
		}
		ckt_report_json_array_close(j);
		ckt_report_json_u64(j, "child_traces_not_looked_at", rep->kin->unlooked);
		ckt_report_json_array_open(j, "child_traces_unreadable");
		for (size_t i = 0; i < rep->kin->n_bad; i++) {
			const struct ckt_kin_bad *b = &rep->kin->bad[i];
			ckt_report_json_elem_open(j);
			ckt_report_json_cstr(j, "path", b->path);
			ckt_report_json_cstr(j, "error", b->error);
			ckt_report_json_close(j);
		}
		ckt_report_json_array_close(j);
	}
	ckt_report_json_secs(j, "duration_s", st->duration_ns, 1);
	ckt_report_json_u64(j, "events", st->events);
	ckt_report_json_u64(j, "threads", st->threads_started);
	ckt_report_json_u64(j, "threads_at_once", st->threads_at_once);

	ckt_report_json_open(j, "event_counts");
	ckt_report_json_u64(j, "alloc", st->counts[CKT_KIND_ALLOC]);
	ckt_report_json_u64(j, "free", st->counts[CKT_KIND_FREE]);
	ckt_report_json_u64(j, "realloc", st->counts[CKT_KIND_REALLOC]);
	ckt_report_json_u64(j, "mmap", st->counts[CKT_KIND_MMAP]);
	ckt_report_json_u64(j, "munmap", st->counts[CKT_KIND_MUNMAP]);
	ckt_report_json_u64(j, "mremap", st->counts[CKT_KIND_MREMAP]);
	ckt_report_json_u64(j, "mprotect", st->counts[CKT_KIND_MPROTECT]);
	ckt_report_json_u64(j, "rss", st->counts[CKT_KIND_RSS]);
	ckt_report_json_u64(j, "rss_detail", st->counts[CKT_KIND_RSS_DETAIL]);
	ckt_report_json_u64(j, "cuda_alloc", st->counts[CKT_KIND_CUDA_ALLOC]);
	ckt_report_json_u64(j, "cuda_free", st->counts[CKT_KIND_CUDA_FREE]);
	ckt_report_json_u64(j, "cuda_map", st->counts[CKT_KIND_CUDA_MAP]);
	ckt_report_json_u64(j, "cuda_unmap", st->counts[CKT_KIND_CUDA_UNMAP]);
	ckt_report_json_u64(j, "agg", st->counts[CKT_KIND_AGG]);
	ckt_report_json_close(j);

	/* default mode: which numbers are exact and how far the others can be off */
	ckt_report_json_open(j, "sampling");
	ckt_report_json_u64(j, "rate_bytes", st->sample_r);
	ckt_report_json_u64(j, "sampled_allocations", st->sampled_allocs);
	ckt_report_json_u64(j, "threads_with_totals", st->agg_threads);
	ckt_report_json_u64(j, "heap_error_bound_bytes", st->agg_threads * (uint64_t)CKT_AGG_STEP);
	ckt_report_json_u64(j, "threads_with_totals_at_once", st->agg_threads_at_once);
	ckt_report_json_u64(j, "peak_heap_error_bound_bytes", st->agg_threads_at_once * (uint64_t)CKT_AGG_STEP);
	/* since 0.2.23: totals of idle threads sent after the peak, counted at its moment */
	ckt_report_json_u64(j, "late_totals_at_peak", st->agg_late_kept);
	ckt_report_json_u64(j, "late_samples_at_peak", st->late_samples_at_peak);
	ckt_report_json_u64(j, "late_frees_at_peak", st->late_frees_at_peak);
	/* since 0.2.24: the peak heap is the peak RSS sample's moment (ckt_replay_finish) */
	ckt_report_json_bool(j, "peak_heap_at_peak_rss", st->peak_heap_at_rss);
	ckt_report_json_bool(j, "estimates", st->sample_r != 0);
	ckt_report_json_close(j);

	ckt_report_json_bool(j, "truncated", st->truncated);
	/* since 0.2.45: --salvage read the trace up to its first corrupt frame, which starts here */
	ckt_report_json_u64_if(j, "salvaged_at_offset", ckt_decode_limited(rep->dec), ckt_decode_limited(rep->dec) != 0);
	ckt_report_json_u64(j, "lost_events", st->lost);
	/* since 0.2.31 (format version 7; null for older traces) */
	ckt_report_json_secs(j, "tracer_wait_s", st->wait_ns, ckt_report_has_wait(rep));
	ckt_report_json_u64_if(j, "tracer_waits", st->waits, ckt_report_has_wait(rep));
	/* since 0.2.34 (format version 8; null for older traces) */
	ckt_report_json_limits(j, "tracer_limits", rep);
	ckt_report_json_u64(j, "inconsistencies", st->inconsistencies);
	/* since 0.2.50: of them, those past the last SYNC's horizon (a process that ended while
	 * threads ran on) */
	ckt_report_json_u64(j, "inconsistencies_after_last_sync", st->inconsistencies_after_sync);
	/* since 0.2.33: heap blocks freed as temporaries (exact mode; null in the default mode) */
	ckt_report_json_u64_if(j, "temporary_allocations", st->temporary, !st->sample_r);
	ckt_report_json_u64(j, "late_events", st->late_events);
	ckt_report_json_u64(j, "heap_below_zero_bytes", st->heap_below_zero);
	ckt_report_json_u64(j, "backward_events", st->backward_events);
	ckt_report_json_u64(j, "max_held_events", st->max_held);
	ckt_report_json_u64(j, "replayed_early", st->replayed_early);
	ckt_report_json_cstr(j, "end_reason", reason);
	/* the signal whose default action ended the process (end_reason "signal") */
	char signame[32];
	ckt_report_json_key(j, "end_signal");
	if (st->ended && ckt_util_end_signal_name(st->end_reason, signame, sizeof(signame)))
		ckt_report_json_str(j, signame, strlen(signame));
	else
		fputs("null", out);

	ckt_report_json_open(j, "peak_heap");
	ckt_report_json_u64(j, "bytes", st->peak_heap.bytes);
	ckt_report_json_secs(j, "t_s", st->peak_heap.ts, st->peak_heap.bytes > 0);
	if (rep->phases)
		ckt_report_json_phases_at(j, rep->phases, CKT_AT_PEAK_HEAP, rep->by_thread);
	ckt_report_json_close(j);

	ckt_report_json_open(j, "peak_mmap");
	ckt_report_json_u64(j, "bytes", st->peak_mmap.bytes);
	ckt_report_json_secs(j, "t_s", st->peak_mmap.ts, st->peak_mmap.bytes > 0);
	ckt_report_json_u64(j, "anon_bytes", st->peak_mmap_anon_bytes);
	ckt_report_json_u64(j, "file_bytes", st->peak_mmap_file_bytes);
	ckt_report_json_close(j);

	ckt_report_json_open(j, "peak_mmap_anon");
	ckt_report_json_u64(j, "bytes", st->peak_anon.bytes);
	ckt_report_json_secs(j, "t_s", st->peak_anon.ts, st->peak_anon.bytes > 0);
	ckt_report_json_close(j);

	ckt_report_json_open(j, "peak_mmap_file");
	ckt_report_json_u64(j, "bytes", st->peak_file.bytes);
	ckt_report_json_secs(j, "t_s", st->peak_file.ts, st->peak_file.bytes > 0);
	ckt_report_json_close(j);

	/* PROT_NONE mappings: reserved address space, in none of the mmap figures */
	ckt_report_json_open(j, "peak_reserved");
	ckt_report_json_u64(j, "bytes", st->peak_reserved.bytes);
	ckt_report_json_secs(j, "t_s", st->peak_reserved.ts, st->peak_reserved.bytes > 0);
	ckt_report_json_close(j);

	ckt_report_json_open(j, "peak_rss");
	/* null without RSS samples (CUZKTRACE_RSS_MS=0), as in --diff: not a peak of 0 */
	ckt_report_json_u64_if(j, "bytes", st->peak_rss.bytes, st->peak_rss.seen);
	ckt_report_json_secs(j, "t_s", st->peak_rss.ts, st->peak_rss.seen);
	/* what was live at a moment there is none of: null too (0 of heap read as a fact, and
	 * an unexplained 0 as "everything explained") */
	bool seen = st->peak_rss.seen;
	ckt_report_json_u64_if(j, "heap_bytes", st->peak_rss.heap_bytes, seen);
	ckt_report_json_u64_if(j, "mmap_bytes", st->peak_rss.anon_mmap_bytes + st->peak_rss.file_mmap_bytes, seen);
	ckt_report_json_u64_if(j, "anon_mmap_bytes", st->peak_rss.anon_mmap_bytes, seen);
	ckt_report_json_u64_if(j, "file_mmap_bytes", st->peak_rss.file_mmap_bytes, seen);
	ckt_report_json_u64_if(j, "gpu_bytes", st->peak_rss.gpu_bytes, seen);
	ckt_report_json_u64_if(j, "pinned_bytes", st->peak_rss.pinned_bytes, seen);
	/* may be negative: malloc's own mmaps and freed-but-cached pages are not in heap_bytes.
	 * Pinned host memory is host RAM the driver mapped outside our mmap hook. */
	if (seen) {
		ckt_report_json_i64(j, "unexplained_bytes", ckt_replay_unexplained(st));
		ckt_report_json_bool(j, "untraced_suspected", ckt_replay_untraced_suspected(st));
	} else {
		ckt_report_json_null(j, "unexplained_bytes");
		ckt_report_json_null(j, "untraced_suspected");
	}
	/* null without any VmHWM read (no RSS samples, or none with /proc/self/status: it read 0
	 * before 0.2.59) */
	ckt_report_json_u64_if(j, "hwm_bytes", st->hwm_max, st->peak_rss.seen && st->hwm_max);
	if (st->peak_rss.has_detail) {
		ckt_report_json_open(j, "detail");
		ckt_report_json_u64(j, "hwm_bytes", st->peak_rss.hwm);
		ckt_report_json_u64(j, "rss_anon_bytes", st->peak_rss.anon);
		ckt_report_json_u64(j, "rss_file_bytes", st->peak_rss.file);
		ckt_report_json_u64(j, "rss_shmem_bytes", st->peak_rss.shmem);
		ckt_report_json_close(j);
		ckt_report_json_i64(j, "unexplained_anon_bytes", ckt_replay_unexplained_anon(st));
	} else {
		ckt_report_json_null(j, "detail");
		ckt_report_json_null(j, "unexplained_anon_bytes");
	}
	if (rep->phases)
		ckt_report_json_phases_at(j, rep->phases, CKT_AT_PEAK_RSS, rep->by_thread);
	ckt_report_json_close(j);

	ckt_report_json_cuda(j, st, rep->phases);

	ckt_report_json_open(j, "live_at_exit");
	ckt_report_json_u64(j, "heap_bytes", st->heap_bytes);
	ckt_report_json_u64(j, "mmap_bytes", st->anon_mmap_bytes + st->file_mmap_bytes);
	ckt_report_json_u64(j, "anon_mmap_bytes", st->anon_mmap_bytes);
	ckt_report_json_u64(j, "file_mmap_bytes", st->file_mmap_bytes);
	ckt_report_json_u64(j, "reserved_bytes", st->reserved_bytes);
	ckt_report_json_u64(j, "heap_blocks", st->heap_blocks);
	ckt_report_json_u64(j, "gpu_bytes", st->gpu_bytes);
	ckt_report_json_u64(j, "pinned_bytes", st->pinned_bytes);
	ckt_report_json_u64(j, "managed_bytes", st->managed_bytes);
	ckt_report_json_u64(j, "registered_bytes", st->registered_bytes);
	ckt_report_json_u64(j, "cuda_blocks", st->cuda_blocks);
	ckt_report_json_close(j);

	ckt_report_json_u64(j, "rss_samples", st->rss_samples);
	ckt_report_json_sites(j, "sites_at_peak", rep->sites, CKT_AT_PEAK_RSS);
	ckt_report_json_sites(j, "sites_at_peak_heap", rep->sites, CKT_AT_PEAK_HEAP);
	ckt_report_json_sites(j, "sites_at_peak_gpu", rep->sites, CKT_AT_PEAK_GPU);
	ckt_report_json_sites(j, "sites_at_peak_pinned", rep->sites, CKT_AT_PEAK_PINNED);
	ckt_report_json_sites(j, "sites_at_exit", rep->sites, CKT_SITES_EXIT);
	ckt_report_json_sites(j, "sites_at_exit_gpu", rep->sites, CKT_SITES_EXIT_GPU); /* since 0.2.43 */
	ckt_report_json_sites(j, "sites_at_exit_pinned", rep->sites, CKT_SITES_EXIT_PINNED);
	ckt_report_json_calls(j, rep->sites);

	if (rep->phases)
		ckt_report_json_phases(j, rep->phases, rep->by_thread, rep->st->peak_rss.seen);

	ckt_report_json_open(j, "header");
	for (size_t i = 0; i < h->n_kv; i++) {
		if (!j->first)
			fputc(',', out);
		j->first = 0;
		ckt_report_json_indent(j);
		ckt_report_json_str(j, h->kv[i].key, h->kv[i].key_len);
		fputs(": ", out);
		ckt_report_json_str(j, h->kv[i].value, h->kv[i].value_len);
	}
	ckt_report_json_close(j);

	ckt_report_json_close(j);
	fputc('\n', out);
	if (fflush(out) != 0 || ferror(out))
		return -(errno ? errno : EIO);
	return 0;
}
