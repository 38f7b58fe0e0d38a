/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * events.d	Every taskprobe event of a process, one line each, as it fires.
 *
 * The D twin of events.bt, with the same columns: the first thing to run on a program, what the
 * shim sees, with every argument. task-spawn ends with the spawn site's text as the process
 * named it ("function (file:line)", or "function+0xoff (module)" without line information;
 * nothing after "at" when the task has no site, as OpenMP's initial task); task-stack follows it
 * on the same thread when the spawn stack was captured (spawn_stacks.d prints its frames).
 *
 * USAGE: dtrace -qs events.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output: microseconds since the script started, thread id, event, arguments:
 *
 *	Tracing taskprobe events of PID 4242... Hit Ctrl-C to end.
 *	   1503 4242 task-spawn task=17 parent=3 site=2 stack=31150 executor=1 at spawn_quick (omp_latency.c:23)
 *	   1503 4242 task-stack task=17 stack=31150 depth=9
 *	   1504 4242 task-wake task=17 waker=3
 *	   1511 4243 task-poll-start task=17
 *	   1530 4243 wait-start kind=3 object=0x7ffd5e2c4a10 timeout=-1 task=17
 *
 * Ids are the process's: equal site ids, equal site texts; equal stack ids, equal stacks.
 */

BEGIN
{
	printf("Tracing taskprobe events of PID %d... Hit Ctrl-C to end.\n", $1);
	start = timestamp;
}

taskprobe$1:::task-spawn
{
	printf("%7d %d task-spawn task=%d parent=%d site=%d stack=%d executor=%d at %s\n",
	    (timestamp - start) / 1000, tid, arg0, arg1, arg2, arg4, arg5,
	    arg3 != 0 ? copyinstr(arg3) : "");
}

taskprobe$1:::task-stack
{
	printf("%7d %d task-stack task=%d stack=%d depth=%d\n", (timestamp - start) / 1000, tid,
	    arg0, arg1, arg3);
}

taskprobe$1:::task-wake
{
	printf("%7d %d task-wake task=%d waker=%d\n", (timestamp - start) / 1000, tid, arg0, arg1);
}

taskprobe$1:::task-poll-start
{
	printf("%7d %d task-poll-start task=%d\n", (timestamp - start) / 1000, tid, arg0);
}

taskprobe$1:::task-poll-end
{
	printf("%7d %d task-poll-end task=%d done=%d\n", (timestamp - start) / 1000, tid, arg0, arg1);
}

taskprobe$1:::task-terminate
{
	printf("%7d %d task-terminate task=%d reason=%d\n", (timestamp - start) / 1000, tid, arg0,
	    arg1);
}

taskprobe$1:::worker-thread-start { printf("%7d %d worker-thread-start\n", (timestamp - start) / 1000, tid); }
taskprobe$1:::worker-thread-stop { printf("%7d %d worker-thread-stop\n", (timestamp - start) / 1000, tid); }
taskprobe$1:::worker-thread-park { printf("%7d %d worker-thread-park\n", (timestamp - start) / 1000, tid); }
taskprobe$1:::worker-thread-unpark { printf("%7d %d worker-thread-unpark\n", (timestamp - start) / 1000, tid); }

taskprobe$1:::thread-start
{
	printf("%7d %d thread-start tid=%d routine=0x%x creator=%d\n", (timestamp - start) / 1000,
	    tid, arg0, arg1, arg2);
}

taskprobe$1:::thread-stop
{
	printf("%7d %d thread-stop tid=%d\n", (timestamp - start) / 1000, tid, arg0);
}

taskprobe$1:::wait-start
{
	printf("%7d %d wait-start kind=%d object=0x%x timeout=%d task=%d\n",
	    (timestamp - start) / 1000, tid, arg0, arg1, (int64_t)arg2, arg3);
}

taskprobe$1:::wait-end
{
	printf("%7d %d wait-end kind=%d object=0x%x result=%d task=%d\n",
	    (timestamp - start) / 1000, tid, arg0, arg1, (int64_t)arg2, arg3);
}

proc:::exit
/pid == $1/
{
	exit(0);
}
