/* kin.c: the traces of a traced process's descendants and later images (kin.h). */
#include "kin.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* Wall clocks of two processes and a file's mtime agree to within a tick; a second of slack
 * keeps a child that started in its parent's last moment. */
#define CKT_KIN_SLACK_NS 1000000000ull
/* A child's start against its parent image's: both are the processes' wall clocks (no file
 * time between), and a child starts after the image that forked it (the image's tracer
 * starts before any code of the program's can fork). The second of slack listed, in a later
 * image's report, a child of the image before it that ended just before the exec (bash -c
 * 'true; prog': true under prog; since 0.2.27). */
#define CKT_KIN_CHILD_SLACK_NS 1000000ull

/* A trace: the one reported (index 0) or one found beside it. */
struct ckt_kin_node {
	char *name;                     /* file name in the directory */
	char *exe, *process, *parent_process, *ancestor_process, *run; /* header values; NULL when absent */
	uint64_t pid, ppid, start, mtime;
	bool has_ppid;
	bool found;      /* reached from the reported trace */
	bool later;      /* a later image of a process another trace here holds (found as its exec) */
	bool by_run;     /* found by its run alone: started by ckt_kin_started_by, whose trace is not here */
	bool via_exec;   /* found as the later image of the one it was reached from */
	size_t from;     /* the node it was reached from */
	enum ckt_kin_rel rel;
};

static char *ckt_kin_hdr(const struct ckt_decoder *d, const char *key)
{
	const char *s = ckt_decode_header_get(d, key);
	return s ? strdup(s) : NULL;
}

static bool ckt_kin_u64(const struct ckt_decoder *d, const char *key, uint64_t *v)
{
	return ckt_util_dec_u64(ckt_decode_header_get(d, key), v);
}

/* A "process" key that names one process: "<pid>.<start time>.<namespace>" with a start time
 * (without /proc it is "<pid>..0": every run of a pid alike) */
static bool ckt_kin_key_ok(const char *k)
{
	const char *a = k ? strchr(k, '.') : NULL;
	return a && a[1] != '.' && a[1] && strchr(a + 1, '.');
}

/* The pid namespaces of two keys agree, or one is unknown */
static bool ckt_kin_same_ns(const char *a, const char *b)
{
	const char *x = a ? strrchr(a, '.') : NULL, *y = b ? strrchr(b, '.') : NULL;
	return !x || !y || !strcmp(x, ".0") || !strcmp(y, ".0") || !strcmp(x, y);
}

/* c is a later image of x's process */
static bool ckt_kin_is_exec(const struct ckt_kin_node *c, const struct ckt_kin_node *x)
{
	return ckt_kin_key_ok(x->process) && ckt_kin_key_ok(c->process) && !strcmp(c->process, x->process) &&
	       c->start > x->start;
}

/* c's process was started by x's: named so by c's parent_process, else (an older tracer)
 * the same ppid and pid namespace, started while x's trace was written. Or (*through) c is a
 * descendant of x's through forks of x's that ended before c's tracer started: named so by
 * c's ancestor_process (since 0.2.37), whose parent_process is then the process that adopted
 * it, not one that started it. */
static bool ckt_kin_is_child(const struct ckt_kin_node *c, const struct ckt_kin_node *x, bool *through)
{
	*through = c->ancestor_process != NULL;
	if (c->ancestor_process)
		return ckt_kin_key_ok(x->process) && !strcmp(c->ancestor_process, x->process) &&
		       c->start + CKT_KIN_CHILD_SLACK_NS >= x->start;
	/* not before x's image began (a later image's report listed the children of the images
	 * before it, whose parent_process is the same) */
	if (c->parent_process)
		return ckt_kin_key_ok(x->process) && !strcmp(c->parent_process, x->process) &&
		       c->start + CKT_KIN_CHILD_SLACK_NS >= x->start;
	return c->has_ppid && c->ppid == x->pid && ckt_kin_same_ns(c->process, x->process) &&
	       c->start + CKT_KIN_CHILD_SLACK_NS >= x->start && c->start <= x->mtime + CKT_KIN_SLACK_NS;
}

/* The process that started c, found by its run alone (its trace is not here): the one its
 * ancestor_process or parent_process names, else (an older tracer) its ppid. These name the
 * process that forked c where the kernel's parent is the one that adopted it (pid 1, since
 * 0.2.37); otherwise they name the ppid. */
