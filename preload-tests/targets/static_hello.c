// SPDX-License-Identifier: MIT
/* A statically linked program: LD_PRELOAD cannot apply to it. */
#include <stdio.h>

int main(void)
{
	puts("hello");
	return 0;
}
