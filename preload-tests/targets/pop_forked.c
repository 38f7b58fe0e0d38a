// SPDX-License-Identifier: MIT
/*
 * An OpenMP program's forked child (test_pop_fork.c): the parent runs a balanced region of 2
 * units a thread (pop_units.h), forks and waits for its child. The child, whose one thread polls
 * its parent's initial task at the fork, computes 4 units of serial code, a region whose thread 0
 * computes 2 units and thread 1 6 (the region's line is the only `num_threads(2)` one), then 2
 * units of serial code: thread 0 computes 8 units and thread 1 6, load balance 7 / 8 = 0.875;
 * the run is 12 units long, parallel efficiency 7 / 12 = 0.583; work 14 units, span 12,
 * parallelism 1.17. The child's units are sleeps (pop_sleep_work: computation to the engines),
 * which its parent's OpenMP workers, spinning on the CPUs after their region, do not stretch as
 * they stretch spins. The child prints its units; the parent exits with the child's status.
 * With argv[1] "serial" the child runs no region: its 4 units of serial code alone.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pop_units.h"

/* `units` units of serial code, slept (pop_sleep_work's, asking nothing of OpenMP). */
static void serial_sleep(int units)
{
	long ns = (long)units * POP_UNIT_MS * 1000000L;
	struct timespec left = {ns / 1000000000L, ns % 1000000000L};
	while (nanosleep(&left, &left) != 0)
		;
	pop_units_of[0] += units;
}

int main(int argc, char **argv)
{
	bool serial = argc > 1 && strcmp(argv[1], "serial") == 0;
	pop_start();
	pop_fork();
#pragma omp parallel
	pop_work(2);
	pop_join();
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		serial_sleep(4);
		if (serial) {
			printf("pop_forked child: %d units of serial code\n", pop_units_of[0]);
			exit(0);
		}
#pragma omp parallel num_threads(2)
		pop_sleep_work(omp_get_thread_num() == 0 ? 2 : 6);
		serial_sleep(2);
		printf("pop_forked child: %d units of thread 0, %d of thread 1\n", pop_units_of[0],
		       pop_units_of[1]);
		exit(0);
	}
	int status = 1;
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 2;
	pop_end("pop_forked");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
