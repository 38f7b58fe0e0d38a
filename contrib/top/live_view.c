// SPDX-License-Identifier: MIT
/* Reading live statistics into snapshots (live_view.h). */
#define _GNU_SOURCE
#include "live_view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "taskprobe_contract.h"

/* The shim's default directories, in its order (shim/live.c, live_directory). */
static int open_in_default_dirs(pid_t pid, char *path, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	const char *dirs[] = {getenv("TASKPROBE_LIVE_DIR"), "/dev/shm",
			      tmp != NULL && tmp[0] == '/' ? tmp : NULL, "/tmp"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (dirs[i] == NULL)
			continue;
		snprintf(path, size, "%s/" TP_LIVE_FILE_PREFIX "%d", dirs[i], (int)pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 || errno != ENOENT)
			return fd;
	}
	errno = ENOENT;
	return -1;
}

enum live_open_result live_open(struct live_file *f, pid_t pid, const char *dir, char *why,
				size_t why_size)
{
	memset(f, 0, sizeof *f);
	int fd;
	if (dir != NULL) {
		snprintf(f->path, sizeof f->path, "%s/" TP_LIVE_FILE_PREFIX "%d", dir, (int)pid);
		fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	} else {
		fd = open_in_default_dirs(pid, f->path, sizeof f->path);
	}
	if (fd < 0) {
		snprintf(why, why_size,
			 "no live statistics for pid %d (%s): start it with `taskprobe run` or "
			 "TASKPROBE_LIVE=1 (as the same user)",
			 (int)pid, strerror(errno));
		return LIVE_MISSING;
	}
	struct stat st;
	struct tp_live_header h;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, why_size, "%s is not a regular file", f->path);
		return LIVE_BAD;
	}
	if (st.st_uid != getuid() && getuid() != 0) {
		close(fd);
		snprintf(why, why_size,
			 "%s belongs to another user: run taskprobe top as its owner", f->path);
		return LIVE_FOREIGN;
	}
	if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    memcmp(h.magic, TP_LIVE_MAGIC, sizeof h.magic) != 0) {
		close(fd);
		snprintf(why, why_size, "%s is not ready yet, or not taskprobe's live statistics",
			 f->path);
		return LIVE_MISSING;
	}
	if (h.version != TP_LIVE_VERSION || h.header_size != sizeof h ||
	    h.file_size != TP_LIVE_FILE_SIZE || (uint64_t)st.st_size < h.file_size ||
	    h.rows_offset != TP_LIVE_ROWS_OFFSET || h.rows_stride != TP_LIVE_ROWS_STRIDE) {
		close(fd);
		snprintf(why, why_size,
			 "%s has another layout (version %u): use the taskprobe of the program's "
			 "libtaskprobe.so",
			 f->path, h.version);
		return LIVE_BAD;
	}
	void *m = mmap(NULL, h.file_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(why, why_size, "cannot map %s: %s", f->path, strerror(errno));
		return LIVE_BAD;
	}
	f->map = m;
	f->size = h.file_size;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->pid = pid;
	return LIVE_OPENED;
}

void live_close(struct live_file *f)
{
	if (f->map != NULL)
		munmap((void *)f->map, f->size);
	f->map = NULL;
}

/* Slot `i`'s rows, or NULL before they have space. */
static const struct tp_live_site_stats *slot_rows(const struct live_file *f, unsigned i)
{
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	const struct tp_live_thread *slots = (const void *)(f->map + TP_LIVE_THREADS_OFFSET);
	if (!__atomic_load_n(&slots[i].rows_ready, __ATOMIC_ACQUIRE))
		return NULL;
	return (const void *)(f->map + h->rows_offset + (uint64_t)i * h->rows_stride);
}

uint64_t live_spawned(const struct live_file *f)
{
	uint64_t spawned = 0;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = slot_rows(f, i);
		for (uint32_t row = 0; rows != NULL && row < TP_LIVE_SITES; row++)
			spawned += __atomic_load_n(&rows[row].spawned, __ATOMIC_RELAXED);
	}
	return spawned;
}

bool live_process_gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

