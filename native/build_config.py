"""The one build description of librillet: its C sources and each instruction-set file's compiler flags.

A kernel's file name ends in its path (`f32_gemm_6x16__avx2.c`); files without a path suffix (and
`__scalar` ones) build with the baseline flags. The cffi build (build_ffi.py), the kernel tests and the
cross builds all read this module, so the source list and the flags live nowhere else.
"""

from __future__ import annotations

import glob
import os
import platform
import subprocess
import sys

NATIVE_DIR = os.path.dirname(os.path.abspath(__file__))
FOLDERS = ("src", "ops", "kernels")
INCLUDE_DIRS = [os.path.join(NATIVE_DIR, d) for d in ("include", "src", "kernels")]
# The tests, the sanitizer and fuzzing builds and the cross builds compile with -Werror (and
# tests/native/test_librillet.py adds -pedantic): a warning fails CI. The library a user's `pip install`
# compiles does not: a newer or different compiler than CI's finds new warnings (the GPU box's gcc, with
# _FORTIFY_SOURCE, flagged a maybe-uninitialized variable ours did not), and a warning must not stop an install.
WARNING_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
INSTALL_WARNING_FLAGS = [flag for flag in WARNING_FLAGS if flag != "-Werror"]
# -O3 lets gcc vectorise the plain loops of the reference kernels (element-wise ops, reductions over
# contiguous channels); it never reorders a float sum (no -ffast-math) nor fuses a multiply-add (ISO C mode
# keeps -ffp-contract=off), so the scalar specification's results do not change.
OPTIMIZE_FLAGS = ["-O3"]

# Flags per path suffix, and the architectures whose compilers build that path.
ISA_FLAGS: dict[str, list[str]] = {
    "avx2": ["-mavx2", "-mfma", "-mf16c"],
    "avx512": ["-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl"],
    "avx512vnni": ["-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl",
                   "-mavx512vnni"],
    "neon": [],  # aarch64: Advanced SIMD is baseline; 32-bit Arm: ARM_NEON_FLAGS
    "neondot": ["-march=armv8.2-a+dotprod"],  # the Cortex-A76 (Pi 5) and later: sdot/udot
}
# armhf's baseline (Debian's armv7-a + VFPv3-D16, Raspberry Pi OS's armv6 + VFP) has no NEON registers; every
# 32-bit Pi with NEON (2, 3, 4) also has VFPv4. Only the NEON files get these flags, so a Pi Zero that loads the
# same library never runs a NEON instruction (dispatch reads HWCAP_NEON first).
ARM_NEON_FLAGS = ["-mfpu=neon-vfpv4"]
ISA_ARCHES: dict[str, tuple[str, ...]] = {
    "avx2": ("x86_64",), "avx512": ("x86_64",), "avx512vnni": ("x86_64",),
    "neon": ("aarch64", "armv7l"), "neondot": ("aarch64",),
}


# The emulated AVX-512 build, for tests only: the AVX-512 files compiled for an AVX2 CPU against SIMDe's portable
# AVX-512 (native/tests/avx512_emulation/immintrin.h, Debian's libsimde-dev), and every file with
# EMULATED_AVX512_DEFINE, which makes dispatch and the kernel testers take the AVX-512 paths on AVX2 and FMA alone.
# It checks what the AVX-512 kernels compute where no AVX-512 CPU is at hand (qemu-user lacks AVX-512); it says
# nothing of their speed.
AVX512_EMULATION_DIR = os.path.join(NATIVE_DIR, "tests", "avx512_emulation")
EMULATED_AVX512_FLAGS = ["-mavx2", "-mfma", "-mf16c", "-Wno-psabi", f"-I{AVX512_EMULATION_DIR}"]
EMULATED_AVX512_DEFINE = "-DRL_EMULATED_AVX512"


def host_arch() -> str:
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64", "armv8l": "armv7l"}.get(machine, machine)
    # A 32-bit Python on a 64-bit Arm kernel (Raspberry Pi OS armhf on a Pi 4) reports aarch64, but its
    # compiler builds 32-bit code.
    if arch == "aarch64" and sys.maxsize < 2**32:
        arch = "armv7l"
    return arch


def isa_of(path: str) -> str | None:
    """The instruction-set path a source file is built for, or None for baseline code."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if "__" not in stem:
        return None
    isa = stem.rsplit("__", 1)[1]
    return None if isa == "scalar" else isa


def sources(arch: str | None = None) -> list[str]:
    """Every C file of the library that this architecture builds (absolute paths)."""
    arch = arch or host_arch()
    found = []
    for folder in FOLDERS:
        for path in sorted(glob.glob(os.path.join(NATIVE_DIR, folder, "*.c"))):
            isa = isa_of(path)
            if isa is None or arch in ISA_ARCHES.get(isa, ()):
                found.append(path)
    return found


def flags_for(path: str, arch: str | None = None, *, emulate_avx512: bool = False) -> list[str]:
    """The path-specific flags of one source file for this architecture (empty for baseline files);
    `emulate_avx512`: those of the emulated AVX-512 build for its AVX-512 files."""
    isa = isa_of(path)
    if isa is not None and isa not in ISA_FLAGS:
        raise ValueError(f"{os.path.basename(path)}: unknown instruction-set suffix {isa!r}")
    if emulate_avx512 and isa in ("avx512", "avx512vnni"):
        return list(EMULATED_AVX512_FLAGS)
    if isa == "neon" and (arch or host_arch()) == "armv7l":
        return list(ARM_NEON_FLAGS)
    return list(ISA_FLAGS.get(isa, [])) if isa else []


def sources_and_flags(arch: str) -> list[tuple[str, list[str]]]:
    """Every C file of the library for `arch` (x86_64, aarch64, armv7l, or armv6l: scalar only) with its
    path-specific flags, for a cross build. The caller adds WARNING_FLAGS, OPTIMIZE_FLAGS, -fPIC, the include
    dirs and the target's own flags (-mcpu=...) before these, which must come last."""
    return [(path, flags_for(path, arch)) for path in sources(arch)]


def simde_missing(compiler: str = "gcc") -> str | None:
    """Why the emulated AVX-512 build cannot be made here (no x86-64 host, no SIMDe headers), or None."""
    if host_arch() != "x86_64":
        return "the emulated AVX-512 build is for x86-64 hosts"
    probe = subprocess.run([compiler, "-E", "-x", "c", "-", "-o", os.devnull], input="#include <simde/x86/avx512.h>\n",
                           capture_output=True, text=True, check=False)
    return None if probe.returncode == 0 else "needs SIMDe's headers (Debian: apt-get install libsimde-dev)"
