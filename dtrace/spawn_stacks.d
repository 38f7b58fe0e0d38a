/* SPDX-License-Identifier: MIT */
#!/usr/sbin/dtrace -qs
/*
 * spawn_stacks.d	Which code spawns the tasks of a process? Tasks by spawn site, and the
 *			spawn stacks under each site.
 *
 * The D twin of spawn_stacks.bt. The site is the task construct, named by the process itself
 * ("function (file:line)", or "function+0xoff (module)" without line information). The stacks
 * are the ones the shim unwound with libunwind at each spawn (task-stack), so they are right in
 * programs built without frame pointers; recursion in them is folded, so a recursive program has
 * a few stacks per site, not one per depth. Each stack is printed once, when it first spawns a
 * task, innermost frame first, symbolized by DTrace (%A).
 *
 * USAGE: dtrace -qs spawn_stacks.d PID
 * where PID runs with LD_PRELOAD=/path/to/libtaskprobe.so, with a DTrace that reads systemtap SDT
 * notes (Oracle's dtrace-utils: its stapsdt provider). It ends with the process, or at Ctrl-C.
 * Output: each stack when first seen, then at the end tasks per site and stack, and per site:
 *
 *	Tracing task spawn stacks of PID 4242... Hit Ctrl-C to end.
 *	stack 15196 of spawn_leaf (omp_spawn_sites.c:16), first spawned by task 3:
 *	    omp_spawn_sites`spawn_leaf+0x42
 *	    omp_spawn_sites`via_alpha+0x6
 *	    omp_spawn_sites`.omp_outlined..1+0x3a
 *	...
 *	stack 32698 of spawn_leaf (omp_spawn_sites.c:16), first spawned by task 8:
 *	    omp_spawn_sites`spawn_leaf+0x42
 *	    omp_spawn_sites`via_beta+0x6
 *	    omp_spawn_sites`.omp_outlined..1+0x5a
 *	...
 *	  spawn_leaf (omp_spawn_sites.c:16), stack 32698:        3 tasks
 *	  spawn_leaf (omp_spawn_sites.c:16), stack 15196:        5 tasks
 *	  (no site):        1 tasks
 *	  main (omp_spawn_sites.c:43):        2 tasks
 *	  spawn_leaf (omp_spawn_sites.c:16):        8 tasks
 *
 * Read it as: all 8 explicit tasks come from one task construct, spawn_leaf's, reached by two
 * call paths (5 tasks through via_alpha, 3 through via_beta); main's 2 are the implicit tasks of
 * its parallel region, and the one with no site is OpenMP's initial task. Stack ids are the
 * process's (equal stacks, equal ids), not small numbers. Frames past the 16th are not printed
 * (TASKPROBE_STACK_DEPTH sets how many are kept). Tasks whose stack was not captured
 * (TASKPROBE_STACKS=0, tasks the executor starts itself) count under their site only.
 */

BEGIN
{
	printf("Tracing task spawn stacks of PID %d... Hit Ctrl-C to end.\n", $1);
	site_name[0] = "(no site)";
}

taskprobe$1:::task-spawn
/arg2 != 0 && arg3 != 0 && !named[arg2]/
{
	named[arg2] = 1;
	site_name[arg2] = copyinstr(arg3);
}

/* task-stack fires right after task-spawn, on the same thread: the thread carries the site. */
taskprobe$1:::task-spawn
{
	@tasks_by_site[site_name[arg2]] = count();
	self->spawn_site = arg2;
}

taskprobe$1:::task-stack
{
	this->site = site_name[self->spawn_site];
	this->first = arg1 != 0 && !printed[arg1];
	@tasks_by_stack[this->site, arg1] = count();
}

taskprobe$1:::task-stack
/this->first/
{
	printed[arg1] = 1;
	printf("stack %d of %s, first spawned by task %d:\n", arg1, this->site, arg0);
}

/* the frames of a stack printed for the first time, one clause each (D has no loops) */
taskprobe$1:::task-stack
/this->first && arg3 > 0/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 1/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 8, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 2/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 16, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 3/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 24, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 4/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 32, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 5/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 40, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 6/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 48, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 7/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 56, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 8/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 64, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 9/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 72, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 10/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 80, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 11/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 88, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 12/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 96, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 13/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 104, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 14/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 112, 8));
}

taskprobe$1:::task-stack
/this->first && arg3 > 15/
{
	printf("    %A\n", *(uint64_t *)copyin(arg2 + 120, 8));
}

taskprobe$1:::task-stack
{
	self->spawn_site = 0;
}

proc:::exit
/pid == $1/
{
	exit(0);
}

END
{
	printa("  %s, stack %d: %@8d tasks\n", @tasks_by_stack);
	printa("  %s: %@8d tasks\n", @tasks_by_site);
}
