// SPDX-License-Identifier: MIT
/*
 * The analysis's bookkeeping (analysis_private.h): its memory, counted against its bound, its
 * duration histograms, its maps by process and id, the path nodes and their accumulators, the
 * sites and processes; the analysis made and freed.
 */
#define _GNU_SOURCE
#include "analysis_private.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "taskprobe_figures.h"
#include "work_span.h" /* the graph's rules */

void analysis_memory(size_t *task, size_t *node, size_t *edge)
{
	/* and its slots in the map: it is kept at most half full */
	*task = sizeof(struct task) + 2 * sizeof(struct key *);
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
bool room(struct analysis *a, size_t size)
{
	if (a->bytes + size > ANALYSIS_MAX_BYTES || a->over_resident)
		return false;
	if (a->bytes > a->resident_checked + (1u << 20) || a->bytes < a->resident_checked) {
		a->resident_checked = a->bytes;
		a->over_resident = resident() > a->resident_max;
	}
	return !a->over_resident;
}

void *take(struct analysis *a, size_t size)
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

void give(struct analysis *a, void *p, size_t size)
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

void hist_add(struct analysis *a, struct hist *h, uint64_t v)
{
	if (h->bucket == NULL) {
		h->bucket = take(a, 2 * TP_LIVE_BUCKETS * sizeof *h->bucket);
		if (h->bucket == NULL)
			return;
		h->positions = h->bucket + TP_LIVE_BUCKETS;
	}
	unsigned b = hist_index(v), log2 = v == 0 ? 0 : 63 - (unsigned)__builtin_clzll(v);
	h->bucket[b]++;
	h->positions[b] += v == 0 ? 0 : tp_live_position(v, log2);
	if (log2 >= TP_LIVE_COST_OPEN)
		h->open_positions += tp_live_cost_position(v, log2);
	h->count++;
}

/* The median, or UINT64_MAX when empty. */
uint64_t hist_median(const struct hist *h, bool positioned)
{
	if (h->count == 0 || h->bucket == NULL)
		return UINT64_MAX;
	if (!positioned)
		return tp_live_quantile(h->bucket, 0.5, 0, NULL, NULL);
	/* its positions read in the buckets the live statistics read them in, and its values from
	 * their open bucket on as one bucket */
	uint64_t counted[TP_LIVE_BUCKETS], bucket[TP_LIVE_BUCKETS] = {0},
					   positions[TP_LIVE_BUCKETS] = {0};
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++) {
		unsigned to = b < TP_LIVE_COST_OPEN ? b : TP_LIVE_COST_OPEN;
		bucket[to] += h->bucket[b];
		positions[b] = b < TP_LIVE_COST_OPEN ? h->positions[b] : 0;
	}
	positions[TP_LIVE_COST_OPEN] = h->open_positions;
	for (unsigned b = 0; b < TP_LIVE_BUCKETS; b++)
		counted[b] = tp_live_bucket_positioned(b) ? bucket[b] : 0;
	return tp_live_quantile(bucket, 0.5, 0, positions, counted);
}

/* ---- maps of tasks, threads and mutexes, by process and id ---- */

static uint64_t key_hash(uint64_t process, uint64_t id)
{
	return tp_hash_pair(id, process);
}

static uint64_t map_slot_hash(const void *context, const void *slot)
{
	(void)context;
	const struct key *k = *(struct key *const *)slot;
	return key_hash(k->process, k->id);
}

/* The maps' slots are the analysis's memory, counted against its bound. */
static void *map_take(void *context, size_t bytes)
{
	return take(context, bytes);
}

static void map_give(void *context, void *slots, size_t bytes)
{
	give(context, slots, bytes);
}

void map_init(struct analysis *a, struct table *m)
{
	table_init(m, sizeof(struct key *), sizeof(struct key *), 1024, map_slot_hash, NULL);
	table_use_allocator(m, map_take, map_give, a);
}

struct key *map_find(const struct table *m, uint64_t process, uint64_t id)
{
	if (m->size == 0)
		return NULL;
	for (size_t i = table_home(m, key_hash(process, id)); table_used(m, i);
	     i = table_next(m, i)) {
		struct key *k = map_at(m, i);
		if (k->id == id && k->process == process)
			return k;
	}
	return NULL;
}