struct live_id live_id(const struct live_file *f)
{
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	return (struct live_id){f->pid, h->ns_at_start};
}

bool live_id_listed(struct live_id id, const struct live_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i].pid == id.pid && ids[i].started_ns == id.started_ns)
			return true;
	return false;
}

/* Whether `candidate` (which spawned `spawned`) is a better choice than `best` by `choice`. */
static bool better(enum live_choice choice, const struct live_file *candidate, uint64_t spawned,
		   const struct live_file *best, uint64_t best_spawned)
{
	if (spawned == 0)
		return false;
	if (best == NULL)
		return true;
	if (choice == LIVE_BUSIEST)
		return spawned > best_spawned;
	const struct tp_live_header *c = (const struct tp_live_header *)candidate->map,
				    *b = (const struct tp_live_header *)best->map;
	return c->ns_at_start < b->ns_at_start;
}

bool live_open_child(struct live_file *f, const char *dir, const struct live_id *except,
		     size_t n_except, enum live_choice choice)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return false;
	bool found = false;
	uint64_t found_spawned = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const size_t prefix = sizeof TP_LIVE_FILE_PREFIX - 1;
		char *end;
		if (strncmp(e->d_name, TP_LIVE_FILE_PREFIX, prefix) != 0)
			continue;
		long pid = strtol(e->d_name + prefix, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		struct live_file candidate;
		char why[512];
		if (live_open(&candidate, (pid_t)pid, dir, why, sizeof why) != LIVE_OPENED)
			continue;
		if (live_id_listed(live_id(&candidate), except, n_except)) {
			live_close(&candidate);
			continue;
		}
		uint64_t spawned = live_spawned(&candidate);
		if (better(choice, &candidate, spawned, found ? f : NULL, found_spawned)) {
			if (found)
				live_close(f);
			*f = candidate;
			found = true;
			found_spawned = spawned;
		} else {
			live_close(&candidate);
		}
	}
	closedir(d);
	return found;
}

bool live_replaced(const struct live_file *f)
{
	struct stat st;
	return stat(f->path, &st) == 0 && (st.st_dev != f->dev || st.st_ino != f->ino);
}

static uint64_t load64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static uint32_t load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Now in the process's clock (taskprobe_live.h). */
static uint64_t process_now(const struct tp_live_header *h)
{
#if defined(__x86_64__)
	/* the counter's rate, once the process has timed it (until then its times are CLOCK_MONOTONIC) */
	uint64_t rate = __atomic_load_n(&h->ns_per_tsc_2_32, __ATOMIC_RELAXED);
	if (h->clock == TP_LIVE_CLOCK_TSC && rate != 0)
		return h->ns_at_start +
		       (uint64_t)(((unsigned __int128)(__rdtsc() - h->tsc_at_start) * rate) >> 32);
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The value at `fraction` of a log2 histogram, interpolated inside its bucket; 0 if empty. */
static uint64_t histogram_quantile(const uint64_t *histogram, double fraction)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++)
		total += histogram[b];
	if (total == 0)
		return 0;
	double wanted = fraction * (double)total, seen = 0;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		if (histogram[b] == 0)
			continue;
		if (seen + (double)histogram[b] >= wanted) {
			double low = b == 0 ? 0 : (double)(1ull << b), high = (double)(2ull << b);
			return (uint64_t)(low +
					  (high - low) * (wanted - seen) / (double)histogram[b]);
		}
		seen += (double)histogram[b];
	}
	return 1ull << (TP_LIVE_BUCKETS - 1);
}

