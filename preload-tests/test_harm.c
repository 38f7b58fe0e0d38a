// SPDX-License-Identifier: MIT
/*
 * Do no harm: the suite `harm`. Putting taskprobe in front of a program changes nothing of it
 * (its output, exit status, files, limits, system calls), and nothing taskprobe reads or writes
 * can be turned against anyone (setuid programs, planted links, other users' files). This file
 * holds the shim's side for what it records (the recording, and the converter that reads
 * one), and test_harm_files.c for its other files (the exit report, the live statistics);
 * test_harm_confined.c programs that confine themselves; test_harm_launcher.c the launcher's side
 * and test_harm_console.c the console's.
 *
 * Most tests here run a bash script that sets the scene (a limit, a link, a mount namespace of
 * the test's own with a private /dev/shm or /etc) and preloads the shim itself.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "harm_scene.h"
#include "taskprobe_contract.h"
#include "taskprobe_live.h"
#include "taskprobe_recording.h"

#define GENERATOR TP_CONTRIB_DIR "/timeline_recording"
/* The converter's stated bound on its memory (docs/recording.md, taskprobe-timeline(1)), in KiB. */
#define CONVERTER_BOUND_KIB (256 * 1024)

Test(harm, descriptors_the_program_does_not_own_never_reach_its_files_nor_close_the_recording,
     .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	/* the close family through the C library, then through syscall() (SYS_close, ...); with
	 * the recorder's descriptor, and with libunwind's pipe (the live statistics sample wait
	 * stacks: libunwind makes its pipe at its first unwind) */
	static const char *const ways[] = {"libc", "raw"};
	for (size_t k = 0; k < 2 * sizeof ways / sizeof *ways; k++) {
		const char *way = ways[k % 2];
		bool recorded = k < 2;
		char consumer[512];
		if (recorded)
			snprintf(consumer, sizeof consumer, "TASKPROBE_RECORD=%s/recording.%s", dir,
				 way);
		else
			snprintf(consumer, sizeof consumer,
				 "TASKPROBE_LIVE=1 TASKPROBE_LIVE_DIR=%s", dir);
		struct tp_run plain, traced;
		script(&plain, "$TARGETS/descriptor_games %s/plain.%s 200 %s", dir, way, way);
		cr_expect(strncmp(plain.out, "ok, ", 4) == 0, "%s: %s", way, plain.out);
		/* each of 200 rounds finds the shim's descriptors and dup2()s its own file onto
		 * them */
		script(&traced, "%s LD_PRELOAD=$SHIM $TARGETS/descriptor_games %s/own.%s 200 %s",
		       consumer, dir, way, way);
		cr_expect_eq(traced.status, 0, "%s %s: %s", way, consumer, traced.err);
		cr_expect_str_eq(traced.out, plain.out, "%s %s: %s", way, consumer, traced.err);
		char own[256], recording[256];
		snprintf(own, sizeof own, "%s/own.%s", dir, way);
		snprintf(recording, sizeof recording, "%s/recording.%s", dir, way);
		size_t length;
		char *text = tp_read_file(own, &length);
		cr_expect_gt(length, 0, "%s %s: the program never found the shim's descriptors",
			     way, consumer);
		for (size_t at = 0; at < length; at += 8)
			cr_assert(length - at >= 8 && memcmp(text + at, "program\n", 8) == 0,
				  "%s %s: a byte not the program's at %zu of its file", way,
				  consumer, at);
		free(text);
		/* every wait of both phases, the second after close_range and closefrom: 40,000
		 * waits */
		if (recorded) {
			int status;
			cr_expect_geq(recorded_events(recording, &status), 80000, "%s", way);
			cr_expect_eq(status, 0, "%s: the recording is not whole", way);
		}
		tp_run_free(&plain);
		tp_run_free(&traced);
	}
	tp_remove_temp_dir(dir);
}

/*
 * The records of the image that execs by a descriptor (execveat, fexecve) or through syscall()
 * (SYS_execve, SYS_execveat), or ends by SYS_exit_group or its last thread's SYS_exit, are
 * written first.
 */
Test(harm, an_exec_by_a_descriptor_or_a_raw_exec_or_exit_loses_no_recorded_event)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	static const char *const ways[] = {"execveat",           "fexecve",
					   "syscall-execve",     "syscall-execveat",
					   "syscall-exit_group", "syscall-exit"};
	for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
		const char *how = ways[w];
		struct tp_run run;
		script(&run,
		       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording.%s "
		       "$TARGETS/exec_by_descriptor "
		       "%s",
		       dir, how, how);
		cr_expect_eq(run.status, 0, "%s: %s", how, run.err);
		cr_expect_str_eq(run.out, "done\n", "%s: %s", how, run.err);
		tp_run_free(&run);
		/* 1000 waits before the exec and 1000 after (none after an exit): a wait-start
		 * and a wait-end each */
		char name[64];
		snprintf(name, sizeof name, "recording.%s", how);
		expect_recorded_events(dir, name, strstr(how, "exit") != NULL ? 2000 : 4000);
	}
	tp_remove_temp_dir(dir);
}

