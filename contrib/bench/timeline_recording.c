// SPDX-License-Identifier: MIT
/*
 * Writes a synthetic recording (dtrace/taskprobe_recording.h) to stdout, for the timeline
 * converter's memory and speed on inputs larger than a test program records:
 *   timeline_recording spawns N    N tasks spawned by one thread that never end (N spawn
 *                                  records of 40 bytes, in chunks of 256 KiB as the shim writes)
 *   timeline_recording threads N   N chunks of one poll-start record, each of another thread
 *   timeline_recording segments N  N segment headers and nothing else (a process that exec'ed
 *                                  itself N times, or a hostile file)
 *   timeline_recording stacks N    N task stacks of 255 return addresses (2 KiB a record: bytes,
 *                                  few events)
 *   timeline_recording sites N     N sites' texts of 255 bytes each, all different, then a spawn
 *                                  of each site (a recording of version 4's kind)
 *   timeline_recording ranks N [M] N processes, each an MPI rank of one job of N (its mpi-init,
 *                                  MPI_Init's and MPI_Finalize's waits) that sends M messages
 *                                  (default 8) to the next rank and receives M from the one
 *                                  before, each round ending in an MPI_Allreduce
 *   timeline_recording modules S N [PATH_BYTES]
 *                                  S segments of N module records each (numbers 1 to N), their
 *                                  paths PATH_BYTES long (default 0), each segment's different
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskprobe_contract.h"
#include "taskprobe_recording.h"

#define CHUNK_BYTES (256u << 10)

static unsigned char chunk[CHUNK_BYTES];
static uint32_t used, records, tid;
static uint64_t now = 1000000; /* ns, CLOCK_MONOTONIC */

static void flush(void)
{
	if (records == 0)
		return;
	struct tp_recording_chunk h = {.magic = TP_CHUNK_MAGIC,
				       .size = used,
				       .tid = tid,
				       .records = records,
				       .base_time = 0,
				       .clock_time = now,
				       .ns = now};
	strcpy(h.comm, "synthetic");
	memcpy(chunk, &h, sizeof h);
	fwrite(chunk, 1, used, stdout);
	used = records = 0;
}

/* A segment header of process `pid`: the records after it are its image's. */
static void header_of(uint32_t pid)
{
	flush();
	struct tp_recording_header h = {.version = TP_RECORDING_VERSION,
					.header_size = sizeof h,
					.pid = pid,
					.clock = TP_CLOCK_MONOTONIC,
					.clock_time = now,
					.ns = now,
					.start_ticks = 1,
					.pid_namespace = 1};
	memcpy(h.magic, TP_RECORDING_MAGIC, 8);
	strcpy(h.comm, "synthetic");
	fwrite(&h, 1, sizeof h, stdout);
}

/* A segment header of the one process. */
static void header(void)
{
	header_of(4242);
}

/* A record of `type` with `n` arguments on thread `thread`, at the next nanosecond. */
static void record(uint32_t thread, unsigned type, unsigned small, unsigned n, const uint64_t *arg)
{
	if (thread != tid || used + 8 * (1 + n) > CHUNK_BYTES)
		flush();
	tid = thread;
	if (used == 0)
		used = sizeof(struct tp_recording_chunk);
	uint64_t word = tp_record_word(type, 1 + n, small, now++);
	memcpy(chunk + used, &word, 8);
	memcpy(chunk + used + 8, arg, 8 * n);
	used += 8 * (1 + n);
	records++;
}

/* Module `number` of segment `segment`, its path `path_bytes` long (at most
 * TP_RECORD_MODULE_PATH_MAX). */
static void module(unsigned segment, unsigned number, unsigned path_bytes)
{
	uint64_t args[(sizeof(struct tp_record_module) + TP_RECORD_MODULE_PATH_MAX + 7) / 8] = {0};
	struct tp_record_module m = {.number = number,
				     .bias = 0x400000,
				     .start = 0x400000,
				     .end = 0x500000,
				     .path_bytes = path_bytes};
	memcpy(args, &m, sizeof m);
	char *path = (char *)args + sizeof m;
	memset(path, 'x', path_bytes);
	char tail[32];
	int n = snprintf(tail, sizeof tail, "/%u/%u.so", segment, number);
	if (path_bytes >= (unsigned)n)
		memcpy(path + path_bytes - (unsigned)n, tail, (size_t)n);
	record(4242, TP_RECORD_MODULE, 0, (unsigned)(sizeof m + path_bytes + 7) / 8, args);
}

/* An MPI wait (kind mpi) of call `call` on thread `thread`: its start and end. */
static void mpi_wait(uint32_t thread, uint64_t call)
{
	uint64_t start[4] = {call, (uint64_t)-1, 0, 0}, end[3] = {call, 0, 0};
	record(thread, TP_RECORD_WAIT_START, TP_WAIT_MPI, 4, start);
	record(thread, TP_RECORD_WAIT_END, TP_WAIT_MPI, 3, end);
}