static void add_row(struct site_view *v, const struct tp_live_site_stats *r)
{
	v->spawned += load64(&r->spawned);
	v->done += load64(&r->done);
	v->polls += load64(&r->polls);
	v->busy_ns += load64(&r->busy_ns);
	v->idle_ns += load64(&r->idle_ns);
	v->delay_ns += load64(&r->delay_ns);
	v->delays += load64(&r->delays);
	uint64_t longest = load64(&r->longest_poll_ns);
	if (longest > v->longest_poll_ns)
		v->longest_poll_ns = longest;
	v->long_polls += load64(&r->long_polls);
	v->blocking_waits += load64(&r->blocking_waits);
	v->blocking_ns += load64(&r->blocking_ns);
	uint64_t first = load64(&r->first_spawn_ns), last = load64(&r->last_done_ns);
	if (first != 0 && (v->first_spawn_ns == 0 || first < v->first_spawn_ns))
		v->first_spawn_ns = first;
	if (last > v->last_done_ns)
		v->last_done_ns = last;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		v->poll_histogram[b] += load64(&r->poll_histogram[b]);
		v->delay_histogram[b] += load64(&r->delay_histogram[b]);
	}
}

static const struct worker_view *previous_worker(const struct live_snapshot *previous,
						 uint32_t slot, uint32_t generation)
{
	if (previous == NULL)
		return NULL;
	for (unsigned i = 0; i < previous->n_workers; i++)
		if (previous->workers[i].slot == slot &&
		    previous->workers[i].generation == generation)
			return &previous->workers[i];
	return NULL;
}

static double share(uint64_t part, uint64_t whole)
{
	double s = whole > 0 ? (double)part / (double)whole : 0;
	return s < 0 ? 0 : s > 1 ? 1 : s;
}

void live_snapshot(const struct live_file *f, const struct live_snapshot *previous,
		   struct live_snapshot *out)
{
	const struct tp_live_header *h = (const struct tp_live_header *)f->map;
	const struct tp_live_site *sites = (const void *)(f->map + TP_LIVE_SITES_OFFSET);
	const struct tp_live_thread *slots = (const void *)(f->map + TP_LIVE_THREADS_OFFSET);
	memset(out, 0, sizeof *out);
	memcpy(&out->header, h, sizeof out->header);
	bool exited = __atomic_load_n(&h->exited, __ATOMIC_ACQUIRE) != 0;
	out->now_ns = exited ? load64(&h->exited_ns) : process_now(h);
	out->elapsed_ns = out->now_ns > h->ns_at_start ? out->now_ns - h->ns_at_start : 0;