/*
 * A vfork child shares its parent's memory but has descriptors of its own: its dup2() onto the
 * recording's number leaves the parent's recording as it was.
 */
Test(harm, a_vfork_childs_dup2_onto_the_recordings_number_leaves_the_recording_whole)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=%s/recording $TARGETS/children_without_handlers "
	       "vfork",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, "done\n", "%s", run.err);
	cr_expect(strstr(run.err, "recording stopped") == NULL, "%s", run.err);
	tp_run_free(&run);
	/* 1000 waits before the child and 1000 after */
	expect_recorded_events(dir, "recording", 4000);
	tp_remove_temp_dir(dir);
}

Test(harm, a_recording_is_one_process_s_and_a_child_never_overwrites_its_parents, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("pid namespaces need root");
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * Three programs, each pid 1 of a pid namespace, given one path: the first records, the
	 * others are refused. A daemon's parent (2000 waits, then fork and exit) keeps its events
	 * when its child, its path without %p, execs an image with the shim.
	 */
	script(&run,
	       "cd %s\nfor i in 1 2 3; do unshare -pf --mount-proc env LD_PRELOAD=$SHIM "
	       "TASKPROBE_RECORD=$PWD/namespaced $TARGETS/threads > /dev/null; stat -c %%s "
	       "namespaced; done\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/daemon $TARGETS/daemon_like 2000 /bin/sh -c "
	       "'echo done > $PWD/marker'\n"
	       "for i in $(seq 100); do [ -s marker ] && break; sleep 0.1; done; cat marker\n",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	unsigned size[3];
	char done[8] = "";
	cr_expect_eq(sscanf(run.out, "%u %u %u %7s", &size[0], &size[1], &size[2], done), 4, "%s",
		     run.out);
	cr_expect_gt(size[0], 0);
	cr_expect(size[0] == size[1] && size[1] == size[2], "%s", run.out);
	cr_expect_str_eq(done, "done");
	expect_recorded_events(dir, "daemon", 4000);
	cr_expect(strstr(run.err, "exists and was not made by this process: not overwritten") !=
			  NULL,
		  "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, a_full_disk_stops_the_recording_between_chunks, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	if (geteuid() != 0)
		tp_skip_unless_ci("a small file system of the test's own (a mount namespace) needs "
				  "root");
	char *dir = scratch_dir();
	struct tp_run run;
	/* 80,000 events of 16 bytes on a 600 KiB file system: it fills up part way */
	script(&run,
	       "cd %s; mkdir small\nunshare -m bash -c 'mount -t tmpfs -o size=600k tmpfs small\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/small/recording $TARGETS/descriptor_games "
	       "$PWD/own 0\n$TP_TIMELINE --count -o /dev/null small/recording; echo \"status $?\"'",
	       dir);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strncmp(run.out, "ok, ", 4) == 0 && strstr(run.out, "\nstatus 0\n") != NULL,
		  "%s: %s", run.out, run.err);
	cr_expect(strstr(run.err, "failed (No space left on device); recording stopped") != NULL,
		  "%s", run.err);
	cr_expect(strstr(run.err, "not whole") == NULL, "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

Test(harm, names_reach_the_report_and_the_analysis_escaped)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	char *dir = scratch_dir();
	struct tp_run run;
	/*
	 * A program whose name (its main thread's) sets the terminal's title and clears it: as it
	 * waits, in the report's waits; as a recorded process, in the converter's analysis.
	 */
	script(&run,
	       "cd %s\nname=$(printf '\\033]0;OWN\\a\\033[2J')\nln -s $TARGETS/pollers \"$name\"\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_REPORT=stderr ./\"$name\" > /dev/null\n"
	       "ln -sf %s \"$name\"\n"
	       "LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/recording ./\"$name\" > /dev/null\n"
	       "$TP_TIMELINE --analyze recording",
	       dir, fib);
	cr_expect_eq(run.status, 0, "%s", run.err);
	/* not printed when they fail: the terminal would run what they hold */
	cr_expect(strchr(run.out, '\033') == NULL && strchr(run.out, '\a') == NULL,
		  "the analysis holds the name's ESC or BEL unescaped");
	cr_expect(strchr(run.err, '\033') == NULL && strchr(run.err, '\a') == NULL,
		  "the report holds the name's ESC or BEL unescaped");
	cr_expect(strstr(run.err, " \"\\x1b]0;OWN\\x07\\x1b[2J\": ") != NULL,
		  "the report has no thread of the name escaped");
	cr_expect(strstr(run.out, "\\x1b]0;OWN\\x07\\x1b[2J (pid ") != NULL,
		  "the analysis has no process of the name escaped");
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/* A converter's run on a hostile recording: its peak RSS (KiB), status and standard error. */
struct converted {
	long peak_kib;
	int status; /* the exit status, or -1 when it did not exit */
	char *err;
};

/*
 * Writes the generator's recording (contrib/bench/timeline_recording: `shape`, NULL-terminated)
 * to DIR/hostile.rec and converts it into /dev/null, from the file or, when `through_pipe`, on
 * standard input from the generator through a pipe. The converter's environment is its own (no
 * sanitizer runtime preloaded: the figure is the converter's), its temporary files in `dir`.
 */
static void convert_hostile(const char *dir, const char *const shape[], bool through_pipe,
			    struct converted *c)
{
	tp_require_program(GENERATOR, "the build's contrib/timeline_recording");
	char rec[4200], err[4200], tmpdir[4200];
	snprintf(rec, sizeof rec, "%s/hostile.rec", dir);
	snprintf(err, sizeof err, "%s/converter.err", dir);
	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", dir);
	char *env[] = {tmpdir, "PATH=/usr/bin:/bin", NULL};
	char *generator[8] = {GENERATOR};
	for (size_t i = 0; shape[i] != NULL && i + 2 < 8; i++)
		generator[i + 1] = (char *)shape[i];
	int link[2] = {-1, -1};
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	if (through_pipe) {
		cr_assert_eq(pipe2(link, O_CLOEXEC), 0);
		posix_spawn_file_actions_adddup2(&actions, link[1], 1);
	} else {
		posix_spawn_file_actions_addopen(&actions, 1, rec, O_WRONLY | O_CREAT | O_TRUNC,
						 0600);
	}
	pid_t writer;
	cr_assert_eq(posix_spawn(&writer, GENERATOR, &actions, NULL, generator, env), 0);
	posix_spawn_file_actions_destroy(&actions);
	int status;
	if (!through_pipe) {
		cr_assert_eq(waitpid(writer, &status, 0), writer);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the generator failed");
	}
	char *converter[] = {TP_TIMELINE,
			     "--count",
			     "--max-size",
			     "0",
			     "-o",
			     "/dev/null",
			     through_pipe ? "-" : rec,
			     NULL};
	posix_spawn_file_actions_init(&actions);
	if (through_pipe)
		posix_spawn_file_actions_adddup2(&actions, link[0], 0);
	posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	cr_assert_eq(posix_spawn(&pid, TP_TIMELINE, &actions, NULL, converter, env), 0);
	posix_spawn_file_actions_destroy(&actions);
	if (through_pipe) {
		close(link[0]);
		close(link[1]);
		cr_assert_eq(waitpid(writer, &status, 0), writer);
	}
	struct rusage usage;
	cr_assert_eq(wait4(pid, &status, 0, &usage), pid);
	c->peak_kib = usage.ru_maxrss;
	c->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	c->err = tp_read_file(err, NULL);
	unlink(err);
	unlink(rec);
}

/* The converter stayed under its bound and said `said` (NULL: anything); its exit status. */
static void expect_bounded(const struct converted *c, const char *what, int status,
			   const char *said)
{
	cr_expect_lt(c->peak_kib, CONVERTER_BOUND_KIB, "%s: the converter's peak RSS %ld KiB: %s",
		     what, c->peak_kib, c->err);
	cr_expect_eq(c->status, status, "%s: status %d: %s", what, c->status, c->err);
	cr_expect(said == NULL || strstr(c->err, said) != NULL, "%s: no \"%s\" in: %s", what, said,
		  c->err);
	printf("converter's peak RSS, %s: %ld KiB\n", what, c->peak_kib);
}

/*
 * Two million threads of one record each (160 MB): the converter keeps 2^20 chunks (its bound
 * for them: the first holds the site's text, each other a thread's event), says from where the
 * rest are left out and how many events that was, exit status 1. It held the whole recording's
 * pages and every thread's bookkeeping: 350 MB.
 */
Test(harm, a_recording_of_two_million_one_record_threads_stays_under_the_converters_bound,
     .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"threads", "2000000", NULL}, false, &c);
	expect_bounded(&c, "2 M one-record threads", 1,
		       "chunks (a thread's blocks of records) are left out: more than 1048576 in "
		       "all, to keep the converter's memory under its bound (256 MiB)\n");
	cr_expect(strstr(c.err, "taskprobe-timeline: 951425 events left out to keep the "
				"converter's memory bounded") != NULL,
		  "%s", c.err);
	cr_expect(strstr(c.err, "taskprobe-timeline: 1048575 events\n") != NULL, "%s", c.err);
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * Two million segment headers and nothing else (144 MB): the images with nothing recorded past
 * the bound are forgotten (nothing is lost: status 0), said once. It took 136 bytes a header,
 * and the file's pages: 300 MB.
 */
Test(harm, a_recording_of_two_million_bare_segment_headers_stays_under_the_converters_bound,
     .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"segments", "2000000", NULL}, false, &c);
	expect_bounded(&c, "2 M bare segment headers", 0,
		       "process images (segments) with nothing recorded are forgotten, the "
		       "others' records left out: more than 65536 in all");
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * 300 segments of 1000 module records each (26 MB): the modules past the bound are not kept
 * (their code named by its address), said once. A module took 1.1 KiB (its path's room, 1 KiB,
 * whatever its path), checked against every module of its image before it: 340 MB.
 */
Test(harm, a_recording_of_300000_modules_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"modules", "300", "1000", NULL}, false, &c);
	expect_bounded(&c, "300 x 1000 modules", 0,
		       "modules are not kept (their code is named by its address): more than "
		       "131072 in all");
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * 600 000 sites of 255-byte texts, each spawned once (187 MB, a recording of version 4's kind):
 * the texts past the timeline's bound are not kept (their sites named by their ids), said with
 * how many. The timeline kept a million texts in 64 MiB, with the recording's pages: 346 MB.
 */
Test(harm, a_recording_of_600000_site_texts_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"sites", "600000", NULL}, false, &c);
	expect_bounded(&c, "600 000 site texts", 0,
		       "texts not kept, to keep the converter's memory under its bound (256 MiB); "
		       "their sites are named by their ids\n");
	free(c.err);
	tp_remove_temp_dir(dir);
}

