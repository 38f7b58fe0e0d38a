/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * wake_delay.d	How long does a woken task wait for a worker to poll it?
 *
 * The D twin of wake_delay.bt: task-wake to the task's next task-poll-start, in microseconds,
 * as a distribution and the longest per spawn site. Matched by task id.
 *
 * USAGE: dtrace -qs wake_delay.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output:
 *
 *	Tracing wake-to-poll delays of PID 4242... Hit Ctrl-C to end.
 *	stack 21798: omp_latency`spawn_quick+0x1a <- omp_latency`main+0x4a <- ...
 *	  wake to poll-start
 *	           value  ------------- Distribution ------------- count
 *	               2 |@@@@@@@@@@@@@@@@@@@@@@@@                 9
 *	  stack 21798: longest      104113 us
 */

BEGIN
{
	printf("Tracing wake-to-poll delays of PID %d... Hit Ctrl-C to end.\n", $1);
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

taskprobe$1:::task-wake
{
	woken_at[arg0] = timestamp;
}

taskprobe$1:::task-poll-start
/woken_at[arg0]/
{
	this->us = (timestamp - woken_at[arg0]) / 1000;
	@wake_to_poll_us = quantize(this->us);
	@longest_wait_us[stack_of[arg0]] = max(this->us);
	woken_at[arg0] = 0;
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
	printa("  wake to poll-start\n%@d\n", @wake_to_poll_us);
	printa("  stack %d: longest %@12d us\n", @longest_wait_us);
}
