// SPDX-License-Identifier: MIT
/* The library's probe notes against the contract, and the bytes at every probe site. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "harness.h"

struct note {
	char provider[64], name[64], args[256];
	unsigned long long location, semaphore;
};

/* What `readelf OPTION` prints of the library at `path`, to read (pclose it). */
static FILE *readelf_of(const char *path, const char *option)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "readelf %s '%s'", option, path) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p != NULL);
	return p;
}

/* The stapsdt notes of the library at `path`, as readelf prints them. */
static size_t read_notes_of(const char *path, struct note *notes, size_t max)
{
	FILE *p = readelf_of(path, "-n");
	char line[1024];
	size_t n = 0;
	struct note *cur = NULL;
	while (fgets(line, sizeof line, p) != NULL) {
		char *s = line + strspn(line, " \t");
		s[strcspn(s, "\n")] = '\0';
		if (strncmp(s, "Provider: ", 10) == 0) {
			cr_assert(n < max);
			cur = &notes[n++];
			memset(cur, 0, sizeof *cur);
			snprintf(cur->provider, sizeof cur->provider, "%s", s + 10);
		} else if (cur != NULL && strncmp(s, "Name: ", 6) == 0) {
			snprintf(cur->name, sizeof cur->name, "%s", s + 6);
		} else if (cur != NULL && strncmp(s, "Location: ", 10) == 0) {
			cr_assert(sscanf(s, "Location: %llx, Base: %*x, Semaphore: %llx",
					 &cur->location, &cur->semaphore) == 2,
				  "%s", s);
		} else if (cur != NULL && strncmp(s, "Arguments:", 10) == 0) {
			snprintf(cur->args, sizeof cur->args, "%s", s + 10 + strspn(s + 10, " "));
		}
	}
	pclose(p);
	return n;
}

/* What `readelf OPTION` prints of the shim. */
static FILE *readelf(const char *option)
{
	return readelf_of(tp_shim(), option);
}

/* The stapsdt notes of the shim. */
static size_t read_notes(struct note *notes, size_t max)
{
	return read_notes_of(tp_shim(), notes, max);
}

/* "8@%rdi -4@%esi" -> "8 -4" */
static void sizes_of(const char *args, char *out, size_t size)
{
	out[0] = '\0';
	char *copy = strdup(args), *save = NULL;
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(out);
		snprintf(out + len, size - len, "%s%.*s", len ? " " : "", (int)strcspn(tok, "@"),
			 tok);
	}
	free(copy);
}

Test(elf, every_contract_probe_is_in_the_notes_once_with_a_semaphore_and_its_signature)
{
	static struct note notes[256];
	size_t n = read_notes(notes, 256);
	cr_assert_gt(n, 0, "no stapsdt notes in %s", tp_shim());

	for (size_t i = 0; i < n; i++) {
		cr_expect_str_eq(notes[i].provider, "taskprobe");
		bool known = false;
		for (const struct tp_contract_probe *p = tp_contract_probes; p->name; p++)
			known |= strcmp(p->name, notes[i].name) == 0;
		cr_expect(known, "probe %s is not in the contract", notes[i].name);
	}
	for (const struct tp_contract_probe *p = tp_contract_probes; p->name; p++) {
		size_t sites = 0;
		unsigned long long semaphore = 0;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(notes[i].name, p->name) != 0)
				continue;
			sites++;
			char sizes[128];
			sizes_of(notes[i].args, sizes, sizeof sizes);
			cr_expect_str_eq(sizes, p->sizes, "%s arguments %s", p->name,
					 notes[i].args);
			cr_expect_neq(notes[i].semaphore, 0, "%s has no semaphore", p->name);
			if (semaphore == 0)
				semaphore = notes[i].semaphore;
			cr_expect_eq(notes[i].semaphore, semaphore,
				     "%s sites disagree on the semaphore", p->name);
		}
		cr_expect_gt(sites, 0, "probe %s is missing from the notes", p->name);
		/* its one function's (shim/events/probes.h): a tracer attaches a program to each
		 * site, and an event inlined into its callers must not add sites */
		cr_expect_leq(sites, 1, "probe %s has %zu sites", p->name, sites);
	}
}

/* The whole file at `path` (the caller frees), its size in *size. */
static unsigned char *file_of(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f != NULL, "%s", path);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	rewind(f);
	unsigned char *elf = malloc(*size);
	cr_assert(elf != NULL && fread(elf, 1, *size, f) == *size, "%s", path);
	fclose(f);
	return elf;
}

