// SPDX-License-Identifier: MIT
/*
 * The unwinder's two entry points that the shim's cleanups need, forwarded to libgcc_s when an
 * unwind first reaches them, so that the shim needs no libgcc_s of its own.
 *
 * Why: the shim is built with -fexceptions, so that pthread_cleanup_push is a frame cleanup the
 * unwinder runs on cancellation and pthread_exit (a signal handler that longjmps out of a wait
 * leaves no registration behind). Such code calls _Unwind_Resume and names __gcc_personality_v0,
 * which would make libgcc_s a library the shim needs, loaded into every program at start. Its
 * destructor then runs after those of the program's own libraries: after libomp's, which tears
 * the runtime down under OpenMP's threads when exit() comes from a thread it does not know, so
 * the process lived the longer on freed state. On a virtual machine, preloading an empty
 * library that needs libgcc_s took such a program's crashes from 13 to 22 and to 33 in 120 runs
 * (in a quieter hour: 2 in 120 either way).
 *
 * How: an unwind that reaches the shim's frames (a cancellation, pthread_exit: glibc loads
 * libgcc_s for them; an exception of a C++ program, which needs it) runs in libgcc_s, so it is
 * loaded by then; these find it without loading it (RTLD_NOLOAD) and call its own functions.
 * Hidden: the program's own unwinds never come here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

/* The unwinder's types, as unwind.h has them (its declarations would make these exported). */
typedef int reason_code;    /* _Unwind_Reason_Code */
typedef int unwind_action;  /* _Unwind_Action */
typedef uint64_t exc_class; /* _Unwind_Exception_Class */
#define URC_CONTINUE_UNWIND 8

typedef reason_code (*personality_fn)(int, unwind_action, exc_class, void *, void *);
typedef void (*resume_fn)(void *);

/* libgcc_s's own functions, once found (as void *: dlsym's) */
static void *real_personality, *real_resume;

/* libgcc_s's definition of `name`, looked up once into `*found`; NULL while it is not loaded. */
static void *libgcc_s_function(void **found, const char *name)
{
	void *fn = __atomic_load_n(found, __ATOMIC_ACQUIRE);
	if (fn == NULL) {
		void *libgcc_s = dlopen("libgcc_s.so.1", RTLD_LAZY | RTLD_NOLOAD);
		fn = libgcc_s != NULL ? dlsym(libgcc_s, name) : NULL;
		__atomic_store_n(found, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

reason_code __gcc_personality_v0(int version, unwind_action actions, exc_class class,
				 void *exception, void *context);
reason_code __gcc_personality_v0(int version, unwind_action actions, exc_class class,
				 void *exception, void *context)
{
	personality_fn fn = (personality_fn)libgcc_s_function(&real_personality,
							      "__gcc_personality_v0");
	/* an unwinder of the program's own (a static libgcc_eh): the cleanups are left out */
	if (fn == NULL)
		return URC_CONTINUE_UNWIND;
	return fn(version, actions, class, exception, context);
}

/* libgcc_s's _Unwind_Resume, found at the first call. */
__attribute__((used, noinline)) static resume_fn resume_target(void)
{
	resume_fn fn = (resume_fn)libgcc_s_function(&real_resume, "_Unwind_Resume");
	/* a cleanup ran, so the personality above found libgcc_s: it cannot be missing now */
	if (fn == NULL)
		abort();
	return fn;
}

/*
 * _Unwind_Resume goes on unwinding from its caller's frame (a cleanup's end), so the forwarder
 * must be no frame of its own: a jump to libgcc_s's, the stack as it found it. A frame of C
 * would be found by the unwinder, and under ThreadSanitizer it has a cleanup of its own (the
 * function's exit, told to TSan) that calls _Unwind_Resume again, without end.
 */
#if defined(__x86_64__)
__asm__(".pushsection .text\n"
	".globl _Unwind_Resume\n"
	".hidden _Unwind_Resume\n"
	".type _Unwind_Resume, @function\n"
	"_Unwind_Resume:\n"
	"	.cfi_startproc\n"
	"	push %rdi\n" /* the exception, kept; the stack aligned for the call */
	"	.cfi_adjust_cfa_offset 8\n"
	"	call resume_target\n"
	"	pop %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp *%rax\n"
	"	.cfi_endproc\n"
	".size _Unwind_Resume, .-_Unwind_Resume\n"
	".popsection\n");
#else
void _Unwind_Resume(void *exception) __attribute__((noreturn));
void _Unwind_Resume(void *exception)
{
	resume_target()(exception);
	__builtin_unreachable();
}
#endif
