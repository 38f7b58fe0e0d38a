// SPDX-License-Identifier: MIT
/*
 * One OpenMP task construct after another, each in its own parallel region:
 * a taskgroup of 4 tasks, a taskloop, 3 tasks chained by depend clauses, an undeferred if(0)
 * task, a final task with a child (included), and an untied task that yields and waits for a
 * child. Prints what each computed; the output does not depend on scheduling.
 */
#include <stdio.h>

int main(void)
{
	int group[4] = {0}, loop[64] = {0}, chain = 0, undeferred = 0, finals = 0, untied = 0;

#pragma omp parallel
#pragma omp single
#pragma omp taskgroup
	for (int i = 0; i < 4; i++) {
#pragma omp task firstprivate(i) shared(group)
		group[i] = i * i;
	}
	printf("taskgroup: %d %d %d %d\n", group[0], group[1], group[2], group[3]);

#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(4)
	for (int i = 0; i < 64; i++)
		loop[i] = 2 * i;
	int sum = 0;
	for (int i = 0; i < 64; i++)
		sum += loop[i];
	printf("taskloop: %d\n", sum);

#pragma omp parallel
#pragma omp single
	{
#pragma omp task depend(inout : chain) shared(chain)
		chain = chain * 10 + 1;
#pragma omp task depend(inout : chain) shared(chain)
		chain = chain * 10 + 2;
#pragma omp task depend(inout : chain) shared(chain)
		chain = chain * 10 + 3;
	}
	printf("depend chain: %d\n", chain);

#pragma omp parallel
#pragma omp single
	{
#pragma omp task if (0) shared(undeferred)
		undeferred = 7;
		printf("undeferred: %d\n", undeferred);
#pragma omp task final(1) shared(finals)
		{
#pragma omp task shared(finals)
			finals += 1;
			finals += 10;
		}
#pragma omp taskwait
		printf("final: %d\n", finals);
#pragma omp task untied shared(untied)
		{
#pragma omp task shared(untied)
			untied += 1;
#pragma omp taskyield
#pragma omp taskwait
			untied += 100;
		}
	}
	printf("untied: %d\n", untied);
	return 0;
}
