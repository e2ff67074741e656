/* readahead.c: decoding on a thread of its own, up to 512 batches of records ahead of the replay
 * (ckt_replay_run_ahead). The replay takes about two thirds of the reader's time and decoding
 * (zstd included) the rest, one after the other on one core; here they overlap on two.
 *
 * The decoder thread fills batches of records in file order and hands them over through a
 * ring of CKT_RA_BATCHES; the calling thread feeds them to the replay in that order, so the
 * records, their order and every figure are those of ckt_replay_run. A record's strings and
 * stack frames point into the decoder's frame buffer, valid only until its next call: they are
 * copied into the batch's own arena as the record is decoded. A decoding error travels with
 * the records decoded before it and is said after they are fed, as in ckt_replay_run; a replay
 * error stops the decoder at its next batch.
 *
 * Runs of ALLOC and FREE records (nearly every record) travel decoded as the replay queues
 * them (CKT_REC_HEAP_RUN: see ckt_ra_fill), which the replay's thread copies into its queues.
 *
 * Memory: CKT_RA_BATCHES batches of CKT_RA_RECS records (88 bytes each) and CKT_RA_EVS heap
 * events (48 bytes each with their aux value): 17 MiB, pages touched as they fill, and their
 * arenas (the rare records with strings: module maps, stacks, names; 16 MiB at most, see
 * CKT_RA_ARENA).
 * Regular files only (ckt_decode_regular): from a pipe the decoder thread could sit in a read
 * that only the writer's close ends, and a replay error would wait for it. As deep as a flush window of a busy trace: the replay takes no record while it
 * replays a window at its SYNC, and the decoder goes on meanwhile. On the bench's exact trace,
 * medians of 5: 16 batches ahead 0.93 s, 64 0.75 s, 256 0.63 s, 512 0.59 s, 1024 0.61 s
 * (one thread: 0.90 s); batches of 128 records half as fast as 256 (a hand-over each). */
#include "replay.h"
#include "event.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define CKT_RA_RECS 256
#define CKT_RA_BATCHES 512
/* Heap events a batch holds in runs (CKT_REC_HEAP_RUN records): as many as records, so that the
 * ring holds as many events ahead as when every one was a record. */
#define CKT_RA_EVS 256
/* A batch ends early once its strings reach this: a record copies 10.3 KiB at most (a STACK of
 * 1024 frames), so an arena never grows past 32 KiB, 16 MiB for the ring. Unbounded, a forged
 * trace of 140,000 deep STACK records (about 1 MB) took 1.3 GB with the ring full of them. */
#define CKT_RA_ARENA 16384

struct ckt_ra_batch {
	struct ckt_record recs[CKT_RA_RECS];
	size_t n;
	/* the runs' events as the replay queues them (40 bytes each, and 8 of aux) */
	struct ckt_ev evs[CKT_RA_EVS];
	uint64_t aux[CKT_RA_EVS];
	size_t n_ev;
	int rc; /* ckt_decode_batch's last: 1 more to come, 0 the end, < 0 an error (err) */
	struct ckt_error err;
	uint8_t *arena;
	size_t arena_len, arena_cap;
};

struct ckt_ra {
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	uint64_t head, tail; /* batches filled, batches fed: head - tail are waiting */
	bool stop;           /* the replay failed: the decoder thread ends */
	/* who sleeps: the decoder on a full ring is woken when half of it is free again, the
	 * replay on an empty one at the next batch (a wake per batch, 75,000 for the bench's
	 * trace, cost a tenth of the time in switches) */
	bool decoder_waits, replay_waits;
	struct ckt_decoder *d;
	struct ckt_ra_batch *b;
};

/* Copies n bytes at *p into the arena and leaves their offset in *p (made a pointer again by
 * ckt_ra_rebase once the arena stops moving); 0 or CKT_ENOMEM. */
