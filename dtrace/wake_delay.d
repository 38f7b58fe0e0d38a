/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * wake_delay.d	How long does a woken task wait for a worker to poll it?
 *
 * The D twin of wake_delay.bt. Scheduling delay: task-wake (the task became runnable) to its
 * next task-poll-start. Long delays with idle workers point at the executor's queues; with busy
 * workers, at long polls (polls.d). Matched by task id: a task is often woken on one thread and
 * polled on another.
 *
 * USAGE: dtrace -qs wake_delay.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output: delays in microseconds, all of them, and the longest per spawn site:
 *
 *	Tracing wake-to-poll delays of PID 4242... Hit Ctrl-C to end.
 *	  wake to poll-start
 *	           value  ------------- Distribution ------------- count
 *	               1 |                                         0
 *	               2 |@@@@@@@@@@@@@@@@@@@@@@                   9
 *	               4 |@@@@@@@@@@                               4
 *	...
 *	           65536 |@@@@@@@                                  3
 *	          131072 |                                         0
 *
 *	  main (omp_latency.c:52)              longest         12 us
 *	  spawn_quick (omp_latency.c:23)       longest     104113 us
 *
 * Read it as: a task of spawn_quick waited 104 ms from its wake to its poll, while the workers
 * were busy elsewhere or parked (workers.d tells which). A spawn site is the task construct as
 * the process names it, "function (file:line)" (or "function+0xoff (module)" without line
 * information), read once per site. Tasks with no site (OpenMP's initial task) and tasks spawned
 * before the script started count under "(no site)". A task's entries are freed when its final
 * poll ends; should DTrace report dynamic variable drops, raise -x dynvarsize.
 */

BEGIN
{
	printf("Tracing wake-to-poll delays of PID %d... Hit Ctrl-C to end.\n", $1);
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

taskprobe$1:::task-wake
{
	woken_at[arg0] = timestamp;
}

taskprobe$1:::task-poll-start
/woken_at[arg0]/
{
	this->us = (timestamp - woken_at[arg0]) / 1000;
	@wake_to_poll_us = quantize(this->us);
	@longest_wait_us[site_name[site_of[arg0]]] = max(this->us);
	woken_at[arg0] = 0;
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
	printa("  wake to poll-start\n%@d\n", @wake_to_poll_us);
	printa("  %-36s longest %@10d us\n", @longest_wait_us);
}
