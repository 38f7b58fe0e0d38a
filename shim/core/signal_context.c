// SPDX-License-Identifier: MIT
/*
 * Is the calling thread inside a signal handler (signal_context.h)? The shim installs no
 * handler and changes no disposition, so it cannot count handlers as they run. It looks for the
 * handler's signal frame instead, which the kernel leaves on the stack for as long as the
 * handler runs:
 *   - on the signal stack (sigaltstack says SS_ONSTACK): only handlers run there;
 *   - else (x86-64) the thread's stack from here up holds the frame the kernel pushed under the
 *     handler: its first word, the handler's return address, points at a sigreturn trampoline
 *     (mov $15, %rax; syscall: glibc's __restore_rt, or any restorer, recognized by its code as
 *     debuggers do), followed by the interrupted context (ucontext). A word that only looks
 *     like one, or the frame of a handler that returned long ago, is told apart by that
 *     context: the interrupted stack pointer above the frame on the same stack, and the mask
 *     the frame saved, which the kernel puts back when the handler returns: while it runs, the
 *     thread blocks more (the signal itself, unless SA_NODEFER, and the handler's sa_mask).
 *     A stale frame under a mask the program widened since can still pass: the report is then
 *     skipped, which is the safe way to be wrong.
 * The stack's extent and the executable mappings come from /proc/self/maps, and the stack's
 * words and the code they point at from /proc/self/mem, read into fixed buffers. Where those
 * cannot be read, or on another architecture, the answer is the cautious one: a signal the
 * program handles is blocked in this thread (or handled with SA_NODEFER), as while its handler
 * runs.
 */
#define _GNU_SOURCE
#include "signal_context.h"

#include "maps.h"
#include "real_symbol.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * Whether `sig` is as it is while a handler of it runs: the kernel blocks it in the thread for
 * the handler's time, unless the handler was installed with SA_NODEFER.
 */
static bool as_while_handled(int sig, const sigset_t *blocked)
{
	struct sigaction action;
	return sigismember(blocked, sig) == 1 ||
	       (sigaction(sig, NULL, &action) == 0 && (action.sa_flags & SA_NODEFER) != 0);
}

/*
 * The cautious answer, with no frame to go by: some signal the program handles (or handled,
 * with SA_RESETHAND, which puts SIG_DFL back as the handler starts) is as it is while handled.
 */
static bool maybe_in_any_handler(const sigset_t *blocked)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction action;
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &action) != 0)
			continue;
		bool handled = (action.sa_flags & (SA_SIGINFO | SA_RESETHAND)) != 0 ||
			       (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
		if (handled && as_while_handled(sig, blocked))
			return true;
	}
	return false;
}

#if defined(__x86_64__)

#define MAX_CODE_RANGES 2048
#define SCAN_MAX        (1u << 20) /* bytes of the stack looked at, from the caller's frame up */
struct range {
	uintptr_t start, end;
};
/* Filled at exit, by one thread: glibc's exit runs the handlers once, under its lock. */
static struct range code[MAX_CODE_RANGES];
static unsigned n_code;

/* What a reading of the mappings fills: the stack's range if one holds `sp`. */
struct stack_search {
	uintptr_t sp;
	struct range stack;
};

/* One line of /proc/self/maps (tp_maps_line_fn): the stack's range if it holds `sp`, code ranges
 * kept. A line cut short has its range and permissions: the rest is its path. */
static bool map_line(const char *line, bool whole, void *context)
{
	(void)whole;
	struct stack_search *search = context;
	uintptr_t start, end;
	const char *p = tp_maps_range(line, &start, &end);
	if (p == NULL || strlen(p) < 4)
		return false;
	const char *perms = p;
	if (search->sp >= start && search->sp < end && perms[0] == 'r' && perms[1] == 'w')
		search->stack = (struct range){start, end};
	/* the path, after perms, offset, device and inode: none for anonymous memory */
	for (int field = 0; field < 4 && *p != '\0'; field++) {
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	/*
	 * Code of a file or the vDSO: a restorer is libc's (or another library's); anonymous
	 * code (a JIT's, thousands of mappings) would only fill the table.
	 */
	if (perms[0] == 'r' && perms[2] == 'x' && *p != '\0' && n_code < MAX_CODE_RANGES)
		code[n_code++] = (struct range){start, end};
	return false;
}

/* Reads /proc/self/maps: false if it cannot be read, or no readable mapping holds `sp`. */
static bool read_maps(uintptr_t sp, struct range *stack)
{
	struct stack_search search = {.sp = sp};
	n_code = 0;
	bool read = tp_maps_lines(map_line, &search);
	*stack = search.stack;
	return read && stack->end > stack->start;
}

/*
 * The thread's stack and the code it points at are read through /proc/self/mem: what the
 * kernel copies out is never a fault (a code mapping past its file's end would raise SIGBUS),
 * and to memcheck it is written memory, where the stack's padding it scans is not.
 */
static int memory = -1;

static bool read_memory(void *to, uintptr_t from, size_t size)
{
	ssize_t n;
	do
		n = pread(memory, to, size, (off_t)from);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)size;
}

