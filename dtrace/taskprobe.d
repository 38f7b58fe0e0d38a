/* SPDX-License-Identifier: MIT */
/*
 * The taskprobe USDT provider: the probe contract of libtaskprobe.so.
 *
 * systemtap-sdt-dev's `dtrace -h` turns this file into the C macros the shim fires
 * (TASKPROBE_TASK_SPAWN(...), TASKPROBE_TASK_SPAWN_ENABLED(), ...) and `dtrace -G` into the
 * semaphores the tracer increments when it attaches. A double underscore in a probe name reads as
 * a dash in D scripts (task-spawn) and stays as it is in bpftrace and perf (task__spawn).
 * Argument meanings, ordering rules and settings: dtrace/PROBES.md.
 */
provider taskprobe {
	/* Tasks, fired by executor adapters. */
	probe task__spawn(uint64_t task, uint64_t parent, uint64_t site_id, const char *site,
	    uint64_t stack_id, uint32_t executor);
	probe task__stack(uint64_t task, uint64_t stack_id, uintptr_t *pcs, uint32_t depth);
	probe task__wake(uint64_t task, uint64_t waker);
	probe task__poll__start(uint64_t task);
	probe task__poll__end(uint64_t task, uint32_t done, uint32_t sync, uint64_t site_id,
	    const char *site);
	probe task__terminate(uint64_t task, uint32_t reason);
	probe task__dependence(uint64_t predecessor, uint64_t successor);
	/* Mutual exclusion (OpenMP critical, ordered, locks): held from acquire to release. */
	probe task__acquire(uint64_t task, uint32_t kind, uintptr_t object);
	probe task__release(uint64_t task, uint32_t kind, uintptr_t object);

	/* The program marks the part of its run to analyse (omp_control_tool). */
	probe region__of__interest(uint32_t on);

	/*
	 * MPI, from the MPI adapter: a rank's identity at MPI_Init, each message's send and
	 * receive (peer: the other rank's in MPI_COMM_WORLD), and each collective's start; a
	 * communicator is its identity, the same in each of its ranks.
	 */
	probe mpi__init(uint32_t rank, uint32_t size, const char *host, const char *job);
	probe mpi__send(uint32_t peer, int32_t tag, uint64_t communicator, uint64_t bytes);
	probe mpi__recv(uint32_t peer, int32_t tag, uint64_t communicator, uint64_t bytes);
	probe mpi__collective(uint32_t call, int32_t root, uint64_t communicator, uint32_t size);

	/* Workers: threads an adapter reports, or named as TASKPROBE_WORKERS says. */
	probe worker__thread__start();
	probe worker__thread__stop();
	probe worker__thread__park();
	probe worker__thread__unpark();

	/* Threads, from the pthread_create interposition. */
	probe thread__start(uint64_t tid, uintptr_t start_routine, uint64_t creator_tid,
	    const char *start_routine_name);
	probe thread__stop(uint64_t tid);

	/*
	 * Waits: futex via syscall(), condition variables, semaphores, epoll, poll, mutex
	 * contention, MPI's blocking calls.
	 */
	probe wait__start(uint32_t kind, uintptr_t object, int64_t timeout_ns, uint64_t task,
			  uint64_t site_id, const char *site);
	probe wait__end(uint32_t kind, uintptr_t object, int64_t result, uint64_t task);
	/* The program's stack at a wait: right after its wait-start, only while enabled. */
	probe wait__stack(uint32_t kind, uintptr_t object, uint64_t stack_id, uintptr_t *pcs,
			  uint32_t depth);
};