/* The file bytes at virtual address `vaddr` of the ELF image `elf`. */
static const unsigned char *bytes_at(const unsigned char *elf, size_t size,
				     unsigned long long vaddr)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff +
							    (size_t)i * eh->e_phentsize);
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr + 5 <= ph->p_vaddr + ph->p_filesz &&
		    ph->p_offset + (vaddr - ph->p_vaddr) + 5 <= size)
			return elf + ph->p_offset + (vaddr - ph->p_vaddr);
	}
	return NULL;
}

Test(elf, every_probe_site_is_the_optimizable_five_byte_nop)
{
#if !defined(__x86_64__)
	cr_skip_test("the 5-byte nop is used on x86-64 only");
#endif
	static struct note notes[256];
	size_t n = read_notes(notes, 256);
	size_t size;
	unsigned char *elf = file_of(tp_shim(), &size);

	static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	for (size_t i = 0; i < n; i++) {
		const unsigned char *at = bytes_at(elf, size, notes[i].location);
		cr_assert(at != NULL, "%s at %#llx is in no loaded segment", notes[i].name,
			  notes[i].location);
		cr_expect(memcmp(at, nop5, 5) == 0,
			  "%s at %#llx: %02x %02x %02x %02x %02x, not nopl 0x0(%%rax,%%rax,1)",
			  notes[i].name, notes[i].location, at[0], at[1], at[2], at[3], at[4]);
	}
	free(elf);
}

Test(elf, every_probe_argument_is_a_register_or_memory_operand_perf_can_define)
{
	/* perf 6.1 drops constant ($1) arguments, and then refuses a probe whose sites differ;
	 * %fs-relative (TLS) operands are not read by every tracer either */
	struct note notes[128];
	size_t n = read_notes(notes, 128);
	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		cr_expect(strstr(notes[i].args, "@$") == NULL, "%s at %#llx: %s", notes[i].name,
			  notes[i].location, notes[i].args);
		cr_expect(strstr(notes[i].args, "%fs") == NULL, "%s at %#llx: %s", notes[i].name,
			  notes[i].location, notes[i].args);
	}
}

/*
 * The shim needs no library but the C library and the loader (and, when sanitized, the
 * sanitizer's runtime): a library it needed would be loaded into every program, and its
 * destructor would run after those of the program's own libraries, where a runtime torn down
 * under its threads (libomp's, at an exit() from a thread it does not know) lets them run on
 * freed state until the process ends (core/unwinder.c: libgcc_s was one).
 */
Test(elf, the_shim_needs_no_library_but_the_c_library_and_the_loader)
{
	FILE *p = readelf("-d");
	char line[1024];
	int needed = 0;
	while (fgets(line, sizeof line, p) != NULL) {
		const char *name = strstr(line, "(NEEDED)");
		if (name == NULL || (name = strchr(name, '[')) == NULL)
			continue;
		needed++;
		name++;
		static const char *const allowed[] = {"libc.so.", "ld-linux", "libasan.so.",
						      "libubsan.so.", "libtsan.so."};
		bool known = false;
		for (size_t k = 0; k < sizeof allowed / sizeof *allowed; k++)
			known |= strncmp(name, allowed[k], strlen(allowed[k])) == 0;
		cr_expect(known, "the shim needs %.*s", (int)strcspn(name, "]"), name);
	}
	cr_expect_eq(pclose(p), 0, "readelf -d ran");
	cr_expect_geq(needed, 1, "readelf listed the shim's needed libraries");
}

/*
 * The section tp_probe_sites of the ELF image `elf` (the addresses probe_sites.c turns back into
 * breakpoints in a forked child): its entries, their count in *n; NULL when it has none.
 */
static const uint64_t *probe_sites_of(const unsigned char *elf, size_t size, size_t *n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	cr_assert(size >= sizeof *eh &&
		  eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size &&
		  eh->e_shstrndx < eh->e_shnum);
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
	const char *names = (const char *)elf + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + sh[i].sh_name, "tp_probe_sites") != 0)
			continue;
		cr_assert(sh[i].sh_offset + sh[i].sh_size <= size);
		*n = sh[i].sh_size / sizeof(uint64_t);
		return (const uint64_t *)(elf + sh[i].sh_offset);
	}
	*n = 0;
	return NULL;
}

/*
 * The library at `path` keeps every probe site in tp_probe_sites, and nothing else: a forked
 * child of a traced program must not jump through an optimized site (probe_sites.c), so each
 * note's site is there, once.
 */
static void probe_sites_are_the_notes(const char *path)
{
#if !defined(__x86_64__)
	cr_skip_test("the sites are kept on x86-64 only");
#endif
	static struct note notes[256];
	size_t n = read_notes_of(path, notes, 256), size, kept;
	cr_assert_gt(n, 0, "no stapsdt notes in %s", path);
	unsigned char *elf = file_of(path, &size);
	const uint64_t *sites = probe_sites_of(elf, size, &kept);
	cr_expect_eq(kept, n, "%s: %zu sites kept for %zu probe notes", path, kept, n);
	for (size_t i = 0; i < n; i++) {
		size_t times = 0;
		for (size_t k = 0; k < kept; k++)
			times += sites[k] == notes[i].location;
		cr_expect_eq(times, 1, "%s: %s's site %#llx kept %zu times", path, notes[i].name,
			     notes[i].location, times);
	}
	free(elf);
}

