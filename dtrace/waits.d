#!/usr/sbin/dtrace -qs
/*
 * waits.d	Where do the threads of a process block, and for how long?
 *
 * The D twin of waits.bt: every wait the shim sees, timed by kind; waits that timed out; time
 * each worker thread spent parked.
 *
 * USAGE: the program runs with LD_PRELOAD=/path/to/libtaskprobe.so; then
 *	dtrace -qs waits.d -p PID
 * and Ctrl-C, or let the program end. Output:
 *
 *	  condvar
 *	           value  ------------- Distribution ------------- count
 *	              64 |@@@@@@                                   12
 *	             128 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@       97
 *	  semaphore                                                 3    (timed out)
 *	  pool-1           4242                                  1830    (parked ms)
 */

taskprobe$target:::wait-start
{
	wait_start[tid] = timestamp;
}

taskprobe$target:::wait-end
/wait_start[tid]/
{
	this->kind = arg0 == 1 ? "futex" : arg0 == 2 ? "condvar" : arg0 == 3 ? "semaphore" :
	    arg0 == 4 ? "epoll" : "poll";
	@wait_us[this->kind] = quantize((timestamp - wait_start[tid]) / 1000);
	@timed_out[this->kind] = sum((int64_t)arg2 == -110 ? 1 : 0);
	wait_start[tid] = 0;
}

taskprobe$target:::worker-thread-park
{
	park_start[tid] = timestamp;
}

taskprobe$target:::worker-thread-unpark
/park_start[tid]/
{
	@parked_ms[execname, tid] = sum((timestamp - park_start[tid]) / 1000000);
	park_start[tid] = 0;
}

END
{
	printa("  %s\n%@d\n", @wait_us);
	printa("  %-12s %@8d    (timed out)\n", @timed_out);
	printa("  %-12s %8d %@12d    (parked ms)\n", @parked_ms);
}
