/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * blocking.d	Which tasks block their worker thread, in what kind of wait, for how long?
 *
 * The D twin of blocking.bt. A wait entered while the thread polls a task (wait-start's task
 * argument is nonzero) blocks the worker: nothing else runs on it meanwhile. Such waits are
 * timed by kind and spawn site, and the tasks that blocked longest are listed. Waits are matched
 * by thread (a wait never moves), tasks by task id.
 *
 * USAGE: dtrace -qs blocking.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output: the blocking waits in microseconds by kind; total microseconds by spawn site and kind;
 * the tasks that blocked longest (at most 10, longest last) with their site and kind:
 *
 *	Tracing waits inside task polls of PID 4242... Hit Ctrl-C to end.
 *	  poll
 *	           value  ------------- Distribution ------------- count
 *	           16384 |                                         0
 *	           32768 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1
 *	           65536 |                                         0
 *
 *	  spawn_blocking (omp_latency.c:42)    poll            40102 us
 *	  task 24     spawn_blocking (omp_latency.c:42)    poll            40102 us
 *
 * Read it as: the task spawned at spawn_blocking (omp_latency.c:42) held its worker for 40 ms
 * inside poll(). A spawn site is the task construct as the process names it, "function
 * (file:line)" (or "function+0xoff (module)" without line information), read once per site.
 * Waits of tasks with no site (OpenMP's initial task) or spawned before the script started count
 * under "(no site)". Totals are summed in nanoseconds and shown in microseconds. A task's entry is
 * freed when its final poll ends; should DTrace report dynamic variable drops, raise
 * -x dynvarsize.
 */

BEGIN
{
	printf("Tracing waits inside task polls of PID %d... Hit Ctrl-C to end.\n", $1);
	site_name[0] = "(no site)";
}

taskprobe$1:::task-spawn
{
	site_of[arg0] = arg2;
}

taskprobe$1:::task-spawn
/arg2 != 0 && arg3 != 0 && !named[arg2]/
{
	named[arg2] = 1;
	site_name[arg2] = copyinstr(arg3);
}

taskprobe$1:::wait-start
/arg3 != 0/
{
	wait_start[tid] = timestamp;
}

taskprobe$1:::wait-end
/arg3 != 0 && wait_start[tid]/
{
	this->ns = timestamp - wait_start[tid];
	this->kind = arg0 == 1 ? "futex" : arg0 == 2 ? "condvar" : arg0 == 3 ? "semaphore" :
	    arg0 == 4 ? "epoll" : "poll";
	this->site = site_name[site_of[arg3]];
	@blocked_us[this->kind] = quantize(this->ns / 1000);
	/* summed in nanoseconds, printed in microseconds (normalize in END) */
	@blocked_us_by_site[this->site, this->kind] = sum(this->ns);
	@blocking_tasks_us[arg3, this->site, this->kind] = sum(this->ns);
	wait_start[tid] = 0;
}

taskprobe$1:::task-poll-end
/arg1/
{
	site_of[arg0] = 0;
}

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  %s\n%@d\n", @blocked_us);
	normalize(@blocked_us_by_site, 1000);
	printa("  %-36s %-10s %@10d us\n", @blocked_us_by_site);
	trunc(@blocking_tasks_us, 10);
	normalize(@blocking_tasks_us, 1000);
	printa("  task %-6d %-36s %-10s %@10d us\n", @blocking_tasks_us);
}
