#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Each probe of the provider (taskprobe.d) as a function of the shim's that fires it, and a macro
that calls the function only while the probe's semaphore is raised (a tracer is on it):

    taskprobe_probe_functions.h   tp_probe_NAME(...) declared, TP_PROBE_NAME(...) the call
    taskprobe_probe_functions.c   tp_probe_NAME(...): the probe's one site

So each probe has one site in the library, however many of the shim's events fire it and
wherever the compiler inlines them: a tracer loads a program for each site of a probe it
attaches to (bpftrace about 0.1 s each), and an inlined event no longer adds sites. Every
argument is handed to the probe in a register (TP_IN_REGISTER, shim/events/probes.h).

Usage: probe_functions.py taskprobe.d OUT.h OUT.c
"""
import re
import sys


def probes_of(text):
    """The provider's probes: (name, [(type, argument)]) in the file's order."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    found = []
    for name, args in re.findall(r"\bprobe\s+(\w+)\s*\(([^)]*)\)\s*;", text):
        params = []
        for arg in (a.strip() for a in args.split(",")):
            if not arg:
                continue
            m = re.fullmatch(r"(.*?[\s*])(\w+)", arg)
            if m is None:
                sys.exit(f"probe_functions.py: cannot read argument {arg!r} of {name}")
            params.append((" ".join(m.group(1).split()), m.group(2)))
        found.append((name, params))
    if not found:
        sys.exit("probe_functions.py: no probe in the provider")
    return found


def main():
    source, out_h, out_c = sys.argv[1:4]
    with open(source) as f:
        probes = probes_of(f.read())
    header = [
        "/* Made by dtrace/probe_functions.py from dtrace/taskprobe.d: each probe's one site. */",
        "#pragma once",
        "",
        "#include <stdint.h>",
        "",
    ]
    body = [
        "/* Made by dtrace/probe_functions.py from dtrace/taskprobe.d: each probe's one site. */",
        '#include "probes.h"',
        "",
    ]
    for name, params in probes:
        macro = name.replace("__", "_").upper()
        function = "tp_probe_" + name.replace("__", "_")
        decl = ", ".join(f"{t} {a}" if not t.endswith("*") else f"{t}{a}" for t, a in params)
        header += [
            f"__attribute__((cold, noinline)) void {function}({decl or 'void'});",
            f"#define TP_PROBE_{macro}(...)"
            f" (TASKPROBE_{macro}_ENABLED() ? {function}(__VA_ARGS__) : (void)0)",
        ]
        body += [
            f"void {function}({decl or 'void'})",
            "{",
            f"\tTASKPROBE_{macro}({', '.join(f'TP_IN_REGISTER({a})' for _, a in params)});",
            "\tTP_PROBE_SITE_KEPT();",
            "}",
            "",
        ]
    with open(out_h, "w") as f:
        f.write("\n".join(header) + "\n")
    with open(out_c, "w") as f:
        f.write("\n".join(body))


main()
