"""Named device targets (the Raspberry Pis and the host): the compiler, flags, wheel platform and kernel paths
each one gets.

A wheel is built per *architecture*, not per board: one `linux_aarch64` wheel serves the Pi 3, 4 and 5
(64-bit OS), because librillet picks its kernel path from the CPU's features when a plan is made (the Pi
5's dot-product kernels sit in the same library as the Pi 3's NEON ones). A device adds what is its own:
its CPU (for `-mtune` in a board-specific build and for `qemu -cpu` under emulation) and the kernel paths
the library will choose on it, best first.

This module imports nothing of rillet, so setup.py can load it from the file before rillet is installed.
"""

from __future__ import annotations

import platform
import shutil
from dataclasses import dataclass


@dataclass(frozen=True)
class Architecture:
    """How librillet is built for one architecture (one wheel platform)."""

    name: str                   # build_config's architecture name: which ISA files are compiled
    triple: str | None          # Debian's cross compiler prefix; None: the host's own compiler
    cflags: tuple[str, ...]     # on every file, before a kernel file's own ISA flags
    link_flags: tuple[str, ...]
    wheel_platform: str         # the platform tag pip matches on the device (`linux_armv7l`, ...)
    debian_arch: str            # for debootstrap and the cross compiler's package

    def compiler(self) -> list[str]:
        """The C compiler command; an empty list means the host's default (build_ffi picks $CC or Python's)."""
        return [f"{self.triple}-gcc"] if self.triple else []

    def compiler_available(self) -> bool:
        """Whether this architecture's C compiler is on PATH (the host's own always counts)."""
        return self.triple is None or shutil.which(f"{self.triple}-gcc") is not None

    @property
    def compiler_package(self) -> str:
        """The Debian package of this architecture's C compiler."""
        return f"gcc-{self.triple}" if self.triple else "gcc"

    @property
    def libc_package(self) -> str:
        """The Debian package of the C library a cross compiler links against (Debian's `-cross` packages)."""
        return f"libc6-dev-{self.debian_arch}-cross" if self.triple else "libc6-dev"


# armv6 (Pi Zero / Pi 1) uses Debian's armhf cross compiler, whose own runtime (libgcc.a, crt files) is built
# for armv7 in Thumb-2, which an ARM1176 cannot run. librillet is a shared library: libgcc's helpers (integer
# division: armv6 has no divide instruction) are taken from the device's libgcc_s.so.1 (`-shared-libgcc`),
# and no start files are linked (a C library with no constructors needs none), so every instruction in the
# file is armv6 ARM code; tools/build_wheels.py checks the ELF attributes say so. armv6kz is exactly the
# ARM1176JZF-S of every armv6 Pi: its LDREXD lets the thread pool's 64-bit atomics be inlined, where plain
# armv6 calls libatomic, which a minimal Raspberry Pi OS or Debian lacks.
ARCHITECTURES: dict[str, Architecture] = {
    "x86_64": Architecture("x86_64", None, (), (), "linux_x86_64", "amd64"),
    "aarch64": Architecture("aarch64", "aarch64-linux-gnu", ("-march=armv8-a",), (), "linux_aarch64", "arm64"),
    # Every armv7 Pi (2, 3, 4 on a 32-bit OS) has NEON and VFPv4, so the whole library may use them.
    "armv7l": Architecture("armv7l", "arm-linux-gnueabihf", ("-march=armv7-a", "-mfpu=neon-vfpv4", "-mfloat-abi=hard"),
                           (), "linux_armv7l", "armhf"),
    "armv6l": Architecture("armv6l", "arm-linux-gnueabihf", ("-march=armv6kz", "-mfpu=vfp", "-mfloat-abi=hard", "-marm"),
                           ("-nostartfiles", "-shared-libgcc"), "linux_armv6l", "armhf"),
}
"""Every architecture rillet builds a wheel for, by name."""


@dataclass(frozen=True)
class Device:
    """A board rillet deploys to: its architecture, CPU and the kernel paths librillet chooses on it."""

    name: str
    description: str
    arch: str                       # a key of ARCHITECTURES
    cpu: str | None                 # gcc's -mtune / qemu's -cpu name; None for the host
    kernel_paths: tuple[str, ...]   # best first; the last is always "scalar"

    @property
    def architecture(self) -> Architecture:
        """The Architecture this board's wheel is built for."""
        return ARCHITECTURES[self.arch]

    @property
    def wheel_platform(self) -> str:
        """The wheel platform tag pip matches on the board (`linux_aarch64`, ...)."""
        return self.architecture.wheel_platform

    @property
    def best_kernel_path(self) -> str:
        """The kernel path librillet takes on this board's CPU (the first of `kernel_paths`)."""
        return self.kernel_paths[0]


DEVICES: dict[str, Device] = {d.name: d for d in (
    Device("rpi0", "Raspberry Pi Zero / Zero W / 1 (ARM1176, armv6 + VFP, 32-bit OS)", "armv6l", "arm1176",
           ("scalar",)),
    Device("rpi3-32", "Raspberry Pi 2 v1.2 / 3 on a 32-bit OS (Cortex-A53, armv7 NEON)", "armv7l", "cortex-a53",
           ("neon", "scalar")),
    Device("rpi4-32", "Raspberry Pi 4 / 400 on a 32-bit OS (Cortex-A72, armv7 NEON)", "armv7l", "cortex-a72",
           ("neon", "scalar")),
    Device("rpi3", "Raspberry Pi 3 / Zero 2 W, 64-bit OS (Cortex-A53)", "aarch64", "cortex-a53", ("neon", "scalar")),
    Device("rpi4", "Raspberry Pi 4 / 400, 64-bit OS (Cortex-A72)", "aarch64", "cortex-a72", ("neon", "scalar")),
    Device("rpi5", "Raspberry Pi 5, 64-bit OS (Cortex-A76, dot product)", "aarch64", "cortex-a76",
           ("neondot", "neon", "scalar")),
)}
"""The named boards `rillet deploy --target` takes (besides `host`), by name."""


def host_arch() -> str:
    """This machine's architecture as rillet names it (`x86_64`, `aarch64`, `armv7l`, ...)."""
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def host_device() -> Device:
    """The machine this runs on, as a target (its kernel paths are whatever its CPU offers)."""
    arch = host_arch()
    if arch not in ARCHITECTURES:
        raise ValueError(f"host architecture {arch!r} is not one rillet builds for ({', '.join(ARCHITECTURES)})")
    paths = {"x86_64": ("avx512vnni", "avx512", "avx2", "scalar"), "aarch64": ("neondot", "neon", "scalar"),
             "armv7l": ("neon", "scalar"), "armv6l": ("scalar",)}[arch]
    return Device("host", f"this machine ({arch})", arch, None, paths)


def device(name: str) -> Device:
    """The named target ("rpi4", "host", ...); ValueError listing the names for any other."""
    if name == "host":
        return host_device()
    if name not in DEVICES:
        raise ValueError(f"unknown target {name!r}: choose one of {', '.join([*DEVICES, 'host'])}")
    return DEVICES[name]


def wheel_architectures() -> list[Architecture]:
    """One architecture per wheel: the host's and every device's, each once."""
    names = dict.fromkeys([host_arch(), *(d.arch for d in DEVICES.values())])
    return [ARCHITECTURES[n] for n in names if n in ARCHITECTURES]
