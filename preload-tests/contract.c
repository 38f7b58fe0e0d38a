// SPDX-License-Identifier: MIT
/*
 * The probe contract's checks on a traced run (harness.h, tp_assert_*): threads, waits and
 * parks, tasks. The probes themselves, as the ELF notes must have them, are in contract.h.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"
#include "taskprobe_contract.h"

size_t tp_assert_threads_paired(const struct tp_run *run, long n)
{
	size_t starts = tp_count(run, "thread__start", 0);
	if (n >= 0)
		cr_expect_eq(starts, (size_t)n, "%zu thread-start, expected %ld", starts, n);
	cr_expect_eq(tp_count(run, "thread__stop", 0), starts,
		     "%zu thread-stop for %zu thread-start", tp_count(run, "thread__stop", 0),
		     starts);
	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *s = &run->events[i];
		if (!tp_event_is(s, "thread__start"))
			continue;
		uint64_t tid = (uint64_t)s->arg[0];
		cr_expect_eq(tid, s->tid, "thread-start names tid %llu on thread %llu",
			     (unsigned long long)tid, (unsigned long long)s->tid);
		cr_expect_neq(s->arg[1], 0, "thread-start of %llu has no start routine",
			      (unsigned long long)tid);
		cr_expect_neq(s->arg[2], 0);
		for (size_t j = 0; j < i; j++)
			cr_expect_neq(run->events[j].tid, tid, "%s on thread %llu before its start",
				      run->events[j].probe, (unsigned long long)tid);
		size_t stops = 0;
		bool stopped_itself = false;
		for (size_t j = i + 1; j < run->n_events; j++) {
			const struct tp_event *e = &run->events[j];
			if (e->tid == tid && stopped_itself)
				cr_expect_fail("%s on thread %llu after its thread-stop", e->probe,
					       (unsigned long long)tid);
			if (tp_event_is(e, "thread__stop") && (uint64_t)e->arg[0] == tid) {
				stops++;
				stopped_itself = e->tid == tid;
			}
		}
		cr_expect_eq(stops, 1, "%zu thread-stop for thread %llu", stops,
			     (unsigned long long)tid);
	}
	return starts;
}

size_t tp_assert_waits_paired(const struct tp_run *run)
{
	size_t waits = 0;
	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *s = &run->events[i];
		if (!tp_event_is(s, "wait__start"))
			continue;
		waits++;
		cr_expect(s->arg[0] >= 1 && s->arg[0] <= TP_WAIT_KINDS,
			  "wait-start of kind %lld: not one of the contract's",
			  (long long)s->arg[0]);
		/* its end: the wait-end on its thread that closes it, waits of signal handlers
		 * nesting in between */
		const struct tp_event *end = NULL;
		size_t depth = 1;
		for (size_t j = i + 1; j < run->n_events && end == NULL; j++) {
			const struct tp_event *e = &run->events[j];
			if (e->tid != s->tid)
				continue;
			if (tp_event_is(e, "wait__start"))
				depth++;
			else if (tp_event_is(e, "wait__end") && --depth == 0)
				end = e;
		}
		if (end == NULL) {
			/* Only a thread that the process's exit ended may leave its wait open. */
			bool ended_by_exit = false;
			for (size_t j = i + 1; j < run->n_events; j++)
				ended_by_exit |= tp_event_is(&run->events[j], "thread__stop") &&
						 (uint64_t)run->events[j].arg[0] == s->tid &&
						 run->events[j].tid != s->tid;
			cr_expect(ended_by_exit,
				  "wait-start (kind %lld) on thread %llu never ended",
				  (long long)s->arg[0], (unsigned long long)s->tid);
			continue;
		}
		cr_expect(end->arg[0] == s->arg[0] && end->arg[1] == s->arg[1] &&
				  end->arg[3] == s->arg[3],
			  "wait-end (kind %lld, object %#llx, task %lld) does not match its start "
			  "(kind %lld, object %#llx, task %lld)",
			  (long long)end->arg[0], (unsigned long long)end->arg[1],
			  (long long)end->arg[3], (long long)s->arg[0],
			  (unsigned long long)s->arg[1], (long long)s->arg[3]);
	}
	/*
	 * A wait-stack follows its wait's start on its thread, with the start's kind and object:
	 * only a signal handler's whole waits (each start to its end) may come between them.
	 */
	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *e = &run->events[i];
		if (!tp_event_is(e, "wait__stack"))
			continue;
		const struct tp_event *start = NULL;
		int handler_waits = 0; /* ends seen going back, less their starts */
		for (size_t j = i; start == NULL && j-- > 0;) {
			const struct tp_event *before = &run->events[j];
			if (before->tid != e->tid)
				continue;
			if (tp_event_is(before, "wait__end"))
				handler_waits++;
			else if (handler_waits > 0)
				handler_waits -= tp_event_is(before, "wait__start");
			else
				start = before;
		}
		cr_expect(start != NULL && tp_event_is(start, "wait__start") &&
				  start->arg[0] == e->arg[0] && start->arg[1] == e->arg[1],
			  "wait-stack (kind %lld, object %#llx) on thread %llu not right after its "
			  "wait-start (%s)",
			  (long long)e->arg[0], (unsigned long long)e->arg[1],
			  (unsigned long long)e->tid, start != NULL ? start->probe : "none");
	}
	/*
	 * park and unpark alternate per thread, starting with park, and end unparked, or with the
	 * thread-stop of the thread, from any thread, after its last park (the process exited
	 * under it: no unpark fires for it).
	 */
	for (size_t i = 0; i < run->n_events; i++) {
		uint64_t tid = run->events[i].tid;
		bool seen_before = false;
		for (size_t j = 0; j < i && !seen_before; j++)
			seen_before = run->events[j].tid == tid;
		if (seen_before)
			continue;
		bool parked = false;
		for (size_t j = i; j < run->n_events; j++) {
			const struct tp_event *e = &run->events[j];
			bool park = tp_event_is(e, "worker__thread__park"),
			     unpark = tp_event_is(e, "worker__thread__unpark");
			if (parked && tp_event_is(e, "thread__stop") &&
			    (uint64_t)e->arg[0] == tid && e->tid != tid) {
				parked = false;
				continue;
			}
			if (e->tid != tid || !(park || unpark))
				continue;
			cr_expect_neq(park, parked, "worker-thread-%s on thread %llu while %s",
				      park ? "park" : "unpark", (unsigned long long)tid,
				      parked ? "parked" : "not parked");
			parked = park;
		}
		cr_expect(!parked, "thread %llu never unparked", (unsigned long long)tid);
	}
	return waits;
}

