/* SPDX-License-Identifier: MIT */
/*
 * workers.d	How busy are the worker threads? Busy, idle-spinning and parked time per worker.
 *
 * The D twin of workers.bt: per worker thread (threads the executor reports with
 * worker-thread-start), time polling tasks, parked, and neither (spinning), over each
 * interval, in milliseconds. At most 64 workers; runs through the C preprocessor (-C) for its
 * per-worker clauses (so no #! line: DTrace hides one from cpp only on the file's first line,
 * which is the SPDX line's).
 *
 * USAGE: dtrace -Cqs workers.d PID [SECONDS]
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). Prints every SECONDS (default 1) and
 * when the process ends. Output:
 *
 *	Tracing worker utilization of PID 4242 every 1 s... Hit Ctrl-C to end.
 *	WORKER                TID   BUSY_MS   SPIN_MS PARKED_MS
 *	omp_latency          4242       612       140       248
 *	omp_latency          4243       780       190        30
 */

#pragma D option defaultargs

BEGIN
{
	every_ticks = ($2 > 0 ? $2 : 1) * 10;
	printf("Tracing worker utilization of PID %d every %d s... Hit Ctrl-C to end.\n", $1,
	    every_ticks / 10);
}

/* a new worker takes the first free slot from tid % 64 on */
#define TRY(k) \
	this->slot = this->slot < 0 && !slot_tid[(tid + k) % 64] ? (tid + k) % 64 : this->slot;
#define TRY8(k) TRY(k) TRY(k + 1) TRY(k + 2) TRY(k + 3) TRY(k + 4) TRY(k + 5) TRY(k + 6) TRY(k + 7)

taskprobe$1:::worker-thread-start
{
	this->slot = -1;
	TRY8(0) TRY8(8) TRY8(16) TRY8(24) TRY8(32) TRY8(40) TRY8(48) TRY8(56)
}

taskprobe$1:::worker-thread-start
/this->slot >= 0/
{
	slot_tid[this->slot] = tid;
	slot_name[this->slot] = execname;
	slot_of[tid] = this->slot + 1;
	from[this->slot] = timestamp;
}

taskprobe$1:::task-poll-start
/slot_of[tid]/
{
	busy_since[slot_of[tid] - 1] = timestamp;
}

taskprobe$1:::task-poll-end
/slot_of[tid] && busy_since[slot_of[tid] - 1]/
{
	this->slot = slot_of[tid] - 1;
	busy_ns[this->slot] += timestamp - busy_since[this->slot];
	busy_since[this->slot] = 0;
}

taskprobe$1:::worker-thread-park
/slot_of[tid]/
{
	parked_since[slot_of[tid] - 1] = timestamp;
}

taskprobe$1:::worker-thread-unpark
/slot_of[tid] && parked_since[slot_of[tid] - 1]/
{
	this->slot = slot_of[tid] - 1;
	parked_ns[this->slot] += timestamp - parked_since[this->slot];
	parked_since[this->slot] = 0;
}

taskprobe$1:::worker-thread-stop
/slot_of[tid]/
{
	stopped_at[slot_of[tid] - 1] = timestamp;
	slot_of[tid] = 0;
}

proc:::exit
/pid == $1/
{
	exiting = 1;
}

tick-100ms
{
	ticks++;
	report = exiting || ticks % every_ticks == 0;
}

tick-100ms
/report/
{
	printf("%-16s %8s %9s %9s %9s\n", "WORKER", "TID", "BUSY_MS", "SPIN_MS", "PARKED_MS");
}

/* the report line of slot s: a poll or park in progress counts up to now */
#define REPORT(s) \
	tick-100ms /report && slot_tid[s]/ \
	{ \
		this->end = stopped_at[s] ? stopped_at[s] : timestamp; \
		busy_ns[s] += busy_since[s] ? this->end - busy_since[s] : 0; \
		busy_since[s] = busy_since[s] ? this->end : 0; \
		parked_ns[s] += parked_since[s] ? this->end - parked_since[s] : 0; \
		parked_since[s] = parked_since[s] ? this->end : 0; \
		this->spin = (int64_t)(this->end - from[s]) - (int64_t)busy_ns[s] - \
		    (int64_t)parked_ns[s]; \
		printf("%-16s %8d %9d %9d %9d\n", slot_name[s], slot_tid[s], busy_ns[s] / 1000000, \
		    (this->spin > 0 ? this->spin : 0) / 1000000, parked_ns[s] / 1000000); \
		from[s] = this->end; \
		busy_ns[s] = 0; \
		parked_ns[s] = 0; \
		slot_tid[s] = stopped_at[s] ? 0 : slot_tid[s]; \
		stopped_at[s] = 0; \
	}
#define REPORT8(s) REPORT(s) REPORT(s + 1) REPORT(s + 2) REPORT(s + 3) REPORT(s + 4) \
	REPORT(s + 5) REPORT(s + 6) REPORT(s + 7)
REPORT8(0) REPORT8(8) REPORT8(16) REPORT8(24) REPORT8(32) REPORT8(40) REPORT8(48) REPORT8(56)

tick-100ms
/report && exiting/
{
	exit(0);
}
