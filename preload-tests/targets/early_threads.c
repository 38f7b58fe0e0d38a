// SPDX-License-Identifier: MIT
/* Uses a library (early_lib) whose constructor started a thread before main. */
#include <stdio.h>

int early_lib_waits(void);

int main(void)
{
	printf("the library's thread made %d waits\n", early_lib_waits());
	return 0;
}
