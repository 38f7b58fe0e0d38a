// SPDX-License-Identifier: MIT
/*
 * The in-process recorder's records that are no event of a thread's (recorder_private.h): a
 * site's code and its module, once per process image; stacks; MPI's init.
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include "in_process_consumers.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "settings.h"
#include "shim_work.h"

/* Whether a site key's code, and a module, are in the file (the process image's, once each;
 * recorder_private.h). */
uint8_t site_recorded[TP_SITE_ADDRESSES_MAX + 1]; /* by site key */
uint8_t module_recorded[TP_CODE_MODULES_MAX];     /* by module index */
/* A claimed site's module number (code_map.h's index + 1, 0 for none), for the recording's end. */
static uint16_t site_module[TP_SITE_ADDRESSES_MAX + 1];

/* Module `index` (code_map.h)'s record: where it lay and which file it was (its path and build
 * id), for the converter to read. False when it could not be written. */
static bool write_module(uint32_t index)
{
	const struct tp_code_module *m = tp_code_module(index);
	size_t path_bytes = strnlen(m->path, sizeof m->path - 1), path_words = (path_bytes + 7) / 8;
	struct tp_record_module fixed = {.number = index + 1,
					 .bias = m->bias,
					 .start = m->start,
					 .end = m->end,
					 .build_id_bytes = m->build_id_size,
					 .path_bytes = (uint32_t)path_bytes};
	memcpy(fixed.build_id, m->build_id, m->build_id_size);
	const unsigned fixed_words = sizeof fixed / 8;
	struct tp_record *r = record_begin(TP_RECORD_MODULE, 0,
					   1 + fixed_words + (unsigned)path_words);
	if (r == NULL)
		return false;
	memcpy(r->arg, &fixed, sizeof fixed);
	if (path_words > 0)
		r->arg[fixed_words + path_words - 1] = 0; /* the path's last word, padded */
	memcpy(&r->arg[fixed_words], m->path, path_bytes);
	record_done(r);
	return true;
}

/* Site key `site`'s code record: its address, kind and module number. */
static bool write_site_code(uint32_t site, enum tp_site_code_kind kind, uint32_t module)
{
	struct tp_record *r = record_begin(TP_RECORD_SITE_CODE, kind, 4);
	if (r == NULL)
		return false;
	r->arg[0] = site;
	r->arg[1] = tp_spawn_site_key_address(site);
	r->arg[2] = module;
	record_done(r);
	return true;
}

/*
 * A record of `*state`'s thing (a site's code, a module) claimed (as `as`) by the calling
 * thread when none is: false when it is, or being written, by another.
 */
static bool claim(uint8_t *state, uint8_t as)
{
	return __atomic_load_n(state, __ATOMIC_RELAXED) == 0 &&
	       __atomic_exchange_n(state, as, __ATOMIC_ACQ_REL) == 0;
}

/* The claimed record of `*state` written (`written`) or not (the next event tries again). */
static void claim_ended(uint8_t *state, bool written)
{
	__atomic_store_n(state, written ? CODE_WRITTEN : 0, __ATOMIC_RELEASE);
}

/* Module `index` into the file, once per process image. False when it could not be. */
static bool record_module(uint32_t index)
{
	if (!claim(&module_recorded[index], CODE_CLAIMED))
		return true;
	bool written = write_module(index);
	claim_ended(&module_recorded[index], written);
	return written;
}

bool site_code_claim(uint32_t site, enum tp_site_code_kind kind, uint32_t *module)
{
	uintptr_t address = tp_spawn_site_key_address(site);
	if (address == 0 || __atomic_load_n(&site_recorded[site], __ATOMIC_RELAXED) != 0)
		return false;
	/*
	 * a call's module: its return address may be the first byte past the module's code. As
	 * the shim's work: a signal handler's wait meanwhile looks up no module (this thread may
	 * hold the modules' lock). Before the claim, so that the recording's end need look up
	 * none (threads racing here store the same number).
	 */
	bool nested = tp_shim_work_begin();
	*module = tp_code_module_of(kind == TP_SITE_CODE_CALL ? address - 1 : address);
	tp_shim_work_end(nested);
	__atomic_store_n(&site_module[site], (uint16_t)*module, __ATOMIC_RELAXED);
	return claim(&site_recorded[site], (uint8_t)(CODE_CLAIMED | kind << CODE_KIND_SHIFT));
}

/*
 * The code of site key `site` into the file, once per process image, the first time an event
 * has it: its address and kind, after its module's record. Nothing is named here (no file or
 * debug information is read in the program's threads): the converter names the address from
 * the module's file. The recording's site ids are keys, one per address (the converter shows
 * keys of one name as one site).
 */