static uint64_t ckt_kin_started_by(const struct ckt_kin_node *c)
{
	const char *k = c->ancestor_process ? c->ancestor_process : c->parent_process;
	uint64_t pid;
	char *end;
	if (ckt_kin_key_ok(k) && (pid = strtoull(k, &end, 10)) > 0 && *end == '.')
		return pid;
	return c->ppid;
}

/* c's process belongs to the run that the reported process x began (tracer 0.2.22 on: the
 * header's "run" is "<process key of its first process>@<start>"), and is not one of x's
 * images: x's descendant, though no trace here links it to x (its parent wrote none: a
 * subshell, a static program in between, or a parent in another directory). Not one that
 * started before x's image, as for a child (a later image's report listed the run's children
 * of the images before it, bash -c 'true; prog': true under prog, as a descendant) */
static bool ckt_kin_in_run(const struct ckt_kin_node *c, const struct ckt_kin_node *x)
{
	const char *at = x->run ? strrchr(x->run, '@') : NULL;
	size_t kl = at ? (size_t)(at - x->run) : 0;
	return at && c->run && !strcmp(c->run, x->run) && ckt_kin_key_ok(x->process) &&
	       strlen(x->process) == kl && !strncmp(x->run, x->process, kl) && ckt_kin_key_ok(c->process) &&
	       strcmp(c->process, x->process) && c->start + CKT_KIN_CHILD_SLACK_NS >= x->start;
}

/* a and b hold the same trace (one a copy of the other): the same process, image and start */
static bool ckt_kin_same_trace(const struct ckt_kin_node *a, const struct ckt_kin_node *b)
{
	return a->pid == b->pid && a->start == b->start && !strcmp(a->exe, b->exe) &&
	       (a->process && b->process ? !strcmp(a->process, b->process) : !a->process && !b->process);
}

/* The fixed start of the names CUZKTRACE_OUT gives (its file name up to the first %), or
 * "<name without .zst>." for a name without %: the fallbacks "<name>.<pid>.zst" and
 * "<name>.exec<k>.zst" start so. *zst: whether the names end in ".zst"; *whole: the name
 * itself, for a name without % (a descendant takes it when it is free), else NULL. malloc'd;
 * NULL when out of memory. */
static char *ckt_kin_prefix(const char *pattern, bool *zst, char **whole)
{
	if (!pattern || !*pattern)
		pattern = "cuzktrace.%e.%p.zst";
	const char *base = strrchr(pattern, '/');
	base = base ? base + 1 : pattern;
	size_t n = strlen(base);
	*zst = n >= 4 && strcmp(base + n - 4, ".zst") == 0;
	*whole = NULL;
	const char *pct = strchr(base, '%');
	if (pct)
		return strndup(base, (size_t)(pct - base));
	if (!(*whole = strdup(base)))
		return NULL;
	if (*zst)
		n -= 4;
	char *p = malloc(n + 2);
	if (p) {
		memcpy(p, base, n);
		p[n] = '.';
		p[n + 1] = '\0';
	}
	return p;
}

static void ckt_kin_node_free(struct ckt_kin_node *n)
{
	free(n->name);
	free(n->exe);
	free(n->process);
	free(n->parent_process);
	free(n->ancestor_process);
	free(n->run);
}

/* Fills n from d's header. false: not a tracer's header (no pid or start), or out of memory
 * (*oom). */
static bool ckt_kin_node_read(struct ckt_kin_node *n, const struct ckt_decoder *d, bool *oom)
{
	if (!ckt_kin_u64(d, "pid", &n->pid) || !ckt_kin_u64(d, "start_wall_ns", &n->start))
		return false;
	n->has_ppid = ckt_kin_u64(d, "ppid", &n->ppid);
	const char *exe = ckt_decode_header_get(d, "exe");
	n->exe = strdup(exe ? exe : "?");
	n->process = ckt_kin_hdr(d, "process");
	n->parent_process = ckt_kin_hdr(d, "parent_process");
	n->ancestor_process = ckt_kin_hdr(d, "ancestor_process");
	n->run = ckt_kin_hdr(d, "run");
	*oom = !n->exe || (ckt_decode_header_get(d, "process") && !n->process) ||
	       (ckt_decode_header_get(d, "parent_process") && !n->parent_process) ||
	       (ckt_decode_header_get(d, "ancestor_process") && !n->ancestor_process) ||
	       (ckt_decode_header_get(d, "run") && !n->run);
	return !*oom;
}

static int ckt_kin_cmp(const void *pa, const void *pb)
{
	const struct ckt_kin *a = pa, *b = pb;
	if (a->start_wall_ns != b->start_wall_ns)
		return a->start_wall_ns < b->start_wall_ns ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* out->bad's order: by path */
static int ckt_kin_bad_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ckt_kin_bad *)a)->path, ((const struct ckt_kin_bad *)b)->path);
}