/* The task contract's part per task (tp_assert_tasks_consistent); returns how many were spawned. */
static size_t expect_each_task_lives_once(const struct tp_run *run)
{
	uint64_t max_id = 0;
	for (size_t i = 0; i < run->n_events; i++)
		if (strncmp(run->events[i].probe, "task__", 6) == 0 &&
		    (uint64_t)run->events[i].arg[0] > max_id)
			max_id = (uint64_t)run->events[i].arg[0];
	/* Per task: event index of spawn, terminate, final poll-end; counts. */
	struct task_seen {
		size_t spawn, terminate, final_end, wakes, terminates, polls;
		bool spawned;
	} *t = calloc(max_id + 1, sizeof *t);
	size_t spawned = 0;

	for (size_t i = 0; i < run->n_events; i++) {
		const struct tp_event *e = &run->events[i];
		if (strncmp(e->probe, "task__", 6) != 0)
			continue;
		uint64_t id = (uint64_t)e->arg[0];
		cr_assert_neq(id, 0, "%s of task 0", e->probe);
		if (tp_event_is(e, "task__dependence")) {
			/* an event of its successor (arg1), right after its spawn; the predecessor
			 * was spawned, and may be ending at this moment on another thread */
			cr_expect(id <= max_id && t[id].spawned, "dependence on unknown task %llu",
				  (unsigned long long)id);
			id = (uint64_t)e->arg[1];
			cr_assert(id != 0 && id <= max_id, "dependence of task %llu",
				  (unsigned long long)id);
		}
		struct task_seen *s = &t[id];
		if (tp_event_is(e, "task__spawn")) {
			cr_expect(!s->spawned, "task %llu spawned twice", (unsigned long long)id);
			uint64_t parent = (uint64_t)e->arg[1];
			cr_expect(parent == 0 || (parent <= max_id && t[parent].spawned),
				  "task %llu has unknown parent %llu", (unsigned long long)id,
				  (unsigned long long)parent);
			cr_expect_eq(e->arg[5], 1, "executor %lld", (long long)e->arg[5]);
			s->spawned = true;
			s->spawn = i;
			spawned++;
			continue;
		}
		cr_expect(s->spawned, "%s of task %llu before its spawn", e->probe,
			  (unsigned long long)id);
		cr_expect_eq(s->terminates == 1 && s->final_end != 0, false,
			     "%s of task %llu after its final poll-end", e->probe,
			     (unsigned long long)id);
		if (tp_event_is(e, "task__wake")) {
			s->wakes++;
		} else if (tp_event_is(e, "task__poll__start")) {
			cr_expect_gt(s->wakes, 0, "task %llu polled before its wake",
				     (unsigned long long)id);
			s->polls++;
		} else if (tp_event_is(e, "task__terminate")) {
			s->terminates++;
			s->terminate = i;
		} else if (tp_event_is(e, "task__poll__end") && e->arg[1] == 1) {
			cr_expect_eq(s->terminates, 1,
				     "task %llu ended (done 1) without one terminate",
				     (unsigned long long)id);
			/* Terminate comes first, on this thread, with nothing of the thread between. */
			for (size_t j = s->terminate + 1; j < i; j++)
				cr_expect_neq(
					run->events[j].tid, e->tid,
					"%s between terminate and final poll-end of task %llu",
					run->events[j].probe, (unsigned long long)id);
			cr_expect_eq(run->events[s->terminate].tid, e->tid);
			s->final_end = i;
		}
	}
	for (uint64_t id = 1; id <= max_id; id++) {
		if (!t[id].spawned)
			continue;
		cr_expect_eq(t[id].wakes, 1, "task %llu woken %zu times", (unsigned long long)id,
			     t[id].wakes);
		cr_expect_eq(t[id].terminates, 1, "task %llu terminated %zu times",
			     (unsigned long long)id, t[id].terminates);
		cr_expect_neq(t[id].final_end, 0, "task %llu has no final poll-end (done 1)",
			      (unsigned long long)id);
	}
	free(t);
	return spawned;
}