/*
 * 150 000 task stacks of 255 return addresses (310 MB, few events) on standard input through a
 * pipe: converted whole, in the memory a file's conversion takes; the copy the pipe is read
 * into is an unlinked file, gone at the end. The pipe was read whole into memory: 304 MB.
 */
/*
 * 4000 MPI ranks of 80 messages each (2.6 million events, 96 MB): the ranks' notes and
 * operations have bounds of their own (2^19 each), said; every pass over them is n log n.
 */
Test(harm, a_recording_of_4000_mpi_ranks_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"ranks", "4000", "80", NULL}, false, &c);
	expect_bounded(&c, "4000 MPI ranks", 0,
		       "more than 524288 MPI messages: the later ones do not align the ranks' "
		       "clocks\n");
	cr_expect(strstr(c.err, "MPI ranks 0 to 3999 (4000 of 4000) on 16 hosts") != NULL, "%s",
		  c.err);
	free(c.err);
	tp_remove_temp_dir(dir);
}

Test(harm, a_recording_through_a_pipe_stays_under_the_converters_bound, .timeout = 60)
{
	char *dir = scratch_dir();
	struct converted c;
	convert_hostile(dir, (const char *[]){"stacks", "150000", NULL}, true, &c);
	expect_bounded(&c, "310 MB of stacks through a pipe", 0,
		       "taskprobe-timeline: 150000 events\n");
	cr_expect_eq(entries(dir, ""), 2, "the pipe's copy was left in %s", dir); /* . .. */
	free(c.err);
	tp_remove_temp_dir(dir);
}