static int ckt_ra_keep(struct ckt_ra_batch *b, const uint8_t **p, size_t n)
{
	if (!b->arena || n > b->arena_cap - b->arena_len) { /* (never NULL once used: see ckt_ra_at) */
		size_t cap = b->arena_cap ? b->arena_cap : 4096;
		while (n > cap - b->arena_len)
			cap *= 2;
		uint8_t *a = realloc(b->arena, cap);
		if (!a)
			return CKT_ENOMEM;
		b->arena = a;
		b->arena_cap = cap;
	}
	if (n)
		memcpy(b->arena + b->arena_len, *p, n);
	*p = (const uint8_t *)(uintptr_t)b->arena_len;
	b->arena_len += n;
	return 0;
}

static inline const uint8_t *ckt_ra_at(const struct ckt_ra_batch *b, const uint8_t *off)
{
	return b->arena + (uintptr_t)off;
}

/* The fields of a record that point into the decoder's frame buffer, by tag; calls fn on each
 * (pointer, length) pair. */
#define CKT_RA_FIELDS(r, fn)                                                                     \
	do {                                                                                     \
		switch ((r)->tag) {                                                              \
		case CKT_TAG_THREAD_NAME:                                                        \
			fn(&(r)->u.thread_name.name, (r)->u.thread_name.len);                    \
			break;                                                                   \
		case CKT_TAG_PHASE_DEF:                                                          \
			fn(&(r)->u.phase_def.name, (r)->u.phase_def.len);                        \
			break;                                                                   \
		case CKT_TAG_NOTE:                                                               \
			fn(&(r)->u.note.text, (r)->u.note.len);                                  \
			break;                                                                   \
		case CKT_TAG_STACK:                                                              \
			fn(&(r)->u.stack.frames, (r)->u.stack.frames_len);                       \
			break;                                                                   \
		case CKT_TAG_MODULE:                                                             \
			fn(&(r)->u.module.path, (r)->u.module.path_len);                         \
			fn(&(r)->u.module.build_id, (r)->u.module.build_id_len);                 \
			break;                                                                   \
		case CKT_TAG_CUDA_DEVICE:                                                        \
			fn(&(r)->u.cuda_device.uuid, (r)->u.cuda_device.uuid_len);               \
			fn(&(r)->u.cuda_device.name, (r)->u.cuda_device.name_len);               \
			break;                                                                   \
		default:                                                                         \
			break;                                                                   \
		}                                                                                \
	} while (0)

/* Fills b with the next records: up to CKT_RA_RECS, fewer at the end or an error. From a
 * frame of version 2 on, each run of ALLOC and FREE records is decoded as the replay queues it
 * (ckt_decode_heap, as ckt_replay_run does) and handed over as one CKT_REC_HEAP_RUN record, so
 * that the replay's thread, the limit here, copies the run into its queue instead of taking
 * struct ckt_record after struct ckt_record; the batch then ends when either array is full. */
static void ckt_ra_fill(struct ckt_ra *ra, struct ckt_ra_batch *b)
{
	bool runs = ckt_decode_header(ra->d)->format_version >= 2;
	b->n = 0;
	b->n_ev = 0;
	b->arena_len = 0;
	b->rc = 1;
	while (b->n < CKT_RA_RECS && b->n_ev < CKT_RA_EVS && b->rc > 0 && b->arena_len < CKT_RA_ARENA) {
		size_t k = 0, i;
		uint64_t tid;
		if (runs && ckt_decode_heap_next(ra->d, &tid)) {
			int drc;
			k = ckt_decode_heap(ra->d, b->evs + b->n_ev, b->aux + b->n_ev, CKT_RA_EVS - b->n_ev, &drc,
					    &b->err);
			if (k) {
				struct ckt_record *r = &b->recs[b->n++];
				r->tag = CKT_REC_HEAP_RUN;
				r->tid = tid;
				r->ts = 0;
				r->u.heap_run.ev = b->evs + b->n_ev;
				r->u.heap_run.aux = b->aux + b->n_ev;
				r->u.heap_run.n = k;
				b->n_ev += k;
			}
			b->rc = drc;
			if (k || drc < 0)
				continue;
		}
		/* one record at a time where runs are made: the next may start one */
		int rc = ckt_decode_batch(ra->d, b->recs + b->n, runs ? 1 : CKT_RA_RECS - b->n, &k, &b->err);
		for (i = b->n; i < b->n + k; i++) {
			struct ckt_record *r = &b->recs[i];
			int kept = 0;
#define CKT_RA_KEEP(pp, len) kept |= ckt_ra_keep(b, (pp), (len))
			CKT_RA_FIELDS(r, CKT_RA_KEEP);
#undef CKT_RA_KEEP
			if (kept < 0)
				break;
		}
		if (i < b->n + k) { /* the records before it are fed, then the error said */
			b->n = i;
			b->rc = ckt_util_err(&b->err, CKT_ENOMEM, "out of memory");
			break;
		}
		b->n += k;
		b->rc = rc;
	}
	/* the arena moves no more: its offsets become pointers */
	for (size_t i = 0; i < b->n; i++) {
		struct ckt_record *r = &b->recs[i];
#define CKT_RA_REBASE(pp, len) (*(pp) = ckt_ra_at(b, *(pp)))
		CKT_RA_FIELDS(r, CKT_RA_REBASE);
#undef CKT_RA_REBASE
	}
}

