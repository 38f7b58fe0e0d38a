/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * blocking.d	Which tasks block their worker thread, in what kind of wait, for how long?
 *
 * The D twin of blocking.bt: waits entered while the thread polls a task (wait-start's task
 * argument nonzero), in microseconds, by kind; totals by spawn site and kind; the 10 tasks
 * that blocked longest. Waits are matched by thread (a wait never moves), tasks by task id.
 *
 * USAGE: dtrace -qs blocking.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output:
 *
 *	Tracing waits inside task polls of PID 4242... Hit Ctrl-C to end.
 *	stack 18106: omp_latency`spawn_blocking+0x1a <- omp_latency`main+0x6e <- ...
 *	  poll
 *	           value  ------------- Distribution ------------- count
 *	           32768 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1
 *	  stack 18106 poll              40102 us
 *	  task 24 stack 18106 poll      40102 us
 */

BEGIN
{
	printf("Tracing waits inside task polls of PID %d... Hit Ctrl-C to end.\n", $1);
}

taskprobe$1:::task-spawn
{
	stack_of[arg0] = arg2;
}

taskprobe$1:::task-spawn
/arg2 != 0 && !named[arg2] && arg4 >= 3/
{
	named[arg2] = 1;
	this->pcs = (uint64_t *)copyin(arg3, 24);
	printf("stack %d: %A <- %A <- %A\n", arg2, this->pcs[0], this->pcs[1], this->pcs[2]);
}

taskprobe$1:::task-spawn
/arg2 != 0 && !named[arg2]/
{
	named[arg2] = 1;
	printf("stack %d: %A\n", arg2, *(uint64_t *)copyin(arg3, 8));
}

taskprobe$1:::wait-start
/arg3 != 0/
{
	wait_start[tid] = timestamp;
}

taskprobe$1:::wait-end
/arg3 != 0 && wait_start[tid]/
{
	this->us = (timestamp - wait_start[tid]) / 1000;
	this->kind = arg0 == 1 ? "futex" : arg0 == 2 ? "condvar" : arg0 == 3 ? "semaphore" :
	    arg0 == 4 ? "epoll" : "poll";
	this->stack = stack_of[arg3];
	@blocked_us[this->kind] = quantize(this->us);
	@blocked_us_by_stack[this->stack, this->kind] = sum(this->us);
	@blocking_tasks_us[arg3, this->stack, this->kind] = sum(this->us);
	wait_start[tid] = 0;
}

taskprobe$1:::task-poll-end
/arg1/
{
	stack_of[arg0] = 0;
}

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  %s\n%@d\n", @blocked_us);
	printa("  stack %d %-12s %@12d us\n", @blocked_us_by_stack);
	trunc(@blocking_tasks_us, 10);
	printa("  task %d stack %d %-12s %@12d us\n", @blocking_tasks_us);
}