/* tasks(N) of omp_fib: its explicit tasks. */
static unsigned fib_tasks(unsigned n)
{
	return n < 2 ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2);
}

/*
 * The records of the recording `data` (of `size` bytes: whole segments and chunks), and in
 * *spawns its task-spawn events (each in a record of its own, compact or not).
 */
static void spawn_seen(const struct tp_recording_chunk *chunk, uint64_t word, void *spawns)
{
	(void)chunk;
	*(uint64_t *)spawns += tp_record_type(word) == TP_RECORD_TASK_SPAWN ||
			       tp_record_type(word) == TP_RECORD_TASK_SPAWNED;
}

static uint64_t records_of(const char *data, size_t size, uint64_t *spawns)
{
	*spawns = 0;
	return tp_recording_walk(data, size, spawn_seen, spawns);
}

/*
 * What a recorded task costs the recording: a recursive fib's (OpenMP, two threads) at most 6
 * records and 96 bytes (version 9's compact records: spawn and wake, each poll with its start,
 * end, terminate and park, one record each), and every task is still in it. Version 7 wrote a
 * record per probe: 13 records and about 200 bytes a task.
 */
Test(harm, a_recorded_recursive_task_costs_at_most_6_records_and_96_bytes, .timeout = 120)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	const char *fib = tp_require_program(tp_target("omp_fib"), "clang and libomp-dev");
	/* untraced: another test's tracer on the built shim would add its spawn stacks */
	tp_use_private_shim();
	char *dir = scratch_dir();
	struct tp_run run;
	const unsigned n = 18, tasks = fib_tasks(n);
	script(&run,
	       "cd %s\nOMP_NUM_THREADS=2 LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/recording %s %u\n"
	       "$TP_TIMELINE --count -o /dev/null recording",
	       dir, fib, n);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char path[4200];
	snprintf(path, sizeof path, "%s/recording", dir);
	size_t size;
	char *data = tp_read_file(path, &size);
	uint64_t spawns, records = records_of(data, size, &spawns);
	/* the explicit tasks, the two threads' implicit ones and the initial task */
	cr_expect_eq(spawns, tasks + 3);
	cr_expect(strstr(run.err, " events\n") != NULL, "%s", run.err);
	cr_expect_leq(records, 6 * (uint64_t)tasks, "%.1f records a task", (double)records / tasks);
	cr_expect_leq(size, 96 * (uint64_t)tasks, "%.1f bytes a task", (double)size / tasks);
	printf("a recursive fib's task: %.1f records, %.1f bytes\n", (double)records / tasks,
	       (double)size / tasks);
	free(data);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/* A recording of one segment and one chunk being made: its words. */