/* Adds path, which could not be read as a trace (why), to out->bad. 0 or CKT_ENOMEM. */
static int ckt_kin_bad(struct ckt_kin_list *out, const char *path, const char *why)
{
	struct ckt_kin_bad *v = realloc(out->bad, (out->n_bad + 1) * sizeof(*v));
	if (!v)
		return CKT_ENOMEM;
	out->bad = v;
	char *p = strdup(path), *e = strdup(why);
	if (!p || !e) {
		free(p);
		free(e);
		return CKT_ENOMEM;
	}
	out->bad[out->n_bad++] = (struct ckt_kin_bad){ p, e };
	return 0;
}

/* How k's trace ends (kin.h), from its last whole frame. 0 or CKT_ENOMEM. */
static int ckt_kin_probe(struct ckt_kin *k)
{
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	struct ckt_record rec;
	int at = ckt_decode_open(k->path, &d, &err);
	if (at == 0)
		at = ckt_decode_seek_last(d, &err);
	int rc = at;
	if (at > 0)
		while ((rc = ckt_decode_next(d, &rec, &err)) > 0)
			if (rec.tag == CKT_TAG_END)
				k->events = rec.u.end.events;
	k->state = rc < 0		   ? CKT_KIN_CORRUPT
		   : at == 0		   ? CKT_KIN_EMPTY
		   : ckt_decode_truncated(d) ? CKT_KIN_CUT
					     : CKT_KIN_COMPLETE;
	/* bytes after the header that hold no whole frame: not "killed before its first flush" */
	enum ckt_decode_tail tail = k->state == CKT_KIN_EMPTY ? ckt_decode_tail(d) : CKT_DECODE_TAIL_NONE;
	/* a first frame that is whole but corrupt (a block header damaged: its walk fails as a
	 * cut one's does) is read as its own report reads it: an error, not a cut or zeros (the
	 * decoder is still at the header's end: seek_last moved nothing) */
	if (tail != CKT_DECODE_TAIL_NONE && (rc = ckt_decode_next(d, &rec, &err)) < 0) {
		k->state = CKT_KIN_CORRUPT;
		tail = CKT_DECODE_TAIL_NONE;
	}
	ckt_decode_close(d);
	if (rc < 0 && err.code == CKT_ENOMEM)
		return CKT_ENOMEM;
	k->being_written = (k->state == CKT_KIN_CUT || k->state == CKT_KIN_EMPTY) && ckt_util_being_written(k->path);
	/* one still being written may be inside its first write */
	if (k->being_written)
		tail = CKT_DECODE_TAIL_NONE;
	const char *why = k->state == CKT_KIN_CORRUPT	 ? err.msg
			  : tail == CKT_DECODE_TAIL_CUT	 ? "the file ends inside its first frame (cut while written: a full disk, "
							   "or a copy cut short?)"
			  : tail == CKT_DECODE_TAIL_OTHER ? "no zstd frame follows its header (zeros left by a crash, or damage)"
							   : NULL;
	if (why && !(k->error = strdup(why)))
		return CKT_ENOMEM;
	return 0;
}

/* Reads the headers of the candidate files in dir into *nodes (after the reported trace's, at
 * index 0). Returns 0 or CKT_ENOMEM. */
