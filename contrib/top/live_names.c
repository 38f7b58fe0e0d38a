// SPDX-License-Identifier: MIT
/* Names for the code addresses of a process's live statistics (live_names.h). */
#define _GNU_SOURCE
#include "live_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "source_lines.h"
#include "symbolize.h"

/* The modules of the process named last, as its file lists them. */
static struct tp_live_module modules[TP_LIVE_MODULES];
static bool usable[TP_LIVE_MODULES]; /* a file to read (tp_module_file_is): named from */
static unsigned n_modules;
static struct live_id process;

/* What an address named is: a stack frame's or a site's return address, or a function's entry. */
enum name_kind { FRAME, SITE, FUNCTION };

/* Names given, by address: a bounded cache (a name not cached is made again). */
#define NAMES_CACHED 8192
static struct {
	uint64_t pc;
	enum name_kind kind;
	char text[TP_LIVE_SITE_TEXT];
} names[NAMES_CACHED];

static void forget_names(void)
{
	memset(names, 0, sizeof names);
}

/*
 * The namer: for a file of another user than the console's (root's console, a user's program),
 * the modules' paths are that user's to choose, and their files are read as that user, by a
 * child process that became the user, which names on request over a socket. The console waits
 * for each name a bounded time: a namer that hangs (a file that never answers), dies (a file
 * cut short under it) or could not become the user leaves the addresses unnamed, as "0xOFF
 * (module)".
 */
static struct {
	pid_t pid;  /* 0: none */
	int socket; /* the console's end */
	bool lost;  /* no names for this process: addresses */
} namer;

/* How long the console waits for a name: the first of a module reads its DWARF. */
#define NAMER_WAIT_MS 10000

/* A request to the namer: read the table of modules again, or name an address. */
enum namer_op { NAMER_MODULES, NAMER_NAME };
struct namer_request {
	uint32_t op; /* enum namer_op */
	uint32_t kind;
	uint32_t module;
	uint32_t reserved;
	uint64_t pc;
};

/* Whether module `m`'s file may be read to name its addresses (a file of its build id). */
static bool readable_module(const struct tp_live_module *m)
{
	return m->build_id_size <= sizeof m->build_id &&
	       tp_module_file_is(m->path, m->build_id, m->build_id_size);
}

/* Reads the module table of `f` again; whether it has modules not known before. */
static bool read_modules(const struct live_file *f, bool changed)
{
	static struct tp_live_module read_now[TP_LIVE_MODULES];
	ssize_t got = pread(f->fd, read_now, sizeof read_now, (off_t)TP_LIVE_MODULES_OFFSET);
	unsigned whole = got > 0 ? (unsigned)((size_t)got / sizeof read_now[0]) : 0;
	/* entries are published as sites and frames need them: some may be empty between */
	for (unsigned i = 0; i < whole; i++) {
		if (read_now[i].state != TP_LIVE_ENTRY_READY ||
		    modules[i].state == TP_LIVE_ENTRY_READY)
			continue;
		modules[i] = read_now[i];
		modules[i].path[sizeof modules[i].path - 1] = '\0';
		usable[i] = false; /* looked at by use_modules */
		changed = true;
	}
	if (changed)
		n_modules = whole;
	return changed;
}

/* The module whose session leaves out those that lay over it (ALL_MODULES: none left out). */
#define ALL_MODULES UINT32_MAX
static uint32_t session_focus = ALL_MODULES;

/* Whether modules `a` and `b` lay over one another (one unloaded, the other loaded there since). */
static bool overlap(unsigned a, unsigned b)
{
	return a != b && modules[a].state == TP_LIVE_ENTRY_READY &&
	       modules[b].state == TP_LIVE_ENTRY_READY && modules[a].start < modules[b].end &&
	       modules[b].start < modules[a].end;
}

/*
 * Makes the naming session over the table's modules whose files can be read, but those that lay
 * over module `focus` (ALL_MODULES: none): a program that loads its plug-ins in turn where the
 * last one lay has modules whose addresses would be taken for one another's.
 */
static void use_modules(uint32_t focus)
{
	struct tp_source_module session[TP_LIVE_MODULES];
	size_t k = 0;
	session_focus = focus;
	for (unsigned i = 0; i < n_modules; i++) {
		if (modules[i].state != TP_LIVE_ENTRY_READY ||
		    (focus != ALL_MODULES && overlap(i, focus)))
			continue;
		usable[i] = readable_module(&modules[i]);
		if (usable[i])
			session[k++] = (struct tp_source_module){
				.path = modules[i].path,
				.bias = modules[i].bias,
				.build_id = modules[i].build_id,
				.build_id_size = modules[i].build_id_size};
	}
	tp_source_lines_use_modules(session, k);
}

/* The index of the table's module holding `pc`, or n_modules. */
static unsigned module_holding(uint64_t pc)
{
	for (unsigned i = 0; i < n_modules; i++)
		if (modules[i].state == TP_LIVE_ENTRY_READY && pc >= modules[i].start &&
		    pc < modules[i].end)
			return i;
	return n_modules;
}