struct made_recording {
	uint64_t words[256];
	size_t n;
	uint32_t records;
};

static void made_record(struct made_recording *m, unsigned type, unsigned small, uint64_t time,
			unsigned nargs, ...)
{
	cr_assert_lt(m->n + 1 + nargs, sizeof m->words / sizeof m->words[0]);
	m->words[m->n++] = tp_record_word(type, 1 + nargs, small, time);
	va_list ap;
	va_start(ap, nargs);
	for (unsigned i = 0; i < nargs; i++)
		m->words[m->n++] = va_arg(ap, uint64_t);
	va_end(ap);
	m->records++;
}

/* Writes `m` as DIR/`name`, a recording of `version` (CLOCK_MONOTONIC: times are ns). */
static void made_write(const struct made_recording *m, const char *dir, const char *name,
		       uint32_t version)
{
	struct tp_recording_header h = {.magic = TP_RECORDING_MAGIC,
					.version = version,
					.header_size = sizeof h,
					.pid = 4242,
					.clock = TP_CLOCK_MONOTONIC,
					.clock_time = 1000,
					.ns = 1000,
					.comm = "made"};
	struct tp_recording_chunk c = {.magic = TP_CHUNK_MAGIC,
				       .size = (uint32_t)(sizeof c + 8 * m->n),
				       .tid = 4242,
				       .records = m->records,
				       .base_time = 1000000,
				       .clock_time = 2000000,
				       .ns = 2000000,
				       .comm = "made"};
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(&h, sizeof h, 1, f), 1);
	cr_assert_eq(fwrite(&c, sizeof c, 1, f), 1);
	cr_assert_eq(fwrite(m->words, 8, m->n, f), m->n);
	cr_assert_eq(fclose(f), 0);
}

/* How made_child_run_at_once's child runs: its parent's poll again at its end, its wake as the
 * switch to it (else at its spawn). */
enum { RESUMED = 1, WOKEN_AT_SWITCH = 2 };

/*
 * Task `child` spawned by `parent` at `at` and run at once by its thread 10 ns later, ending
 * `duration` ns in, as `how` says: in `compact` (version 10's switch record, 11's with a wake)
 * and `probes` (a record a probe).
 */
static void made_child_run_at_once(struct made_recording *compact, struct made_recording *probes,
				   uint32_t child, uint32_t parent, uint64_t at, uint32_t duration,
				   unsigned how)
{
	uint64_t start = at + 10, end = start + duration;
	bool woken_at_switch = how & WOKEN_AT_SWITCH;
	made_record(compact, TP_RECORD_TASK_SPAWNED,
		    TP_EXECUTOR_OPENMP | (woken_at_switch ? 0 : TP_COMPACT_WOKEN), at, 2,
		    tp_compact_pair(child, parent), tp_compact_pair(0, 0));
	made_record(probes, TP_RECORD_TASK_SPAWN, TP_EXECUTOR_OPENMP, at, 4, child, parent, 0, 0);
	if (!woken_at_switch)
		made_record(probes, TP_RECORD_TASK_WAKE, 0, at, 2, child, parent);
	made_record(compact, TP_RECORD_TASK_SWITCHED,
		    TP_COMPACT_TERMINATED | TP_TASK_COMPLETED << TP_COMPACT_REASON_SHIFT |
			    TP_COMPACT_ENDED | (how & RESUMED ? TP_COMPACT_RESUMED : 0) |
			    (woken_at_switch ? TP_COMPACT_SWITCH_WOKEN : 0),
		    start, 2, tp_compact_pair(child, duration), parent);
	made_record(probes, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(0, 0), start, 1,
		    parent);
	if (woken_at_switch)
		made_record(probes, TP_RECORD_TASK_WAKE, 0, start, 2, child, 0);
	made_record(probes, TP_RECORD_TASK_POLL_START, 0, start, 1, child);
	made_record(probes, TP_RECORD_TASK_TERMINATE, TP_TASK_COMPLETED, end, 1, child);
	made_record(probes, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(1, 0), end, 1, child);
	if (how & RESUMED)
		made_record(probes, TP_RECORD_TASK_POLL_START, 0, end, 1, parent);
}