static int ckt_kin_scan(const char *dir, const char *prefix, const char *whole, bool zst, const struct stat *self,
			uint64_t start, struct ckt_kin_node **nodes, size_t *n, struct ckt_kin_list *out)
{
	DIR *dh = opendir(*dir ? dir : ".");
	if (!dh)
		return 0; /* an unreadable directory: nothing found there */
	size_t plen = strlen(prefix), dl = strlen(dir), cap = *n, looks = 0;
	int rc = 0;
	/* two passes: the files written since the process started, then those of the second of
	 * slack before it, so that the cap on files opened goes to this run's first (the traces of
	 * a run that ended just before, in the slack, took the cap in directory order: 500 such
	 * and 530 children of this run listed 525 of them; since 0.2.50) */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		rewinddir(dh);
		for (struct dirent *de; rc == 0 && (de = readdir(dh));) {
			size_t len = strlen(de->d_name);
			if ((len <= plen || strncmp(de->d_name, prefix, plen) != 0 ||
			     (zst && (len < plen + 4 || strcmp(de->d_name + len - 4, ".zst") != 0))) &&
			    !(whole && !strcmp(de->d_name, whole)))
				continue;
			/* regular files only (a link to a trace would list it twice), not the trace itself,
			 * written to since its process started (traces of earlier runs are not opened).
			 * An empty one is listed as unreadable (a child killed between making its file and
			 * writing the header: before 0.2.57 left out without a word), unless a process
			 * still holds it for writing (a child that has not written its header yet) */
			struct stat sb;
			if (fstatat(dirfd(dh), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode) ||
			    (sb.st_dev == self->st_dev && sb.st_ino == self->st_ino))
				continue;
			uint64_t mtime = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull + (uint64_t)sb.st_mtim.tv_nsec;
			bool empty = sb.st_size == 0;
			if (mtime + CKT_KIN_SLACK_NS < start || (pass == 0) != (mtime >= start))
				continue;
			if (looks++ >= CKT_KIN_MAX_LOOKS) {
				out->unlooked++;
				continue;
			}
			char *path = malloc(dl + 1 + len + 1);
			if (!path) {
				rc = CKT_ENOMEM;
				break;
			}
			snprintf(path, dl + 1 + len + 1, "%s%s%s", dir, dl && dir[dl - 1] != '/' ? "/" : "", de->d_name);
			if (empty && ckt_util_being_written(path)) { /* a child starting: its header comes */
				free(path);
				continue;
			}
			struct ckt_decoder *d = NULL;
			struct ckt_error err = { 0 };
			/* not a trace, unreadable: not known to be kin, and said (it may be) */
			if (ckt_decode_open(path, &d, &err) < 0) {
				if (err.code == CKT_ENOMEM || ckt_kin_bad(out, path, err.msg) < 0)
					rc = CKT_ENOMEM;
				free(path);
				continue;
			}
			struct ckt_kin_node c = { .mtime = mtime };
			bool oom = false, ok = ckt_kin_node_read(&c, d, &oom);
			ckt_decode_close(d);
			if (ok && !(c.name = strdup(de->d_name)))
				oom = true;
			if (ok && !oom && *n == cap) {
				struct ckt_kin_node *v = realloc(*nodes, cap * 2 * sizeof(*v));
				if (v) {
					*nodes = v;
					cap *= 2;
				}
				oom = !v;
			}
			if (!ok && !oom && ckt_kin_bad(out, path, "its header names no process (no pid or start_wall_ns)") < 0)
				oom = true;
			free(path);
			if (!ok || oom) {
				ckt_kin_node_free(&c);
				rc = oom ? CKT_ENOMEM : 0;
				continue;
			}
			(*nodes)[(*n)++] = c;
		}
	}
	closedir(dh);
	return rc;
}