	/* sites: rows summed over every slot that has them */
	struct site_view *by_row[TP_LIVE_SITES] = {0};
	for (uint32_t row = 0; row < TP_LIVE_SITES; row++) {
		if (__atomic_load_n(&sites[row].state, __ATOMIC_ACQUIRE) != TP_LIVE_ENTRY_READY)
			continue;
		struct site_view *v = &out->sites[out->n_sites++];
		v->row = row;
		v->site_id = sites[row].site_id;
		v->by_executor = sites[row].by_executor != 0;
		snprintf(v->text, sizeof v->text, "%s", sites[row].text);
		by_row[row] = v;
	}
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_site_stats *rows = slot_rows(f, i);
		for (uint32_t row = 0; rows != NULL && row < TP_LIVE_SITES; row++)
			if (by_row[row] != NULL)
				add_row(by_row[row], &rows[row]);
	}

	/* threads: every slot in use; after the exit, the ended ones too */
	uint64_t since_previous = previous != NULL && out->now_ns > previous->now_ns
					  ? out->now_ns - previous->now_ns
					  : out->elapsed_ns;
	for (unsigned i = 0; i < TP_LIVE_THREADS; i++) {
		const struct tp_live_thread *t = &slots[i];
		uint32_t use = __atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE);
		if (use != TP_LIVE_SLOT_LIVE && !(use == TP_LIVE_SLOT_ENDED && exited))
			continue;
		struct worker_view *w = &out->workers[out->n_workers++];
		w->slot = i;
		w->ended = use == TP_LIVE_SLOT_ENDED;
		w->generation = load32(&t->generation);
		w->tid = load32(&t->tid);
		w->worker = load32(&t->worker);
		memcpy(w->name, t->name, sizeof w->name);
		w->name[sizeof w->name - 1] = '\0';
		w->state = load32(&t->state);
		w->site = load32(&t->site);
		uint64_t since = load64(&t->state_since);
		w->state_for_ns = out->now_ns > since ? out->now_ns - since : 0;
		w->wait_kind = load32(&t->wait_kind);
		uint64_t wait_since = load64(&t->wait_since);
		w->wait_for_ns = w->wait_kind != 0 && out->now_ns > wait_since
					 ? out->now_ns - wait_since
					 : 0;
		w->wait_task = load64(&t->wait_task);
		w->polls = load64(&t->polls);
		w->busy_ns = load64(&t->busy_ns) +
			     (w->state == TP_LIVE_POLLING ? w->state_for_ns : 0);
		w->parked_ns = load64(&t->parked_ns) +
			       (w->state == TP_LIVE_PARKED ? w->state_for_ns : 0);
		/* over the last interval, or since the thread took its slot */
		const struct worker_view *before = previous_worker(previous, i, w->generation);
		uint64_t taken = load64(&t->taken_ns);
		uint64_t interval = before != NULL        ? since_previous
				    : out->now_ns > taken ? out->now_ns - taken
							  : 0;
		/* a state read while it changed can make a figure step back: no share then */
		uint64_t busy = before == NULL                 ? w->busy_ns
				: w->busy_ns > before->busy_ns ? w->busy_ns - before->busy_ns
							       : 0;
		uint64_t parked = before == NULL ? w->parked_ns
				  : w->parked_ns > before->parked_ns
					  ? w->parked_ns - before->parked_ns
					  : 0;
		w->busy_share = share(busy, interval);
		w->parked_share = share(parked, interval);
		w->spinning_share = w->worker ? 1 - w->busy_share - w->parked_share : 0;
		if (w->spinning_share < 0)
			w->spinning_share = 0;
		if (w->site >= TP_LIVE_SITES)
			w->site = TP_LIVE_OVERFLOW; /* never from the shim: a damaged file */
		if (w->state == TP_LIVE_POLLING && by_row[w->site] != NULL) {
			by_row[w->site]->polling_now++;
			if (w->state_for_ns > by_row[w->site]->longest_now_ns)
				by_row[w->site]->longest_now_ns = w->state_for_ns;
		}
	}

	for (unsigned i = 0; i < out->n_sites; i++) {
		struct site_view *v = &out->sites[i];
		v->alive = v->spawned > v->done ? v->spawned - v->done : 0;
		out->alive += v->alive;
		out->spawned += v->spawned;
		out->done += v->done;
		v->delay_p50_ns = histogram_quantile(v->delay_histogram, 0.50);
		v->delay_p99_ns = histogram_quantile(v->delay_histogram, 0.99);
		/* interpolated in a log2 bucket: never beyond the longest poll seen */
		v->poll_p50_ns = histogram_quantile(v->poll_histogram, 0.50);
		v->poll_p99_ns = histogram_quantile(v->poll_histogram, 0.99);
		if (v->poll_p50_ns > v->longest_poll_ns)
			v->poll_p50_ns = v->longest_poll_ns;
		if (v->poll_p99_ns > v->longest_poll_ns)
			v->poll_p99_ns = v->longest_poll_ns;
		if (v->long_polls > 0)
			v->warnings |= WARN_LONG_POLLS;
		if (v->blocking_waits > 0)
			v->warnings |= WARN_BLOCKS;
		if (!v->by_executor && v->done == 0 && v->alive > 0 && v->first_spawn_ns != 0 &&
		    out->now_ns > v->first_spawn_ns + LIVE_NEVER_ENDS_NS)
			v->warnings |= WARN_NEVER_ENDS;
		if (v->longest_now_ns >= h->long_poll_ns)
			v->warnings |= WARN_LONG_POLL_NOW;
	}
}

const struct site_view *live_site(const struct live_snapshot *s, uint32_t row)
{
	for (unsigned i = 0; i < s->n_sites; i++)
		if (s->sites[i].row == row)
			return &s->sites[i];
	return NULL;
}

static const char *const column_names[COLUMNS] = {
	"site",    "spawned", "alive", "done",    "polls",    "busy",
	"delay50", "delay99", "idle",  "longest", "warnings",
};

const char *live_column_name(enum site_column column)
{
	return column < COLUMNS ? column_names[column] : "?";
}

