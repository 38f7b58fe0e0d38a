/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * waits.d	Where do the threads of a process block, and for how long?
 *
 * The D twin of waits.bt. Times every wait the shim sees (futex waits through syscall(),
 * condition variables, semaphores, epoll, poll) by kind, counts the ones that timed out, and sums
 * how long each worker thread was parked (idle, waiting for work: see TASKPROBE_WORKERS).
 *
 * USAGE: dtrace -qs waits.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output: waits in microseconds by kind; waits that timed out, by kind; milliseconds parked per
 * worker thread (name, thread id):
 *
 *	Tracing waits of PID 4242... Hit Ctrl-C to end.
 *	  condvar
 *	           value  ------------- Distribution ------------- count
 *	              64 |@@@@@@                                   12
 *	             128 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@       97
 *	  semaphore           3    (timed out)
 *	  pool-1           4242         1830    (parked ms)
 *
 * Parked time is summed in nanoseconds and rounded down to milliseconds once, when printed: a
 * worker that parks often for under a millisecond adds up (3000 parks of 500 us show as
 * 1500 ms, not 0). The wait kinds are those of wait-start's first argument. Waits are keyed by
 * thread id: a wait never moves between threads (tasks do; scripts about tasks key by task id).
 */

BEGIN
{
	printf("Tracing waits of PID %d... Hit Ctrl-C to end.\n", $1);
}

taskprobe$1:::wait-start
{
	wait_start[tid] = timestamp;
}

taskprobe$1:::wait-end
/wait_start[tid]/
{
	this->kind = arg0 == 1 ? "futex" : arg0 == 2 ? "condvar" : arg0 == 3 ? "semaphore" :
	    arg0 == 4 ? "epoll" : "poll";
	@wait_us[this->kind] = quantize((timestamp - wait_start[tid]) / 1000);
	@timed_out[this->kind] = sum((int64_t)arg2 == -110 ? 1 : 0);
	wait_start[tid] = 0;
}

taskprobe$1:::worker-thread-park
{
	park_start[tid] = timestamp;
}

taskprobe$1:::worker-thread-unpark
/park_start[tid]/
{
	/* summed in nanoseconds, printed in milliseconds (normalize in END): short parks add up */
	@parked_ms[execname, tid] = sum(timestamp - park_start[tid]);
	park_start[tid] = 0;
}

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  %s\n%@d\n", @wait_us);
	printa("  %-12s %@8d    (timed out)\n", @timed_out);
	normalize(@parked_ms, 1000000);
	printa("  %-12s %8d %@12d    (parked ms)\n", @parked_ms);
}