int ckt_kin_find(const char *trace_path, const struct ckt_decoder *dec, struct ckt_kin_list *out)
{
	memset(out, 0, sizeof(*out));
	struct stat self;
	struct ckt_kin_node *nodes = calloc(1, sizeof(*nodes)); /* grown by ckt_kin_scan */
	size_t n = 1;
	bool oom = false, zst;
	if (!nodes)
		return CKT_ENOMEM;
	/* a header without pid and start (not a tracer's), or the file gone: nothing to match */
	if (!ckt_kin_node_read(&nodes[0], dec, &oom) || stat(trace_path, &self) < 0) {
		ckt_kin_node_free(&nodes[0]);
		free(nodes);
		return oom ? CKT_ENOMEM : 0;
	}
	nodes[0].mtime = (uint64_t)self.st_mtim.tv_sec * 1000000000ull + (uint64_t)self.st_mtim.tv_nsec;
	nodes[0].found = true;
	/* a link to the trace: the others are beside the file it leads to */
	struct stat ls;
	char *real = lstat(trace_path, &ls) == 0 && S_ISLNK(ls.st_mode) ? realpath(trace_path, NULL) : NULL;
	if (real)
		trace_path = real;
	const char *slash = strrchr(trace_path, '/');
	char *dir = slash ? strndup(trace_path, (size_t)(slash - trace_path) + (slash == trace_path)) : strdup("");
	char *whole = NULL;
	char *prefix = ckt_kin_prefix(ckt_decode_header_get(dec, "setting.CUZKTRACE_OUT"), &zst, &whole);
	free(real);
	int rc = !dir || !prefix ? CKT_ENOMEM
				 : ckt_kin_scan(dir, prefix, whole, zst, &self, nodes[0].start, &nodes, &n, out);
	/* the unreadable ones by name (they came in the directory's order, which differs from one
	 * file system to another) */
	if (rc == 0 && out->n_bad > 1)
		qsort(out->bad, out->n_bad, sizeof(*out->bad), ckt_kin_bad_cmp);
	/* a copy of a trace (a backup, cp) has its header: listed once, the one written first
	 * (a copy is newer), and a copy of the reported trace not at all */
	for (size_t i = 1; rc == 0 && i < n; i++)
		for (size_t j = 0; j < n && !nodes[i].found; j++)
			if (j != i && ckt_kin_same_trace(&nodes[i], &nodes[j]) &&
			    (j == 0 || nodes[j].mtime < nodes[i].mtime ||
			     (nodes[j].mtime == nodes[i].mtime && strcmp(nodes[j].name, nodes[i].name) < 0)))
				nodes[i].found = true; /* never listed */
	/* breadth first from the reported trace: what each found one became and started */
	size_t *queue = rc == 0 ? malloc(n * sizeof(*queue)) : NULL, qn = 1, found = 0;
	if (rc == 0 && !queue)
		rc = CKT_ENOMEM;
	if (queue)
		queue[0] = 0;
	/* a child's later image names the same parent as the child's first: it is found as that
	 * image's exec, not as a child of its own */
	for (size_t i = 1; rc == 0 && i < n; i++)
		for (size_t j = 0; j < n && !nodes[i].later; j++)
			nodes[i].later = j != i && ckt_kin_is_exec(&nodes[i], &nodes[j]);
	for (size_t qi = 0; rc == 0 && qi < qn; qi++) {
		const struct ckt_kin_node *x = &nodes[queue[qi]];
		for (size_t i = 1; i < n; i++) {
			struct ckt_kin_node *c = &nodes[i];
			if (c->found)
				continue;
			bool exec = ckt_kin_is_exec(c, x), through = false;
			if (!exec && (c->later || !ckt_kin_is_child(c, x, &through)))
				continue;
			c->found = true;
			c->from = queue[qi];
			c->via_exec = exec;
			/* the reported process and its later images start children; the rest
			 * descend from those (and from them through forks that ended) */
			bool ours = queue[qi] == 0 || x->rel == CKT_KIN_EXEC;
			c->rel = ours && !through ? (exec ? CKT_KIN_EXEC : CKT_KIN_CHILD) : CKT_KIN_DESCENDANT;
			queue[qn++] = i;
			found++;
		}
		/* the links followed: the run's traces that none reached descend from the reported
		 * process all the same (the report of its first process); on from them */
		bool drained = qi == qn - 1;
		for (size_t i = 1; drained && i < n; i++)
			if (!nodes[i].found && !nodes[i].later && ckt_kin_in_run(&nodes[i], &nodes[0])) {
				nodes[i].found = nodes[i].by_run = true;
				nodes[i].rel = CKT_KIN_DESCENDANT;
				queue[qn++] = i;
				found++;
			}
	}
	if (rc == 0 && found && !(out->v = calloc(found, sizeof(*out->v))))
		rc = CKT_ENOMEM;
	for (size_t qi = 1; rc == 0 && qi < qn; qi++) {
		struct ckt_kin_node *c = &nodes[queue[qi]];
		size_t dl = strlen(dir), len = dl + 1 + strlen(c->name) + 1;
		char *path = malloc(len);
		if (!path) {
			rc = CKT_ENOMEM;
			break;
		}
		snprintf(path, len, "%s%s%s", dir, dl && dir[dl - 1] != '/' ? "/" : "", c->name);
		uint64_t parent = c->by_run ? ckt_kin_started_by(c) : c->rel == CKT_KIN_EXEC ? c->pid : nodes[c->from].pid;
		out->v[out->n++] = (struct ckt_kin){ .path = path, .exe = c->exe, .pid = c->pid, .parent = parent,
						     .start_wall_ns = c->start, .rel = c->rel,
						     .after_exec = c->by_run ? parent == c->pid : c->via_exec };
		c->exe = NULL; /* the list's now */
		rc = ckt_kin_probe(&out->v[out->n - 1]);
	}
	if (rc == 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), ckt_kin_cmp);
	for (size_t i = 0; i < n; i++)
		ckt_kin_node_free(&nodes[i]);
	free(nodes);
	free(queue);
	free(dir);
	free(prefix);
	free(whole);
	if (rc < 0)
		ckt_kin_free(out);
	return rc;
}

void ckt_kin_free(struct ckt_kin_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].exe);
		free(l->v[i].error);
	}
	free(l->v);
	for (size_t i = 0; i < l->n_bad; i++) {
		free(l->bad[i].path);
		free(l->bad[i].error);
	}
	free(l->bad);
	memset(l, 0, sizeof(*l));
}
