// SPDX-License-Identifier: MIT
/*
 * OpenMP's device memory routines on the host device: omp_target_alloc, omp_target_memcpy and
 * omp_target_free (GCC's libgomp has them; LLVM's libomp 14 leaves them to libomptarget), and
 * tasks in a parallel region that sum what was copied. Prints the copied text and the sum; the
 * output does not depend on scheduling. Exits 0.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { PARTS = 8 };

int main(void)
{
	static const char text[] = "through the host device's memory";
	int host = omp_get_initial_device();
	char *there = omp_target_alloc(sizeof text, host);
	char back[sizeof text];
	if (there == NULL || omp_target_memcpy(there, text, sizeof text, 0, 0, host, host) != 0 ||
	    omp_target_memcpy(back, there, sizeof text, 0, 0, host, host) != 0) {
		fprintf(stderr, "host device memory refused\n");
		return 1;
	}
	long sum = 0;
#pragma omp parallel
#pragma omp single
	for (int part = 0; part < PARTS; part++) {
#pragma omp task shared(sum)
		{
			long mine = 0;
			for (size_t i = (size_t)part; i < sizeof text; i += PARTS)
				mine += back[i];
#pragma omp atomic
			sum += mine;
		}
	}
	omp_target_free(there, host);
	printf("copied \"%s\", characters summing to %ld\n", back, sum);
	return 0;
}
