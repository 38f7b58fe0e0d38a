// SPDX-License-Identifier: MIT
/* The MPI harm tests' helpers (harm_mpi.h). */
#define _GNU_SOURCE
#include "harm_mpi.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

/* The test process's own directory for Open MPI's session files (mpirun_of_its_own). */
static char session_base[] = "/tmp/taskprobe-ompi-XXXXXX";

static void remove_session_base(void)
{
	rmdir(session_base); /* Open MPI removes what it made in it; anything left stays */
}

/*
 * Each test process gives its jobs a session directory base of its own: Open MPI 4 makes
 * /tmp/ompi.HOST.UID for every job and removes it when the job ends, so two jobs of two tests
 * run side by side race to make it, and the loser's mpirun fails ("A call to mkdir was unable to
 * create the desired directory ... File exists", once in a CI run). Open to every user as /tmp
 * is (sticky): the unprivileged tests' jobs make theirs in it too.
 */
static void mpirun_of_its_own(void)
{
	if (getenv("OMPI_MCA_orte_tmpdir_base") != NULL)
		return;
	cr_assert(mkdtemp(session_base) != NULL, "mkdtemp: %s", strerror(errno));
	cr_assert(chmod(session_base, 01777) == 0);
	atexit(remove_session_base);
	cr_assert(setenv("OMPI_MCA_orte_tmpdir_base", session_base, 1) == 0);
}

const char *mpirun(void)
{
	const char *path = tp_require_program("/usr/bin/mpirun", MPI_PACKAGE);
	mpirun_of_its_own();
	return path;
}

const char *target(const char *name)
{
	return tp_require_program(tp_target(name), MPI_PACKAGE);
}

/*
 * What the timeline at `json` holds of the ranks (python3), a line each:
 *   process SORT NAME          per process with a sort index, in its order
 *   flow FROM TO forward|backward   per message (its send's process, its receive's)
 *   flow half ID               a message whose send or receive is missing
 *   wait PROCESS CALL N TOTAL_US FIRST_BEGIN_US LAST_END_US   per MPI call of each process
 *   span S                     seconds from the first to the last event of the ranks
 */
char *ranks_summary(const char *json)
{
	static const char program[] =
		"import json,sys,collections\n"
		"d=json.load(open(sys.argv[1]))\n"
		"ev=d[\"traceEvents\"] if isinstance(d,dict) else d\n"
		"names={};order={}\n"
		"for e in ev:\n"
		"  if e.get(\"ph\")==\"M\" and e.get(\"name\")==\"process_name\": "
		"names[e[\"pid\"]]=e[\"args\"][\"name\"]\n"
		"  if e.get(\"ph\")==\"M\" and e.get(\"name\")==\"process_sort_index\": "
		"order[e[\"pid\"]]=e[\"args\"][\"sort_index\"]\n"
		"for p in sorted(order,key=lambda p:order[p]): "
		"print(\"process\\t%d\\t%s\"%(order[p],names.get(p,\"?\")))\n"
		"fl=collections.defaultdict(dict)\n"
		"for e in ev:\n"
		"  if e.get(\"cat\")==\"message\": fl[e[\"id\"]][e[\"ph\"]]=e\n"
		"for i,f in sorted(fl.items()):\n"
		"  if \"s\" in f and \"f\" in f: "
		"print(\"flow\\t%s\\t%s\\t%s\"%(names.get(f[\"s\"][\"pid\"]),"
		"names.get(f[\"f\"][\"pid\"]),\"forward\" if f[\"s\"][\"ts\"]<=f[\"f\"][\"ts\"] "
		"else "
		"\"backward\"))\n"
		"  else: print(\"flow\\thalf\\t%s\"%i)\n"
		"st=collections.defaultdict(list);waits=collections.defaultdict(list)\n"
		"for e in ev:\n"
		"  k=(e.get(\"pid\"),e.get(\"tid\"))\n"
		"  if e.get(\"ph\")==\"B\": st[k].append(e)\n"
		"  elif e.get(\"ph\")==\"E\" and st[k]:\n"
		"    b=st[k].pop()\n"
		"    if b[\"name\"].startswith(\"MPI_\"): "
		"waits[(names.get(e[\"pid\"]),b[\"name\"].split(\" at "
		"\")[0])].append((b[\"ts\"],e[\"ts\"]))\n"
		"for (p,n),l in sorted(waits.items()): "
		"print(\"wait\\t%s\\t%s\\t%d\\t%.0f\\t%.0f\\t%.0f\"%(p,n,len(l),sum(x[1]-x[0] for "
		"x in l),"
		"min(x[0] for x in l),max(x[1] for x in l)))\n"
		"ts=[e[\"ts\"] for e in ev if e.get(\"ph\")!=\"M\" and \"ts\" in e and "
		"names.get(e.get(\"pid\"),\"\").startswith(\"rank \")]\n"
		"print(\"span\\t%.0f\"%((max(ts)-min(ts))/1e6 if ts else -1))\n";
	char *script = tp_make_temp("harm-mpi-summary");
	FILE *f = fopen(script, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(program, f) >= 0 && fclose(f) == 0, 1);
	char *cmd;
	cr_assert(asprintf(&cmd, "python3 '%s' '%s'", script, json) > 0);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	char *text = tp_read_stream(p, NULL);
	cr_assert_eq(pclose(p), 0, "python3 could not read %s: %s", json, text);
	unlink(script);
	free(script);
	free(cmd);
	return text;
}

