// SPDX-License-Identifier: MIT
/*
 * The preload test harness: runs a target program plainly, with the shim preloaded, or with the
 * shim preloaded under bpftrace attached to the shim's path, and hands back its output, exit
 * status and every taskprobe event that fired in it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most spawn-stack frames the harness reads per task-stack. */
#define TP_FRAMES_READ 8
/* The most characters of a spawn site's text the harness keeps (bpftrace reads 64 by default). */
#define TP_SITE_READ 64

/* One probe firing in the target. */
struct tp_event {
	char probe[32];                  /* as in the ELF notes: "wait__start" */
	uint64_t tid;                    /* the firing thread */
	uint64_t nsecs;                  /* when (bpftrace's nsecs); events are sorted by it */
	int64_t arg[6];                  /* the probe's arguments, 0 past its count */
	uint64_t frames[TP_FRAMES_READ]; /* task-stack, wait-stack: the first frames of its pcs */
	/* task-spawn's arg3, wait-start's arg5: the site; thread-start's arg3: its start routine's
	 * name ("" when NULL) */
	char site[TP_SITE_READ];
};

struct tp_run {
	pid_t pid;
	int status;      /* exit code, or 128 + signal number */
	char *out, *err; /* what the target wrote */
	size_t out_len;
	struct tp_event *events;
	size_t n_events;
	char *trace;               /* everything the tracer printed (TP_TRACED) */
	char *trace_errors;        /* what it printed on stderr (tp_run_script) */
	char *out_file, *err_file; /* where stdout and stderr go while it runs */
};

/* How a target is run. */
enum tp_mode {
	TP_PLAIN,     /* without the shim */
	TP_PRELOADED, /* with the shim, no tracer */
	TP_TRACED,    /* with the shim, under bpftrace */
};

/*
 * Runs `argv` (argv[0] a path) with `env` (NULL-terminated "NAME=value" strings added to the
 * harness's environment, or NULL). An LD_PRELOAD in `env` is preloaded before the shim, and not
 * at all in TP_PLAIN mode; a TP_PRELOAD_AFTER_SHIM after the shim, and alone in TP_PLAIN mode.
 * Fails the test on any harness error.
 */
void tp_run(enum tp_mode mode, const char *const argv[], const char *const env[],
	    struct tp_run *run);
void tp_run_free(struct tp_run *run);

/*
 * For a target that tracers attach to and detach from while it runs: tp_start starts it (no
 * waiting for a tracer), tp_finish waits for its end and reads its output into `run`.
 */
void tp_start(enum tp_mode mode, const char *const argv[], const char *const env[],
	      struct tp_run *run);
void tp_finish(struct tp_run *run);

/* bpftrace printing every event, attached to the shim's path for process `target`. */
struct tp_attached {
	pid_t pid;
	char *out, *err;
};
void tp_attach(pid_t target, struct tp_attached *tracer);
/* Detaches after reading what it has seen: its events replace run's events and trace. */
void tp_detach(struct tp_attached *tracer, struct tp_run *run);

/*
 * For this test's process: preload `shim` instead of the built one (a copy, so that tracers
 * other tests attach to the built library do not enable its probes), and trace with `program`
 * (bpftrace text; `$1` is the target's pid) instead of the one printing every event. NULL for
 * the defaults.
 */
void tp_use_shim(const char *shim);
void tp_use_tracer_program(const char *program);

/* A trace's lines in the order of their first column, a time (events.bt's; bpftrace prints each
 * CPU's buffer in turn: a thread's event may come out after a later one of another CPU's),
 * bpftrace's own lines first. A new string, to free. */
char *tp_trace_in_time_order(const char *trace);

/*
 * Runs `argv` with the shim preloaded under the bpftrace script dtrace/`script` as a user
 * would: `bpftrace SCRIPT PID script_args...` (script_args NULL-terminated, or NULL), the
 * target started once the script says it is tracing; the script ends itself when the target
 * has. Its output is in run->trace, its stderr in run->trace_errors.
 */
void tp_run_script(const char *script, const char *const script_args[], const char *const argv[],
		   const char *const env[], struct tp_run *run);

/* Runs the launcher (contrib/taskprobe) with `args` (NULL-terminated) as a user would. */
void tp_launch(const char *const args[], const char *const env[], struct tp_run *run);