/* Whether `pc` is the start of x86-64 Linux's sigreturn: mov $15, %rax; syscall. */
static bool is_sigreturn(uintptr_t pc)
{
	static const unsigned char sigreturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
						  0x00, 0x00, 0x0f, 0x05};
	/* the code ranges, in the order /proc/self/maps lists them: ascending */
	unsigned low = 0, high = n_code;
	while (low < high) {
		unsigned middle = low + (high - low) / 2;
		if (pc < code[middle].start) {
			high = middle;
		} else if (pc >= code[middle].end) {
			low = middle + 1;
		} else {
			unsigned char at_pc[sizeof sigreturn];
			return pc + sizeof sigreturn <= code[middle].end &&
			       read_memory(at_pc, pc, sizeof at_pc) &&
			       memcmp(at_pc, sigreturn, sizeof sigreturn) == 0;
		}
	}
	return false;
}

/*
 * The kernel's frame under a handler (arch/x86/include/asm/sigframe.h, rt_sigframe): the
 * return address, then the kernel's ucontext: glibc's ucontext_t up to its signal mask, then
 * the kernel's 8-byte mask (the thread's mask before the handler), then the siginfo (written
 * for SA_SIGINFO handlers only: not read here).
 */
#define SAVED_MASK_OFFSET (8 + offsetof(ucontext_t, uc_sigmask))
#define FRAME_SIZE        (SAVED_MASK_OFFSET + 8 + sizeof(siginfo_t))
_Static_assert(offsetof(ucontext_t, uc_sigmask) == 296, "glibc's ucontext_t is the kernel's");

/* Whether some handler of the program's is installed with SA_NODEFER. */
static bool a_handler_defers_nothing(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction action;
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &action) == 0 &&
		    (action.sa_flags & SA_NODEFER) != 0)
			return true;
	}
	return false;
}

/*
 * Whether the words at `at` are the frame of a handler running now. The mask the frame saved is
 * the one the kernel puts back when the handler returns; while it runs, the thread's mask is
 * that one and the signal (unless SA_NODEFER) and the handler's sa_mask: more. A handler that
 * returned long ago left its mask behind: the same as now, unless the program blocked more
 * since.
 */
static bool live_frame(uintptr_t at, const struct range *stack, const sigset_t *blocked)
{
	unsigned char frame[FRAME_SIZE];
	if (!read_memory(frame, at, sizeof frame))
		return false;
	uint64_t interrupted_sp, fpregs, saved, now;
	memcpy(&interrupted_sp, frame + 8 + offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP]), 8);
	memcpy(&fpregs, frame + 8 + offsetof(ucontext_t, uc_mcontext.fpregs), 8);
	memcpy(&saved, frame + SAVED_MASK_OFFSET, 8);
	memcpy(&now, blocked, 8); /* glibc's sigset_t begins with the kernel's */
	if (interrupted_sp < at + FRAME_SIZE || interrupted_sp > stack->end ||
	    (fpregs != 0 && (fpregs < at + FRAME_SIZE || fpregs >= interrupted_sp)))
		return false;
	if ((saved & ~now) != 0)
		return false;
	return saved != now || a_handler_defers_nothing();
}

/* Whether a handler's frame lies in [from, end) of the thread's stack `stack`. */
static bool frame_within(uintptr_t from, uintptr_t end, const struct range *stack,
			 const sigset_t *blocked)
{
	uint64_t words[512];
	for (uintptr_t chunk = from; chunk + FRAME_SIZE <= end; chunk += sizeof words) {
		size_t size = end - chunk < sizeof words ? end - chunk : sizeof words;
		if (!read_memory(words, chunk, size))
			return false;
		for (size_t i = 0; i < size / 8 && chunk + 8 * i + FRAME_SIZE <= end; i++) {
			uintptr_t word = (uintptr_t)words[i];
			/* most words are small numbers or addresses on the stack: not code */
			if (word >= 4096 && (word < stack->start || word >= stack->end) &&
			    is_sigreturn(word) && live_frame(chunk + 8 * i, stack, blocked))
				return true;
		}
	}
	return false;
}

/* Whether a handler's frame lies on this thread's stack above the caller's. */
static bool frame_on_stack(const sigset_t *blocked, bool *known)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	struct range stack;
	*known = read_maps(sp, &stack) && (memory = tp_proc_self_open("mem")) >= 0;
	if (!*known)
		return false;
	/*
	 * A handler's frame lies a few frames above (the handler's, exit's, the exit handlers'):
	 * the scan stops at SCAN_MAX, for a stack inside a large mapping (one the program made).
	 */
	uintptr_t end = stack.end - sp > SCAN_MAX ? sp + SCAN_MAX : stack.end;
	bool found = frame_within(sp & ~(uintptr_t)7, end, &stack, blocked);
	tp_real_close(memory);
	memory = -1;
	return found;
}

#else

static bool frame_on_stack(const sigset_t *blocked, bool *known)
{
	(void)blocked;
	*known = false;
	return false;
}

#endif

bool tp_in_signal_handler(void)
{
	int saved_errno = errno;
	stack_t signal_stack;
	sigset_t blocked;
	bool in, known = false;
	if (sigaltstack(NULL, &signal_stack) == 0 && (signal_stack.ss_flags & SS_ONSTACK) != 0)
		in = true; /* only handlers run on the signal stack */
	else if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0)
		in = true; /* cannot tell: cautious */
	else
		in = frame_on_stack(&blocked, &known) || (!known && maybe_in_any_handler(&blocked));
	errno = saved_errno;
	return in;
}