/* How many lines of `summary` start with `prefix`. */
unsigned lines_starting(const char *summary, const char *prefix)
{
	unsigned n = 0;
	size_t len = strlen(prefix);
	for (const char *at = summary; at != NULL && *at != '\0';) {
		n += strncmp(at, prefix, len) == 0;
		at = strchr(at, '\n');
		at = at != NULL ? at + 1 : NULL;
	}
	return n;
}

/* The numbers of the "wait" line of `process`'s `call`: count, total, first begin, last end. */
bool wait_line(const char *summary, const char *process, const char *call, double v[4])
{
	char prefix[160];
	snprintf(prefix, sizeof prefix, "wait\t%s\t%s\t", process, call);
	const char *at = strstr(summary, prefix);
	return at != NULL &&
	       sscanf(at + strlen(prefix), "%lf\t%lf\t%lf\t%lf", &v[0], &v[1], &v[2], &v[3]) == 4;
}

static const char *host(void)
{
	static char name[128];
	if (name[0] == '\0')
		cr_assert_eq(gethostname(name, sizeof name - 1), 0);
	return name;
}

/* "rank R (HOST)", this machine's; the text lasts for the next 7 calls. */
const char *rank_name(int rank)
{
	static char names[8][160];
	static unsigned next;
	char *name = names[next++ % 8];
	snprintf(name, 160, "rank %d (%s)", rank, host());
	return name;
}

/*
 * Asserts the ranks of a timeline's summary: `n` of them, in order, each with one MPI_Init and
 * one MPI_Finalize, every message a flow forward in time.
 */
void expect_ranks(const char *summary, int n)
{
	cr_expect_eq(lines_starting(summary, "process\t"), (unsigned)n, "%s", summary);
	for (int r = 0; r < n; r++) {
		char line[200];
		snprintf(line, sizeof line, "process\t%d\t%s\n", r, rank_name(r));
		const char *at = strstr(summary, line);
		cr_expect_not_null(at, "no %s in %s", line, summary);
		if (r > 0) { /* after the one before */
			char before[200];
			snprintf(before, sizeof before, "process\t%d\t", r - 1);
			const char *b = strstr(summary, before);
			cr_expect(at == NULL || (b != NULL && b < at), "%s", summary);
		}
		double v[4], w[4];
		cr_expect((wait_line(summary, rank_name(r), "MPI_Init", v) && v[0] == 1) ^
				  (wait_line(summary, rank_name(r), "MPI_Init_thread", w) &&
				   w[0] == 1),
			  "%s", summary);
		cr_expect(wait_line(summary, rank_name(r), "MPI_Finalize", v) && v[0] == 1, "%s",
			  summary);
	}
	cr_expect_eq(lines_starting(summary, "flow\thalf"), 0, "%s", summary);
	cr_expect_eq(strstr(summary, "\tbackward\n"), NULL, "%s", summary);
}

/* Messages from rank `from` to rank `to` in the summary, all forward. */
unsigned flows(const char *summary, int from, int to)
{
	char prefix[400];
	snprintf(prefix, sizeof prefix, "flow\t%s\t%s\tforward", rank_name(from), rank_name(to));
	return lines_starting(summary, prefix);
}

/*
 * `mpirun [ranks...]` run plainly, then recorded with `taskprobe record -o JSON -- mpirun ...`
 * (as nobody when `unprivileged`): equal stdout and status 0 both. Returns the timeline's
 * summary; the launcher's stderr in *said (unless NULL).
 */
