// SPDX-License-Identifier: MIT
/* The probes of dtrace/PROBES.md, as the tests expect them in libtaskprobe.so's notes. */
#pragma once

struct tp_contract_probe {
	const char *name; /* the name in the ELF notes */
	int nargs;
	const char *sizes; /* the argument signature: sizes, negative for signed */
};

static const struct tp_contract_probe tp_contract_probes[] = {
	{"task__spawn", 6, "8 8 8 8 8 4"},
	{"task__stack", 4, "8 8 8 4"},
	{"task__wake", 2, "8 8"},
	{"task__poll__start", 1, "8"},
	{"task__poll__end", 5, "8 4 4 8 8"}, /* the sync's site since recording version 7 */
	{"task__terminate", 2, "8 4"},
	{"task__dependence", 2, "8 8"}, /* since recording version 4, as poll-end's sync */
	{"worker__thread__start", 0, ""},
	{"worker__thread__stop", 0, ""},
	{"worker__thread__park", 0, ""},
	{"worker__thread__unpark", 0, ""},
	{"thread__start", 4, "8 8 8 8"},
	{"thread__stop", 1, "8"},
	{"wait__start", 6, "4 8 -8 8 8 8"},
	{"wait__end", 4, "4 8 -8 8"},
	{"wait__stack", 5, "4 8 8 8 4"}, /* since recording version 6 */
	{"task__acquire", 3, "8 4 8"},   /* since recording version 7 */
	{"task__release", 3, "8 4 8"},
	{"region__of__interest", 1, "4"},
	{"mpi__init", 4, "4 4 8 8"}, /* since recording version 8 */
	{"mpi__send", 4, "4 -4 8 8"},
	{"mpi__recv", 4, "4 -4 8 8"},
	{"mpi__collective", 4, "4 -4 8 4"}, /* since recording version 13 */
	{NULL, 0, NULL},
};
