// SPDX-License-Identifier: MIT
/*
 * speedscope's format (TIMELINE_SPEEDSCOPE): a shared table of frames (site texts, "parked",
 * wait kinds) and an "evented" profile per thread, its slices opened and closed ("O", "C") at
 * whole microseconds from the window's start: {"type":"O","frame":3,"at":1200}. A slice whose
 * ends round to one microsecond is left out (speedscope would give it no width), and a slice
 * closed and the same frame opened again in the same microsecond are one slice; each end rounded
 * to the nearest microsecond, the sums per frame stay fair. (speedscope's "sampled" profiles
 * would be smaller, but speedscope takes time quadratic in a thread's alternations to build
 * them.) Threads interleave, and a profile's events must follow each other: each thread's text
 * is kept in small buffers, spilled in blocks to an unlinked temporary file when they hold more
 * than SPILL_BUFFERED bytes in all, and copied out in order at the end.
 *
 * On two cores (converter_threads), the profiles' text is written by a thread of its own (the
 * writer), handed each event (struct profile_event) in batches: the slices are this thread's,
 * the text, the spill file and the profiles' pending events the writer's until the end, when it
 * is joined; the events and their order are the same, the output byte for byte what one thread
 * writes. The text is a quarter of a speedscope conversion of fib's recording (BOTS).
 */
#define _GNU_SOURCE
#include "timeline_private.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"
#include "hash.h"

/* speedscope's samples held in memory before they are spilled to the temporary file */
#define SPILL_BUFFERED (16u << 20)
/* A profile's text is spilled a block at a time (a write, and a read at the end, each): blocks
 * of 4 KiB were 30,000 system calls for a 60 MB profile. */
#define BLOCK_BYTES (64u << 10)

static bool buffer_reserve(struct profile_texts *t, struct buffer *b, uint32_t need)
{
	if (b->len + need <= b->cap)
		return true;
	uint32_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + need)
		cap *= 2;
	char *data = realloc(b->data, cap);
	if (data == NULL) {
		t->failed = true;
		return false;
	}
	t->buffered += cap - b->cap;
	b->data = data;
	b->cap = cap;
	return true;
}

int timeline_temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/taskprobe-timeline-XXXXXX",
		 dir != NULL && *dir != '\0' ? dir : "/tmp");
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Appends a profile's buffer to the spill file as a block, and empties it (freed if `release`). */
static void spill(struct profile_texts *t, uint32_t profile, int kind, bool release)
{
	struct buffer *b = &t->profiles[profile].text[kind];
	if (b->len > 0 && !t->failed) {
		if (t->spill_fd < 0)
			t->spill_fd = timeline_temp_file();
		if (t->n_blocks == t->cap_blocks) {
			size_t cap = t->cap_blocks ? 2 * t->cap_blocks : 1024;
			struct block *blocks = realloc(t->blocks, cap * sizeof *blocks);
			if (blocks == NULL) {
				t->failed = true;
				return;
			}
			t->blocks = blocks;
			t->cap_blocks = cap;
		}
		for (uint32_t done = 0; t->spill_fd >= 0 && done < b->len;) {
			ssize_t n = pwrite(t->spill_fd, b->data + done, b->len - done,
					   (off_t)(t->spill_size + done));
			if (n <= 0 && errno != EINTR)
				break;
			done += n > 0 ? (uint32_t)n : 0;
			if (done == b->len) {
				t->blocks[t->n_blocks] = (struct block){.profile = profile,
									.kind = (uint8_t)kind,
									.len = b->len,
									.offset = t->spill_size,
									.order = t->n_blocks};
				t->n_blocks++;
				t->spill_size += b->len;
				b->len = 0;
			}
		}
		if (b->len > 0)
			t->failed = true;
	}
	b->len = 0;
	if (release) {
		t->buffered -= b->cap;
		free(b->data);
		b->data = NULL;
		b->cap = 0;
	}
}

