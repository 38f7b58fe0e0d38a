// SPDX-License-Identifier: MIT
/*
 * The task graph's work, span and critical path, computed as the events come (analysis.h).
 *
 * Every fragment's longest path to its end is known when it ends: the longest path to its start
 * (the largest of its predecessors' ends, see analysis.h) plus its own time. Each fragment that
 * ends becomes a node that points back at the node of its longest predecessor; nodes are counted
 * references, held by the tasks, threads and accumulators that may still extend them, and freed
 * when nothing can: what is held is the longest paths to the ends of what has not ended, sharing
 * their prefixes, never the graph. The process's longest path so far is the span; walking its
 * nodes back gives the critical path's sites.
 *
 * OpenMP's initial task (the one task with neither parent nor site) is in the graph: its serial
 * code is work and lies on the span, and regions in a row compose in series (its fragment after a
 * region follows the region's implicit task, which joined everything at the region's barrier). A
 * worker's implicit task (OpenMP names no parent for it) starts after the fork: the initial task's
 * code up to it, and its region's last fork seen.
 *
 * Beside the span, every path has a placed length (POP's critical path's computation: see
 * analysis.h), and each thread its computation (its polls' time): the POP factors
 * (taskprobe_live.h), per parallel region the load balance, per sync site the waits.
 */
#define _GNU_SOURCE
#include "analysis.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "shown_text.h"
#include "taskprobe_contract.h"
#include "taskprobe_live.h" /* the burdened span's and the spawn cost's definitions */
#include "work_span.h"      /* the graph's rules */

/*
 * A duration histogram in the live statistics' log2 buckets (taskprobe_live.h), read by their
 * one reading, tp_live_quantile: --analyze, the exit report and the console say the same median
 * of the same durations (the live ones keep fewer buckets: 64 ns to 4 ms).
 */
struct hist {
	uint64_t count;
	uint64_t *bucket; /* TP_LIVE_BUCKETS, made at the first value */
};

struct node {
	struct node *prev; /* the longest path's fragment before this one */
	uint64_t path;     /* ns: the longest path to this fragment's end */
	uint64_t burdened; /* ns: that path with the delays measured before its fragments started */
	/* ns: the placed path to its end (analysis.h): what every join brought, the longest path
	 * or not, and its thread's fragments before it */
	uint64_t placed;
	uint64_t start, end, task;
	uint32_t refs, site, tid, pid;
	uint64_t process;
};

/* The longest of some paths, when the last of them ended, and the longest of their placed
 * lengths (of any of them, the longest or not). */
struct acc {
	struct node *n;
	uint64_t ns;
	uint64_t placed;
};

struct key {
	uint64_t process, id;
	struct key *next; /* in its hash bucket */
};

struct map {
	struct key **bucket;
	size_t size, count;
};

struct edge {
	uint64_t successor;
	struct edge *next;
};

enum task_state { NEW, RUNNING, SUSPENDED, ENDED };

struct task {
	struct key k;
	struct task *parent; /* kept while this task is */
	struct proc *proc;
	uint32_t site, live_children;
	uint8_t state, sync;
	bool initial;
	uint32_t region;       /* its parent's parallel region at its spawn (region_of) */
	uint32_t sync_site;    /* the site of the sync its last poll ended in (0: none) */
	uint32_t section_site; /* in a mutual exclusion: the site of the wait that entered it */
	/* its thread switched it out to run a child created undeferred (nested work): its next
	 * fragment does not follow what the thread ran meanwhile; the child joins it at its next
	 * taskwait, taskgroup's end or barrier, as a child run elsewhere would */
	bool ran_undeferred;
	uint64_t suspend_ns, poll_ns, last_spawn_ns;
	struct acc in;         /* not yet polled: the paths to its start (ns: when it could) */
	struct node *last;     /* its last fragment */
	struct acc kids, desc; /* ended since its last join: children, descendants */
	struct edge *successors;
};

struct thread {
	struct key k;
	struct task *task; /* polled now, or NULL */
	uint64_t start, latency;
	uint64_t poll_start; /* the poll's (start: its fragment's, split at a release) */
	uint64_t could_ns;   /* when its fragment could start (what joins it ended) */
	uint64_t counted;    /* the polled fragment's time up to here is in the work (count_work) */
	struct node *in;     /* the longest path to its fragment's start */
	uint64_t in_placed;  /* the placed path to it */
	struct node *last;   /* the last fragment it polled */
	uint64_t free_ns;    /* when that ended */
	uint64_t computation; /* its polls' time (in the region of interest, if any) */
	uint32_t index;       /* among its process's threads that polled (polled: 1 and more) */
	bool polled;          /* it polled a task */
};

/* A thread's computation in a parallel region (struct site's by_thread). */
struct region_thread {
	uint64_t ns;
	bool implicit; /* it ran one of the region's implicit tasks */
};

/* The sync kinds (enum tp_sync_kind): barrier, taskwait, taskgroup, mutual exclusion. */
#define SYNC_KINDS 5

/* A mutual exclusion (an OMPT wait id) and the path to its last release (analysis.h). */
struct mutex {
	struct key k;
	struct acc released;
	/* holds it, as far as the events seen say: its thread and task (NULL: none) */
	struct thread *holder;
	uint64_t holder_task;
};

struct site {
	uint64_t scope, id;
	uint64_t process; /* whose tasks it spawned (0: none yet) */
	uint32_t same;    /* an earlier site of the same text and scope (one row), else 0 */
	char *text;
	uint64_t work, tasks, path_ns, path_fragments;
	struct hist task_time, spawn_gap, start_delay;
	/* a parallel construct's: its implicit tasks' threads' computation, by thread index, and
	 * the path to its last fork (a worker's implicit task starts after it) */
	bool parallel;
	uint32_t n_by_thread;
	struct region_thread *by_thread;
	struct acc fork;
	/* a sync construct's: the waits in it by sync kind, and for a mutual exclusion its kind
	 * (task-acquire's: 1 critical, 2 ordered, 3 lock, 4 nested lock) */
	uint64_t waited[SYNC_KINDS], waits[SYNC_KINDS];
	uint8_t mutex_kind;
};

struct proc {
	uint64_t process;
	uint32_t pid;
	char comm[64];
	uint64_t work, tasks;
	uint64_t first_ns; /* its first poll's start */
	/* its last event, or its exit's start once recorded (exited): the destructors after it
	 * are not its tasks' time (the exit report ends there, the live statistics too) */
	uint64_t end_ns;
	bool exited;
	struct node *span;
	uint64_t placed;     /* the longest placed path to the end of a fragment */
	struct node *frozen; /* what the last barrier to complete joined */
	uint64_t frozen_ns, freeze_ns, frozen_placed;
	uint64_t last_end_ns;
	uint32_t threads;          /* that polled a task */
	struct task *initial;      /* OpenMP's initial task, while it is kept */
	struct thread *initial_on; /* the thread polling it now, or NULL */
	/* region-of-interest: seen, on now (since `roi_since`, when the placed path was
	 * `roi_placed_since`), the start/stop pairs so far, their run time and placed path */
	bool roi_seen, roi_on;
	uint64_t roi_since, roi_placed_since, roi_pairs, roi_run, roi_placed;
};

/* Sites found by (scope, id) and by (scope, text): open-addressed tables of site indexes (0:
 * free), grown at half. By text, the lowest index of a site of that text. */
struct site_index {
	uint32_t *by_id, *by_text;
	size_t size, used_ids, used_texts; /* size: a power of two, of each */
};

/* The sites kept at most (beyond them a spawn's site is none): a program has thousands. A site
 * is counted in the analysis's memory with SITE_TEXT_BYTES for its text (the converter's texts
 * are at most 256 bytes). */
#define ANALYSIS_MAX_SITES (1u << 14)
#define SITE_TEXT_BYTES    256

