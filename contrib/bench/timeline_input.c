// SPDX-License-Identifier: MIT
/*
 * Writes N lines (argv[1], default 1000000) of perf script output of taskprobe events, as
 * `perf script -F comm,pid,tid,time,event,trace` prints them: four worker threads polling
 * tasks that wait once each, for the timeline converter's benchmark.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 1000000, written = 0;
	unsigned long long ns = 1000000000ULL, task = 1;
	while (written < lines) {
		unsigned tid = 4242 + (unsigned)(task % 4);
		const char *head = "     app 4242/";
#define LINE(fmt, ...)                                                                             \
	printf("%s%u %llu.%06llu: %s" fmt "\n", head, tid, ns / 1000000000ULL,                     \
	       ns / 1000 % 1000000, __VA_ARGS__),                                                  \
		ns += 1000, written++
		LINE("arg1=%llu arg2=%llu arg3=%llu arg4=140723296435936 arg5=10 arg6=1",
		     "sdt_taskprobe:task__spawn: (7f7682d28c7c) ", task, task / 2, 120 + task % 3);
		LINE("arg1=%llu arg2=%llu", "sdt_taskprobe:task__wake: (7f7682d28d01) ", task,
		     task / 2);
		LINE("arg1=%llu", "sdt_taskprobe:task__poll__start: (7f7682d28e10) ", task);
		LINE("arg1=5 arg2=0 arg3=40000000 arg4=%llu",
		     "sdt_taskprobe:wait__start: (7f7682d2b47f) ", task);
		LINE("arg1=5 arg2=0 arg3=0 arg4=%llu", "sdt_taskprobe:wait__end: (7f7682d2b4c0) ",
		     task);
		LINE("arg1=%llu arg2=0", "sdt_taskprobe:task__terminate: (7f7682d28f20) ", task);
		LINE("arg1=%llu arg2=1", "sdt_taskprobe:task__poll__end: (7f7682d28f31) ", task);
		task++;
	}
	return 0;
}