static void spill_all(struct profile_texts *t)
{
	for (uint32_t i = 0; i < t->n_profiles; i++)
		for (int kind = 0; kind < 1; kind++)
			spill(t, i, kind, true);
	t->buffered = 0;
}

/* Room for `len` bytes more at the end of a profile's text of `kind` (its block spilled first
 * when full); NULL when out of memory. */
static char *profile_room(struct profile_texts *t, uint32_t profile, int kind, uint32_t len)
{
	struct buffer *b = &t->profiles[profile].text[kind];
	if (b->len + len > BLOCK_BYTES)
		spill(t, profile, kind, false);
	return buffer_reserve(t, b, len) ? b->data + b->len : NULL;
}

/* `len` bytes written in the room of a profile's text of `kind` (profile_room). */
static void profile_wrote(struct profile_texts *t, uint32_t profile, int kind, uint32_t len)
{
	t->profiles[profile].text[kind].len += len;
	if (t->buffered > SPILL_BUFFERED)
		spill_all(t);
}

static uint64_t frame_hash(const void *context, const void *slot)
{
	const struct frames *f = context;
	return tp_hash_finish(tp_hash_text(f->pool + f->names[*(const uint32_t *)slot - 1]));
}

/* The frame of a name (JSON-escaped, NUL-terminated); 0 when there is no room (frame 0 is then
 * shared: the first name seen). */
uint32_t speedscope_frame(struct timeline *t, const char *name)
{
	struct frames *f = &t->frames;
	size_t len = strlen(name);
	uint64_t h = tp_hash_text(name);
	struct table *x = &f->table;
	if (!table_has_room(x) && (f->n >= MAX_FRAMES || !table_grow(x)))
		return 0;
	size_t i = table_home(x, tp_hash_finish(h));
	for (; table_used(x, i); i = table_next(x, i)) {
		uint32_t frame = *(const uint32_t *)table_slot(x, i);
		if (strcmp(f->pool + f->names[frame - 1], name) == 0)
			return frame - 1;
	}
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 256;
		uint32_t *names = realloc(f->names, cap * sizeof *names);
		if (names == NULL)
			return 0;
		f->names = names;
		f->cap = cap;
	}
	if (f->pool_len + len + 1 > MAX_NAMES_BYTES)
		return 0;
	if (f->pool_len + len + 1 > f->pool_cap) {
		size_t cap = f->pool_cap ? f->pool_cap : 4096;
		while (cap < f->pool_len + len + 1)
			cap *= 2;
		char *pool = realloc(f->pool, cap);
		if (pool == NULL)
			return 0;
		f->pool = pool;
		f->pool_cap = cap;
	}
	memcpy(f->pool + f->pool_len, name, len + 1);
	f->names[f->n] = (uint32_t)f->pool_len;
	f->pool_len += len + 1;
	*(uint32_t *)table_fill(x, i) = ++f->n;
	return f->n - 1;
}

uint32_t speedscope_slice_frame_found(struct timeline *t, const struct open_slice *slice)
{
	char buf[2048];
	if (slice->kind == 'K') { /* a frame found once, not hashed at every park */
		t->frames.parked = speedscope_frame(t, "parked");
		t->frames.parked_known = true;
		return t->frames.parked;
	}
	if (slice->kind == 'W') {
		wait_name(t, slice, buf, sizeof buf);
		return speedscope_frame(t, buf);
	}
	if (slice->site != 0 && slice->name != 0) {
		size_t i = slice->name & (SITE_FRAMES_CACHED - 1);
		t->frames.cache_name[i] = slice->name;
		t->frames.cache_frame[i] = speedscope_frame(t, t->sites.pool + slice->name);
		return t->frames.cache_frame[i];
	}
	return speedscope_frame(t, task_name_text(t, slice->site, slice->name, buf));
}

