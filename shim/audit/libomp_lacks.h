// SPDX-License-Identifier: MIT
/*
 * What the audit module says libomp lacks, for the shim to read in the module's namespace: the
 * exported array's name and size, one place for the module that fills it (libomp_audit.c) and the
 * shim that reads it (symbols/openmp_runtimes.c). Definitions only: neither calls the other.
 */
#pragma once

#define TP_LIBOMP_LACKS_SYMBOL        taskprobe_libomp_lacks
#define TP_LIBOMP_LACKS_SIZE          200
#define TP_LIBOMP_LACKS_TEXT_OF(name) #name
#define TP_LIBOMP_LACKS_TEXT(name)    TP_LIBOMP_LACKS_TEXT_OF(name)
/* the symbol's name, as a string */
#define TP_LIBOMP_LACKS_NAME TP_LIBOMP_LACKS_TEXT(TP_LIBOMP_LACKS_SYMBOL)