struct key *map_new(struct analysis *a, struct table *m, uint64_t process, uint64_t id, size_t size)
{
	struct key *k = take(a, size);
	if (k == NULL)
		return NULL;
	if (!table_room(m)) {
		give(a, k, size);
		return NULL;
	}
	k->process = process;
	k->id = id;
	*(struct key **)table_claim(m, key_hash(process, id)) = k;
	return k;
}

struct key *map_find_or_new(struct analysis *a, struct table *m, uint64_t process, uint64_t id,
			    size_t size)
{
	struct key *k = map_find(m, process, id);
	return k != NULL ? k : map_new(a, m, process, id, size);
}

void map_remove(struct table *m, struct key *k)
{
	size_t i = table_home(m, key_hash(k->process, k->id));
	while (map_at(m, i) != k)
		i = table_next(m, i);
	table_remove(m, table_slot(m, i));
}

/* ---- path nodes ---- */

void unref(struct analysis *a, struct node *n)
{
	while (n != NULL && --n->refs == 0) {
		struct node *prev = n->prev;
		give(a, n, sizeof *n);
		a->nodes--;
		n = prev;
	}
}

/* *slot = n, counted. */
void hold(struct analysis *a, struct node **slot, struct node *n)
{
	ref(n);
	unref(a, *slot);
	*slot = n;
}

/* `acc` joins a path ending with `n` at `ns`, whose placed length is `placed`: the longest path
 * picks its node, the placed length is the larger whichever path is longer. */
void acc_fold(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns, uint64_t placed)
{
	if (n != NULL && (acc->n == NULL || n->path > acc->n->path))
		hold(a, &acc->n, n);
	acc->ns = max_u64(acc->ns, ns);
	acc->placed = max_u64(acc->placed, placed);
}

void acc_fold_node(struct analysis *a, struct acc *acc, struct node *n, uint64_t ns)
{
	acc_fold(a, acc, n, ns, n != NULL ? n->placed : 0);
}

void acc_join(struct analysis *a, struct acc *acc, const struct acc *other)
{
	acc_fold(a, acc, other->n, other->ns, other->placed);
}

void acc_clear(struct analysis *a, struct acc *acc)
{
	unref(a, acc->n);
	*acc = (struct acc){0};
}

/* A fragment [start, end] after `prev` (and a placed path `placed` long), of `task` on `th`:
 * in its site's row, or in a mutual exclusion's its sync site's (tp_span_part_site: its
 * section's time on the path is the section's). */
struct node *node_new(struct analysis *a, struct node *prev, uint64_t placed,
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
	n->site = tp_span_part_site(task->section_site, task->site);
	n->tid = (uint32_t)th->k.id;
	n->pid = pid;
	n->process = th->k.process;
	return n;
}

/* ---- sites and processes ---- */

/* The site in slot `i` of an index of sites (0: none). */
static uint32_t site_at(const struct table *t, size_t i)
{
	uint32_t k;
	memcpy(&k, table_slot(t, i), sizeof k);
	return k;
}

static size_t site_id_slot(const struct analysis *a, uint64_t scope, uint64_t id)
{
	const struct table *t = &a->sites_by_id;
	size_t i = table_home(t, tp_hash_pair(id, scope));
	for (uint32_t k; (k = site_at(t, i)) != 0; i = table_next(t, i))
		if (a->sites[k].id == id && a->sites[k].scope == scope)
			break;
	return i;
}

static uint64_t site_id_hash(const void *context, const void *slot)
{
	const struct analysis *a = context;
	uint32_t k;
	memcpy(&k, slot, sizeof k);
	return tp_hash_pair(a->sites[k].id, a->sites[k].scope);
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
	const struct table *t = &a->sites_by_text;
	size_t i = table_home(t, site_text_hash(scope, text, len));
	for (uint32_t k; (k = site_at(t, i)) != 0; i = table_next(t, i))
		if (a->sites[k].scope == scope && strlen(a->sites[k].text) == len &&
		    memcmp(a->sites[k].text, text, len) == 0)
			break;
	return i;
}

static uint64_t site_text_slot_hash(const void *context, const void *slot)
{
	const struct analysis *a = context;
	uint32_t k;
	memcpy(&k, slot, sizeof k);
	return site_text_hash(a->sites[k].scope, a->sites[k].text, strlen(a->sites[k].text));
}