/* Writes a profile's pending event. */
static void profile_flush(struct profile_texts *t, uint32_t profile)
{
	struct profile *p = &t->profiles[profile];
	if (!p->pending)
		return;
	/* {"type":"O","frame":F,"at":T}, after a comma but the first (by hand: printf's
	 * formatting was a sixth of a conversion), made in its place: 59 bytes at most */
	static const char head[] = ",{\"type\":\"", frame[] = "\",\"frame\":", at[] = ",\"at\":";
	char *text = profile_room(t, profile, 0, 64);
	if (text != NULL) {
		size_t len = sizeof head - 1;
		if (p->events > 0)
			memcpy(text, head, sizeof head - 1);
		else
			memcpy(text, head + 1, --len);
		text[len++] = p->pending_type;
		memcpy(text + len, frame, sizeof frame - 1);
		len += sizeof frame - 1;
		len += format_u64(text + len, p->pending_frame);
		memcpy(text + len, at, sizeof at - 1);
		len += sizeof at - 1;
		len += format_u64(text + len, p->pending_at);
		text[len++] = '}';
		profile_wrote(t, profile, 0, (uint32_t)len);
	}
	p->events++;
	p->pending = false;
	t->written++;
}

/*
 * Event `e` written in its profile (see the top of this file): a close right after the open of
 * its frame in the same microsecond cancels it, and so does an open right after a close of its
 * frame.
 */
static void profile_event(struct profile_texts *t, const struct profile_event *e)
{
	struct profile *p = &t->profiles[e->profile];
	uint64_t at = e->at < p->last_at ? p->last_at : e->at;
	p->last_at = at;
	if (e->profile >= t->n_profiles)
		t->n_profiles = e->profile + 1u;
	if (p->pending && p->pending_frame == e->frame && p->pending_at == at &&
	    p->pending_type != e->type) {
		p->pending = false;
		return;
	}
	profile_flush(t, e->profile);
	p->pending = true;
	p->pending_type = e->type;
	p->pending_frame = e->frame;
	p->pending_at = at;
}

/* The events handed to the writer a batch at a time, in a ring of WRITER_BATCHES batches. */
#define WRITER_BATCH   4096
#define WRITER_BATCHES 16

struct profile_writer {
	struct profile_texts texts; /* the timeline's, while the writer runs */
	struct profile_event (*batches)[WRITER_BATCH];
	uint32_t sizes[WRITER_BATCHES];
	bool last[WRITER_BATCHES]; /* the batch is the last */
	struct handoff h;
	pthread_t thread;
	uint64_t filled; /* batches filled (the batch filled is the timeline's events_next) */
};

static void *writer_run(void *arg)
{
	struct profile_writer *w = arg;
	for (uint64_t i = 0;; i++) {
		handoff_to_empty(&w->h, i);
		unsigned at = (unsigned)(i % WRITER_BATCHES);
		const struct profile_event *batch = w->batches[at];
		struct profile_texts *texts = &w->texts;
		for (uint32_t j = 0, n = w->sizes[at]; j < n; j++)
			profile_event(texts, &batch[j]);
		bool last = w->last[at];
		handoff_empty_done(&w->h, i);
		if (last)
			return NULL;
	}
}

/* The timeline's room: the batch to fill, all of it. */
static void writer_room(struct timeline *t)
{
	struct profile_writer *w = t->writer;
	t->events_next = w->batches[w->filled % WRITER_BATCHES];
	t->events_end = t->events_next + WRITER_BATCH;
}

/* The batch being filled handed to the writer (the last when `last`: the timeline then has no
 * room). */
static void writer_hand(struct timeline *t, bool last)
{
	struct profile_writer *w = t->writer;
	unsigned at = (unsigned)(w->filled % WRITER_BATCHES);
	w->sizes[at] = (uint32_t)(t->events_next - w->batches[at]);
	w->last[at] = last;
	handoff_fill_done(&w->h, w->filled++, last);
	t->events_next = t->events_end = NULL;
	if (last)
		return;
	handoff_to_fill(&w->h, w->filled); /* (never stopped: the writer empties every batch) */
	writer_room(t);
}

/* The writer started, on two cores, the texts its own; false (`no_writer`) when it is not to be,
 * or cannot start. */
