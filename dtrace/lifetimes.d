/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * lifetimes.d	How long do tasks live, and how much of that do they run? By spawn site.
 *
 * The D twin of lifetimes.bt: per spawn site, tasks ended, lifetimes (spawn to final poll-end)
 * and active times (sum of polls) in microseconds, and total active milliseconds.
 *
 * USAGE: dtrace -qs lifetimes.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output:
 *
 *	Tracing task lifetimes of PID 4242... Hit Ctrl-C to end.
 *	stack 21798: omp_latency`spawn_quick+0x1a <- omp_latency`main+0x4a <- ...
 *	  stack 21798: lifetime
 *	           value  ------------- Distribution ------------- count
 *	              64 |@@@@@@@@@@@@@@@@@@@@@@@@                 12
 *	  stack 21798: active
 *	           value  ------------- Distribution ------------- count
 *	               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 20
 *	  stack 21798:       20 tasks        0 ms active
 */

BEGIN
{
	printf("Tracing task lifetimes of PID %d... Hit Ctrl-C to end.\n", $1);
}

taskprobe$1:::task-spawn
{
	stack_of[arg0] = arg2;
	spawned_at[arg0] = timestamp;
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
/spawned_at[arg0]/
{
	poll_start[arg0] = timestamp;
}

taskprobe$1:::task-poll-end
/poll_start[arg0]/
{
	active_ns[arg0] += timestamp - poll_start[arg0];
	poll_start[arg0] = 0;
}

taskprobe$1:::task-poll-end
/arg1 && spawned_at[arg0]/
{
	this->stack = stack_of[arg0];
	@tasks[this->stack] = count();
	@lifetime_us[this->stack] = quantize((timestamp - spawned_at[arg0]) / 1000);
	@active_us[this->stack] = quantize(active_ns[arg0] / 1000);
	@active_total_ms[this->stack] = sum(active_ns[arg0] / 1000000);
	spawned_at[arg0] = 0;
	active_ns[arg0] = 0;
	stack_of[arg0] = 0;
}

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  stack %d: lifetime\n%@d\n", @lifetime_us);
	printa("  stack %d: active\n%@d\n", @active_us);
	printa("  stack %d: %@8d tasks %@8d ms active\n", @tasks, @active_total_ms);
}
