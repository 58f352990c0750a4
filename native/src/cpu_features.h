/* cpu_features.h — which instruction-set path this CPU (and OS) can run, and the RILLET_ISA override. */
#ifndef RILLET_CPU_FEATURES_H
#define RILLET_CPU_FEATURES_H

#include "isa.h"

/* The best path the CPU and the OS support (x86: cpuid and XGETBV for the saved register state). */
rl_isa rl_detect_isa(void);
/* 1 when this CPU can run `isa` (the scalar path always). */
int rl_isa_supported(rl_isa isa);
/* "scalar", "avx2", ...; NULL for a value outside the enum. */
const char *rl_isa_name(rl_isa isa);
/* Parses a RILLET_ISA value ("ref" and "scalar" both name the scalar path); -1 when unknown. */
int rl_isa_parse(const char *name);

#endif