/* `pc` unnamed: "0xOFF (module)", its offset in module `i`'s file, else "0xPC". */
static void name_by_address(uint64_t pc, unsigned i, enum name_kind kind, char *out, size_t size)
{
	if (i >= n_modules || modules[i].state != TP_LIVE_ENTRY_READY || pc < modules[i].bias) {
		/* a thread's routine outside every module has no name (symbolize.h) */
		if (kind == FUNCTION)
			out[0] = '\0';
		else
			snprintf(out, size, "%#llx", (unsigned long long)pc);
		return;
	}
	const char *path = modules[i].path, *slash = strrchr(path, '/');
	const char *file = kind != FRAME && slash != NULL ? slash + 1 : path;
	if (kind == FUNCTION) /* as a routine no symbol covers is named (symbolize.h) */
		snprintf(out, size, TP_THREAD_OF_MODULE, file);
	else
		snprintf(out, size, "%#llx (%s)", (unsigned long long)(pc - modules[i].bias), file);
}

/* Names `pc` in this process, from the module's file. */
static void name_here(uint64_t pc, uint32_t module, enum name_kind kind, char *out, size_t size)
{
	unsigned i = module < n_modules ? module : module_holding(pc);
	uint32_t focus = ALL_MODULES;
	for (unsigned j = 0; i < n_modules && j < n_modules && focus == ALL_MODULES; j++)
		if (overlap(i, j))
			focus = i;
	if (focus != session_focus)
		use_modules(focus);
	if (i < n_modules && modules[i].state == TP_LIVE_ENTRY_READY && usable[i] &&
	    kind == FUNCTION)
		tp_symbolize_function_in_module(modules[i].path, modules[i].bias, pc, out, size);
	else if (i < n_modules && modules[i].state == TP_LIVE_ENTRY_READY && usable[i])
		tp_symbolize_in_module(modules[i].path, modules[i].bias, pc, kind == SITE, out,
				       size);
	else
		name_by_address(pc, i, kind, out, size);
}

/* Ends the namer (SIGKILL: it may hang in a read); it is reaped if it ends soon. */
static void stop_namer(void)
{
	if (namer.pid <= 0)
		return;
	close(namer.socket);
	kill(namer.pid, SIGKILL);
	/* a process in an uninterruptible read (a network file system) ends when the read does */
	for (int waited = 0; waited < 100; waited++) {
		if (waitpid(namer.pid, NULL, WNOHANG) != 0)
			break;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	namer.pid = 0;
}

/* The namer hung, died, or said something it should not: no more names for this process. */
static void lose_namer(void)
{
	stop_namer();
	namer.lost = true;
}

/* Closes every descriptor but 0, 1, 2, `a` and `b`. */
static void close_all_but(int a, int b)
{
	int low = a < b ? a : b, high = a < b ? b : a;
	if ((low <= 3 || close_range(3, (unsigned)low - 1, 0) == 0) &&
	    (high <= low + 1 || close_range((unsigned)low + 1, (unsigned)high - 1, 0) == 0) &&
	    close_range((unsigned)high + 1, ~0u, 0) == 0)
		return;
	DIR *fds = opendir("/proc/self/fd"); /* a kernel without close_range */
	struct dirent *e;
	while (fds != NULL && (e = readdir(fds)) != NULL) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != a && fd != b && fd != dirfd(fds))
			close(fd);
	}
	if (fds != NULL)
		closedir(fds);
}

/*
 * Becomes user `uid` for good (its groups, its group, itself): false unless every step took and
 * root's rights cannot be taken back.
 */
static bool become(uid_t uid, gid_t gid, const gid_t *groups, int n_groups)
{
	return setgroups((size_t)n_groups, groups) == 0 && setgid(gid) == 0 && setuid(uid) == 0 &&
	       getuid() == uid && geteuid() == uid && getgid() == gid && getegid() == gid &&
	       setuid(0) != 0;
}

