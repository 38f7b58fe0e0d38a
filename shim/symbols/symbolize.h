// SPDX-License-Identifier: MIT
/*
 * Naming code addresses for people: "function (file:line)" from DWARF line tables, else
 * function+offset and module from the ELF symbol tables.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Writes "function (file:line)" for the return address `pc` (looked up at pc - 1, the call)
 * when its module has line tables; else "function+0xoffset (module)", or "0xaddress (module)"
 * (as the module's file numbers it: what addr2line reads) when no symbol covers it, or "0xpc"
 * outside every module. Symbols come from the module's .symtab (so static functions of
 * executables are named too), else its .dynsym. Not for hot paths.
 */
void tp_symbolize(uintptr_t pc, char *out, size_t size);

/* A system call filter comes (the shim's): from now on code is named without reading a file
 * (the loader's exported symbols alone), which the filter might refuse by killing the process. */
void tp_symbolize_before_seccomp(void);

/*
 * Names the call that returns to `return_address` for a spawn site: as tp_symbolize, with the
 * module named by its file name alone.
 */
void tp_symbolize_call(uintptr_t return_address, char *out, size_t size);

/*
 * Names the function whose first instruction is at `entry` (a thread's start routine):
 * "function (file:line)" from DWARF line tables when `lines` and its module has them, the line
 * of its entry; else "function (module file name)" from the module's symbols (dladdr's for an
 * exported function, no file read; else its file's .symtab), "function+0xoff (module file
 * name)" when `entry` lies inside a function, "module file name thread" (TP_THREAD_OF_MODULE)
 * when no symbol covers it: an address in a stripped library names nothing a person knows.
 * Outside every module (a JIT's code), "": no name, its thread is shown by its own.
 */
#define TP_THREAD_OF_MODULE "%s thread"
void tp_symbolize_function(uintptr_t entry, bool lines, char *out, size_t size);

/*
 * As tp_symbolize_call (tp_symbolize_function with lines when `function`), for code of module
 * `m`, which this process unloaded (dlclose) and which spanned from `start` (its first page):
 * named from its file alone (of its build id; else by its address in it), never by a module
 * loaded where it lay since.
 */
struct tp_source_module;
void tp_symbolize_unloaded(const struct tp_source_module *m, uintptr_t start, uintptr_t pc,
			   bool function, char *out, size_t size);

/*
 * The function symbol's range [*start, *end) around the code at `address`, from its module's
 * .symtab (local functions included), else .dynsym; false when no sized symbol covers it.
 */
bool tp_function_range(uintptr_t address, uintptr_t *start, uintptr_t *end);

/*
 * As tp_symbolize (tp_symbolize_call with `basename_only`), for the return address `pc` in the
 * module whose file is `path`, loaded at `bias` (its dlpi_addr): a module of another process,
 * whose DWARF tp_source_lines_use_modules has given the session. For the console and the
 * converter, which name what a process keeps as addresses.
 */
void tp_symbolize_in_module(const char *path, uintptr_t bias, uintptr_t pc, bool basename_only,
			    char *out, size_t size);

/*
 * Whether `path`, a module's file as another process names it, is one naming may read: a regular
 * ELF file, not under /proc or /sys, whose build id is `build_id` when `build_id_size` (a file of
 * another build would give wrong names). Its symbols are read once, never mapped (a file cut short
 * meanwhile is not a SIGBUS).
 */
bool tp_module_file_is(const char *path, const uint8_t *build_id, size_t build_id_size);

/* Forgets the files read (a process that reads them as another user from now on). */
void tp_symbolize_forget_files(void);

/*
 * As tp_symbolize_function with lines, for a function of a module of another process (its
 * callers name one outside every module "", as tp_symbolize_function does).
 */
void tp_symbolize_function_in_module(const char *path, uintptr_t bias, uintptr_t entry, char *out,
				     size_t size);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_symbolize_prepare_fork(void); /* no module half read (after the sites' lock) */
void tp_symbolize_after_fork(void);
/*
 * At exit, once what is named before the destructors is named: libdw is unloaded, so that its
 * destructors and its dependencies' run now, while every thread's runtime is in place, and not
 * after a runtime's own (exit_hook.h). Code named later (a wait site first met in a destructor)
 * is named by its symbol, without its source line.
 */
void tp_symbolize_before_destructors(void);