/*
 * The recording round trip: the compact records (versions 9 to 11), every event they may hold,
 * give the converter the timeline and the analysis of the records of the probes (version 7's)
 * that hold the same events, byte for byte.
 */
Test(harm, compact_records_give_back_the_events_of_their_probes, .timeout = 60)
{
	struct made_recording v7 = {0}, v9 = {0};
	const uint64_t none = UINT64_MAX; /* a wait's timeout: none */
	/* task 2 spawned by task 1 and woken by it at once */
	made_record(&v9, TP_RECORD_TASK_SPAWNED, TP_EXECUTOR_OPENMP | TP_COMPACT_WOKEN, 100, 2,
		    tp_compact_pair(2, 1), tp_compact_pair(0, 0));
	made_record(&v7, TP_RECORD_TASK_SPAWN, TP_EXECUTOR_OPENMP, 100, 4, 2, 1, 0, 0);
	made_record(&v7, TP_RECORD_TASK_WAKE, 0, 100, 2, 2, 1);
	/* a poll of it unparked, ended 50 ns later, parked */
	made_record(&v9, TP_RECORD_TASK_POLLED,
		    TP_COMPACT_UNPARKED | TP_COMPACT_STARTED | TP_COMPACT_ENDED | TP_COMPACT_PARKED,
		    200, 1, tp_compact_pair(2, 50));
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 200, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 200, 1, 2);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(0, 0), 250, 1, 2);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 250, 0);
	/* task 3, woken apart; polled until it waits in a taskwait, parked */
	made_record(&v9, TP_RECORD_TASK_SPAWNED, TP_EXECUTOR_OPENMP | TP_RECORD_SPAWN_UNDEFERRED,
		    300, 2, tp_compact_pair(3, 1), tp_compact_pair(0, 0));
	made_record(&v7, TP_RECORD_TASK_SPAWN, TP_EXECUTOR_OPENMP | TP_RECORD_SPAWN_UNDEFERRED, 300,
		    4, 3, 1, 0, 0);
	made_record(&v9, TP_RECORD_TASK_WAKE, 0, 310, 2, 3, 1);
	made_record(&v7, TP_RECORD_TASK_WAKE, 0, 310, 2, 3, 1);
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED, 400, 1, 0);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 400, 0);
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_STARTED, 410, 1, 3);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 410, 1, 3);
	made_record(&v9, TP_RECORD_TASK_PAUSED,
		    tp_record_poll_end_small(0, TP_SYNC_TASKWAIT) | TP_COMPACT_PARKED, 500, 1,
		    tp_compact_pair(3, 0));
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(0, TP_SYNC_TASKWAIT),
		    500, 1, 3);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 500, 0);
	/* task 2 polled again, cancelled 30 ns in: its poll ends done, parked */
	made_record(&v9, TP_RECORD_TASK_POLLED,
		    TP_COMPACT_UNPARKED | TP_COMPACT_STARTED | TP_COMPACT_TERMINATED |
			    TP_TASK_CANCELLED << TP_COMPACT_REASON_SHIFT | TP_COMPACT_ENDED |
			    TP_COMPACT_PARKED,
		    600, 1, tp_compact_pair(2, 30));
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 600, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 600, 1, 2);
	made_record(&v7, TP_RECORD_TASK_TERMINATE, TP_TASK_CANCELLED, 630, 1, 2);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(1, 0), 630, 1, 2);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 630, 0);
	/* task 7, with dependences, woken as a parked thread starts it; ends 20 ns in, parked */
	made_record(&v9, TP_RECORD_TASK_SPAWNED, TP_EXECUTOR_OPENMP, 640, 2, tp_compact_pair(7, 1),
		    tp_compact_pair(0, 0));
	made_record(&v7, TP_RECORD_TASK_SPAWN, TP_EXECUTOR_OPENMP, 640, 4, 7, 1, 0, 0);
	made_record(&v9, TP_RECORD_TASK_WOKEN_POLLED,
		    TP_COMPACT_UNPARKED | TP_COMPACT_STARTED | TP_COMPACT_TERMINATED |
			    TP_TASK_COMPLETED << TP_COMPACT_REASON_SHIFT | TP_COMPACT_ENDED |
			    TP_COMPACT_PARKED,
		    650, 1, tp_compact_pair(7, 20));
	made_record(&v7, TP_RECORD_TASK_WAKE, 0, 650, 2, 7, 0);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 650, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 650, 1, 7);
	made_record(&v7, TP_RECORD_TASK_TERMINATE, TP_TASK_COMPLETED, 670, 1, 7);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(1, 0), 670, 1, 7);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 670, 0);
	/* task 3 back after its taskwait, ends: terminate, its poll's end and a park at once */
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_UNPARKED | TP_COMPACT_STARTED, 700, 1,
		    3);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 700, 0);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 700, 1, 3);
	made_record(&v9, TP_RECORD_WAIT_START, TP_WAIT_FUTEX, 710, 4, 0x9000, none, 3, 0);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_FUTEX, 710, 4, 0x9000, none, 3, 0);
	made_record(&v9, TP_RECORD_WAIT_END, TP_WAIT_FUTEX, 720, 3, 0x9000, 0, 3);
	made_record(&v7, TP_RECORD_WAIT_END, TP_WAIT_FUTEX, 720, 3, 0x9000, 0, 3);
	/* task 3 spawns task 4 and runs it at once, which ends 20 ns in, and task 3 again; task 5
	 * the same, woken only as it is run; task 6 the same, but task 3's poll starts again apart */
	made_child_run_at_once(&v9, &v7, 4, 3, 730, 20, RESUMED);
	made_child_run_at_once(&v9, &v7, 5, 3, 762, 2, RESUMED | WOKEN_AT_SWITCH);
	made_child_run_at_once(&v9, &v7, 6, 3, 776, 3, 0);
	made_record(&v9, TP_RECORD_TASK_POLLED, TP_COMPACT_STARTED, 790, 1, 3);
	made_record(&v7, TP_RECORD_TASK_POLL_START, 0, 790, 1, 3);
	made_record(&v9, TP_RECORD_TASK_ENDED,
		    TP_TASK_COMPLETED << TP_COMPACT_REASON_SHIFT | TP_COMPACT_ENDED |
			    TP_COMPACT_PARKED,
		    800, 1, 3);
	made_record(&v7, TP_RECORD_TASK_TERMINATE, TP_TASK_COMPLETED, 800, 1, 3);
	made_record(&v7, TP_RECORD_TASK_POLL_END, tp_record_poll_end_small(1, 0), 800, 1, 3);
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 800, 0);
	/* a worker parked by a wait without a timeout, which ends 100 ns later (-4: EINTR) */
	made_record(&v9, TP_RECORD_WAITED,
		    TP_WAIT_CONDVAR | TP_COMPACT_WAIT_PARKED | TP_COMPACT_WAIT_UNPARKED |
			    TP_COMPACT_WAIT_ENDED,
		    900, 3, 0x1000, tp_compact_pair(0, 0), tp_compact_pair((uint32_t)-4, 100));
	made_record(&v7, TP_RECORD_WORKER_PARK, 0, 900, 0);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_CONDVAR, 900, 4, 0x1000, none, 0, 0);
	made_record(&v7, TP_RECORD_WAIT_END, TP_WAIT_CONDVAR, 1000, 3, 0x1000, (uint64_t)-4, 0);
	made_record(&v7, TP_RECORD_WORKER_UNPARK, 0, 1000, 0);
	/* one with a timeout that ends 20 ns in; one left open */
	made_record(&v9, TP_RECORD_WAITED, TP_WAIT_SEMAPHORE | TP_COMPACT_WAIT_ENDED, 1100, 4,
		    0x2000, tp_compact_pair(0, 0), tp_compact_pair(0, 20), 5000);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_SEMAPHORE, 1100, 4, 0x2000, 5000, 0, 0);
	made_record(&v7, TP_RECORD_WAIT_END, TP_WAIT_SEMAPHORE, 1120, 3, 0x2000, 0, 0);
	made_record(&v9, TP_RECORD_WAITED, TP_WAIT_MUTEX, 1200, 3, 0x3000, tp_compact_pair(0, 0),
		    0);
	made_record(&v7, TP_RECORD_WAIT_START, TP_WAIT_MUTEX, 1200, 4, 0x3000, none, 0, 0);
	char *dir = scratch_dir();
	made_write(&v7, dir, "v7.rec", 7);
	made_write(&v9, dir, "v9.rec", TP_RECORDING_VERSION);
	struct tp_run run;
	script(&run,
	       "cd %s\nfor v in v7 v9; do $TP_TIMELINE -o $v.json $v.rec && $TP_TIMELINE "
	       "--critical-path "
	       "-o $v.speedscope.json $v.rec && $TP_TIMELINE --analyze $v.rec > $v.analysis || "
	       "exit; "
	       "done\ncmp v7.json v9.json && cmp v7.speedscope.json v9.speedscope.json && "
	       "cmp v7.analysis v9.analysis && $TP_TIMELINE --count -o /dev/null v9.rec",
	       dir);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect(strstr(run.err, ": 59 events") != NULL, "%s", run.err);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}