static void *ckt_ra_decode(void *arg)
{
	struct ckt_ra *ra = arg;
	for (;;) {
		pthread_mutex_lock(&ra->mu);
		while (ra->head - ra->tail == CKT_RA_BATCHES && !ra->stop) {
			ra->decoder_waits = true;
			pthread_cond_wait(&ra->emptied, &ra->mu);
		}
		ra->decoder_waits = false;
		bool stop = ra->stop;
		uint64_t at = ra->head;
		pthread_mutex_unlock(&ra->mu);
		if (stop)
			return NULL;
		struct ckt_ra_batch *b = &ra->b[at % CKT_RA_BATCHES];
		ckt_ra_fill(ra, b);
		pthread_mutex_lock(&ra->mu);
		ra->head++;
		if (ra->replay_waits)
			pthread_cond_signal(&ra->filled);
		pthread_mutex_unlock(&ra->mu);
		if (b->rc <= 0)
			return NULL;
	}
}

int ckt_replay_run_ahead(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err)
{
	struct ckt_ra ra = { .d = d };
	if (!ckt_decode_regular(d))
		return ckt_replay_run(d, r, err);
	ra.b = calloc(CKT_RA_BATCHES, sizeof(*ra.b));
	if (!ra.b)
		return ckt_replay_run(d, r, err);
	pthread_mutex_init(&ra.mu, NULL);
	pthread_cond_init(&ra.filled, NULL);
	pthread_cond_init(&ra.emptied, NULL);
	/* the decoder thread takes no signal: the reader's handling stays on this thread (but
	 * a fault of its own is its own, and kills with a report, not in silence) */
	sigset_t all, old;
	sigfillset(&all);
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t th;
	int made = pthread_create(&th, NULL, ckt_ra_decode, &ra);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	int rc = 0;
	if (made != 0) {
		rc = ckt_replay_run(d, r, err);
	} else {
		for (;;) {
			pthread_mutex_lock(&ra.mu);
			while (ra.head == ra.tail) {
				ra.replay_waits = true;
				pthread_cond_wait(&ra.filled, &ra.mu);
			}
			ra.replay_waits = false;
			pthread_mutex_unlock(&ra.mu);
			struct ckt_ra_batch *b = &ra.b[ra.tail % CKT_RA_BATCHES];
			int frc = ckt_replay_feed(r, b->recs, b->n, err);
			int brc = b->rc;
			if (frc == 0 && brc < 0)
				*err = b->err;
			pthread_mutex_lock(&ra.mu);
			ra.tail++;
			if (frc < 0)
				ra.stop = true;
			if (ra.decoder_waits && (ra.stop || ra.head - ra.tail <= CKT_RA_BATCHES / 2))
				pthread_cond_signal(&ra.emptied);
			pthread_mutex_unlock(&ra.mu);
			if (frc < 0 || brc <= 0) {
				rc = frc < 0 ? frc : brc;
				break;
			}
		}
		pthread_join(th, NULL);
		if (rc == 0)
			rc = ckt_replay_end(d, r, err);
	}
	for (size_t i = 0; i < CKT_RA_BATCHES; i++)
		free(ra.b[i].arena);
	free(ra.b);
	pthread_cond_destroy(&ra.filled);
	pthread_cond_destroy(&ra.emptied);
	pthread_mutex_destroy(&ra.mu);
	return rc;
}