uint32_t site_of(struct analysis *a, uint64_t scope, uint64_t id)
{
	if (id == 0)
		return 0;
	if (a->sites_by_id.size > 0) {
		uint32_t k = site_at(&a->sites_by_id, site_id_slot(a, scope, id));
		if (k != 0)
			return a->sites[k].same != 0 ? a->sites[k].same : k;
	}
	/* a site's bytes with its text's, counted as the analysis's (and never given back) */
	size_t bytes = sizeof(struct site) + 2 * sizeof(uint32_t) + SITE_TEXT_BYTES;
	if (a->n_sites > ANALYSIS_MAX_SITES || !room(a, bytes) || !table_room(&a->sites_by_id))
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
	memcpy(table_claim(&a->sites_by_id, tp_hash_pair(id, scope)), &k, sizeof k);
	return k;
}

struct proc *proc_of(struct analysis *a, const struct timeline_event *e)
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
	map_init(a, &a->tasks);
	map_init(a, &a->threads);
	map_init(a, &a->mutexes);
	table_init(&a->sites_by_id, sizeof(uint32_t), sizeof(uint32_t), 256, site_id_hash, a);
	table_init(&a->sites_by_text, sizeof(uint32_t), sizeof(uint32_t), 256, site_text_slot_hash,
		   a);
	return a;
}

void analysis_site(struct analysis *a, uint64_t scope, uint64_t id, const char *text, uint32_t len)
{
	uint32_t i = site_of(a, scope, id);
	if (i == 0 || a->sites[i].text != NULL || a->sites[i].same != 0 ||
	    !table_room(&a->sites_by_text))
		return;
	/* the call addresses of one construct (an unrolled loop's) are one site: the first */
	size_t slot = site_text_slot(a, scope, text, len);
	uint32_t first = site_at(&a->sites_by_text, slot);
	if (first != 0 && first < i) {
		a->sites[i].same = first;
		return;
	}
	a->sites[i].text = strndup(text, len);
	if (a->sites[i].text != NULL && first == 0)
		table_fill(&a->sites_by_text, slot);
	if (a->sites[i].text != NULL)
		memcpy(table_slot(&a->sites_by_text, slot), &i, sizeof i);
}

void analysis_sync_site(struct analysis *a, uint64_t scope, uint64_t id, unsigned kind,
			uint64_t *waited, uint64_t *waits)
{
	uint32_t i = kind < SYNC_KINDS ? site_of(a, scope, id) : 0;
	*waited = i != 0 ? a->sites[i].waited[kind] : 0;
	*waits = i != 0 ? a->sites[i].waits[kind] : 0;
}

void analysis_barrier_phases(struct analysis *a, uint64_t scope, uint64_t id, unsigned threads,
			     uint64_t *computation)
{
	uint32_t i = site_of(a, scope, id);
	const struct by_thread *b = i != 0 ? &a->sites[i].phases : &(struct by_thread){0};
	for (unsigned t = 0; t < threads; t++)
		computation[t] = t < b->n && b->of[t].in ? b->of[t].ns : UINT64_MAX;
}

/* What site `s` holds besides itself (a process's row for no site holds its histograms only). */
static void site_free(struct analysis *a, struct site *s)
{
	acc_clear(a, &s->fork);
	free(s->by_thread.of);
	free(s->phases.of);
	free(s->text);
	free(s->task_time.bucket);
	free(s->spawn_gap.bucket);
	free(s->start_delay.bucket);
}

void analysis_free(struct analysis *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->tasks.size; i++) {
		struct key *k = map_at(&a->tasks, i);
		if (k == NULL)
			continue;
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
	for (size_t i = 0; i < a->threads.size; i++) {
		struct key *k = map_at(&a->threads, i);
		if (k == NULL)
			continue;
		struct thread *th = (struct thread *)k;
		unref(a, th->in);
		unref(a, th->last);
		free(th);
	}
	for (size_t i = 0; i < a->mutexes.size; i++) {
		struct key *k = map_at(&a->mutexes, i);
		if (k == NULL)
			continue;
		acc_clear(a, &((struct mutex *)k)->released);
		free(k);
	}
	for (size_t i = 0; i < a->n_procs; i++) {
		unref(a, a->procs[i].span);
		unref(a, a->procs[i].frozen);
		site_free(a, &a->procs[i].no_site);
	}
	for (size_t i = 0; i < a->n_sites; i++)
		site_free(a, &a->sites[i]);
	table_free(&a->tasks);
	table_free(&a->threads);
	table_free(&a->mutexes);
	table_free(&a->sites_by_id);
	table_free(&a->sites_by_text);
	free(a->sites);
	free(a->procs);
	free(a);
}
