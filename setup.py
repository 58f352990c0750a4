"""Builds librillet (native/) into rillet/native/librillet.so beside its cffi binding (_librillet.py, ABI mode);
everything else is in pyproject.toml.

The wheel holds no Python extension, only a plain shared library, so it is tagged `py3-none-<platform>`: one
wheel per architecture for every CPython. RILLET_ARCH=aarch64 (armv7l, armv6l: targets/devices.py) builds
for that architecture with Debian's cross compiler and tags the wheel with its platform;
tools/build_wheels.py sets it once per wheel.
"""

import glob
import importlib.util
import os
import sys

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

# Run from here, wherever pip starts.
HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
sys.path.insert(0, os.path.join(HERE, "native"))
import build_ffi


def load_devices():
    spec = importlib.util.spec_from_file_location("rillet_devices", os.path.join(HERE, "targets", "devices.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file executes
    spec.loader.exec_module(module)
    return module


devices = load_devices()
ARCH_NAME = os.environ.get("RILLET_ARCH") or devices.host_arch()
if ARCH_NAME not in devices.ARCHITECTURES:
    sys.exit(f"RILLET_ARCH={ARCH_NAME!r}: choose one of {', '.join(devices.ARCHITECTURES)}")
ARCH = devices.ARCHITECTURES[ARCH_NAME]
CROSS = ARCH_NAME != devices.host_arch()
# A wheel built for distribution (tools/build_wheels.py sets RILLET_ARCH) carries the library, not its C
# sources; `pip install .` keeps them, for the tests that compile or read them.
PREBUILT = "RILLET_ARCH" in os.environ


class BuildLibrillet(build_ext):
    """Builds librillet.so, the binding and (not when cross-building) the API-mode extension into the package:
    in place for `build_ext --inplace` and editable installs, else into the build folder a wheel is made from."""

    def run(self) -> None:
        super().run()  # no Python extensions: this only keeps setuptools' bookkeeping
        if self.inplace or getattr(self, "editable_mode", False):
            package_dir = os.path.join(HERE, "native")
        else:
            package_dir = os.path.join(self.build_lib, "rillet", "native")
        # Before the ABI binding, _librillet was itself an extension, which Python would import before the
        # generated _librillet.py: a checkout built then must not keep it.
        for stale in glob.glob(os.path.join(package_dir, "_librillet.*.so")):
            os.remove(stale)
        # The objects go beside the per-Python temp folders, not in one: the library is the same for every
        # Python, so an install for another Python only links (build_ffi recompiles what changed).
        objects = os.path.join(os.path.dirname(self.build_temp), f"librillet-{ARCH_NAME}")
        build_ffi.build_library(os.path.join(package_dir, build_ffi.LIBRARY_FILE), objects,
                                compiler=ARCH.compiler(), arch=ARCH_NAME, target_flags=ARCH.cflags,
                                link_flags=ARCH.link_flags, progress=build_ffi.progress_printer("librillet"))
        # librillet.a, from the same objects, for apps in C (rillet.h is in include/): lib/ keeps it apart from
        # the librillet.so that rillet.native loads.
        build_ffi.build_static_library(os.path.join(package_dir, "lib", build_ffi.STATIC_LIBRARY_FILE), objects,
                                       compiler=ARCH.compiler(), arch=ARCH_NAME, target_flags=ARCH.cflags)
        build_ffi.write_binding(os.path.join(package_dir, build_ffi.BINDING_FILE))
        if not CROSS:  # this Python's headers fit only a library for this machine
            build_ffi.build_api_extension(package_dir, os.path.join(self.build_temp, "librillet-api"))


class PackageFiles(build_py):
    def run(self) -> None:
        super().run()
        # `rillet deploy --c` puts the C example in its bundle (targets/c_bundle.py): it lives in examples/c/ and
        # travels in the package as rillet/targets/c_example/.
        example = os.path.join(HERE, "examples", "c", "classify.c")
        if os.path.exists(example) and not self.editable_mode:
            target = os.path.join(self.build_lib, "rillet", "targets", "c_example")
            os.makedirs(target, exist_ok=True)
            self.copy_file(example, os.path.join(target, "classify.c"))

    def find_data_files(self, package: str, src_dir: str) -> list[str]:
        files = super().find_data_files(package, src_dir)
        if PREBUILT and package == "rillet.native":
            # The sources stay out; the public header stays in, for apps in C that link lib/librillet.a or .so.
            files = [f for f in files if not f.endswith((".c", ".h")) or f.endswith(os.path.join("include", "rillet.h"))]
        return files


class BinaryDistribution(Distribution):
    """Platform-specific although it has no extension module: it carries librillet.so."""

    def has_ext_modules(self) -> bool:
        return True


commands = {"build_ext": BuildLibrillet, "build_py": PackageFiles}
try:  # bdist_wheel moved into setuptools (70.1); older setups have it from `wheel`
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """`py3-none-<platform>`: the library is loaded through cffi's ABI mode, so no Python ABI is involved."""

        def finalize_options(self) -> None:
            if CROSS:
                self.plat_name = ARCH.wheel_platform
            super().finalize_options()

        def get_tag(self) -> tuple[str, str, str]:
            # A host wheel also holds _librillet_api (stable ABI); any other Python uses the ABI binding.
            return "py3", "none", super().get_tag()[2]

    commands["bdist_wheel"] = PlatformWheel

# One build folder per architecture, so a cross build never packs another architecture's library.
setup(cmdclass=commands, distclass=BinaryDistribution, options={"build": {"build_base": os.path.join("build", ARCH_NAME)}})