char *record_job_of(const char *launcher, const char *const mpirun_args[], const char *const env[],
		    bool unprivileged, char **said)
{
	const char *argv[32], *args[40];
	size_t n = 0, m = 0;
	argv[n++] = launcher;
	for (size_t i = 0; mpirun_args[i] != NULL && n < 31; i++)
		argv[n++] = mpirun_args[i];
	argv[n] = NULL;
	struct tp_run plain, run;
	tp_run(TP_PLAIN, argv, env, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	char *json;
	cr_assert(asprintf(&json, "%s/harm-mpi-%d.json",
			   unprivileged ? tp_unprivileged_out() : "/tmp", (int)getpid()) > 0);
	args[m++] = "record";
	args[m++] = "-o";
	args[m++] = json;
	args[m++] = "--";
	for (size_t i = 0; argv[i] != NULL && m < 39; i++)
		args[m++] = argv[i];
	args[m] = NULL;
	if (unprivileged)
		tp_launch_unprivileged(args, env, &run);
	else
		tp_launch(args, env, &run);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_expect_str_eq(run.out, plain.out);
	char *summary = ranks_summary(json);
	if (said != NULL)
		*said = strdup(run.err);
	unlink(json);
	free(json);
	tp_run_free(&plain);
	tp_run_free(&run);
	return summary;
}

/* record_job_of Open MPI's mpirun. */
char *record_job(const char *const mpirun_args[], const char *const env[], bool unprivileged,
		 char **said)
{
	return record_job_of(mpirun(), mpirun_args, env, unprivileged, said);
}

/* The launcher and arguments of `mpi_ranks SHAPE` on `n` ranks (record_shape); `ranks` and
 * `args` hold them. */
static const char *shape_job(bool mpich, int n, const char *shape, char ranks[16],
			     const char *args[8])
{
	size_t a = 0;
	snprintf(ranks, 16, "%d", n);
	const char *launcher = mpirun(), *program = target("mpi_ranks");
	if (mpich) {
		launcher = tp_require_program("/usr/bin/mpirun.mpich", "mpich and libmpich-dev");
		program = tp_require_program(tp_target("mpi_ranks_mpich"),
					     "mpich and libmpich-dev");
	} else {
		static const char *const anywhere[] = {MPIRUN_ANYWHERE};
		for (size_t i = 0; i < sizeof anywhere / sizeof anywhere[0]; i++)
			args[a++] = anywhere[i];
	}
	args[a++] = "-np";
	args[a++] = ranks;
	args[a++] = program;
	args[a++] = shape;
	args[a] = NULL;
	return launcher;
}

char *record_shape(bool mpich, int n, const char *shape, char **said)
{
	char ranks[16];
	const char *args[8], *launcher = shape_job(mpich, n, shape, ranks, args);
	return record_job_of(launcher, args, NULL, false, said);
}

char *record_job_judged(const char *launcher, const char *const mpirun_args[],
			const char *const env[], mpi_judge *kept, char **said)
{
	for (int try = 1;; try++) {
		char *summary = record_job_of(launcher, mpirun_args, env, false, said);
		if (try == MPI_TRIES || kept(*said))
			return summary;
		char job[256] = "";
		for (size_t i = 0; mpirun_args[i] != NULL; i++)
			snprintf(job + strlen(job), sizeof job - strlen(job), " %s",
				 mpirun_args[i]);
		/* the line of its efficiencies, or all it said */
		const char *line = strstr(*said, "efficiency of ranks");
		while (line != NULL && line > *said && line[-1] != '\n')
			line--;
		line = line != NULL ? line : *said;
		cr_log_info("run %d of%s refused (again after a pause): %.*s", try, job,
			    (int)strcspn(line, "\n"), line);
		free(summary);
		free(*said);
		usleep(250000 * (useconds_t)try);
	}
}

char *record_shape_judged(bool mpich, int n, const char *shape, mpi_judge *kept, char **said)
{
	char ranks[16];
	const char *args[8], *launcher = shape_job(mpich, n, shape, ranks, args);
	return record_job_judged(launcher, args, NULL, kept, said);
}

/* The load balance of "MPI efficiency ... load balance 0.NNN ..." in `said`, and the
 * serialisation efficiency (-1 when not said), in percent. */
void mpi_efficiency(const char *said, double *balance, double *serialisation)
{
	const char *at = strstr(said, "taskprobe-timeline: MPI efficiency of ranks ");
	const char *lb = at != NULL ? strstr(at, "load balance ") : NULL;
	const char *ser = at != NULL ? strstr(at, "(serialisation efficiency ") : NULL;
	*balance = *serialisation = -1;
	cr_assert(lb != NULL && sscanf(lb, "load balance %lf", balance) == 1, "%s", said);
	*balance *= 100;
	if (ser != NULL) {
		cr_assert_eq(sscanf(ser, "(serialisation efficiency %lf", serialisation), 1, "%s",
			     said);
		*serialisation *= 100;
	}
}

bool mpi_imbalanced(const char *said)
{
	double balance, serialisation;
	mpi_efficiency(said, &balance, &serialisation);
	return balance > 0 && balance < 90;
}

void mpi_useful_times(const char *said, double *least_ms, double *most_ms)
{
	const char *at = strstr(said, "; useful time per rank ");
	*least_ms = *most_ms = -1;
	cr_assert(at != NULL &&
			  sscanf(at, "; useful time per rank %lf to %lf s", least_ms, most_ms) == 2,
		  "%s", said);
	*least_ms *= 1000;
	*most_ms *= 1000;
}

void expect_two_ranks(const char *summary, unsigned down, unsigned back)
{
	expect_ranks(summary, 2);
	cr_expect_eq(flows(summary, 0, 1), down, "%s", summary);
	cr_expect_eq(flows(summary, 1, 0), back, "%s", summary);
}

/* The pipeline's messages of mpi_ranks's two ranks, each once: five down, one back. */
void expect_pipeline_of_two(char *summary)
{
	expect_two_ranks(summary, 5, 1);
	double v[4];
	cr_expect(wait_line(summary, rank_name(1), "MPI_Recv", v) && v[0] == 5, "%s", summary);
	cr_expect(wait_line(summary, rank_name(0), "MPI_Send", v) && v[0] == 5, "%s", summary);
	free(summary);
}