/* A copy of the shim in a new temporary file, removed at the test's exit. */
const char *tp_shim_copy(void);

/*
 * From now on in this test, the targets and the launcher preload a private copy of the shim
 * (made once): another test's tracer attaches to the built shim's file, which raises its probes'
 * semaphores in every process that maps that file, the runs of this test too, and a run that
 * must be untraced (what the recorder and the live statistics leave out when no tracer is on)
 * would be traced now and then. tp_use_shim(NULL) goes back to the built shim.
 */
void tp_use_private_shim(void);

/*
 * Runs `argv` traced by the bpftrace `program` (`$1` the target's pid), with the shim `shim` (a
 * copy: tp_shim_copy) preloaded: tp_use_shim and tp_use_tracer_program for this run only.
 */
void tp_run_traced_by(const char *shim, const char *program, const char *const argv[],
		      const char *const env[], struct tp_run *run);

/* The path of the libunwind the shim loads (libunwind.so.8), for uprobes on its functions. */
const char *tp_libunwind_path(void);

/*
 * How many times libunwind's unw_backtrace ran in `argv` traced, with the shim `shim` (a copy:
 * tp_shim_copy) and the bpftrace probes `also` attached too; asserts its stdout is `out`.
 */
size_t tp_count_unwinds(const char *shim, const char *also, const char *const argv[],
			const char *const env[], const char *out);

/* The value bpftrace printed for map entry `key` ("@tasks[123]"), or -1 when it printed none. */
long long tp_map_value(const char *trace, const char *key);

/* Skips the test (or fails it under CI=true) unless bpftrace can be used here. */
void tp_require_tracer(void);

/*
 * The sanitizer passes: the suite run again in build-asan/ and build-tsan/, whose test setups
 * (preload-tests/meson.build) say which pass it is in TP_SANITIZER.
 */
enum tp_sanitizer_pass {
	TP_ASAN = 1, /* the shim under AddressSanitizer and UndefinedBehaviorSanitizer */
	TP_TSAN = 2, /* the shim under ThreadSanitizer */
};

/*
 * Leaves the test out of the sanitizer passes `passes` (TP_ASAN, TP_TSAN or both) for `reason`,
 * said beside the test: first in its body, it ends the test there as skipped with the message
 * "excluded under ASan: REASON", which preload-tests/run counts as excluded, not as skipped (a
 * skip is a tool missing; an exclusion is by design, and CI=true does not turn it into a
 * failure).
 */
void tp_not_under(unsigned passes, const char *reason);
#define TP_NOT_UNDER(passes, reason) tp_not_under(passes, reason)
/* Whether the suite runs in one of the sanitizer passes `passes` (for a test that runs there
 * but leaves out what that pass cannot hold, saying why beside it). */
bool tp_under(unsigned passes);

/* The reason tests that tell threads apart by their start routine are left out of the ASan pass. */
#define TP_START_ROUTINES_UNDER_ASAN                                                               \
	"it tells threads apart by their start routine, and ASan's pthread_create passes its own"

/* The reason tests of the launcher's runs are left out of the sanitizer passes. */
#define TP_LAUNCHER_UNDER_SANITIZERS                                                               \
	"the launcher preloads the shim by itself, not the sanitizer's runtime"

/* The reason a program whose main thread ends with pthread_exit is left out of the TSan pass. */
#define TP_MAIN_EXITS_FIRST_UNDER_TSAN                                                             \
	"under TSan's runtime a process whose main thread called pthread_exit does not end "       \
	"(without the shim too)"

/* The reason OpenMP programs are left out of the TSan pass. */
#define TP_OPENMP_UNDER_TSAN                                                                       \
	"OpenMP's runtime is not built with TSan: TSan reports races inside it (with no shim "     \
	"too), and crashes in libunwind's thread-exit destructor on its worker threads, where "    \
	"spawn stacks are captured"

/*
 * The reason wait stacks are left out of the TSan pass (and the harness's tracer leaves
 * wait-stack out there): libunwind crashes under TSan, as with OpenMP's spawn stacks.
 */
#define TP_WAIT_STACKS_UNDER_TSAN                                                                  \
	"libunwind crashes under TSan (a SEGV at address 0 in the unwinding thread), as it does "  \
	"where OpenMP's spawn stacks are captured"