/* Rank `rank` of `size`: its own process (pid 1000 + rank) and thread. */
static void rank(unsigned long long rank, unsigned long long size, unsigned long rounds)
{
	uint32_t pid = (uint32_t)(1000 + rank);
	header_of(pid);
	mpi_wait(pid, TP_MPI_CALL_INIT);
	uint64_t init[4 + 3] = {rank, size, now, now};
	char *text = (char *)&init[4];
	int host = snprintf(text, 8, "h%llu", rank % 16);
	memcpy(text + host + 1, "job", 4);
	record(pid, TP_RECORD_MPI_INIT, (unsigned)host + 5, 4 + 3, init);
	for (unsigned long i = 0; i < rounds; i++) {
		uint64_t to[4] = {(rank + 1) % size, 5, 0x44000000, 4},
			 from[4] = {(rank + size - 1) % size, 5, 0x44000000, 4};
		record(pid, TP_RECORD_MPI_SEND, 0, 4, to);
		mpi_wait(pid, TP_MPI_CALL_SEND);
		record(pid, TP_RECORD_MPI_RECV, 0, 4, from);
		mpi_wait(pid, TP_MPI_CALL_RECV);
		mpi_wait(pid, TP_MPI_CALL_ALLREDUCE);
	}
	mpi_wait(pid, TP_MPI_CALL_FINALIZE);
}

int main(int argc, char **argv)
{
	bool modules = argc >= 4 && argc <= 5 && strcmp(argv[1], "modules") == 0;
	bool ranks = argc == 4 && strcmp(argv[1], "ranks") == 0;
	if (argc != 3 && !modules && !ranks) {
		fputs("usage: timeline_recording spawns|threads|segments|stacks|sites|ranks N > "
		      "recording\n"
		      "       timeline_recording modules SEGMENTS N [PATH_BYTES] > recording\n"
		      "       timeline_recording ranks N [MESSAGES] > recording\n",
		      stderr);
		return 2;
	}
	unsigned long long count = strtoull(argv[2], NULL, 10);
	if (strcmp(argv[1], "ranks") == 0) {
		unsigned long rounds = argc == 4 ? strtoul(argv[3], NULL, 10) : 8;
		for (unsigned long long i = 0; i < count; i++)
			rank(i, count, rounds);
		flush();
		return ferror(stdout) ? 1 : 0;
	}
	if (strcmp(argv[1], "segments") == 0) {
		for (unsigned long long i = 0; i < count; i++)
			header();
		return ferror(stdout) ? 1 : 0;
	}
	if (modules) {
		unsigned long per_segment = strtoul(argv[3], NULL, 10);
		unsigned long path_bytes = argc == 5 ? strtoul(argv[4], NULL, 10) : 0;
		if (per_segment > TP_RECORD_MODULES_MAX || path_bytes > TP_RECORD_MODULE_PATH_MAX) {
			fputs("timeline_recording: at most 65535 modules of paths of 1023 bytes\n",
			      stderr);
			return 2;
		}
		for (unsigned long long i = 0; i < count; i++) {
			header();
			for (unsigned long j = 1; j <= per_segment; j++)
				module((unsigned)i, (unsigned)j, (unsigned)path_bytes);
		}
		flush();
		return ferror(stdout) ? 1 : 0;
	}
	header();
	/* one site, its text */
	uint64_t site[3] = {7};
	memcpy(&site[1], "spawn (s.c:1)", 13);
	record(4242, TP_RECORD_SITE, 13, 3, site);
	for (unsigned long long i = 1; i <= count; i++) {
		if (strcmp(argv[1], "spawns") == 0) {
			uint64_t a[4] = {i, 0, 7, 0};
			record(4242, TP_RECORD_TASK_SPAWN, 1, 4, a);
		} else if (strcmp(argv[1], "stacks") == 0) {
			uint64_t stack[2 + 255] = {i, i};
			for (unsigned k = 2; k < 2 + 255; k++)
				stack[k] = 0x400000 + k;
			record(4242, TP_RECORD_TASK_STACK, 255, 2 + 255, stack);
		} else if (strcmp(argv[1], "sites") == 0) {
			uint64_t text[1 + 32] = {i};
			int n = snprintf((char *)&text[1], 256, "%0255llu", i);
			record(4242, TP_RECORD_SITE, (unsigned)n, 1 + 32, text);
		} else if (strcmp(argv[1], "threads") == 0) {
			uint64_t a[1] = {i};
			record((uint32_t)(100000 + i), TP_RECORD_TASK_POLL_START, 0, 1, a);
			flush();
		}
	}
	for (unsigned long long i = 1; strcmp(argv[1], "sites") == 0 && i <= count; i++) {
		uint64_t a[4] = {i, 0, i, 0};
		record(4242, TP_RECORD_TASK_SPAWN, 1, 4, a);
	}
	flush();
	return ferror(stdout) ? 1 : 0;
}
