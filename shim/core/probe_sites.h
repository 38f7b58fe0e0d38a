// SPDX-License-Identifier: MIT
/* The shim's probe sites in a forked child (probe_sites.c says why). */
#pragma once

/* In a forked child, from the lifecycle (lifecycle/lifecycle.c): the child's sites made safe. */
void tp_probe_sites_child_after_fork(void);