Test(elf, every_probe_site_is_kept_for_a_forked_child)
{
	probe_sites_are_the_notes(tp_shim());
}

/*
 * A package's build: the default flags of Ubuntu's packages (Debian's are a subset), link-time
 * optimization and _FORTIFY_SOURCE among them. The shim builds so, keeps its probes' one site each
 * and their sites' list, and runs: a `.macro` the probes used, emitted in every unit, stopped the
 * link-time optimized build (defined twice in one partition, missing from another); then a
 * semaphore named only in assembly was left undefined at its link (the shim is now built without
 * it, shim/meson.build); and _FORTIFY_SOURCE declared longjmp and its relatives as one symbol.
 */
Test(elf, a_build_with_distributions_default_flags_keeps_every_probe_and_runs, .timeout = 300)
{
	TP_NOT_UNDER(TP_ASAN | TP_TSAN, "a build of its own, the same in every pass");
	char dir[] = "/tmp/taskprobe-flags-XXXXXX";
	cr_assert(mkdtemp(dir) != NULL);
	char *cmd;
	cr_assert(asprintf(&cmd,
			   "CFLAGS='-g -O2 -flto=auto -ffat-lto-objects -fstack-protector-strong"
			   " -Wformat -Werror=format-security -D_FORTIFY_SOURCE=3 -fcf-protection"
			   " -fstack-clash-protection' LDFLAGS='-Wl,-Bsymbolic-functions -flto=auto"
			   " -ffat-lto-objects -Wl,-z,relro -Wl,-z,now' meson setup '%1$s/build' "
			   "'%2$s'"
			   " -Dtests=disabled > '%1$s/log' 2>&1 && ninja -C '%1$s/build'"
			   " shim/libtaskprobe.so shim/libtaskprobe-audit.so"
			   " shim/libtaskprobe-gomp-bridge.so >> '%1$s/log' 2>&1",
			   dir, TP_SCRIPTS_DIR "/..") > 0);
	int status = system(cmd);
	free(cmd);
	char *log_path, *lib;
	cr_assert(asprintf(&log_path, "%s/log", dir) > 0);
	cr_assert(asprintf(&lib, "%s/build/shim/libtaskprobe.so", dir) > 0);
	char *log = tp_read_file(log_path, NULL);
	size_t len = log != NULL ? strlen(log) : 0;
	char *rm;
	cr_assert(asprintf(&rm, "rm -rf '%s'", dir) > 0);
	if (status != 0) /* nothing left behind */
		cr_expect_eq(system(rm), 0);
	cr_assert_eq(status, 0, "the build with a package's flags failed:\n%s",
		     log != NULL ? log + (len > 4000 ? len - 4000 : 0) : "(no log)");
	static struct note notes[256];
	size_t n = read_notes_of(lib, notes, 256);
	size_t probes = 0;
	for (const struct tp_contract_probe *p = tp_contract_probes; p->name; p++)
		probes++;
	cr_expect_eq(n, probes, "%zu probe sites for the contract's %zu probes", n, probes);
	probe_sites_are_the_notes(lib);
	/* it runs: an OpenMP program's exit report, the program's output its own */
	cr_assert(asprintf(&cmd,
			   "OMP_NUM_THREADS=2 TASKPROBE_REPORT=stderr LD_PRELOAD='%s' '%s' 12 2> "
			   "'%s/report'",
			   lib, tp_require_program(tp_target("omp_fib"), "clang and libomp-dev"),
			   dir) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p != NULL);
	char out[256] = "";
	size_t got = fread(out, 1, sizeof out - 1, p);
	out[got] = '\0';
	int ran = pclose(p);
	char *report_path, *report;
	cr_assert(asprintf(&report_path, "%s/report", dir) > 0);
	report = tp_read_file(report_path, NULL);
	cr_expect_eq(ran, 0, "the program's status under that shim: %d\n%s", ran,
		     report != NULL ? report : "");
	cr_expect(strstr(out, "144") != NULL, "fib(12)'s output: %s", out);
	cr_expect(report != NULL && strstr(report, "the task graph") != NULL, "no exit report:\n%s",
		  report != NULL ? report : "(none)");
	cr_expect_eq(system(rm), 0);
	free(report);
	free(report_path);
	free(rm);
	free(log);
	free(log_path);
	free(lib);
}
