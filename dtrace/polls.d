/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * polls.d	How long do task polls take, by spawn site, and which polls were the slowest?
 *
 * The D twin of polls.bt: poll durations in microseconds, all and by spawn site, and the
 * slowest polls with their task and spawn site (each the slowest of its site so far when it
 * ended; at most 10). Matched by task id, as tasks move between threads.
 *
 * USAGE: dtrace -qs polls.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output:
 *
 *	Tracing task polls of PID 4242... Hit Ctrl-C to end.
 *	stack 19644: omp_latency`spawn_slow+0x1a <- omp_latency`main+0x5c <- ...
 *	  all polls
 *	           value  ------------- Distribution ------------- count
 *	               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@     40
 *	  stack 19644
 *	           value  ------------- Distribution ------------- count
 *	           32768 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1
 *	  slowest: task 26 stack 19644        60012 us
 */

BEGIN
{
	printf("Tracing task polls of PID %d... Hit Ctrl-C to end.\n", $1);
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

taskprobe$1:::task-poll-start
{
	poll_start[arg0] = timestamp;
}

taskprobe$1:::task-poll-end
{
	this->us = 0;
}

taskprobe$1:::task-poll-end
/poll_start[arg0]/
{
	this->us = (timestamp - poll_start[arg0]) / 1000;
	this->stack = stack_of[arg0];
	@poll_us = quantize(this->us);
	@poll_us_by_stack[this->stack] = quantize(this->us);
	poll_start[arg0] = 0;
}

taskprobe$1:::task-poll-end
/this->us > slowest_of_stack[this->stack]/
{
	slowest_of_stack[this->stack] = this->us;
	@slowest_polls_us[arg0, this->stack] = max(this->us);
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
	printa("  all polls\n%@d\n", @poll_us);
	printa("  stack %d\n%@d\n", @poll_us_by_stack);
	trunc(@slowest_polls_us, 10);
	printa("  slowest: task %d stack %d %@12d us\n", @slowest_polls_us);
}
