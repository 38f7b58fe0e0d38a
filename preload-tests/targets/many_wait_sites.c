// SPDX-License-Identifier: MIT
/*
 * One thread waiting at more call sites than the exit report keeps for a thread (16): SITES polls,
 * each at a line of its own, that return at once but for the last four, which wait LONG_MS each
 * (past the thread's table: the longest waits, yet counted as "other sites"). Prints "SITES
 * waits".
 */
#include <poll.h>
#include <stdio.h>

#define SITES   20
#define LONG_MS 5

int main(void)
{
	poll(NULL, 0, 0);       /* site 1 */
	poll(NULL, 0, 0);       /* site 2 */
	poll(NULL, 0, 0);       /* site 3 */
	poll(NULL, 0, 0);       /* site 4 */
	poll(NULL, 0, 0);       /* site 5 */
	poll(NULL, 0, 0);       /* site 6 */
	poll(NULL, 0, 0);       /* site 7 */
	poll(NULL, 0, 0);       /* site 8 */
	poll(NULL, 0, 0);       /* site 9 */
	poll(NULL, 0, 0);       /* site 10 */
	poll(NULL, 0, 0);       /* site 11 */
	poll(NULL, 0, 0);       /* site 12 */
	poll(NULL, 0, 0);       /* site 13 */
	poll(NULL, 0, 0);       /* site 14 */
	poll(NULL, 0, 0);       /* site 15 */
	poll(NULL, 0, 0);       /* site 16 */
	poll(NULL, 0, LONG_MS); /* site 17 */
	poll(NULL, 0, LONG_MS); /* site 18 */
	poll(NULL, 0, LONG_MS); /* site 19 */
	poll(NULL, 0, LONG_MS); /* site 20 */
	printf("%d waits\n", SITES);
	return 0;
}