static bool writer_start(struct timeline *t)
{
	struct profile_writer *w = NULL;
	if (converter_threads() > 1 &&
	    (w = aligned_alloc(_Alignof(struct profile_writer), sizeof *w)) != NULL) {
		*w = (struct profile_writer){
			.texts = t->texts,
			.h = HANDOFF_INIT(WRITER_BATCHES, WRITER_BATCHES / 2 - 1)};
		w->batches = malloc(WRITER_BATCHES * sizeof *w->batches);
		if (w->batches == NULL || pthread_create(&w->thread, NULL, writer_run, w) != 0) {
			free(w->batches);
			free(w);
			w = NULL;
		}
	}
	t->writer = w;
	t->no_writer = w == NULL;
	if (w != NULL)
		writer_room(t);
	return w != NULL;
}

/* The writer, if any, has written every event handed to it, and has ended: the texts are this
 * thread's again. */
static void writer_stop(struct timeline *t)
{
	struct profile_writer *w = t->writer;
	if (w == NULL)
		return;
	writer_hand(t, true);
	pthread_join(w->thread, NULL);
	t->texts = w->texts;
	free(w->batches);
	free(w);
	t->writer = NULL;
	t->no_writer = true; /* (nothing is written after) */
}

/* (the room is none until the writer starts, and without one) */
void speedscope_hand(struct timeline *t, const struct profile_event *e)
{
	if (e != NULL && t->writer == NULL && (t->no_writer || !writer_start(t))) {
		profile_event(&t->texts, e);
		return;
	}
	if (e != NULL)
		*t->events_next++ = *e;
	if (t->events_next == t->events_end)
		writer_hand(t, false);
}