/* The task contract's part per thread (tp_assert_tasks_consistent): poll-start and poll-end
 * alternate; worker start and stop once each, `workers` worker threads if workers >= 0. */
static void expect_each_thread_polls_in_turn(const struct tp_run *run, long workers)
{
	size_t worker_threads = 0;
	for (size_t i = 0; i < run->n_events; i++) {
		uint64_t tid = run->events[i].tid;
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = run->events[j].tid != tid;
		if (!first)
			continue;
		int64_t polling = 0;
		size_t starts = 0, stops = 0;
		for (size_t j = i; j < run->n_events; j++) {
			const struct tp_event *e = &run->events[j];
			if (e->tid != tid)
				continue;
			if (tp_event_is(e, "task__poll__start")) {
				cr_expect_eq(polling, 0,
					     "thread %llu starts polling %lld while polling %lld",
					     (unsigned long long)tid, (long long)e->arg[0],
					     (long long)polling);
				polling = e->arg[0];
			} else if (tp_event_is(e, "task__poll__end")) {
				cr_expect_eq(polling, e->arg[0],
					     "thread %llu ends a poll of %lld while polling %lld",
					     (unsigned long long)tid, (long long)e->arg[0],
					     (long long)polling);
				polling = 0;
			} else if (tp_event_is(e, "worker__thread__start")) {
				cr_expect_eq(starts + stops, 0,
					     "thread %llu: worker start after start/stop",
					     (unsigned long long)tid);
				starts++;
			} else if (tp_event_is(e, "worker__thread__stop")) {
				stops++;
			}
		}
		cr_expect_eq(polling, 0, "thread %llu still polls task %lld at the end",
			     (unsigned long long)tid, (long long)polling);
		cr_expect_eq(starts, stops, "thread %llu: %zu worker starts, %zu stops",
			     (unsigned long long)tid, starts, stops);
		cr_expect_leq(starts, 1, "thread %llu started as a worker %zu times",
			      (unsigned long long)tid, starts);
		worker_threads += starts;
	}
	if (workers >= 0)
		cr_expect_eq(worker_threads, (size_t)workers, "%zu worker threads, expected %ld",
			     worker_threads, workers);
}

size_t tp_assert_tasks_consistent(const struct tp_run *run, long workers)
{
	size_t spawned = expect_each_task_lives_once(run);
	expect_each_thread_polls_in_turn(run, workers);
	return spawned;
}
