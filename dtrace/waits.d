/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * waits.d	Where do the threads of a process block, and for how long?
 *
 * The D twin of waits.bt: every wait the shim sees, timed by kind; waits that timed out; time
 * each worker thread spent parked.
 *
 * USAGE: dtrace -qs waits.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output:
 *
 *	Tracing waits of PID 4242... Hit Ctrl-C to end.
 *
 *	  condvar
 *	           value  ------------- Distribution ------------- count
 *	              64 |@@@@@@                                   12
 *	             128 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@       97
 *	  semaphore                                                 3    (timed out)
 *	  pool-1           4242                                  1830    (parked ms)
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
	@parked_ms[execname, tid] = sum((timestamp - park_start[tid]) / 1000000);
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
	printa("  %-12s %8d %@12d    (parked ms)\n", @parked_ms);
}
