// SPDX-License-Identifier: MIT
/*
 * Constructs that are their function's last act, which clang -O2 makes jumps into libomp (tail
 * calls), so that no frame of the function is left while libomp makes the construct and OMPT
 * reports the call of the function, in main, as the construct's: fill()'s parallel region over
 * globals (NPB IS's alloc_key_buff is one), spawn()'s task, called ten times from a single,
 * meet()'s barrier, spawn_and_wait()'s taskwait for its four tasks and take()'s lock, which each
 * thread takes four times. Prints the sum filled, the tasks run and the lock's count.
 */
#include <omp.h>
#include <stdio.h>

enum { N = 1000, TASKS = 10 };
static long filled[N], spawned, counted;
static omp_lock_t lock;

__attribute__((noinline)) static void fill(void)
{
#pragma omp parallel for num_threads(2)
	for (int i = 0; i < N; i++)
		filled[i] = 2L * i;
}

__attribute__((noinline)) static void spawn(void)
{
#pragma omp task
	__atomic_fetch_add(&spawned, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void meet(void)
{
#pragma omp barrier
}

__attribute__((noinline)) static void spawn_and_wait(void)
{
	for (int i = 0; i < 4; i++) {
#pragma omp task
		__atomic_fetch_add(&spawned, 1, __ATOMIC_RELAXED);
	}
#pragma omp taskwait
}

__attribute__((noinline)) static void take(void)
{
	omp_set_lock(&lock);
}

int main(void)
{
	omp_init_lock(&lock);
	fill();
#pragma omp parallel num_threads(2)
	{
#pragma omp single
		for (int i = 0; i < TASKS; i++)
			spawn();
		meet();
#pragma omp single
		spawn_and_wait();
		for (int i = 0; i < 4; i++) {
			take();
			counted++;
			omp_unset_lock(&lock);
		}
	}
	long sum = 0;
	for (int i = 0; i < N; i++)
		sum += filled[i];
	printf("sum %ld, tasks %ld, counted %ld\n", sum, spawned, counted);
	return 0;
}