enum site_column live_column_by_name(const char *name)
{
	for (unsigned c = 0; c < COLUMNS; c++)
		if (strcasecmp(name, column_names[c]) == 0)
			return (enum site_column)c;
	return COLUMNS;
}

/* The longest of a site's polls: ended, or going on now. */
static uint64_t longest(const struct site_view *v)
{
	return v->longest_now_ns > v->longest_poll_ns ? v->longest_now_ns : v->longest_poll_ns;
}

static uint64_t warning_weight(const struct site_view *v)
{
	return v->long_polls + v->blocking_waits +
	       ((v->warnings & (WARN_NEVER_ENDS | WARN_LONG_POLL_NOW)) ? 1u << 30 : 0);
}

static uint64_t sort_value(const struct site_view *v, enum site_column c)
{
	switch (c) {
	case COLUMN_SPAWNED:
		return v->spawned;
	case COLUMN_ALIVE:
		return v->alive;
	case COLUMN_DONE:
		return v->done;
	case COLUMN_POLLS:
		return v->polls;
	case COLUMN_BUSY:
		return v->busy_ns;
	case COLUMN_DELAY_P50:
		return v->delay_p50_ns;
	case COLUMN_DELAY_P99:
		return v->delay_p99_ns;
	case COLUMN_IDLE:
		return v->idle_ns;
	case COLUMN_LONGEST:
		return longest(v);
	case COLUMN_WARNINGS:
		return warning_weight(v);
	default:
		return 0;
	}
}

static enum site_column sort_column;
static bool sort_ascending;

static int compare_sites(const void *a, const void *b)
{
	const struct site_view *x = a, *y = b;
	int order;
	if (sort_column == COLUMN_SITE) {
		order = strcmp(x->text, y->text);
	} else {
		uint64_t vx = sort_value(x, sort_column), vy = sort_value(y, sort_column);
		order = vx < vy ? -1 : vx > vy;
	}
	if (order == 0)
		order = x->row < y->row ? -1 : x->row > y->row; /* stable between refreshes */
	return sort_ascending ? order : -order;
}

void live_sort_sites(struct live_snapshot *s, enum site_column column, bool ascending)
{
	sort_column = column;
	sort_ascending = ascending;
	qsort(s->sites, s->n_sites, sizeof s->sites[0], compare_sites);
}

void live_format_ns(char *out, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(out, size, "%uns", (unsigned)ns);
	else if (ns < 1000000)
		snprintf(out, size, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(out, size, "%.1fms", (double)ns / 1e6);
	else if (ns < 1000000000000ull)
		snprintf(out, size, "%.2fs", (double)ns / 1e9);
	else
		snprintf(out, size, "%.0fs", (double)ns / 1e9);
}

void live_format_warnings(char *out, size_t size, const struct site_view *v)
{
	size_t used = 0;
	out[0] = '\0';
#define WARN_APPEND(...)                                                                           \
	do {                                                                                       \
		if (used < size) {                                                                 \
			if (used > 0)                                                              \
				used += (size_t)snprintf(out + used, size - used, ", ");           \
			if (used < size)                                                           \
				used += (size_t)snprintf(out + used, size - used, __VA_ARGS__);    \
		}                                                                                  \
	} while (0)
	if (v->warnings & WARN_LONG_POLL_NOW) {
		char t[16];
		live_format_ns(t, sizeof t, v->longest_now_ns);
		WARN_APPEND("polling %s now", t);
	}
	if (v->warnings & WARN_LONG_POLLS)
		WARN_APPEND("long %llu", (unsigned long long)v->long_polls);
	if (v->warnings & WARN_BLOCKS)
		WARN_APPEND("blocks %llu", (unsigned long long)v->blocking_waits);
	if (v->warnings & WARN_NEVER_ENDS)
		WARN_APPEND("never ends");
#undef WARN_APPEND
}

const char *live_wait_kind_name(uint32_t kind)
{
	static const char *const names[] = TP_WAIT_KIND_NAMES;
	if (kind == 0)
		return "";
	return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
