#!/usr/sbin/dtrace -qs
/*
 * events.d	Every taskprobe event of a process, one line each, as it fires.
 *
 * The D twin of events.bt, with the same columns.
 *
 * USAGE: the program runs with LD_PRELOAD=/path/to/libtaskprobe.so; then
 *	dtrace -qs events.d -p PID
 * Output: microseconds since the script started, thread id, event, arguments:
 *
 *	   1503 4242 task-spawn task=17 parent=3 stack=1201 depth=9 executor=1
 *	   1504 4242 task-wake task=17 waker=3
 */

BEGIN { start = timestamp; }

taskprobe$target:::task-spawn
{
	printf("%7d %d task-spawn task=%d parent=%d stack=%d depth=%d executor=%d\n",
	    (timestamp - start) / 1000, tid, arg0, arg1, arg2, arg4, arg5);
}

taskprobe$target:::task-wake
{
	printf("%7d %d task-wake task=%d waker=%d\n", (timestamp - start) / 1000, tid, arg0, arg1);
}

taskprobe$target:::task-poll-start
{
	printf("%7d %d task-poll-start task=%d\n", (timestamp - start) / 1000, tid, arg0);
}

taskprobe$target:::task-poll-end
{
	printf("%7d %d task-poll-end task=%d done=%d\n", (timestamp - start) / 1000, tid, arg0, arg1);
}

taskprobe$target:::task-terminate
{
	printf("%7d %d task-terminate task=%d reason=%d\n", (timestamp - start) / 1000, tid, arg0,
	    arg1);
}

taskprobe$target:::worker-thread-start { printf("%7d %d worker-thread-start\n", (timestamp - start) / 1000, tid); }
taskprobe$target:::worker-thread-stop { printf("%7d %d worker-thread-stop\n", (timestamp - start) / 1000, tid); }
taskprobe$target:::worker-thread-park { printf("%7d %d worker-thread-park\n", (timestamp - start) / 1000, tid); }
taskprobe$target:::worker-thread-unpark { printf("%7d %d worker-thread-unpark\n", (timestamp - start) / 1000, tid); }

taskprobe$target:::thread-start
{
	printf("%7d %d thread-start tid=%d routine=0x%x creator=%d\n", (timestamp - start) / 1000,
	    tid, arg0, arg1, arg2);
}

taskprobe$target:::thread-stop
{
	printf("%7d %d thread-stop tid=%d\n", (timestamp - start) / 1000, tid, arg0);
}

taskprobe$target:::wait-start
{
	printf("%7d %d wait-start kind=%d object=0x%x timeout=%d task=%d\n",
	    (timestamp - start) / 1000, tid, arg0, arg1, (int64_t)arg2, arg3);
}

taskprobe$target:::wait-end
{
	printf("%7d %d wait-end kind=%d object=0x%x result=%d task=%d\n",
	    (timestamp - start) / 1000, tid, arg0, arg1, (int64_t)arg2, arg3);
}