/*
 * The same for every test of `suite`, declared once beside them (at file scope: it is the suite's
 * criterion TestSuite declaration, whose init runs first in each of its tests).
 */
#define TP_SUITE_NOT_UNDER(suite, passes, reason)                                                  \
	static void tp_suite_not_under_##suite(void)                                               \
	{                                                                                          \
		tp_not_under(passes, reason);                                                      \
	}                                                                                          \
	TestSuite(suite, .init = tp_suite_not_under_##suite)

/* The whole file at `path` (NUL-terminated; its length in *len if len is not NULL); fails the
 * test if it cannot be read. */
char *tp_read_file(const char *path, size_t *len);

/* Whether the running process `pid` has a mapping whose line in /proc/PID/maps holds `text`
 * (a file's path, a library's name). */
bool tp_maps(pid_t pid, const char *text);

/* A new empty directory /tmp/taskprobe-test-WHAT-XXXXXX, mode 0700; its path (to free). */
char *tp_make_temp_dir(const char *what);
/* Removes the directory `path` and all in it, and frees `path`. */
void tp_remove_temp_dir(char *path);

/* The converter, taskprobe-timeline, as built. */
#define TP_TIMELINE TP_CONTRIB_DIR "/taskprobe-timeline"
/* Runs the converter with `args` (NULL-terminated, after the program's name). */
void tp_convert(const char *const args[], struct tp_run *run);
/* Runs `program` (python3, reading the file at sys.argv[1]) on `file`; what it printed. */
char *tp_python_on(const char *program, const char *file);
/* How many times `needle` occurs in `text`, not overlapping. */
unsigned tp_occurrences(const char *text, const char *needle);
/*
 * Whether `err` holds the shim's line on a process of `taskprobe run` kept on libgomp for the
 * device memory routines it calls (targets/omp_host_device_memory.c): libomp's path, then one
 * of those routines named, at the version it is imported at, as what libomp lacks.
 */
bool tp_says_libomp_lacks_device_memory(const char *err);
/*
 * Calls `each` on every record of the recording `data` (`size` bytes: whole segments and chunks,
 * each chunk's frame checked) with its chunk and context `ctx`; returns the records the chunks
 * say they hold.
 */
struct tp_recording_chunk;
typedef void tp_record_visit(const struct tp_recording_chunk *chunk, uint64_t word, void *ctx);
uint64_t tp_recording_walk(const char *data, size_t size, tp_record_visit *each, void *ctx);
/* DIR/NAME (the caller frees). */
char *tp_path_in(const char *dir, const char *name);

/* The explicit tasks omp_fib N spawns: one per recursive call. */
unsigned tp_fib_tasks(int n);

/* The path of a target program built in preload-tests/targets. */
const char *tp_target(const char *name);

/*
 * The path of an optional program (a target built only when its compiler was found, or one from
 * a Debian package): skips the test when it is missing, saying to install `package`, or fails it
 * under CI=true.
 */
const char *tp_require_program(const char *path, const char *package);
/* The same for a file that is read, not run. */
const char *tp_require_file(const char *path, const char *package);
/* The path of the shim. */
const char *tp_shim(void);

/* The address of `symbol` in the (non-PIE) executable `path`, from its symbol table. */
uint64_t tp_symbol_address(const char *path, const char *symbol);

/* The function of (non-PIE) `path` containing the return address `pc` (at pc - 1), or "?". */
const char *tp_symbol_at(const char *path, uint64_t pc);

/* Events of one probe, optionally of one thread (tid 0: any): count and n-th. */
size_t tp_count(const struct tp_run *run, const char *probe, uint64_t tid);

/* The wait-starts of one wait kind (the contract's arg0), on any thread. */
size_t tp_count_waits(const struct tp_run *run, int64_t kind);
const struct tp_event *tp_nth(const struct tp_run *run, const char *probe, uint64_t tid, size_t n);
/* Whether `e` is an event of `probe`. */
bool tp_event_is(const struct tp_event *e, const char *probe);

/* Runs `argv` plainly and traced, asserts equal stdout and exit status; returns the traced run. */
void tp_run_both(const char *const argv[], const char *const env[], struct tp_run *traced);

/* Runs `argv` plainly and preloaded (no tracer), asserting equal stdout and exit status; returns
 * the preloaded run. */
void tp_run_preloaded_as_plain(const char *const argv[], const char *const env[],
			       struct tp_run *preloaded);

/* The same, and preloaded with no tracer too: the three give equal stdout and exit status. */
void tp_run_all_ways(const char *const argv[], const char *const env[], struct tp_run *traced);

/* tp_run_all_ways, and each of the three runs wrote `said` (when not NULL) on stderr. */
void tp_run_all_ways_saying(const char *const argv[], const char *const env[], const char *said,
			    struct tp_run *traced);

/*
 * Asserts the thread contract on a traced run: `n` thread-starts (any number if n < 0), each on
 * the thread it names, created by a thread of the process, first among that thread's events;
 * exactly one thread-stop per started tid, after its start, and last among its events when it
 * fires on the thread itself (not at exit). Returns the number of started threads.
 */
size_t tp_assert_threads_paired(const struct tp_run *run, long n);

/*
 * Asserts that wait-start and wait-end pair on each thread, properly nested (a signal handler
 * may wait inside the wait it interrupted), with equal kind (one of the contract's), object and
 * task (a thread that the process's exit ended may leave its last wait open), and that park/unpark
 * alternate per thread and end unparked. Returns the number of waits.
 */
size_t tp_assert_waits_paired(const struct tp_run *run);

/*
 * Asserts the task contract on a traced run and returns the number of tasks spawned: ids unique
 * and nonzero; parents 0 or tasks spawned before; one wake per task, after its spawn and before
 * its first poll; per thread, poll-start and poll-end alternate on the same task; every spawned
 * task terminates once, and its terminate is followed on that thread by its final poll-end
 * (done 1), after which the task is not polled again; each worker thread starts and stops once
 * (`workers` of them, if workers >= 0).
 */
size_t tp_assert_tasks_consistent(const struct tp_run *run, long workers);

/*
 * What a timeline (Trace Event Format JSON at `path`) holds, counted by python3: a line
 * "M=.. B=.. E=.. b=.. e=.. s=.. f=.. i=.."; "sited tasks=N" (tasks named by a site id);
 * "unbalanced slices=N" (an end not closing the thread's innermost slice, or a slice never
 * closed); then, sorted, "poll\tNAME\tTASKS" per name of poll slices, "track\tNAME\tTASKS" per
 * name of task tracks, "instant\tNAME\tCOUNT" per instant name (its trailing number cut) and
 * "thread\tNAME\tCOUNT" per name of thread tracks (their tids cut).
 */
char *tp_timeline_summary(const char *path);

/* Whether `summary` has `tasks` tasks of poll slices and of task tracks named `name`. */
bool tp_timeline_named_tasks(const char *summary, const char *name, unsigned tasks);

/* The number after `key` in `summary` ("b=", "unbalanced slices=", "instant\tthread start \t"). */
unsigned tp_timeline_count(const char *summary, const char *key);

/*
 * The POP factors one output says, in tp_live_factors_words' words (dtrace/taskprobe_figures.h):
 * "parallel efficiency P = load balance L x communication efficiency C" and "communication
 * efficiency C = serialisation efficiency S x transfer efficiency T".
 */
struct tp_pop_factors {
	bool said; /* both lines are there */
	double parallel, load_balance, communication, serialisation, transfer;
	double parallelism; /* "work X, span Y: parallelism Z" (--analyze's row): Z; -1 if none */
	double work_ms;     /* X there, in ms; 0 if none */
	bool region_of_interest; /* it says "region of interest" */
};

/* The factors `text` says (the first of each line where there are several). */
struct tp_pop_factors tp_pop_factors_in(const char *text);

/* The three outputs that say the factors. */
enum tp_pop_way {
	TP_POP_REPORT,   /* the exit report (TASKPROBE_REPORT) */
	TP_POP_TOP,      /* taskprobe top --once */
	TP_POP_ANALYSIS, /* taskprobe-timeline --analyze of a recording (TASKPROBE_RECORD) */
	TP_POP_WAYS
};
struct tp_pop_output {
	const char *way; /* "the exit report", "top --once", "--analyze" */
	struct tp_pop_factors factors;
	char *text; /* what it said */
	char *err; /* what its run wrote on stderr: the program's, the launcher's (and top's text) */
};

/*
 * `argv` run plainly, then once through the launcher (which runs a GCC build on libomp) under
 * `taskprobe top --once` with the exit report (TASKPROBE_REPORT) and a recording
 * (TASKPROBE_RECORD), analyzed: the three outputs of one run, each made by its own engine, so
 * that they are of the same times. Asserts that the program's stdout and exit status are the
 * plain run's. `env` is added to both runs' environment (OMP_NUM_THREADS=2, say).
 */
struct tp_pop_run {
	struct tp_pop_output output[TP_POP_WAYS];
	char *out; /* the program's stdout under the launcher */
	/* the run's directory (its recording, its exit report): removed by tp_pop_run_free unless
	 * `keep` (a test that failed keeps the evidence, and says where) */
	char *dir;
	bool keep;
};
void tp_pop_run(const char *const argv[], const char *const env[], struct tp_pop_run *pop);
/* The same for a program that prints its own times: its exit status must be 0. */
void tp_pop_run_timed(const char *const argv[], const char *const env[], struct tp_pop_run *pop);
void tp_pop_run_free(struct tp_pop_run *pop);

/*
 * Whether omp_plugin_host's output `out` says plug-in `second` was loaded where `first` lay (its
 * lines "plug-in FILE at ADDRESS"): what the tests of code named after its module was unloaded
 * stand on.
 */
bool tp_plugins_in_one_place(const char *out, const char *first, const char *second);

/* The line of the first `pragma` after `function` in a target's source; 0 when not there. */
int tp_source_line(const char *target_source, const char *function, const char *pragma);

/*
 * "(SOURCE:L)", a site's place as the shim names it, for the line of the first `marker` after
 * `after` in a target's source; asserts the line is there. The text lasts for the next 7 calls
 * (of it or of tp_source_site).
 */
const char *tp_source_place(const char *target_source, const char *after, const char *marker);

/*
 * "name (SOURCE:L)", a site's text as the shim names it, for the line holding `marker` after
 * `function` ("static void *queue_pop(": its name is queue_pop) in a target's source; asserts
 * the line is there. The text lasts for the next 7 calls.
 */
const char *tp_source_site(const char *target_source, const char *function, const char *marker);

/*
 * As an unprivileged user: with root, the launcher (and the shim and converter it uses) and the
 * `programs` are copied into a directory every user can read, and run as nobody (runuser);
 * without root, as the user. tp_unprivileged_copy returns a program's copy; tp_unprivileged_out
 * a directory the user can write.
 */
const char *tp_unprivileged_copy(const char *program);
const char *tp_unprivileged_out(void);
void tp_launch_unprivileged(const char *const args[], const char *const env[], struct tp_run *run);
/* The launcher that tp_launch_unprivileged runs (its copy, with root). */
const char *tp_unprivileged_launcher(void);

/*
 * A terminal (tmux) that a test types into and reads, as a person would: `command` (a shell
 * command line) runs in it, then "[exit STATUS]" is printed and the terminal stays. With
 * `unprivileged` and root, tmux and the command run as nobody.
 */
struct tp_terminal {
	char socket[160];
	char dir[128];
	bool unprivileged;
};
void tp_terminal_start(struct tp_terminal *t, const char *command, unsigned columns, unsigned lines,
		       bool unprivileged);
/* The screen's text now (the caller frees); with `attributes`, with its escape sequences. */
char *tp_terminal_screen(struct tp_terminal *t, bool attributes);
/* Everything the terminal showed: the lines scrolled off the screen, then the screen. */
char *tp_terminal_history(struct tp_terminal *t);
/*
 * The screen once it shows `text`, drawn whole (the same on a second look; the caller frees);
 * fails the test after `timeout_ms`.
 */
char *tp_terminal_wait_for(struct tp_terminal *t, const char *text, unsigned timeout_ms);
/* Types `keys`, tmux key names separated by spaces ("q", "Enter", "Down", "Space"). */
void tp_terminal_keys(struct tp_terminal *t, const char *keys);
void tp_terminal_resize(struct tp_terminal *t, unsigned columns, unsigned lines);
void tp_terminal_stop(struct tp_terminal *t);
