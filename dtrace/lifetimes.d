/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * lifetimes.d	How long do tasks live, and how much of that do they run? By spawn site.
 *
 * The D twin of lifetimes.bt. Lifetime is task-spawn to the task's final task-poll-end; active
 * time is the sum of its polls. A task that lives much longer than it runs waited: for a worker
 * (see wake_delay.d), for its children, or for dependences. Counted when a task ends; tasks
 * spawned before the script started are left out.
 *
 * USAGE: dtrace -qs lifetimes.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output, per spawn site: lifetimes and active times in microseconds, then tasks ended and their
 * total active time in milliseconds:
 *
 *	Tracing task lifetimes of PID 4242... Hit Ctrl-C to end.
 *	  spawn_quick (omp_latency.c:23): lifetime (us)
 *	           value  ------------- Distribution ------------- count
 *	             128 |                                         0
 *	             256 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@       17
 *	             512 |@@@@@@                                   3
 *	            1024 |                                         0
 *
 *	  spawn_quick (omp_latency.c:23): active (us)
 *	           value  ------------- Distribution ------------- count
 *	               0 |                                         0
 *	               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 20
 *	               2 |                                         0
 *	...
 *	  (no site)                                   1 tasks        1 ms active
 *	  spawn_blocking (omp_latency.c:42)           1 tasks       40 ms active
 *	  spawn_slow (omp_latency.c:30)               1 tasks       60 ms active
 *	  main (omp_latency.c:52)                     2 tasks        2 ms active
 *	  spawn_quick (omp_latency.c:23)             20 tasks        0 ms active
 *
 * Read it as: spawn_quick's 20 tasks lived 256 to 1024 us but ran 1 us each, waiting the rest.
 * Active milliseconds are summed in nanoseconds and rounded down once, when printed: many short
 * polls add up (2000 polls of 1.5 us show as 3 ms, not 0; the 20 polls of 1 us here are under
 * 1 ms). A spawn site is the task construct as the process names it, "function (file:line)" (or
 * "function+0xoff (module)" without line information), read once per site; for OpenMP, the
 * implicit tasks of a parallel region have the region as their site. Tasks with no site
 * (OpenMP's initial task) count under "(no site)". A task's entries are freed when its final
 * poll ends; should DTrace report dynamic variable drops, raise -x dynvarsize.
 */

BEGIN
{
	printf("Tracing task lifetimes of PID %d... Hit Ctrl-C to end.\n", $1);
	site_name[0] = "(no site)";
}

taskprobe$1:::task-spawn
{
	site_of[arg0] = arg2;
	spawned_at[arg0] = timestamp;
}

taskprobe$1:::task-spawn
/arg2 != 0 && arg3 != 0 && !named[arg2]/
{
	named[arg2] = 1;
	site_name[arg2] = copyinstr(arg3);
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
	this->site = site_name[site_of[arg0]];
	@tasks[this->site] = count();
	@lifetime_us[this->site] = quantize((timestamp - spawned_at[arg0]) / 1000);
	@active_us[this->site] = quantize(active_ns[arg0] / 1000);
	/* summed in nanoseconds, printed in milliseconds (normalize in END): short polls add up */
	@active_total_ms[this->site] = sum(active_ns[arg0]);
	spawned_at[arg0] = 0;
	active_ns[arg0] = 0;
	site_of[arg0] = 0;
}

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  %s: lifetime (us)\n%@d\n", @lifetime_us);
	printa("  %s: active (us)\n%@d\n", @active_us);
	normalize(@active_total_ms, 1000000);
	printa("  %-36s %@8d tasks %@8d ms active\n", @tasks, @active_total_ms);
}