struct analysis {
	struct map tasks, threads, mutexes;
	struct site *sites;
	size_t n_sites, cap_sites;
	struct site_index index;
	struct proc *procs;
	size_t n_procs;
	size_t bytes, peak_bytes, peak_tasks, peak_nodes, tasks_open, nodes;
	size_t resident_max;     /* the converter's resident memory at most */
	size_t resident_checked; /* `bytes` when the converter's resident memory was read last */
	bool over_resident;
	bool stopped; /* over ANALYSIS_MAX_BYTES, or the converter over ANALYSIS_RESIDENT_MAX */
	uint64_t stopped_ns;
	uint64_t unknown_polls; /* polls of tasks never spawned in the recording */
	bool finished;          /* the polls open at the end were ended there (analysis_finish) */
};

void analysis_memory(size_t *task, size_t *node, size_t *edge)
{
	*task = sizeof(struct task) + sizeof(struct key *); /* and its hash bucket */
	*node = sizeof(struct node);
	*edge = sizeof(struct edge);
}

/* The converter's resident memory in bytes (0 when unknown). */
static size_t resident(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long pages = 0;
	if (f != NULL) {
		if (fscanf(f, "%*u %lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Whether the analysis may take `size` bytes more: its own bound, and the converter's resident
 * memory in all, read every MiB the analysis takes. */
static bool room(struct analysis *a, size_t size)
{
	if (a->bytes + size > ANALYSIS_MAX_BYTES || a->over_resident)
		return false;
	if (a->bytes > a->resident_checked + (1u << 20) || a->bytes < a->resident_checked) {
		a->resident_checked = a->bytes;
		a->over_resident = resident() > a->resident_max;
	}
	return !a->over_resident;
}

static void *take(struct analysis *a, size_t size)
{
	if (!room(a, size))
		return NULL;
	void *p = calloc(1, size);
	if (p != NULL) {
		a->bytes += size;
		a->peak_bytes = a->bytes > a->peak_bytes ? a->bytes : a->peak_bytes;
	}
	return p;
}

static void give(struct analysis *a, void *p, size_t size)
{
	if (p == NULL)
		return;
	a->bytes -= size;
	free(p);
}

/* ---- durations ---- */

static unsigned hist_index(uint64_t v)
{
	unsigned b = v == 0 ? 0 : 63 - (unsigned)__builtin_clzll(v);
	return b < TP_LIVE_BUCKETS ? b : TP_LIVE_BUCKETS - 1;
}

static void hist_add(struct analysis *a, struct hist *h, uint64_t v)
{
	if (h->bucket == NULL) {
		h->bucket = take(a, TP_LIVE_BUCKETS * sizeof *h->bucket);
		if (h->bucket == NULL)
			return;
	}
	h->bucket[hist_index(v)]++;
	h->count++;
}

/* The median, or UINT64_MAX when empty. */
static uint64_t hist_median(const struct hist *h)
{
	if (h->count == 0 || h->bucket == NULL)
		return UINT64_MAX;
	return tp_live_quantile(h->bucket, 0.5, 0);
}

/* ---- maps of tasks and threads, by process and id ---- */

static size_t key_hash(uint64_t process, uint64_t id)
{
	return (size_t)tp_hash_pair(id, process);
}

static struct key *map_find(const struct map *m, uint64_t process, uint64_t id)
{
	if (m->size == 0)
		return NULL;
	for (struct key *k = m->bucket[key_hash(process, id) & (m->size - 1)]; k != NULL;
	     k = k->next)
		if (k->id == id && k->process == process)
			return k;
	return NULL;
}

static bool map_add(struct analysis *a, struct map *m, struct key *k)
{
	if (m->count >= m->size) {
		size_t size = m->size ? 2 * m->size : 1024;
		struct key **b = take(a, size * sizeof *b);
		if (b == NULL)
			return false;
		for (size_t i = 0; i < m->size; i++)
			for (struct key *e = m->bucket[i], *next; e != NULL; e = next) {
				next = e->next;
				size_t j = key_hash(e->process, e->id) & (size - 1);
				e->next = b[j];
				b[j] = e;
			}
		give(a, m->bucket, m->size * sizeof *b);
		m->bucket = b;
		m->size = size;
	}
	size_t j = key_hash(k->process, k->id) & (m->size - 1);
	k->next = m->bucket[j];
	m->bucket[j] = k;
	m->count++;
	return true;
}

static void map_remove(struct map *m, struct key *k)
{
	struct key **at = &m->bucket[key_hash(k->process, k->id) & (m->size - 1)];
	while (*at != k)
		at = &(*at)->next;
	*at = k->next;
	m->count--;
}

/* ---- path nodes ---- */

static struct node *ref(struct node *n)
{
	if (n != NULL)
		n->refs++;
	return n;
}

static void unref(struct analysis *a, struct node *n)
{
	while (n != NULL && --n->refs == 0) {
		struct node *prev = n->prev;
		give(a, n, sizeof *n);
		a->nodes--;
		n = prev;
	}
}

/* *slot = n, counted. */
static void hold(struct analysis *a, struct node **slot, struct node *n)
{
	ref(n);
	unref(a, *slot);
	*slot = n;
}

static uint64_t path_of(const struct node *n)
{
	return n != NULL ? n->path : 0;
}

static uint64_t max_u64(uint64_t x, uint64_t y)
{
	return x > y ? x : y;
}

/* `acc` joins a path ending with `n` at `ns`, whose placed length is `placed`: the longest path
 * picks its node, the placed length is the larger whichever path is longer. */
static void acc_fold(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns,
		     uint64_t placed)
{
	if (n != NULL && (acc->n == NULL || n->path > acc->n->path))
		hold(a, &acc->n, n);
	acc->ns = max_u64(acc->ns, ns);
	acc->placed = max_u64(acc->placed, placed);
}

static void acc_fold_node(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns)
{
	acc_fold(a, acc, n, ns, n != NULL ? n->placed : 0);
}

static void acc_join(struct analysis *a, struct acc *acc, const struct acc *other)
{
	acc_fold(a, acc, other->n, other->ns, other->placed);
}

static void acc_clear(struct analysis *a, struct acc *acc)
{
	unref(a, acc->n);
	*acc = (struct acc){0};
}

/* A fragment [start, end] after `prev` (and a placed path `placed` long), of `task` on `th`:
 * in its site's row, or in a mutual exclusion's its sync site's (its section's time on the path
 * is the section's). */
static struct node *node_new(struct analysis *a, struct node *prev, uint64_t placed,
			     const struct task *task, const struct thread *th, uint32_t pid,
			     uint64_t start, uint64_t end, uint64_t latency)
{
	struct node *n = take(a, sizeof *n);
	if (n == NULL)
		return NULL;
	a->nodes++;
	a->peak_nodes = a->nodes > a->peak_nodes ? a->nodes : a->peak_nodes;
	n->prev = ref(prev);
	n->path = path_of(prev) + (end - start);
	n->burdened = (prev != NULL ? prev->burdened : 0) + latency + (end - start);
	n->placed = placed + (end - start);
	n->start = start;
	n->end = end;
	n->task = task->k.id;
	n->site = task->section_site != 0 ? task->section_site : task->site;
	n->tid = (uint32_t)th->k.id;
	n->pid = pid;
	n->process = th->k.process;
	return n;
}

/* ---- sites and processes ---- */

static size_t site_id_slot(const struct analysis *a, uint64_t scope, uint64_t id)
{
	size_t mask = a->index.size - 1, i = tp_hash_pair(id, scope) & mask;
	for (uint32_t k; (k = a->index.by_id[i]) != 0; i = (i + 1) & mask)
		if (a->sites[k].id == id && a->sites[k].scope == scope)
			break;
	return i;
}

static uint64_t site_text_hash(uint64_t scope, const char *text, size_t len)
{
	uint64_t h = tp_hash_mix(TP_HASH_TEXT_BASIS, scope);
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * TP_HASH_TEXT_PRIME;
	return tp_hash_finish(h);
}

/* The slot of the lowest site of `scope` whose text is `text` (`len` bytes), or the free slot
 * where it would go. */
static size_t site_text_slot(const struct analysis *a, uint64_t scope, const char *text, size_t len)
{
	size_t mask = a->index.size - 1, i = site_text_hash(scope, text, len) & mask;
	for (uint32_t k; (k = a->index.by_text[i]) != 0; i = (i + 1) & mask)
		if (a->sites[k].scope == scope && strlen(a->sites[k].text) == len &&
		    memcmp(a->sites[k].text, text, len) == 0)
			break;
	return i;
}

/* Room in the index for one more site; false when out of memory. */
static bool site_index_room(struct analysis *a)
{
	struct site_index *x = &a->index;
	if ((x->used_ids + 1) * 2 <= x->size)
		return true;
	size_t size = x->size ? 2 * x->size : 256;
	uint32_t *by_id = calloc(size, sizeof *by_id), *by_text = calloc(size, sizeof *by_text);
	if (by_id == NULL || by_text == NULL) {
		free(by_id);
		free(by_text);
		return false;
	}
	struct site_index old = *x;
	x->by_id = by_id;
	x->by_text = by_text;
	x->size = size;
	for (size_t i = 0; i < old.size; i++) {
		uint32_t k = old.by_id[i];
		if (k != 0)
			x->by_id[site_id_slot(a, a->sites[k].scope, a->sites[k].id)] = k;
		k = old.by_text[i];
		if (k != 0)
			x->by_text[site_text_slot(a, a->sites[k].scope, a->sites[k].text,
						  strlen(a->sites[k].text))] = k;
	}
	free(old.by_id);
	free(old.by_text);
	return true;
}

static uint32_t site_of(struct analysis *a, uint64_t scope, uint64_t id)
{
	if (id == 0)
		return 0;
	if (a->index.size > 0) {
		uint32_t k = a->index.by_id[site_id_slot(a, scope, id)];
		if (k != 0)
			return a->sites[k].same != 0 ? a->sites[k].same : k;
	}
	/* a site's bytes with its text's, counted as the analysis's (and never given back) */
	size_t bytes = sizeof(struct site) + 2 * sizeof(uint32_t) + SITE_TEXT_BYTES;
	if (a->n_sites > ANALYSIS_MAX_SITES || !room(a, bytes) || !site_index_room(a))
		return 0;
	a->bytes += bytes;
	if (a->n_sites == a->cap_sites) {
		size_t cap = a->cap_sites ? 2 * a->cap_sites : 64;
		struct site *s = realloc(a->sites, cap * sizeof *s);
		if (s == NULL)
			return 0;
		a->sites = s;
		a->cap_sites = cap;
	}
	uint32_t k = (uint32_t)a->n_sites++;
	a->sites[k] = (struct site){.scope = scope, .id = id};
	a->index.by_id[site_id_slot(a, scope, id)] = k;
	a->index.used_ids++;
	return k;
}

static struct proc *proc_of(struct analysis *a, const struct timeline_event *e)
{
	uint64_t key = e->process != 0 ? e->process : e->pid;
	for (size_t i = 0; i < a->n_procs; i++)
		if (a->procs[i].process == key)
			return &a->procs[i];
	struct proc *p = realloc(a->procs, (a->n_procs + 1) * sizeof *p);
	if (p == NULL)
		return NULL;
	a->procs = p;
	p = &a->procs[a->n_procs++];
	*p = (struct proc){.process = key, .pid = e->pid, .first_ns = UINT64_MAX};
	snprintf(p->comm, sizeof p->comm, "%s", e->comm);
	return p;
}

/* ---- tasks and threads ---- */

static struct task *task_find(struct analysis *a, const struct proc *p, uint64_t id)
{
	return (struct task *)map_find(&a->tasks, p->process, id);
}

static struct task *task_new(struct analysis *a, struct proc *p, uint64_t id)
{
	struct task *t = take(a, sizeof *t);
	if (t == NULL)
		return NULL;
	t->k.process = p->process;
	t->k.id = id;
	t->proc = p;
	if (!map_add(a, &a->tasks, &t->k)) {
		give(a, t, sizeof *t);
		return NULL;
	}
	a->tasks_open++;
	a->peak_tasks = a->tasks_open > a->peak_tasks ? a->tasks_open : a->peak_tasks;
	return t;
}

/* Forgets an ended task once no child of it is left, and so on up. */
static void task_release(struct analysis *a, struct task *t)
{
	while (t != NULL && t->state == ENDED && t->live_children == 0) {
		struct task *parent = t->parent;
		acc_clear(a, &t->in);
		unref(a, t->last);
		acc_clear(a, &t->kids);
		acc_clear(a, &t->desc);
		for (struct edge *e = t->successors, *next; e != NULL; e = next) {
			next = e->next;
			give(a, e, sizeof *e);
		}
		map_remove(&a->tasks, &t->k);
		if (t->proc->initial == t)
			t->proc->initial = NULL;
		give(a, t, sizeof *t);
		a->tasks_open--;
		if (parent != NULL)
			parent->live_children--;
		t = parent;
	}
}

static struct thread *thread_of(struct analysis *a, const struct proc *p, uint32_t tid)
{
	struct thread *th = (struct thread *)map_find(&a->threads, p->process, tid);
	if (th != NULL)
		return th;
	th = take(a, sizeof *th);
	if (th == NULL)
		return NULL;
	th->k.process = p->process;
	th->k.id = tid;
	if (!map_add(a, &a->threads, &th->k)) {
		give(a, th, sizeof *th);
		return NULL;
	}
	return th;
}

/* ---- events ---- */

/* Whether `t` is an implicit task: its site is a parallel construct's. */
static bool implicit(const struct analysis *a, const struct task *t)
{
	return t->site != 0 && a->sites[t->site].parallel;
}

/*
 * The parallel region a fragment of `t` belongs to: the site of the innermost implicit task
 * above it, itself included (an explicit task's region is its parent's); 0 outside every region
 * (the initial task's serial code). Kept from its spawn: its parent's, or its parent's site if
 * that is a parallel construct's (a nested region's, known once its workers' implicit tasks came
 * after the primary's spawn).
 */
static uint32_t region_of(const struct analysis *a, const struct task *t)
{
	return implicit(a, t) ? t->site : t->region;
}

/* Region `region`'s entry of thread `th` (NULL when out of memory). */
static struct region_thread *region_thread(struct analysis *a, uint32_t region,
					   const struct thread *th)
{
	struct site *s = &a->sites[region];
	if (th->index >= s->n_by_thread) {
		uint32_t n = 2 * th->index + 2;
		struct region_thread *r = take(a, n * sizeof *r);
		if (r == NULL)
			return NULL;
		if (s->n_by_thread > 0)
			memcpy(r, s->by_thread, s->n_by_thread * sizeof *r);
		give(a, s->by_thread, s->n_by_thread * sizeof *r);
		s->by_thread = r;
		s->n_by_thread = n;
	}
	return &s->by_thread[th->index];
}

/*
 * The polled fragment's time up to `ns` into the work, its region's computation, and its
 * thread's computation (the POP factors': only inside the region of interest, when there is
 * one; the regions' table is the whole run's, as the live statistics' is: docs/analysis.md). Called
 * before a path takes that time (a spawn's edge from the fragment up to the spawn, a release) as
 * well as at the poll's end. The live statistics count the same (live.c's count_work).
 */
static void count_work(struct analysis *a, struct proc *p, struct thread *th, const struct task *t,
		       uint64_t ns)
{
	uint64_t w = ns - th->counted;
	p->work += w;
	a->sites[t->site].work += w;
	th->counted = ns;
	uint32_t region = region_of(a, t);
	struct region_thread *r = region != 0 ? region_thread(a, region, th) : NULL;
	if (r != NULL)
		r->ns += w;
	if (!p->roi_seen || p->roi_on)
		th->computation += w;
}

/*
 * `t` starts after the initial task's code up to `ns`, while a thread polls it (its fragment up
 * to there, in the work there too): a worker's implicit task reported before its region's fork.
 * Once the initial task's poll ended, the fork was published (its fragment up to the primary's
 * spawn): the rest of that poll is the runtime's after the fork, which no worker waited for
 * (the live statistics' rule: live.c's initial_so_far).
 */
static void initial_so_far(struct analysis *a, struct proc *p, struct task *t, uint64_t ns)
{
	struct task *initial = p->initial;
	struct thread *th = p->initial_on;
	if (initial == NULL || th == NULL || th->task != initial)
		return;
	count_work(a, p, th, initial, ns);
	/* held while folded: freed here if `t` does not keep it */
	struct node *part = ref(node_new(a, th->in, th->in_placed, initial, th, p->pid, th->start,
					 ns, th->latency));
	acc_fold_node(a, &t->in, part, ns);
	unref(a, part);
}

/* The longest placed path at `ns`: of the fragments ended, and of those polled now up to `ns`. */
static uint64_t placed_at(const struct analysis *a, const struct proc *p, uint64_t ns)
{
	uint64_t placed = p->placed;
	for (size_t i = 0; i < a->threads.size; i++)
		for (const struct key *k = a->threads.bucket[i]; k != NULL; k = k->next) {
			const struct thread *th = (const struct thread *)k;
			if (k->process == p->process && th->task != NULL && ns >= th->start)
				placed = max_u64(placed, th->in_placed + (ns - th->start));
		}
	return placed;
}

static void on_spawn(struct analysis *a, struct proc *p, struct thread *th,
		     const struct timeline_event *e)
{
	uint64_t id = (uint64_t)e->arg[0], parent_id = (uint64_t)e->arg[1];
	if (task_find(a, p, id) != NULL)
		return;
	struct task *t = task_new(a, p, id), *parent = task_find(a, p, parent_id);
	if (t == NULL)
		return;
	uint64_t scope = e->site_scope != 0 ? e->site_scope : e->pid;
	t->site = site_of(a, scope, (uint64_t)e->arg[2]);
	if (t->site != 0)
		a->sites[t->site].process = p->process;
	t->initial = parent_id == 0 && e->arg[2] == 0;
	t->in.ns = e->ns;
	t->state = NEW;
	if (parent != NULL && parent->state != ENDED) {
		t->parent = parent;
		parent->live_children++;
		t->region = region_of(a, parent);
	}
	struct site *s = &a->sites[t->site];
	if (t->initial && p->initial == NULL)
		p->initial = t;
	/* a worker's implicit task (OpenMP names no parent for it): its region's construct's
	 * site */
	bool worker_implicit = parent_id == 0 && t->site != 0 && e->arg[5] == TP_EXECUTOR_OPENMP;
	switch (tp_span_spawn_from(parent != NULL, parent != NULL && th->task == parent,
				   worker_implicit)) {
	case TP_SPAN_FROM_FORK:
		/* its thread may report it before the primary thread reports the region: after the
		 * initial task's code so far (an outermost region's encountering task), and the
		 * region's last fork seen */
		s->parallel = true;
		acc_join(a, &t->in, &s->fork);
		initial_so_far(a, p, t, e->ns);
		break;
	case TP_SPAN_FROM_FRAGMENT: {
		/* the parent's fragment up to the spawn */
		count_work(a, p, th, parent, e->ns);
		struct node *part = node_new(a, th->in, th->in_placed, parent, th, p->pid,
					     th->start, e->ns, th->latency);
		hold(a, &t->in.n, part);
		t->in.placed = th->in_placed + (e->ns - th->start);
		if (parent->last_spawn_ns >= th->start && parent->last_spawn_ns > 0)
			hist_add(a, &s->spawn_gap, e->ns - parent->last_spawn_ns);
		parent->last_spawn_ns = e->ns;
		parent->ran_undeferred |= e->undeferred;
		/* the initial task's child for a region (its tasks of a team of one are
		 * undeferred); a nested region's site is known by its workers' */
		if (t->site != 0 && parent->initial && !e->undeferred)
			s->parallel = true;
		if (t->site != 0 && !e->undeferred && (parent->initial || implicit(a, parent))) {
			acc_clear(a, &s->fork);
			acc_join(a, &s->fork, &t->in);
		}
		break;
	}
	case TP_SPAN_FROM_LAST:
		acc_fold_node(a, &t->in, parent->last, e->ns);
		break;
	case TP_SPAN_FROM_NOTHING:
		break;
	}
}

static void on_dependence(struct analysis *a, struct proc *p, const struct timeline_event *e)
{
	struct task *pred = task_find(a, p, (uint64_t)e->arg[0]),
		    *succ = task_find(a, p, (uint64_t)e->arg[1]);
	if (pred == NULL || succ == NULL || succ->state != NEW || pred == succ)
		return;
	if (pred->state == ENDED) {
		acc_fold_node(a, &succ->in, pred->last, pred->suspend_ns);
		return;
	}
	struct edge *edge = take(a, sizeof *edge);
	if (edge == NULL)
		return;
	edge->successor = succ->k.id;
	edge->next = pred->successors;
	pred->successors = edge;
}

static void on_poll_start(struct analysis *a, struct proc *p, struct thread *th,
			  const struct timeline_event *e)
{
	uint64_t id = (uint64_t)e->arg[0];
	struct task *t = task_find(a, p, id);
	if (t == NULL) {
		a->unknown_polls++;
		t = task_new(a, p, id);
		if (t == NULL)
			return;
		t->state = NEW;
		t->in.ns = e->ns;
	}
	if (th->task != NULL || t->state == RUNNING || t->state == ENDED)
		return; /* not as the contract orders: left out */
	th->task = t;
	th->start = th->poll_start = th->counted = e->ns;
	if (t == p->initial)
		p->initial_on = th;
	th->latency = 0;
	struct acc in = {0};
	if (t->state == NEW) {
		in = t->in;
		t->in = (struct acc){0};
	} else {
		in = (struct acc){ref(t->last), t->suspend_ns,
				  t->last != NULL ? t->last->placed : 0};
		/* a wait at no site (none said, or the sites' table full) is in no row: the
		 * live statistics have no row for it either (live.c: sync_wait_begins) */
		if (t->sync != TP_SYNC_NONE && t->sync < SYNC_KINDS && t->sync_site != 0) {
			a->sites[t->sync_site].waited[t->sync] += e->ns - t->suspend_ns;
			a->sites[t->sync_site].waits[t->sync]++;
		}
		/* the graph's rules: the engine's (work_span.h) */
		switch (tp_span_join_of(t->sync)) {
		case TP_SPAN_JOIN_CHILDREN:
			acc_join(a, &in, &t->kids);
			acc_clear(a, &t->kids);
			break;
		case TP_SPAN_JOIN_DESCENDANTS:
			acc_join(a, &in, &t->kids);
			acc_join(a, &in, &t->desc);
			acc_clear(a, &t->kids);
			acc_clear(a, &t->desc);
			break;
		case TP_SPAN_JOIN_ENDED:
			if (tp_span_barrier_freezes(p->freeze_ns, t->suspend_ns)) {
				hold(a, &p->frozen, p->span);
				p->frozen_ns = p->last_end_ns;
				p->frozen_placed = p->placed;
				p->freeze_ns = e->ns;
			}
			acc_fold(a, &in, p->frozen, p->frozen_ns, p->frozen_placed);
			acc_clear(a, &t->kids);
			acc_clear(a, &t->desc);
			break;
		case TP_SPAN_JOIN_THREAD:
			if (tp_span_follows_thread(t->ran_undeferred,
						   th->last != NULL && th->last->task != t->k.id,
						   th->free_ns >= t->suspend_ns))
				acc_fold_node(a, &in, th->last, th->free_ns);
			break;
		}
		t->ran_undeferred = false;
	}
	th->latency = tp_live_start_delay(e->ns, in.ns, th->free_ns);
	th->could_ns = in.ns;
	if (t->state == NEW && t->site < a->n_sites)
		hist_add(a, &a->sites[t->site].start_delay, th->latency);
	th->in = in.n; /* the reference in `in` moves to the thread */
	/* placed: the thread runs its fragments in the order it ran them */
	th->in_placed = max_u64(in.placed, th->last != NULL ? th->last->placed : 0);
	t->state = RUNNING;
	if (!th->polled) {
		th->polled = true;
		th->index = p->threads++;
	}
	struct region_thread *r = implicit(a, t) ? region_thread(a, t->site, th) : NULL;
	if (r != NULL)
		r->implicit = true;
	p->first_ns = e->ns < p->first_ns ? e->ns : p->first_ns;
}

/* `t` ended with fragment `n` at `ns`: its parent, ancestors and successors told. */
static void task_ended(struct analysis *a, struct proc *p, struct task *t, struct node *n,
		       uint64_t ns)
{
	t->state = ENDED;
	p->tasks++;
	struct site *s = &a->sites[t->site];
	s->tasks++;
	hist_add(a, &s->task_time, t->poll_ns);
	if (t->parent != NULL)
		acc_fold_node(a, &t->parent->kids, n, ns);
	struct task *up = t->parent;
	while (up != NULL && up->state == ENDED)
		up = up->parent;
	if (up != NULL) {
		acc_fold_node(a, &up->desc, n, ns);
		acc_join(a, &up->desc, &t->desc);
	}
	for (struct edge *e = t->successors, *next; e != NULL; e = next) {
		next = e->next;
		struct task *succ = task_find(a, p, e->successor);
		if (succ != NULL && succ->state == NEW)
			acc_fold_node(a, &succ->in, n, ns);
		give(a, e, sizeof *e);
	}
	t->successors = NULL;
}

static void on_poll_end(struct analysis *a, struct proc *p, struct thread *th,
			const struct timeline_event *e)
{
	struct task *t = th->task;
	if (t == NULL || t->k.id != (uint64_t)e->arg[0])
		return;
	th->task = NULL;
	bool done = e->arg[1] != 0;
	t->suspend_ns = e->ns;
	t->sync = (uint8_t)e->arg[2];
	uint64_t scope = e->site_scope != 0 ? e->site_scope : e->pid;
	t->sync_site = t->sync != TP_SYNC_NONE ? site_of(a, scope, (uint64_t)e->arg[3]) : 0;
	if (t->sync_site != 0)
		a->sites[t->sync_site].process = p->process;
	t->state = done ? ENDED : SUSPENDED;
	t->poll_ns += e->ns - th->poll_start;
	count_work(a, p, th, t, e->ns);
	struct node *n = node_new(a, th->in, th->in_placed, t, th, p->pid, th->start, e->ns,
				  th->latency);
	unref(a, th->in);
	th->in = NULL;
	if (n == NULL)
		return;
	hold(a, &t->last, n);
	hold(a, &th->last, n);
	th->free_ns = e->ns;
	if (p->span == NULL || n->path > p->span->path)
		hold(a, &p->span, n);
	p->placed = max_u64(p->placed, n->placed);
	p->last_end_ns = e->ns;
	if (done) {
		t->state = RUNNING; /* task_ended sets ENDED */
		task_ended(a, p, t, n, e->ns);
		task_release(a, t);
	}
}

/*
 * A region of interest starts (on) or stops: the factors count only what lies inside (the polls
 * open now are counted up to here as they were); the first start drops what was counted before.
 */
static void on_region_of_interest(struct analysis *a, struct proc *p, uint64_t ns, bool on)
{
	if (on == p->roi_on)
		return;
	for (size_t i = 0; i < a->threads.size; i++)
		for (struct key *k = a->threads.bucket[i]; k != NULL; k = k->next) {
			struct thread *th = (struct thread *)k;
			if (k->process != p->process)
				continue;
			if (th->task != NULL)
				count_work(a, p, th, th->task, ns);
			if (on && !p->roi_seen)
				th->computation = 0;
		}
	uint64_t placed = placed_at(a, p, ns);
	if (on) {
		p->roi_seen = p->roi_on = true;
		p->roi_since = ns;
		p->roi_placed_since = placed;
	} else {
		p->roi_on = false;
		p->roi_pairs++;
		p->roi_run += ns - p->roi_since;
		p->roi_placed += placed > p->roi_placed_since ? placed - p->roi_placed_since : 0;
	}
}

/* Mutual exclusion `object` of `p`, made if new (NULL: out of memory). */
static struct mutex *mutex_of(struct analysis *a, const struct proc *p, uint64_t object)
{
	struct mutex *m = (struct mutex *)map_find(&a->mutexes, p->process, object);
	if (m != NULL)
		return m;
	m = take(a, sizeof *m);
	if (m == NULL)
		return NULL;
	m->k.process = p->process;
	m->k.id = object;
	if (!map_add(a, &a->mutexes, &m->k)) {
		give(a, m, sizeof *m);
		return NULL;
	}
	return m;
}

/* The fragment `th` polls now starts after `released` (a release's path). */
static void mutex_join(struct analysis *a, const struct acc *released, struct thread *th)
{
	if (released->n != NULL && released->n->path > path_of(th->in))
		hold(a, &th->in, released->n);
	th->in_placed = max_u64(th->in_placed, released->placed);
	/* it could start once released: its wait is no delay of the burdened span's */
	th->could_ns = max_u64(th->could_ns, released->ns);
	th->latency = tp_live_start_delay(th->start, th->could_ns, th->free_ns);
}

/*
 * A task acquires mutual exclusion `object`: its fragment (begun by the poll that ended its wait)
 * starts after the object's last release. Acquires come in the order the runtime granted them
 * (each is said while its task holds the object), releases not always: a holder's thread may
 * read its clock for its release after the next holder's acquire (preempted between the two, on
 * a loaded machine: for as long as the next holder's section lasts). A holder whose release has
 * not come let the object go before this acquire all the same: the path to its release is the
 * holder's up to now.
 */
static void on_acquire(struct analysis *a, struct proc *p, struct thread *th,
		       const struct timeline_event *e)
{
	struct task *t = th->task;
	if (t == NULL || t->k.id != (uint64_t)e->arg[0])
		return;
	t->section_site = t->sync == TP_SYNC_MUTEX ? t->sync_site : 0;
	if (t->section_site != 0 && e->arg[1] > 0 && e->arg[1] <= TP_EXCLUSION_KINDS)
		a->sites[t->section_site].mutex_kind = (uint8_t)e->arg[1];
	struct mutex *m = mutex_of(a, p, (uint64_t)e->arg[2]);
	if (m == NULL)
		return;
	struct thread *h = m->holder;
	struct task *held = h != NULL ? task_find(a, p, m->holder_task) : NULL;
	if (!tp_span_acquire_from_holder(held != NULL, held == t)) {
		mutex_join(a, &m->released, th);
	} else if (h->task == held) {
		/* the holder still polls: its fragment up to now (in the work up to here too) */
		count_work(a, p, h, held, e->ns);
		struct node *part = ref(node_new(a, h->in, h->in_placed, held, h, p->pid, h->start,
						 e->ns, h->latency));
		struct acc released = {part, e->ns, part != NULL ? part->placed : 0};
		mutex_join(a, &released, th);
		unref(a, part);
	} else {
		struct acc released = {held->last, held->suspend_ns,
				       held->last != NULL ? held->last->placed : 0};
		mutex_join(a, &released, th);
	}
	m->holder = th;
	m->holder_task = t->k.id;
}

/* A task releases mutual exclusion `object`: its fragment is split there (the section's part in
 * its sync site's row), and the object remembers the path to the release, unless another task
 * acquired it since (this release came late: that acquire took the path up to it). */
static void on_release(struct analysis *a, struct proc *p, struct thread *th,
		       const struct timeline_event *e)
{
	struct task *t = th->task;
	if (t == NULL || t->k.id != (uint64_t)e->arg[0])
		return;
	struct mutex *m = mutex_of(a, p, (uint64_t)e->arg[2]);
	if (m == NULL)
		return;
	count_work(a, p, th, t, e->ns);
	struct node *n = node_new(a, th->in, th->in_placed, t, th, p->pid, th->start, e->ns,
				  th->latency);
	t->section_site = 0;
	if (n == NULL)
		return;
	hold(a, &th->in, n);
	th->in_placed = n->placed;
	th->start = e->ns;
	th->latency = 0;
	if (!tp_span_release_kept(m->holder != NULL && m->holder_task == t->k.id))
		return;
	acc_clear(a, &m->released);
	acc_fold_node(a, &m->released, n, e->ns);
	m->holder = NULL;
}

struct analysis *analysis_new(size_t resident_max)
{
	struct analysis *a = calloc(1, sizeof *a);
	if (a == NULL)
		return NULL;
	a->resident_max = resident_max;
	a->sites = calloc(64, sizeof *a->sites);
	if (a->sites == NULL) {
		free(a);
		return NULL;
	}
	a->cap_sites = 64;
	a->n_sites = 1; /* [0]: no site */
	return a;
}

void analysis_site(struct analysis *a, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	uint32_t i = site_of(a, scope, id);
	if (i == 0 || a->sites[i].text != NULL || a->sites[i].same != 0)
		return;
	/* the call addresses of one construct (an unrolled loop's) are one site: the first */
	uint32_t *first = &a->index.by_text[site_text_slot(a, scope, text, len)];
	if (*first != 0 && *first < i) {
		a->sites[i].same = *first;
		return;
	}
	a->sites[i].text = strndup(text, len);
	if (a->sites[i].text != NULL && *first == 0)
		a->index.used_texts++;
	if (a->sites[i].text != NULL)
		*first = i;
}

void analysis_add(struct analysis *a, const struct timeline_event *e)
{
	if (a->stopped || a->finished)
		return;
	struct proc *p = proc_of(a, e);
	struct thread *th = p != NULL ? thread_of(a, p, e->tid) : NULL;
	/* an event after the exit's start happens at it, as the live statistics count it (live.c:
	 * exit_began_ns): what a thread does while another exits is no task's time */
	struct timeline_event at_exit;
	if (p != NULL && p->exited && e->ns > p->end_ns) {
		at_exit = *e;
		at_exit.ns = p->end_ns;
		e = &at_exit;
	}
	if (th != NULL) {
		if (!p->exited)
			p->end_ns = max_u64(p->end_ns, e->ns);
		switch (e->type) {
		case TP_RECORD_TASK_SPAWN:
			on_spawn(a, p, th, e);
			break;
		case TP_RECORD_TASK_DEPENDENCE:
			on_dependence(a, p, e);
			break;
		case TP_RECORD_TASK_POLL_START:
			on_poll_start(a, p, th, e);
			break;
		case TP_RECORD_TASK_POLL_END:
			on_poll_end(a, p, th, e);
			break;
		case TP_RECORD_TASK_ACQUIRE:
			on_acquire(a, p, th, e);
			break;
		case TP_RECORD_TASK_RELEASE:
			on_release(a, p, th, e);
			break;
		case TP_RECORD_REGION_OF_INTEREST:
			on_region_of_interest(a, p, e->ns, e->arg[0] != 0);
			break;
		case TP_RECORD_PROCESS_EXIT:
			p->exited = true;
			break;
		default:
			break;
		}
	}
	if (a->bytes + 4096 > ANALYSIS_MAX_BYTES || a->over_resident || p == NULL || th == NULL) {
		a->stopped = true;
		a->stopped_ns = e->ns;
	}
}

/*
 * The polls still open at the end of the recording (the initial task's last, when the program
 * exits in it; a region's, when it exits inside one) end at their process's exit's start (or its
 * last event, when the recording has no exit): their time is work and on the paths. Once, before
 * the figures are read.
 */
static void analysis_finish(struct analysis *a)
{
	if (a->finished)
		return;
	a->finished = true;
	for (size_t i = 0; i < a->threads.size; i++)
		for (struct key *k = a->threads.bucket[i], *next; k != NULL; k = next) {
			next = k->next; /* an ended task may be released, never a thread */
			struct thread *th = (struct thread *)k;
			struct proc *p = NULL;
			for (size_t j = 0; j < a->n_procs && p == NULL; j++)
				if (a->procs[j].process == k->process)
					p = &a->procs[j];
			if (th->task == NULL || p == NULL)
				continue;
			/* a poll begun in the destructors (after the exit's start) ends as it began */
			struct timeline_event e = {.pid = p->pid,
						   .tid = (uint32_t)k->id,
						   .ns = max_u64(p->end_ns, th->start),
						   .type = TP_RECORD_TASK_POLL_END,
						   .process = p->process};
			e.arg[0] = (int64_t)th->task->k.id;
			on_poll_end(a, p, th, &e);
		}
	/* a region of interest never stopped stops there too */
	for (size_t i = 0; i < a->n_procs; i++)
		on_region_of_interest(a, &a->procs[i], a->procs[i].end_ns, false);
}

/* A duration for people (taskprobe_live.h's, as the exit report says them). */
static const char *duration(uint64_t ns, char *buf, size_t size)
{
	return ns == UINT64_MAX ? "-" : tp_live_duration_words(ns, buf, size);
}

/* A site's text as printed: escaped (shown_text.h: it comes from the program's files). */
static const char *site_text(const struct analysis *a, uint32_t site, char *buf, size_t size,
			     unsigned shown)
{
	if (site == 0)
		return "(no site)";
	if (a->sites[site].text != NULL)
		return tp_shown(buf, size, a->sites[site].text, shown);
	snprintf(buf, size, "site %" PRIu64, a->sites[site].id);
	return buf;
}

static int by_work(const void *x, const void *y, void *context)
{
	const struct site *sites = context;
	uint64_t a = sites[*(const uint32_t *)x].work, b = sites[*(const uint32_t *)y].work;
	return a > b ? -1 : a < b;
}

/* A parallel region's figures: its computation, threads and load balance. */
struct region_figures {
	uint64_t computation, maximum;
	unsigned threads;
};

static struct region_figures region_figures(const struct site *s)
{
	struct region_figures f = {0};
	for (uint32_t j = 0; j < s->n_by_thread; j++) {
		const struct region_thread *r = &s->by_thread[j];
		if (!r->implicit && r->ns == 0)
			continue;
		f.computation += r->ns;
		f.maximum = max_u64(f.maximum, r->ns);
		f.threads++;
	}
	return f;
}

static int by_computation(const void *x, const void *y, void *context)
{
	const struct site *sites = context;
	uint64_t a = region_figures(&sites[*(const uint32_t *)x]).computation,
		 b = region_figures(&sites[*(const uint32_t *)y]).computation;
	return a > b ? -1 : a < b;
}

/* The sync kinds' names: a mutual exclusion's by its kind (task-acquire's: the contract's). */
static const char *sync_name(unsigned sync, unsigned mutex_kind)
{
	static const char *const syncs[SYNC_KINDS] = {"", "barrier", "taskwait", "taskgroup",
						      "mutual exclusion"};
	static const char *const exclusions[] = TP_EXCLUSION_KIND_NAMES;
	if (sync == TP_SYNC_MUTEX && mutex_kind > 0 && mutex_kind <= TP_EXCLUSION_KINDS)
		return exclusions[mutex_kind];
	return sync < SYNC_KINDS ? syncs[sync] : "?";
}

/* The widest of the sites' texts in `order` (for a column), at most 60. */
static int site_width(const struct analysis *a, const uint32_t *order, size_t n, unsigned shown)
{
	char name[512];
	int width = 4;
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(site_text(a, order[i], name, sizeof name, shown));
		width = w > width ? w : width;
	}
	return width < 60 ? width : 60;
}

/* The POP factors of process `p`: its threads' computations, its placed path and run time (in
 * the region of interest, if any). */
static struct tp_live_factors factors_of(const struct analysis *a, const struct proc *p)
{
	uint64_t *computation = calloc(p->threads + 1, sizeof *computation);
	if (computation == NULL)
		return (struct tp_live_factors){0};
	for (size_t i = 0; i < a->threads.size; i++)
		for (const struct key *k = a->threads.bucket[i]; k != NULL; k = k->next) {
			const struct thread *th = (const struct thread *)k;
			if (k->process == p->process && th->polled && th->index < p->threads)
				computation[th->index] = th->computation;
		}
	uint64_t run = p->roi_seen ? p->roi_run : p->end_ns - p->first_ns,
		 placed = p->roi_seen ? p->roi_placed : p->placed;
	struct tp_live_factors f = tp_live_factors_of(computation, p->threads, placed, run);
	free(computation);
	return f;
}

bool analysis_figures(struct analysis *a, size_t i, struct analysis_figures *f)
{
	analysis_finish(a);
	if (i >= a->n_procs)
		return false;
	const struct proc *p = &a->procs[i];
	*f = (struct analysis_figures){.work = p->work,
				       .span = path_of(p->span),
				       .burdened = p->span != NULL ? p->span->burdened : 0,
				       .factors = factors_of(a, p)};
	return true;
}

/* The POP factors of process `p` (taskprobe_live.h), and the two tables of where the loss is:
 * the parallel regions' load balance, the sync sites' waits. */
static void report_factors(struct analysis *a, const struct proc *p, FILE *out, unsigned shown,
			   uint64_t span)
{
	char b1[32], b2[32], name[512], words[256];
	uint32_t *order = calloc(a->n_sites + 1, sizeof *order);
	if (order == NULL)
		return;
	struct tp_live_factors f = factors_of(a, p);
	for (int line = 0; line < 2 && f.valid; line++) {
		tp_live_factors_words(words, sizeof words, &f, line);
		fprintf(out, "  %s\n", words);
	}
	if (f.valid) {
		tp_live_factors_basis_words(words, sizeof words, &f);
		fprintf(out, "  %s\n", words);
	}
	tp_live_roi_words(words, sizeof words, p->roi_pairs);
	if (words[0] != '\0')
		fprintf(out, "  %s\n", words);

	size_t n = 0;
	for (size_t i = 1; i < a->n_sites; i++)
		if (a->sites[i].parallel && a->sites[i].process == p->process &&
		    region_figures(&a->sites[i]).threads > 0)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, by_computation, a->sites);
	int width = site_width(a, order, n, shown);
	if (n > 0)
		fprintf(out, "  %-*s %12s %12s %8s\n", width, "parallel region", "load balance",
			"computation", "threads");
	for (size_t i = 0; i < n; i++) {
		struct region_figures r = region_figures(&a->sites[order[i]]);
		fprintf(out, "  %-*s %12.3f %12s %8u\n", width,
			site_text(a, order[i], name, sizeof name, shown),
			r.maximum > 0 ? (double)r.computation / r.threads / (double)r.maximum : 1.0,
			duration(r.computation, b1, sizeof b1), r.threads);
	}

	/* the sync sites: each with waits, by sync kind */
	n = 0;
	for (size_t i = 1; i < a->n_sites; i++) {
		bool waits = false;
		for (unsigned k = 1; k < SYNC_KINDS; k++)
			waits |= a->sites[i].waits[k] > 0;
		if (waits && a->sites[i].process == p->process)
			order[n++] = (uint32_t)i;
	}
	width = site_width(a, order, n, shown);
	if (n > 0)
		fprintf(out, "  %-*s %-16s %10s %8s %21s\n", width, "sync site", "kind", "waited",
			"waits", "of the critical path");
	for (size_t i = 0; i < n; i++) {
		const struct site *s = &a->sites[order[i]];
		for (unsigned k = 1; k < SYNC_KINDS; k++) {
			uint64_t waits = s->waits[k], waited = s->waited[k];
			if (waits == 0)
				continue;
			/* a wait is never on the path: a mutual exclusion's sections are */
			if (k == TP_SYNC_MUTEX && span > 0)
				snprintf(b2, sizeof b2, "%.1f%%",
					 100.0 * (double)s->path_ns / (double)span);
			else
				snprintf(b2, sizeof b2, "-");
			fprintf(out, "  %-*s %-16s %10s %8" PRIu64 " %21s\n", width,
				site_text(a, order[i], name, sizeof name, shown),
				sync_name(k, s->mutex_kind), duration(waited, b1, sizeof b1), waits,
				b2);
		}
	}
	free(order);
}

static void report_process(struct analysis *a, struct proc *p, FILE *out, unsigned shown)
{
	char b1[32], b2[32], b3[32], name[512], comm[4 * sizeof p->comm + 1];
	/* the critical path's sites (only this process's sites have path time) */
	for (size_t i = 0; i < a->n_sites; i++)
		a->sites[i].path_ns = a->sites[i].path_fragments = 0;
	uint64_t fragments = 0;
	for (const struct node *n = p->span; n != NULL; n = n->prev) {
		a->sites[n->site].path_ns += n->end - n->start;
		a->sites[n->site].path_fragments++;
		fragments++;
	}
	uint64_t burdened = p->span != NULL ? p->span->burdened : 0;
	uint64_t span = path_of(p->span),
		 elapsed = p->end_ns > p->first_ns ? p->end_ns - p->first_ns : 0;
	double parallelism = span > 0 ? (double)p->work / (double)span : 0,
	       speedup = elapsed > 0 ? (double)p->work / (double)elapsed : 0;
	fprintf(out, "%s (pid %" PRIu32 "): %" PRIu64 " tasks ended, on %" PRIu32 " threads\n",
		tp_shown(comm, sizeof comm, p->comm, shown), p->pid, p->tasks, p->threads);
	fprintf(out,
		"  work T1         %12.3f ms  the polls of the tasks, OpenMP's initial task's "
		"serial "
		"code too, added up (an open one to the end)\n",
		(double)p->work / 1e6);
	fprintf(out,
		"  span Tinf       %12.3f ms  the longest path through the task graph (%" PRIu64
		" fragments)\n",
		(double)span / 1e6, fragments);
	fprintf(out,
		"  parallelism     %12.2f     T1/Tinf: no number of workers runs this faster than "
		"%.2fx\n",
		parallelism, parallelism);
	fprintf(out,
		"  speedup         %12.2f     T1/elapsed: measured %.2fx on %" PRIu32
		" threads (elapsed %s: from its first task's poll to %s)\n",
		speedup, speedup, p->threads, duration(elapsed, b1, sizeof b1),
		p->exited ? "its exit's start" : "its last event");
	fprintf(out,
		"  burdened span   %12.3f ms  the critical path with the delay before each of its "
		"fragments started (from when it could, or its thread was free: taskprobe_live.h)\n"
		"  burdened par.   %12.2f     T1/burdened span: what spawning and scheduling leave "
		"of the parallelism\n",
		(double)burdened / 1e6, burdened > 0 ? (double)p->work / (double)burdened : 0);
	if (p->work == 0)
		return;
	report_factors(a, p, out, shown, span);
	/* the sites with work or on the path, by work; a mutual exclusion's sections on the path
	 * are its sync site's, in the table of sync sites */
	uint32_t *order = calloc(a->n_sites + 1, sizeof *order);
	size_t n = 0;
	for (size_t i = 0; order != NULL && i < a->n_sites; i++)
		if ((a->sites[i].path_fragments > 0 && a->sites[i].mutex_kind == 0) ||
		    (a->sites[i].work > 0 && a->sites[i].process == p->process))
			order[n++] = (uint32_t)i;
	if (order == NULL)
		return;
	qsort_r(order, n, sizeof *order, by_work, a->sites);
	fprintf(out, "  %10s %8s %11s %11s %11s %8s %9s  %s\n", "work ms", "tasks", "median task",
		"spawn cost", "start delay", "on path", "fragments", "site");
	for (size_t i = 0; i < n; i++) {
		const struct site *s = &a->sites[order[i]];
		fprintf(out, "  %10.3f %8" PRIu64 " %11s %11s %11s %7.1f%% %9" PRIu64 "  %s\n",
			(double)s->work / 1e6, s->tasks,
			duration(hist_median(&s->task_time), b1, sizeof b1),
			duration(hist_median(&s->spawn_gap), b2, sizeof b2),
			duration(hist_median(&s->start_delay), b3, sizeof b3),
			span > 0 ? 100.0 * (double)s->path_ns / (double)span : 0.0,
			s->path_fragments, site_text(a, order[i], name, sizeof name, shown));
	}
	/* tasks too small for what they cost: the verdict, its medians' reading and its words are
	 * the exit report's and the console's (taskprobe_live.h) */
	for (size_t i = 0; i < n; i++) {
		const struct site *s = &a->sites[order[i]];
		uint64_t task = hist_median(&s->task_time), spawn = hist_median(&s->spawn_gap),
			 start = hist_median(&s->start_delay);
		/* each cost said where it was measured (a site whose tasks are all spawned first
		 * has no gap between spawns to measure) */
		struct tp_live_granularity g = {
			.task_ns = task != UINT64_MAX ? task : 0,
			.spawn_ns = spawn != UINT64_MAX ? spawn : 0,
			.start_ns = start != UINT64_MAX ? start : 0,
		};
		tp_live_granularity_judge(&g, s->tasks, 0);
		if (!g.too_small)
			continue;
		char words[1024];
		tp_live_granularity_words(words, sizeof words,
					  site_text(a, order[i], name, sizeof name, shown), &g);
		fprintf(out, "  %s\n", words);
	}
	free(order);
}

void analysis_report(struct analysis *a, FILE *out, bool utf8)
{
	unsigned shown = utf8 ? TP_SHOWN_UTF8 : 0;
	size_t task, node, edge;
	analysis_finish(a);
	analysis_memory(&task, &node, &edge);
	if (a->n_procs == 0)
		fputs("no task was recorded: nothing to analyze\n", out);
	for (size_t i = 0; i < a->n_procs; i++) {
		if (i > 0)
			fputc('\n', out);
		report_process(a, &a->procs[i], out, shown);
	}
	if (a->stopped)
		fprintf(out,
			"the analysis stopped at %.3f s of the recording: over its memory bound "
			"(%u MiB of its own, %u MiB for the converter in all); the figures are up "
			"to "
			"there\n",
			(double)a->stopped_ns / 1e9, ANALYSIS_MAX_BYTES >> 20,
			(unsigned)(a->resident_max >> 20));
	if (a->unknown_polls > 0)
		fprintf(out,
			"%" PRIu64 " tasks were polled but not spawned in the recording (begun "
			"before it): their spawn edges are missing\n",
			a->unknown_polls);
	fprintf(out,
		"memory: at most %zu tasks open (%zu bytes each), %zu path nodes (%zu bytes "
		"each); %.1f MiB at most\n",
		a->peak_tasks, task, a->peak_nodes, node, (double)a->peak_bytes / (1 << 20));
}

void analysis_critical_path(struct analysis *a,
			    void (*each)(void *context, const struct analysis_fragment *f,
					 bool first),
			    void *context)
{
	analysis_finish(a);
	for (size_t i = 0; i < a->n_procs; i++) {
		/* the nodes point back: the path's length first, then its nodes from the end */
		size_t n = 0;
		for (const struct node *at = a->procs[i].span; at != NULL; at = at->prev)
			n++;
		const struct node **path = malloc(n * sizeof *path + 1);
		if (path == NULL)
			continue;
		size_t k = n;
		for (const struct node *at = a->procs[i].span; at != NULL; at = at->prev)
			path[--k] = at;
		for (k = 0; k < n; k++) {
			const struct node *at = path[k];
			const struct site *s = &a->sites[at->site];
			struct analysis_fragment f = {
				.process = at->process,
				.pid = at->pid,
				.tid = at->tid,
				.task = at->task,
				.site_scope = at->site != 0 ? s->scope : 0,
				.site_id = at->site != 0 ? s->id : 0,
				.start_ns = at->start,
				.end_ns = at->end,
				.exclusion = s->mutex_kind,
			};
			each(context, &f, k == 0);
		}
		free(path);
	}
}

void analysis_free(struct analysis *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->tasks.size; i++)
		for (struct key *k = a->tasks.bucket[i], *next; k != NULL; k = next) {
			next = k->next;
			struct task *t = (struct task *)k;
			acc_clear(a, &t->in);
			unref(a, t->last);
			acc_clear(a, &t->kids);
			acc_clear(a, &t->desc);
			for (struct edge *e = t->successors, *n; e != NULL; e = n) {
				n = e->next;
				free(e);
			}
			free(t);
		}
	for (size_t i = 0; i < a->threads.size; i++)
		for (struct key *k = a->threads.bucket[i], *next; k != NULL; k = next) {
			next = k->next;
			struct thread *th = (struct thread *)k;
			unref(a, th->in);
			unref(a, th->last);
			free(th);
		}
	for (size_t i = 0; i < a->mutexes.size; i++)
		for (struct key *k = a->mutexes.bucket[i], *next; k != NULL; k = next) {
			next = k->next;
			acc_clear(a, &((struct mutex *)k)->released);
			free(k);
		}
	for (size_t i = 0; i < a->n_procs; i++) {
		unref(a, a->procs[i].span);
		unref(a, a->procs[i].frozen);
	}
	for (size_t i = 0; i < a->n_sites; i++) {
		acc_clear(a, &a->sites[i].fork);
		free(a->sites[i].by_thread);
		free(a->sites[i].text);
		free(a->sites[i].task_time.bucket);
		free(a->sites[i].spawn_gap.bucket);
		free(a->sites[i].start_delay.bucket);
	}
	free(a->tasks.bucket);
	free(a->threads.bucket);
	free(a->mutexes.bucket);
	free(a->index.by_id);
	free(a->index.by_text);
	free(a->sites);
	free(a->procs);
	free(a);
}

static void sink_site(void *context, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	analysis_site(context, scope, id, text, len);
}

static void sink_event(void *context, const struct timeline_event *e)
{
	analysis_add(context, e);
}

int analysis_run(const struct recording_input *inputs, size_t n, FILE *out, FILE *errors, bool utf8)
{
	struct analysis *a = analysis_new(ANALYSIS_RESIDENT_MAX);
	if (a == NULL) {
		fputs("taskprobe-timeline: out of memory\n", errors);
		return 2;
	}
	struct recording_sink sink = {a, sink_site, sink_event};
	struct recording_totals totals;
	if (!recording_read(inputs, n, &sink, errors, &totals)) {
		analysis_free(a);
		fputs("taskprobe-timeline: out of memory\n", errors);
		return 2;
	}
	analysis_report(a, out, utf8);
	if (totals.dropped > 0)
		fprintf(out,
			"%" PRIu64 " events were not recorded (the recording says so): the graph "
			"misses them\n",
			totals.dropped);
	if (totals.left_out > 0)
		fprintf(out,
			"%" PRIu64
			" events were left out to keep the converter's memory bounded (said "
			"on standard error): the graph misses them\n",
			totals.left_out);
	analysis_free(a);
	return totals.cut_files > 0 || totals.left_out > 0;
}