static int block_order(const void *a, const void *b)
{
	const struct block *x = a, *y = b;
	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Copies a block of the spill file to `out`: read into the stream's buffer where it fits there
 * (as put_bytes writes there: no copy more of the profiles' text), else into `buf` and written. */
static void copy_block(struct profile_texts *t, const struct block *b, char *buf, FILE *out)
{
	bool in_place = (size_t)(out->_IO_write_end - out->_IO_write_ptr) >= b->len;
	char *to = in_place ? out->_IO_write_ptr : buf;
	if (pread(t->spill_fd, to, b->len, (off_t)b->offset) != (ssize_t)b->len) {
		t->failed = true;
		return;
	}
	if (in_place)
		out->_IO_write_ptr += b->len;
	else
		fwrite_unlocked(buf, 1, b->len, out);
}

/* The writer stopped, what it counted is the timeline's. */
static void texts_end(struct timeline *t)
{
	writer_stop(t);
	t->counts.written += t->texts.written;
	t->texts.written = 0;
	t->failed |= t->texts.failed;
	t->texts.failed = false;
}

/* Writes the speedscope file: every profile's samples, then the frames. */
void speedscope_finish(struct timeline *t)
{
	FILE *out = t->out;
	struct profile_texts *texts = &t->texts;
	texts_end(t);
	uint64_t end = t->last_ns < t->to ? t->last_ns : t->to;
	if (t->from > end)
		end = t->from;
	if (t->n_profiles == 0 || t->counts.written == 0) {
		/* speedscope refuses a file without a profile: one that says what was seen */
		fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		      "\"exporter\":\"taskprobe-timeline\",\"profiles\":[{\"type\":\"evented\","
		      "\"name\":\"",
		      out);
		put(out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
		fputs("\",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":1,\"events\":["
		      "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"C\",\"frame\":0,\"at\":1}]"
		      "}],"
		      "\"shared\":{\"frames\":[{\"name\":\"",
		      out);
		put(out, t->counts.events == 0 ? NOTHING_SEEN : NO_SLICE_SEEN);
		fputs("\"}]}}\n", out);
		return;
	}
	texts->n_profiles = t->n_profiles;
	for (uint32_t i = 0; i < t->n_profiles; i++)
		profile_flush(texts, i);
	spill_all(texts);
	t->counts.written += texts->written;
	t->failed |= texts->failed;
	char *buf = malloc(BLOCK_BYTES);
	if (buf == NULL) {
		t->failed = true;
		return;
	}
	qsort(texts->blocks, texts->n_blocks, sizeof *texts->blocks, block_order);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"taskprobe-timeline\",\"activeProfileIndex\":0,\"profiles\":[",
	      out);
	size_t b = 0;
	for (uint32_t i = 0; i < t->n_profiles; i++) {
		struct profile *p = &t->profiles[i];
		fputs(i == 0 ? "\n{\"type\":\"evented\",\"name\":\""
			     : ",\n{\"type\":\"evented\",\"name\":\"",
		      out);
		put_escaped(out, p->name);
		put_number(out, "\",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":",
			   (end - t->from + 500) / 1000, ",\"events\":[");
		for (; b < texts->n_blocks && texts->blocks[b].profile == i; b++)
			copy_block(texts, &texts->blocks[b], buf, out);
		fputs("]}", out);
	}
	free(buf);
	t->failed |= texts->failed;
	fputs("],\n\"shared\":{\"frames\":[", out);
	for (uint32_t i = 0; i < t->frames.n; i++) {
		put(out, i == 0 ? "{\"name\":\"" : ",{\"name\":\"");
		put(out, t->frames.pool + t->frames.names[i]);
		put(out, "\"}");
	}
	fputs("]}}\n", out);
}

/* A speedscope profile for a new thread (up to TIMELINE_MAX_PROFILES of them). */
void speedscope_add_profile(struct timeline *t, struct thread *thread,
			    const struct timeline_event *e)
{
	if (t->n_profiles == TIMELINE_MAX_PROFILES) {
		t->counts.threads_unprofiled++;
		return;
	}
	if (t->profiles == NULL) {
		t->profiles = calloc(TIMELINE_MAX_PROFILES, sizeof *t->profiles);
		if (t->profiles == NULL) {
			t->failed = true;
			return;
		}
		t->texts.profiles = t->profiles;
	}
	struct profile *p = &t->profiles[t->n_profiles++];
	p->tid = e->tid;
	snprintf(p->name, sizeof p->name, "%s %" PRIu32 " (pid %" PRIu32 ")", thread_name(t, e),
		 e->tid, e->pid);
	thread->profile = t->n_profiles;
}

void speedscope_init(struct timeline *t)
{
	table_init(&t->frames.table, sizeof(uint32_t), sizeof(uint32_t), 1024, frame_hash,
		   &t->frames);
}

void speedscope_free(struct timeline *t)
{
	writer_stop(t);
	for (uint32_t i = 0; i < t->n_profiles; i++)
		for (int kind = 0; kind < 1; kind++)
			free(t->profiles[i].text[kind].data);
	if (t->texts.spill_fd >= 0)
		close(t->texts.spill_fd);
	free(t->profiles);
	free(t->texts.blocks);
	table_free(&t->frames.table);
	free(t->frames.names);
	free(t->frames.pool);
}

void speedscope_path_fragment(struct timeline *t, const struct analysis_fragment *f, bool first,
			      uint64_t start, uint64_t end, const char *text)
{
	/* the track: a profile (t->path_profile: 1 + its index) */
	if (first) {
		t->path_profile = 0;
		struct timeline_event e = {.pid = f->pid, .tid = TIMELINE_PATH_TID};
		struct thread track = {0};
		speedscope_add_profile(t, &track, &e);
		if (track.profile != 0)
			snprintf(t->profiles[track.profile - 1].name,
				 sizeof t->profiles[track.profile - 1].name,
				 "critical path (pid %" PRIu32 ")", f->pid);
		t->path_profile = track.profile;
	}
	if (text == NULL)
		return;
	struct thread track = {.profile = t->path_profile};
	uint32_t frame = speedscope_frame(t, text);
	speedscope_event(t, &track, 'O', frame, start);
	speedscope_event(t, &track, 'C', frame, end);
}
