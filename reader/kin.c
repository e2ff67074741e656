/* kin.c: the traces of a traced process's children and later images (kin.h). */
#include "kin.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* Wall clocks of two processes and a file's mtime agree to within a tick; a second of slack
 * keeps a child that started in the parent's last moment. */
#define CKT_KIN_SLACK_NS 1000000000ull

static bool ckt_kin_u64(const struct ckt_decoder *d, const char *key, uint64_t *v)
{
	const char *s = ckt_decode_header_get(d, key);
	if (!s || *s < '0' || *s > '9')
		return false;
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end)
		return false;
	*v = x;
	return true;
}

static bool ckt_kin_same(const char *a, const char *b)
{
	return a && b && *a && strcmp(a, b) == 0;
}

/* The fixed start of the names CUZKTRACE_OUT gives (its file name up to the first %), or
 * "<name without .zst>." for a name without %: the names of the fallbacks, "<name>.<pid>.zst"
 * and "<name>.exec<k>.zst", start so. malloc'd; NULL when out of memory. */
static char *ckt_kin_prefix(const char *pattern)
{
	if (!pattern || !*pattern)
		pattern = "cuzktrace.%e.%p.zst";
	const char *base = strrchr(pattern, '/');
	base = base ? base + 1 : pattern;
	const char *pct = strchr(base, '%');
	if (pct)
		return strndup(base, (size_t)(pct - base));
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".zst") == 0)
		n -= 4;
	char *p = malloc(n + 2);
	if (p) {
		memcpy(p, base, n);
		p[n] = '.';
		p[n + 1] = '\0';
	}
	return p;
}

static int ckt_kin_cmp(const void *pa, const void *pb)
{
	const struct ckt_kin *a = pa, *b = pb;
	if (a->start_wall_ns != b->start_wall_ns)
		return a->start_wall_ns < b->start_wall_ns ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* Opens the header of dir/name and adds it to out when it is kin. 0, or CKT_ENOMEM. */
static int ckt_kin_look(const char *shown_dir, const char *name, const struct ckt_decoder *self, uint64_t pid,
			uint64_t start, uint64_t end, struct ckt_kin_list *out, size_t *cap)
{
	size_t len = strlen(shown_dir) + 1 + strlen(name) + 1;
	char *path = malloc(len);
	if (!path)
		return CKT_ENOMEM;
	size_t dl = strlen(shown_dir);
	snprintf(path, len, "%s%s%s", shown_dir, dl && shown_dir[dl - 1] != '/' ? "/" : "", name);
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	if (ckt_decode_open(path, &d, &err) < 0) { /* not a trace, unreadable: not kin */
		free(path);
		return 0;
	}
	uint64_t kpid = 0, kppid = 0, kstart = 0;
	bool has = ckt_kin_u64(d, "pid", &kpid) && ckt_kin_u64(d, "start_wall_ns", &kstart);
	bool child = has && ckt_kin_u64(d, "ppid", &kppid) && kppid == pid && kstart + CKT_KIN_SLACK_NS >= start &&
		     kstart <= end;
	bool exec = has && !child && kpid == pid && kstart > start &&
		    ckt_kin_same(ckt_decode_header_get(self, "process"), ckt_decode_header_get(d, "process"));
	const char *host = ckt_decode_header_get(self, "hostname"), *khost = ckt_decode_header_get(d, "hostname");
	if ((!child && !exec) || (host && khost && strcmp(host, khost) != 0)) {
		ckt_decode_close(d);
		free(path);
		return 0;
	}
	const char *exe = ckt_decode_header_get(d, "exe");
	char *e = strdup(exe ? exe : "?");
	ckt_decode_close(d);
	if (e && out->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct ckt_kin *v = realloc(out->v, ncap * sizeof(*v));
		if (v) {
			out->v = v;
			*cap = ncap;
		}
	}
	if (!e || out->n == *cap) {
		free(e);
		free(path);
		return CKT_ENOMEM;
	}
	e[ckt_util_clean(e, strlen(e))] = '\0';
	out->v[out->n++] = (struct ckt_kin){ path, e, kpid, kstart, child ? CKT_KIN_CHILD : CKT_KIN_EXEC };
	return 0;
}

int ckt_kin_find(const char *trace_path, const struct ckt_decoder *dec, bool ended, uint64_t duration_ns,
		 struct ckt_kin_list *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t pid, start;
	struct stat self;
	if (!ckt_kin_u64(dec, "pid", &pid) || !ckt_kin_u64(dec, "start_wall_ns", &start) || stat(trace_path, &self) < 0)
		return 0; /* a header without them (not a tracer's), or the file gone: nothing to match */
	uint64_t end = ended ? start + duration_ns + CKT_KIN_SLACK_NS : UINT64_MAX;
	const char *slash = strrchr(trace_path, '/');
	char *dir = slash ? strndup(trace_path, (size_t)(slash - trace_path) + (slash == trace_path)) : strdup("");
	char *prefix = ckt_kin_prefix(ckt_decode_header_get(dec, "setting.CUZKTRACE_OUT"));
	int rc = 0;
	if (!dir || !prefix) {
		rc = CKT_ENOMEM;
		goto out;
	}
	DIR *dh = opendir(*dir ? dir : ".");
	if (!dh)
		goto out; /* an unreadable directory: nothing found there */
	size_t plen = strlen(prefix), cap = 0, looks = 0;
	for (struct dirent *de; rc == 0 && (de = readdir(dh));) {
		size_t n = strlen(de->d_name);
		if (n <= plen + 4 || strncmp(de->d_name, prefix, plen) != 0 || strcmp(de->d_name + n - 4, ".zst") != 0)
			continue;
		struct stat sb;
		if (fstatat(dirfd(dh), de->d_name, &sb, 0) < 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0 ||
		    (sb.st_dev == self.st_dev && sb.st_ino == self.st_ino))
			continue;
		/* written to since this process started (older traces of earlier runs are not
		 * opened) */
		uint64_t mtime = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull + (uint64_t)sb.st_mtim.tv_nsec;
		if (mtime + CKT_KIN_SLACK_NS < start)
			continue;
		if (looks++ >= CKT_KIN_MAX_LOOKS) {
			out->unlooked++;
			continue;
		}
		rc = ckt_kin_look(dir, de->d_name, dec, pid, start, end, out, &cap);
	}
	closedir(dh);
	if (rc == 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), ckt_kin_cmp);
out:
	free(dir);
	free(prefix);
	if (rc < 0)
		ckt_kin_free(out);
	return rc;
}

void ckt_kin_free(struct ckt_kin_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].exe);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