/*
 * Recordings of the versions before (the corpus: version 2's site texts, 5's code sites, 7's
 * sync sites and records of the probes, 9's compact records, 10's switch records of one thread,
 * 11's woken switches, made before spawns said the program's, 12's, before collectives told their
 * communicator) are converted as ever: each event, and analysed.
 */
Test(harm, recordings_of_earlier_versions_are_converted_as_before, .timeout = 60)
{
	static const struct {
		const char *file;
		unsigned events;
	} corpus[] = {
		{"omp_fib_4.rec", 111},     {"omp_fib_4_v5.rec", 111},  {"omp_fib_6_v7.rec", 259},
		{"omp_fib_6_v9.rec", 255},  {"omp_fib_6_v10.rec", 234}, {"omp_fib_6_v11.rec", 256},
		{"omp_fib_6_v12.rec", 256},
	};
	for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
		struct tp_run run;
		script(&run,
		       "f=%s/%s\n$TP_TIMELINE --count -o /dev/null $f && $TP_TIMELINE --analyze $f "
		       ">/dev/null",
		       TP_CORPUS_DIR, corpus[i].file);
		char events[64];
		snprintf(events, sizeof events, ": %u events\n", corpus[i].events);
		cr_expect_eq(run.status, 0, "%s: %s", corpus[i].file, run.err);
		cr_expect(strstr(run.err, events) != NULL, "%s: no \"%s\" in: %s", corpus[i].file,
			  events, run.err);
		tp_run_free(&run);
	}
}