/* Receives exactly `len` bytes; false at the end or an error. */
static bool receive_all(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = recv(fd, (char *)buf + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

/* The namer's life: names what the console asks, as the user, until the console goes. */
static _Noreturn void namer_main(const struct live_file *f, int socket)
{
	char text[TP_LIVE_SITE_TEXT];
	struct namer_request r;
	while (receive_all(socket, &r, sizeof r)) {
		if (r.op == NAMER_MODULES) {
			if (read_modules(f, false)) {
				use_modules(ALL_MODULES);
				forget_names();
			}
			continue;
		}
		memset(text, 0, sizeof text);
		name_here(r.pc, r.module, (enum name_kind)r.kind, text, sizeof text);
		if (send(socket, text, sizeof text, MSG_NOSIGNAL) != (ssize_t)sizeof text)
			break;
	}
	_exit(0);
}

/*
 * Starts the namer for `f`, a file of user `owner`: a child that becomes the user (its groups as
 * the user database says; a user it does not know is not named as), with nothing of the
 * console's but the file and its socket (no terminal, no other descriptor, no signal handler,
 * no module file read before).
 */
static void start_namer(const struct live_file *f, uid_t owner)
{
	namer.lost = true; /* until it is started */
	struct passwd *pw = getpwuid(owner);
	static gid_t groups[256];
	int n_groups = sizeof groups / sizeof groups[0];
	if (pw == NULL)
		return;
	gid_t gid = pw->pw_gid;
	if (getgrouplist(pw->pw_name, gid, groups, &n_groups) < 0) {
		groups[0] = gid; /* more than kept: its own group alone (fewer rights, not more) */
		n_groups = 1;
	}
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
		return;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t console = getpid();
	pid_t pid = null >= 0 ? fork() : -1;
	if (pid == 0) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		for (int s = 1; s < NSIG; s++)
			signal(s, SIG_DFL);
		(void)setpgid(0, 0); /* the terminal's keys are the console's */
		/* what the console read as itself is not read again as the user */
		tp_source_lines_use_modules(NULL, 0);
		tp_symbolize_forget_files();
		/* above the standard descriptors, which become /dev/null (a console started
		 * without them has its own there) */
		int socket = fcntl(pair[1], F_DUPFD_CLOEXEC, 3);
		if (socket < 0 || f->fd <= 2 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
		    dup2(null, 2) < 0)
			_exit(1);
		close_all_but(socket, f->fd);
		if (!become(owner, gid, groups, n_groups))
			_exit(1);
		(void)prctl(PR_SET_DUMPABLE, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != console)
			_exit(1);
		namer_main(f, socket);
	}
	close(pair[1]);
	if (null >= 0)
		close(null);
	if (pid < 0) {
		close(pair[0]);
		return;
	}
	namer = (typeof(namer)){.pid = pid, .socket = pair[0]};
}

/* Sends `r` to the namer, and gets its answer in `text` when it names; false if it is lost. */
static bool ask_namer(const struct namer_request *r, char *text, size_t size)
{
	if (send(namer.socket, r, sizeof *r, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof *r) {
		lose_namer();
		return false;
	}
	if (r->op != NAMER_NAME)
		return true;
	char answer[TP_LIVE_SITE_TEXT];
	size_t got = 0;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (got < sizeof answer) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (now.tv_sec - start.tv_sec) * 1000 +
			      (now.tv_nsec - start.tv_nsec) / 1000000;
		struct pollfd p = {.fd = namer.socket, .events = POLLIN};
		int ready = waited < NAMER_WAIT_MS ? poll(&p, 1, (int)(NAMER_WAIT_MS - waited)) : 0;
		if (ready < 0 && errno == EINTR)
			continue;
		ssize_t n = ready > 0 ? recv(namer.socket, answer + got, sizeof answer - got,
					     MSG_DONTWAIT)
				      : 0;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) { /* hung, or gone */
			lose_namer();
			return false;
		}
		got += (size_t)n;
	}
	answer[sizeof answer - 1] = '\0';
	snprintf(text, size, "%s", answer);
	return true;
}

void live_names_modules(const struct live_file *f)
{
	struct live_id id = live_id(f);
	bool another = id.pid != process.pid || id.started_ns != process.started_ns;
	if (another) {
		process = id;
		n_modules = 0;
		memset(modules, 0, sizeof modules);
		memset(usable, 0, sizeof usable);
		forget_names();
		tp_symbolize_forget_files(); /* a path may be another build's now */
		stop_namer();
		namer.lost = false;
		struct stat st;
		if (fstat(f->fd, &st) != 0)
			namer.lost = true;
		else if (st.st_uid != geteuid())
			start_namer(f, st.st_uid);
	}
	if (!read_modules(f, another))
		return;
	forget_names(); /* an address named before may lie in a module known now */
	if (namer.pid > 0)
		(void)ask_namer(&(struct namer_request){.op = NAMER_MODULES}, NULL, 0);
	else if (!namer.lost)
		use_modules(ALL_MODULES);
}

static void name_code(uint64_t pc, uint32_t module, enum name_kind kind, char *out, size_t size)
{
	unsigned slot = tp_hash_slot(pc, 32) % NAMES_CACHED;
	if (names[slot].pc == pc && names[slot].kind == kind) {
		snprintf(out, size, "%s", names[slot].text);
		return;
	}
	char text[TP_LIVE_SITE_TEXT];
	struct namer_request r = {.op = NAMER_NAME, .kind = kind, .module = module, .pc = pc};
	bool named = namer.pid > 0 && ask_namer(&r, text, sizeof text); /* as the file's owner */
	if (!named && namer.pid == 0 && !namer.lost)
		name_here(pc, module, kind, text, sizeof text);
	else if (!named)
		name_by_address(pc, module < n_modules ? module : module_holding(pc), kind, text,
				sizeof text);
	names[slot].pc = pc;
	names[slot].kind = kind;
	snprintf(names[slot].text, sizeof names[slot].text, "%s", text);
	snprintf(out, size, "%s", text);
}

void live_name(uint64_t pc, uint32_t module, bool site, char *out, size_t size)
{
	name_code(pc, module, site ? SITE : FRAME, out, size);
}

void live_name_function(uint64_t entry, uint32_t module, char *out, size_t size)
{
	name_code(entry, module, FUNCTION, out, size);
}
