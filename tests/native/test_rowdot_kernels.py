"""Row-dot micro-kernels (native/kernels/rowdot.h: a few-row FULLY_CONNECTED reading its weights in place, and
the LSTMs' int8-to-int32 gate sums) and the LSTMs' vector logistic and tanh (vactivation.h), via
native/tests/rowdot_kernels_test.c: float32 within 1e-6 of the scalar kernels and int8 bit for bit, with no read
past a row, on sizes around every tile edge.

The tester is built from the kernel files alone, each with build_config's flags for its ISA suffix: on x86-64 it
runs once per path this CPU has (AVX-512 files are compiled whether or not it can run them, and an AVX2 CPU runs
them on the emulated build: SIMDe, build_config.AVX512_EMULATION_DIR); on aarch64 and
armv7 it is cross-built statically and run under qemu-user, as test_arm_kernels.py does for the GEMM kernels
(each case skips, saying what is missing, without the cross compiler or qemu).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

NATIVE = Path(__file__).resolve().parents[2] / "native"
TESTER = NATIVE / "tests" / "rowdot_kernels_test.c"
PATTERNS = ("f32_rowdot_*__*.c", "f32_vecmat*__*.c", "qs8_qc8w_rowdot_*__*.c", "s8_s32_rowdot_*__*.c", "rowdot_configs.c",
            "f32_vsigmoid__*.c", "f32_vtanh__*.c", "s16_vsigmoid__*.c", "s16_vtanh__*.c", "vactivation_configs.c",
            "qs8_lstm_activations_ref.c", "s32_s8_requantize_fixedpoint__*.c")
pytestmark = pytest.mark.skipif(not TESTER.is_file(), reason="needs the checkout's native/ folder")

# (architecture, compiler, the target's baseline flags, the emulator or None for the host)
TARGETS = {
    "x86_64": ("gcc", (), None),
    "x86_64-emulated-avx512": ("gcc", (), None),  # build_config's emulated AVX-512 build, on an AVX2 CPU
    "aarch64": ("aarch64-linux-gnu-gcc", (), "qemu-aarch64"),
    "armv7l": ("arm-linux-gnueabihf-gcc", (), "qemu-arm"),
}
# (architecture, path, qemu -cpu, expected): "skip" where the tester must find that the CPU lacks the path. On
# x86 a path this CPU lacks is skipped, not failed: CI's machine decides which run.
RUNS = [
    ("x86_64", "scalar", None, "pass"),
    ("x86_64", "avx2", None, "pass"),
    ("x86_64", "avx512", None, "pass"),
    ("x86_64", "avx512vnni", None, "pass"),
    ("aarch64", "scalar", "cortex-a72", "pass"),
    ("aarch64", "neon", "cortex-a72", "pass"),
    ("aarch64", "neondot", "cortex-a76", "pass"),  # NEON's float kernels, the int8 ones with sdot
    ("armv7l", "scalar", "cortex-a7", "pass"),
    ("armv7l", "neon", "cortex-a15", "pass"),
    ("armv7l", "neondot", "cortex-a15", "skip"),
]


def load_build_config() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rillet_build_config", NATIVE / "build_config.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sources_of_tester(config: ModuleType, arch: str) -> list[Path]:
    files = sorted({p for pattern in PATTERNS for p in (NATIVE / "kernels").glob(pattern)})
    built = [p for p in files if config.isa_of(str(p)) is None or arch in config.ISA_ARCHES.get(config.isa_of(str(p)), ())]
    return [*built, NATIVE / "src" / "cpu_features.c", TESTER]


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return next((set(line.split(":", 1)[1].split()) for line in text.splitlines() if line.startswith("flags")), set())


AVX2_RUNS = {"avx2", "fma"} <= cpu_flags()
AVX512_RUNS = {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= cpu_flags()


@pytest.fixture(scope="module")
def testers(tmp_path_factory: pytest.TempPathFactory):
    """Builds (once, on first use) the tester for an architecture; returns its path."""
    config = load_build_config()
    built: dict[str, Path] = {}

    def get(arch: str) -> Path:
        compiler, flags, emulator = TARGETS[arch]
        missing = [tool for tool in (compiler, emulator) if tool and shutil.which(tool) is None]
        if missing:
            pytest.skip(f"needs {' and '.join(missing)}")
        if arch.startswith("x86_64") and config.host_arch() != "x86_64":
            pytest.skip("the x86 paths run on an x86-64 host")
        emulate = arch == "x86_64-emulated-avx512"
        if emulate and config.simde_missing():
            pytest.skip(config.simde_missing())
        if arch not in built:
            out = tmp_path_factory.mktemp(f"rowdot-{arch}")
            target_arch = "x86_64" if emulate else arch
            includes = [f"-I{d}" for d in config.INCLUDE_DIRS]

            def one(source: Path) -> str:
                obj = out / (source.name + ".o")
                command = [compiler, *config.WARNING_FLAGS, "-O2", "-pedantic", *flags,
                           *([config.EMULATED_AVX512_DEFINE] if emulate else []),
                           *config.flags_for(str(source), target_arch, emulate_avx512=emulate), *includes,
                           "-c", str(source), "-o", str(obj)]
                done = subprocess.run(command, capture_output=True, text=True, check=False)
                assert done.returncode == 0, f"{source.name} does not compile for {arch}:\n{done.stderr}"
                return str(obj)

            with ThreadPoolExecutor(max_workers=2) as pool:
                objects = list(pool.map(one, sources_of_tester(config, target_arch)))
            exe = out / "rowdot_kernels_test"
            link = [compiler, *([] if emulator is None else ["-static"]), *objects, "-lm", "-o", str(exe)]
            done = subprocess.run(link, capture_output=True, text=True, check=False)
            assert done.returncode == 0, f"linking the row-dot tester for {arch} failed:\n{done.stderr}"
            built[arch] = exe
        return built[arch]

    return get


@pytest.mark.parametrize(("arch", "path", "cpu", "expected"), RUNS)
def test_rowdot_kernels_match_scalar(testers, arch: str, path: str, cpu: str | None, expected: str) -> None:
    if arch == "x86_64" and path.startswith("avx512") and not AVX512_RUNS and AVX2_RUNS:
        arch = "x86_64-emulated-avx512"  # an AVX2 CPU runs the AVX-512 kernels emulated
    exe = testers(arch)
    emulator = TARGETS[arch][2]
    command = [str(exe), path] if emulator is None else [emulator, "-cpu", str(cpu), str(exe), path]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    if expected == "skip":
        assert done.returncode == 77, f"{path} on {cpu} should be refused (no such HWCAP), got:\n{output}"
        return
    if done.returncode == 77 and emulator is None:
        pytest.skip(output.strip())
    assert done.returncode == 0, f"{path} row-dot kernels on {arch}:\n{output}"
    assert "all passed" in output and "f32 rowdot" in output and "qs8 rowdot" in output, output
    assert "f32 vecmat" in output, output
    assert "s8_s32 rowdot" in output and "sigmoid" in output and "tanh" in output, output
    assert "s16 sigmoid and tanh" in output and "s8_s32 rowdot (narrow weights)" in output, output