/*
 * A worker's blocking wait (a pool thread parks around each, TASKPROBE_WORKERS) is one record:
 * its park, start, end and unpark, two clock reads. Version 7 wrote four records, one a probe.
 */
Test(harm, a_workers_wait_is_one_record, .timeout = 60)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, PRELOADS_ITSELF);
	char *dir = scratch_dir();
	struct tp_run run;
	script(&run,
	       "cd %s\nTASKPROBE_WORKERS='pool-*' LD_PRELOAD=$SHIM TASKPROBE_RECORD=$PWD/recording "
	       "$TARGETS/named_workers && $TP_TIMELINE -o /dev/null recording",
	       dir);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char path[4200];
	snprintf(path, sizeof path, "%s/recording", dir);
	size_t size;
	char *data = tp_read_file(path, &size);
	unsigned by_type[TP_RECORD_TYPES_END] = {0};
	for (size_t at = 0; at < size;) {
		if (memcmp(data + at, TP_RECORDING_MAGIC, 8) == 0) {
			struct tp_recording_header h;
			memcpy(&h, data + at, sizeof h);
			at += h.header_size;
			continue;
		}
		struct tp_recording_chunk c;
		memcpy(&c, data + at, sizeof c);
		for (size_t r = at + sizeof c; r < at + c.size;) {
			uint64_t word;
			memcpy(&word, data + r, sizeof word);
			by_type[tp_record_type(word)]++;
			r += tp_record_bytes(word);
		}
		at += c.size;
	}
	/* the pool threads' 10 parked waits, the other thread's 5 and the joins: whole records */
	cr_expect_eq(by_type[TP_RECORD_WORKER_PARK] + by_type[TP_RECORD_WORKER_UNPARK] +
			     by_type[TP_RECORD_WAIT_START] + by_type[TP_RECORD_WAIT_END],
		     0,
		     "%u parks, %u unparks, %u wait-starts, %u wait-ends in records of their own",
		     by_type[TP_RECORD_WORKER_PARK], by_type[TP_RECORD_WORKER_UNPARK],
		     by_type[TP_RECORD_WAIT_START], by_type[TP_RECORD_WAIT_END]);
	cr_expect_geq(by_type[TP_RECORD_WAITED], 15);
	free(data);
	tp_run_free(&run);
	tp_remove_temp_dir(dir);
}
