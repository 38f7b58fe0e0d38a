// SPDX-License-Identifier: MIT
/*
 * Forks 20 times while another thread walks the loader's list of modules (dl_iterate_phdr, 1 ms
 * a module): glibc 2.36 does not free that list's lock in a child, so a child that walks it too
 * hangs. Each child exits at once, walking nothing: it must exit. Prints how many children
 * exited cleanly (a child still there after 3 s is killed and not counted).
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <unistd.h>

#include "forked_children.h"

static int slowly(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info, (void)size, (void)data;
	usleep(1000);
	return 0;
}

static void *walk(void *arg)
{
	for (;;)
		dl_iterate_phdr(slowly, NULL);
	return arg;
}

int main(void)
{
	pthread_t walker;
	if (pthread_create(&walker, NULL, walk, NULL) != 0)
		return 1;
	usleep(5000);
	forked_children_exit(20, NULL);
}