__attribute__((noinline, cold)) void record_new_site_code(uint32_t site,
							  enum tp_site_code_kind kind)
{
	uint32_t module;
	if (!site_code_claim(site, kind, &module))
		return;
	bool written = (module == 0 || record_module(module - 1)) &&
		       write_site_code(site, kind, module);
	claim_ended(&site_recorded[site], written);
}

/*
 * Another thread may have claimed a record and be preempted before it is whole (or never run
 * again: the process is ending). An event naming its site may be in the file already, written
 * whole by another thread: so the claimed records are written here as well. A record that is
 * then also finished by its claimer lands twice; the converter keeps the first.
 */
void record_claimed_codes(void)
{
	/* not from a signal handler that interrupted the recorder on this thread, nor by a thread
	 * whose recording ended (the last one after main's pthread_exit): it records nothing */
	if (mine.busy || mine.stopped)
		return;
	for (uint32_t i = 0; i < TP_CODE_MODULES_MAX; i++)
		if (__atomic_load_n(&module_recorded[i], __ATOMIC_ACQUIRE) == CODE_CLAIMED)
			write_module(i);
	for (uint32_t site = 1; site <= TP_SITE_ADDRESSES_MAX; site++) {
		uint8_t state = __atomic_load_n(&site_recorded[site], __ATOMIC_ACQUIRE);
		if (!(state & CODE_CLAIMED))
			continue;
		/* its module's record too, if the claimer had not come to it */
		uint32_t module = __atomic_load_n(&site_module[site], __ATOMIC_RELAXED);
		if (module == 0 || record_module(module - 1))
			write_site_code(site, (enum tp_site_code_kind)(state >> CODE_KIND_SHIFT),
					module);
	}
}

void tp_record_mpi_init(uint32_t rank, uint32_t size, const char *host, const char *job)
{
	char text[TP_RECORD_SMALL_MAX];
	size_t host_bytes = strnlen(host, 64), job_bytes = strnlen(job, 128);
	memcpy(text, host, host_bytes);
	text[host_bytes] = '\0';
	memcpy(text + host_bytes + 1, job, job_bytes);
	text[host_bytes + 1 + job_bytes] = '\0';
	unsigned bytes = (unsigned)(host_bytes + job_bytes + 2), words = (bytes + 7) / 8;
	/* the system clock with the monotonic one, read together: ranks of one host agree on it */
	struct timespec real, monotonic;
	int saved_errno = errno;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &monotonic);
	errno = saved_errno;
	struct tp_record *r = record_begin(TP_RECORD_MPI_INIT, bytes, 5 + words);
	if (r == NULL)
		return;
	r->arg[0] = rank;
	r->arg[1] = size;
	r->arg[2] = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec;
	r->arg[3] = (uint64_t)monotonic.tv_sec * 1000000000u + (uint64_t)monotonic.tv_nsec;
	r->arg[4 + words - 1] = 0; /* the text's last word, padded */
	memcpy(&r->arg[4], text, bytes);
	record_done(r);
}

/* A stack's record: `n_fixed` arguments, then its return addresses (their number in `small`). */
static void record_stack(enum tp_record_type type, const uint64_t *fixed, unsigned n_fixed,
			 const uintptr_t *pcs, uint32_t depth)
{
	if (depth > TP_STACK_DEPTH_MAX)
		depth = TP_STACK_DEPTH_MAX;
	struct tp_record *r = record_begin(type, depth, 1 + n_fixed + depth);
	if (r == NULL)
		return;
	for (unsigned i = 0; i < n_fixed; i++)
		r->arg[i] = fixed[i];
	for (uint32_t i = 0; i < depth; i++)
		r->arg[n_fixed + i] = pcs[i];
	record_done(r);
}

void tp_record_task_stack(uint64_t task, uint64_t stack_id, const uintptr_t *pcs, uint32_t depth)
{
	const uint64_t fixed[] = {task, stack_id};
	record_stack(TP_RECORD_TASK_STACK, fixed, 2, pcs, depth);
}

void tp_record_wait_stack(uint32_t kind, uintptr_t object, uint64_t stack_id, const uintptr_t *pcs,
			  uint32_t depth)
{
	/* only when asked: not the stacks taken for another (the live statistics' samples) */
	if (!tp_record_wants_stacks())
		return;
	const uint64_t fixed[] = {kind, object, stack_id};
	record_stack(TP_RECORD_WAIT_STACK, fixed, 3, pcs, depth);
}
