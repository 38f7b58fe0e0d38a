// SPDX-License-Identifier: MIT
/* N threads (argv[1]) that each sum a range and return it; main joins them and prints the sums. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void *sum_range(void *arg)
{
	long n = (long)arg, sum = 0;
	for (long i = 0; i <= n * 1000; i++)
		sum += i;
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t *threads = calloc((size_t)n, sizeof *threads);
	for (long i = 0; i < n; i++)
		if (pthread_create(&threads[i], NULL, sum_range, (void *)i) != 0)
			return 1;
	for (int i = 0; i < n; i++) {
		void *sum;
		pthread_join(threads[i], &sum);
		printf("thread %d: %ld\n", i, (long)sum);
	}
	free(threads);
	return 0;
}
