/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -Cqs
/*
 * spawn_stacks.d	Which code spawns the tasks of a process? The top spawn stacks, by count.
 *
 * The D twin of spawn_stacks.bt: each spawn stack (unwound by the shim with libunwind, right
 * without frame pointers) printed once, symbolized, when it first spawns a task; at the end,
 * tasks per stack id. Runs through the C preprocessor (-C) for its frame clauses.
 *
 * USAGE: dtrace -Cqs spawn_stacks.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output:
 *
 *	Tracing task spawn stacks of PID 4242... Hit Ctrl-C to end.
 *	stack 16630, first spawned by task 3:
 *	    omp_spawn_sites`spawn_leaf+0x1a
 *	    omp_spawn_sites`via_alpha+0x9
 *	  stack 16630: 5 tasks
 *
 * Frames past the 16th are not printed.
 */

BEGIN
{
	printf("Tracing task spawn stacks of PID %d... Hit Ctrl-C to end.\n", $1);
}

taskprobe$1:::task-spawn
{
	this->first = arg2 != 0 && !printed[arg2];
}

taskprobe$1:::task-spawn
/arg2 != 0/
{
	@tasks_by_stack[arg2] = count();
}

taskprobe$1:::task-spawn
/this->first/
{
	printed[arg2] = 1;
	printf("stack %d, first spawned by task %d:\n", arg2, arg0);
}

/* frame n of a stack printed for the first time */
#define FRAME(n) \
	taskprobe$1:::task-spawn /this->first && arg4 > n/ \
	{ printf("    %A\n", *(uint64_t *)copyin(arg3 + n * 8, 8)); }
FRAME(0) FRAME(1) FRAME(2) FRAME(3) FRAME(4) FRAME(5) FRAME(6) FRAME(7)
FRAME(8) FRAME(9) FRAME(10) FRAME(11) FRAME(12) FRAME(13) FRAME(14) FRAME(15)

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  stack %d: %@d tasks\n", @tasks_by_stack);
}
