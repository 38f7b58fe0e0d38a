/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * polls.d	How long do task polls take, by spawn site, and which polls were the slowest?
 *
 * The D twin of polls.bt. A poll is one stretch of a task running on a worker, task-poll-start
 * to task-poll-end (a task that waits for its children or yields ends its poll, and starts a new
 * one when it resumes). Long polls hold a worker: tasks queued behind them wait. Polls are
 * matched by task id, not thread, as tasks move between threads.
 *
 * USAGE: dtrace -qs polls.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output: poll durations in microseconds: all polls; by spawn site; and the slowest polls with
 * their task and site (at most 10, slowest last; each was the slowest of its site so far when it
 * ended, which keeps the aggregation small):
 *
 *	Tracing task polls of PID 4242... Hit Ctrl-C to end.
 *	  all polls
 *	           value  ------------- Distribution ------------- count
 *	               0 |                                         0
 *	               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@     40
 *	               2 |@@@                                      3
 *	...
 *	           32768 |@                                        1
 *	           65536 |                                         0
 *
 *	  spawn_slow (omp_latency.c:30)
 *	           value  ------------- Distribution ------------- count
 *	           16384 |                                         0
 *	           32768 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1
 *	           65536 |                                         0
 *	...
 *	  slowest: task 3      spawn_quick (omp_latency.c:23)              612 us
 *	  slowest: task 26     spawn_slow (omp_latency.c:30)             60012 us
 *
 * Read it as: one poll of spawn_slow's task held its worker for 60 ms. A spawn site is the task
 * construct as the process names it, "function (file:line)" (or "function+0xoff (module)"
 * without line information), read once per site. Tasks with no site (OpenMP's initial task) and
 * tasks spawned before the script started count under "(no site)". A task's entries are freed
 * when its final poll ends; should DTrace report dynamic variable drops, raise -x dynvarsize.
 */

BEGIN
{
	printf("Tracing task polls of PID %d... Hit Ctrl-C to end.\n", $1);
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

taskprobe$1:::task-poll-start
{
	poll_start[arg0] = timestamp;
}

/* clause-local variables are not zeroed between firings: a poll not timed compares as 0 */
taskprobe$1:::task-poll-end
{
	this->us = (uint64_t)0;
	this->site = site_of[arg0];
}

taskprobe$1:::task-poll-end
/poll_start[arg0]/
{
	this->us = (timestamp - poll_start[arg0]) / 1000;
	@poll_us = quantize(this->us);
	@poll_us_by_site[site_name[this->site]] = quantize(this->us);
	poll_start[arg0] = 0;
}

taskprobe$1:::task-poll-end
/this->us > slowest_of_site[this->site]/
{
	slowest_of_site[this->site] = this->us;
	@slowest_polls_us[arg0, site_name[this->site]] = max(this->us);
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
	printa("  all polls\n%@d\n", @poll_us);
	printa("  %s\n%@d\n", @poll_us_by_site);
	trunc(@slowest_polls_us, 10);
	printa("  slowest: task %-6d %-36s %@10d us\n", @slowest_polls_us);
}
