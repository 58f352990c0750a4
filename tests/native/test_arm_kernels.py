"""The Arm kernel paths under emulation: the float32 and int8 kernel testers and the thread-pool tester, cross-built
for aarch64 and armv7 with Debian's cross compilers (static, so qemu-user needs no Arm root) and run under
qemu-user on CPUs with and without the dot-product extension; and the whole library cross-built as a shared
object with the project's warning flags for aarch64, armv7 and armv6 (the Pi Zero: scalar only).

Each case skips, saying what is missing, when the cross compiler or qemu is not installed (`.ci/run` installs
them). `native/tests/run_arm_kernel_tests.sh` runs this module alone.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from rillet.converter.format.view import ModelView

from support import golden, model_path

NATIVE = Path(__file__).resolve().parents[2] / "native"
TESTS = NATIVE / "tests"
KERNELS = NATIVE / "kernels"
SRC = NATIVE / "src"


@dataclass(frozen=True)
class Arch:
    name: str  # build_config's architecture name
    compiler: str
    qemu: str
    flags: tuple[str, ...] = ()  # the target's baseline, before each file's own ISA flags

    def missing(self) -> str | None:
        absent = [tool for tool in (self.compiler, self.qemu) if shutil.which(tool) is None]
        return f"needs {' and '.join(absent)} (apt-get install gcc-{self.compiler[:-4]} qemu-user)" if absent else None


AARCH64 = Arch("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64")
# Debian's armhf compiler defaults to armv7-a + VFPv3-D16 in Thumb-2: the NEON files add -mfpu=neon-vfpv4.
ARMV7 = Arch("armv7l", "arm-linux-gnueabihf-gcc", "qemu-arm")
ARCHES = {a.name: a for a in (AARCH64, ARMV7)}

# (arch, qemu -cpu, path, expected): "pass", or "skip" where the tester must find that the CPU lacks the path
# (HWCAP read as dispatch reads it), which checks the detection. cortex-a72 (Pi 4) has no dot product,
# cortex-a76 (Pi 5) has it; cortex-a7 (Pi 2) and cortex-a15 are armv7 with NEON.
RUNS = [
    ("aarch64", "cortex-a72", "scalar", "pass"),
    ("aarch64", "cortex-a72", "neon", "pass"),
    ("aarch64", "cortex-a72", "neondot", "skip"),
    ("aarch64", "cortex-a76", "neondot", "pass"),
    ("armv7l", "cortex-a7", "scalar", "pass"),
    ("armv7l", "cortex-a15", "neon", "pass"),
    ("armv7l", "cortex-a15", "neondot", "skip"),
]
TESTERS = {
    "f32": ("f32_kernels_test.c", ("f32_gemm_*__*.c", "f32_igemm_*__*.c", "f32_dwconv*__*.c", "f32_maxpool__*.c",
                                   "f32_avgpool__*.c", "f32_qs8_vcvt__*.c", "qs8_f32_vcvt__*.c",
                                   "f32_s8_quantize_ref.c", "f32_pack.c", "f32_configs.c")),
    "qs8": ("qs8_kernels_test.c", ("qs8_qc8w_*.c", "qs8_v*__*.c", "qs8_*pool__*.c", "s8_ibilinear__*.c", "s8_lut*.c",
                                   "qs8_rdsum__*.c", "qs8_pack.c", "qs8_configs.c")),
    # hybrid GEMM/IGEMM/depthwise micro-kernels and quantizations, with the reference quantizations they reproduce
    "qd8": ("qd8_kernels_test.c", ("qd8_f32_qc8w_*__*.c", "qd8_f32_qc8w_pack.c", "qd8_f32_qc8w_fully_connected_ref.c",
                                   "f32_qs8_asymmetric_quantize_tflite_ref.c", "f32_qd8_quantize__*.c")),
    # element-wise binary ops and LEAKY_RELU, with the whole-op references the scalar kernels are checked against
    "f32_vbinary": ("f32_vbinary_test.c", ("f32_vbinary__*.c", "f32_vlrelu__*.c", "f32_vbinary_configs.c",
                                           "f32_binary_ref.c", "f32_unary_ref.c", "xx_index_ref.c")),
    # TFLite's 16x8 IGEMM (qs16_gemm.h)
    "qs16": ("qs16_kernels_test.c", ("qs16_qc8w_*.c", "qs16_pack.c", "qs16_configs.c")),
    # int16 ADD / SUB, QUANTIZE and table lookup (s16_velementwise.h)
    "s16_velementwise": ("s16_velementwise_test.c", ("s16_vaddsub__*.c", "f32_s16_vcvt__*.c", "s16_vlut__*.c",
                                                     "s16_lut_ref.c", "s16_velementwise_configs.c")),
    # softmax's row passes, GELU and the row sum (f32_vexp.h)
    "f32_vexp": ("f32_vexp_test.c", ("f32_rmax__*.c", "f32_raddstoreexpminusmax__*.c", "f32_vscale__*.c",
                                     "f32_vgelu__*.c", "f32_rsum__*.c", "f32_rsumsqdiff__*.c",
                                     "f32_vexp_configs.c")),
}


def load_build_config() -> ModuleType:
    path = NATIVE / "build_config.py"
    if not path.exists() or not (TESTS / "f32_kernels_test.c").exists():
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    spec = importlib.util.spec_from_file_location("rillet_build_config", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_objects(config: ModuleType, arch: Arch, sources: list[Path], out: Path, extra: list[str]) -> list[str]:
    """Compiles each source with the warning flags, the target's flags and its own ISA flags, two at a time."""
    includes = [f"-I{d}" for d in config.INCLUDE_DIRS]

    def one(source: Path) -> str:
        obj = out / (source.name + ".o")
        command = [arch.compiler, *config.WARNING_FLAGS, *extra, *arch.flags,
                   *config.flags_for(str(source), arch.name), *includes, "-c", str(source), "-o", str(obj)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{source.name} does not compile for {arch.name}:\n{done.stderr}"
        return str(obj)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, sources))


def sources_of_tester(config: ModuleType, arch: Arch, which: str) -> list[Path]:
    main, patterns = TESTERS[which]
    files = sorted({p for pattern in patterns for p in KERNELS.glob(pattern)})
    built = [p for p in files if config.isa_of(str(p)) is None
             or arch.name in config.ISA_ARCHES.get(config.isa_of(str(p)), ())]
    extra = [SRC / "quant.c"] if which == "s16_velementwise" else []  # its tester's prepare takes the scales
    return [*built, *extra, SRC / "cpu_features.c", TESTS / main]


@pytest.fixture(scope="module")
def testers(tmp_path_factory: pytest.TempPathFactory):
    """Builds (once, on first use) a tester for an (arch, f32 | qs8 | threadpool) pair; returns its path."""
    config = load_build_config()
    built: dict[tuple[str, str], Path] = {}

    def get(arch_name: str, which: str) -> Path:
        arch = ARCHES[arch_name]
        if arch.missing():
            pytest.skip(arch.missing())
        if (arch_name, which) not in built:
            out = tmp_path_factory.mktemp(f"{arch_name}-{which}")
            if which == "threadpool":
                sources, libraries = [TESTS / "threadpool_test.c", SRC / "threadpool.c"], ["-lpthread"]
            else:
                sources, libraries = sources_of_tester(config, arch, which), ["-lm"]
            objects = compile_objects(config, arch, sources, out, ["-O2", "-pedantic"])
            exe = out / f"{which}_test"
            done = subprocess.run([arch.compiler, "-static", *objects, *libraries, "-o", str(exe)],
                                  capture_output=True, text=True, check=False)
            assert done.returncode == 0, f"linking the {which} tester for {arch_name} failed:\n{done.stderr}"
            built[(arch_name, which)] = exe
        return built[(arch_name, which)]

    return get


@pytest.mark.parametrize("which", ["f32", "qs8", "qd8", "f32_vbinary", "f32_vexp", "qs16", "s16_velementwise"])
@pytest.mark.parametrize(("arch", "cpu", "path", "expected"), RUNS)
def test_kernels_match_scalar_under_qemu(testers, which: str, arch: str, cpu: str, path: str, expected: str) -> None:
    """float32 within 1e-6 of the scalar kernels, int8 bit for bit with them and the formula, no over-read."""
    exe = testers(arch, which)
    done = subprocess.run([ARCHES[arch].qemu, "-cpu", cpu, str(exe), path], capture_output=True, text=True,
                          timeout=300, check=False)
    output = done.stdout + done.stderr
    if expected == "skip":
        assert done.returncode == 77, f"{path} on {cpu} should be refused (no such HWCAP), got:\n{output}"
        return
    assert done.returncode == 0, f"{which} {path} kernels on {arch} {cpu}:\n{output}"
    if path != "scalar":  # the path really ran its own kernels, not scalar's under another name
        # float32: aarch64's 32 q registers hold the 6x8 tile, armv7's 16 the 4x8
        f32_tile = "6x8" if arch == "aarch64" else "4x8"
        tile = f32_tile if which == "f32" else ("4x16c4" if path == "neondot" and which in ("qs8", "qd8") else "4x8c1")
        tile = "f32_vbinary__neon" if which == "f32_vbinary" else tile
        tile = "f32_vgelu__neon" if which == "f32_vexp" else tile
        tile = "qs16_qc8w_igemm_4x8c2__neon" if which == "qs16" else tile
        tile = "s16_vaddsub__neon" if which == "s16_velementwise" else tile
        assert tile in output, output
        if which == "qs8":  # the depthwise kernel for filters without -128 ran too
            assert "dwconv_pairs 16c" in output, output
        if which in ("qs8", "qd8") and arch == "aarch64" and path == "neon":  # the GEMM tile without -128 (kr 16)
            assert "gemm/igemm pairs 2x8c16" in output, output


@pytest.mark.parametrize("arch", ["aarch64", "armv7l"])
def test_threadpool_under_qemu(testers, arch: str) -> None:
    exe = testers(arch, "threadpool")
    done = subprocess.run([ARCHES[arch].qemu, "-cpu", "max", str(exe)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# The whole library per architecture: (compiler arch, target flags, symbols it must hold, symbols it must not).
LIBRARIES = {
    "aarch64": (AARCH64, (), ("qs8_qc8w_gemm_4x16c4__neondot", "f32_gemm_6x8__neon", "f32_gemm_4x8__neon",
                               "qs8_qc8w_gemm_2x8c16__neon", "qd8_f32_qc8w_gemm_4x16c4__neondot", "qd8_f32_qc8w_gemm_2x8c16__neon",
               "rl_kernel_table_for"), ()),
    "armv7l": (ARMV7, (), ("qs8_qc8w_gemm_4x8c1__neon", "f32_dwconv__neon"),
               ("qs8_qc8w_gemm_4x16c4__neondot", "qd8_f32_qc8w_gemm_4x16c4__neondot", "f32_gemm_6x8__neon",
                "qs8_qc8w_gemm_2x8c16__neon", "qd8_f32_qc8w_gemm_2x8c16__neon")),
    # The Pi Zero: armv6 + VFP, ARM state; no NEON file is built and no config names one.
    "armv6l": (ARMV7, ("-march=armv6", "-mfpu=vfp", "-marm"), ("f32_gemm_4x4__scalar",),
               ("f32_gemm_4x8__neon", "qs8_qc8w_dwconv_16c__neon")),
}


@pytest.fixture(scope="module")
def library_objects(tmp_path_factory: pytest.TempPathFactory):
    """Compiles (once per architecture) every source build_config lists for it, as the library is built:
    -Wall -Wextra -Werror, -O3, -fPIC, the target's flags, then each file's ISA flags."""
    config = load_build_config()
    built: dict[str, list[str]] = {}

    def get(arch_name: str) -> list[str]:
        arch, flags, _, _ = LIBRARIES[arch_name]
        if shutil.which(arch.compiler) is None:
            pytest.skip(f"needs {arch.compiler}")
        if arch_name not in built:
            target = Arch(arch_name, arch.compiler, arch.qemu, flags)
            sources = [Path(path) for path, _ in config.sources_and_flags(arch_name)]
            built[arch_name] = compile_objects(config, target, sources, tmp_path_factory.mktemp(f"lib-{arch_name}"),
                                               [*config.OPTIMIZE_FLAGS, "-fPIC"])
        return built[arch_name]

    return get


@pytest.mark.parametrize("arch_name", list(LIBRARIES))
def test_whole_library_cross_builds(library_objects, tmp_path: Path, arch_name: str) -> None:
    """Every source compiles cleanly for the architecture and links into a shared object holding exactly that
    architecture's kernels."""
    arch, flags, present, absent = LIBRARIES[arch_name]
    objects = library_objects(arch_name)
    library = tmp_path / "librillet.so"
    done = subprocess.run([arch.compiler, *flags, "-shared", "-o", str(library), *objects, "-lm", "-lpthread"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    nm = arch.compiler[: -len("gcc")] + "nm"
    symbols = set(subprocess.run([nm, "--defined-only", str(library)], capture_output=True, text=True,
                                 check=True).stdout.split())
    assert set(present) <= symbols, sorted(set(present) - symbols)
    assert not set(absent) & symbols, sorted(set(absent) & symbols)


# ---- the reference models, whole, on each Arm path: every tensor against the scalar path on the same emulated
# CPU (int8 bit for bit), and the output against LiteRT's ----
MODELS = ["mobilenet_v2_035_96_int8", "cnn_small_int8", "mobilenet_v2_035_96_f32", "cnn_small_f32", "mlp_f32"]
MODEL_RUNS = [("aarch64", "cortex-a72", "neon"), ("aarch64", "cortex-a76", "neondot"), ("armv7l", "cortex-a15", "neon")]


@pytest.fixture(scope="module")
def model_runner(library_objects, tmp_path_factory: pytest.TempPathFactory):
    """Runs a model (a reference model's name, or a file's path) on (arch, cpu, path) under qemu once; returns
    {tensor index: raw bytes}."""
    config = load_build_config()
    runners: dict[str, Path] = {}
    results: dict[tuple[str, str, str, str], dict[int, bytes]] = {}

    def run(model: str | Path, arch_name: str, cpu: str, path: str, input_tensor: int, feed: np.ndarray):
        arch = ARCHES[arch_name]
        if arch.missing():
            pytest.skip(arch.missing())
        if arch_name not in runners:
            out = tmp_path_factory.mktemp(f"runner-{arch_name}")
            main = compile_objects(config, arch, [TESTS / "model_isa_run.c"], out, ["-O2"])
            exe = out / "model_isa_run"
            done = subprocess.run([arch.compiler, "-static", *main, *library_objects(arch_name), "-lm", "-lpthread",
                                   "-o", str(exe)], capture_output=True, text=True, check=False)
            assert done.returncode == 0, done.stderr
            runners[arch_name] = exe
        key = (str(model), arch_name, cpu, path)
        if key not in results:
            folder = tmp_path_factory.mktemp(f"{Path(str(model)).stem}-{arch_name}-{path}")
            feed_file = folder / "input.bin"
            feed_file.write_bytes(np.ascontiguousarray(feed).tobytes())
            file = model if isinstance(model, Path) else model_path(model)
            done = subprocess.run([arch.qemu, "-cpu", cpu, str(runners[arch_name]), str(file),
                                   str(input_tensor), str(feed_file), str(folder)], capture_output=True, text=True,
                                  timeout=600, check=False, env={**os.environ, "RILLET_ISA": path})
            assert done.returncode == 0, done.stdout + done.stderr
            assert f"isa {path}" in done.stdout, done.stdout
            results[key] = {int(f.stem[1:]): f.read_bytes() for f in folder.glob("t*.bin")}
        return results[key]

    return run


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("model", MODELS)
def test_model_on_arm_path_matches_scalar_and_litert(model_runner, model: str, arch: str, cpu: str, path: str):
    view = ModelView(model_path(model).read_bytes())
    graph = view.subgraphs[0]
    (input_tensor,), (output_tensor,) = list(graph.inputs), list(graph.outputs)
    data = golden(model)
    scalar = model_runner(model, arch, cpu, "scalar", int(input_tensor), data["x"])
    fast = model_runner(model, arch, cpu, path, int(input_tensor), data["x"])
    assert fast.keys() == scalar.keys() and int(output_tensor) in fast
    for index, want in scalar.items():
        if graph.tensors[index].type == 0:  # float32: FMA against rounded multiply-adds, through every layer
            got_values, want_values = np.frombuffer(fast[index], np.float32), np.frombuffer(want, np.float32)
            np.testing.assert_allclose(got_values, want_values, rtol=1e-4, atol=1e-5 * max(1.0, float(
                np.abs(want_values).max())), err_msg=f"tensor {index} {graph.tensors[index].name}")
        else:
            assert fast[index] == want, f"{path}: tensor {index} {graph.tensors[index].name} differs from scalar"
    expected = data["y"]
    got = np.frombuffer(fast[int(output_tensor)], expected.dtype).reshape(expected.shape)
    if expected.dtype == np.float32:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)


def test_sources_and_flags_keep_x86_and_give_arm_its_flags() -> None:
    config = load_build_config()
    by_name = {os.path.basename(p): flags for p, flags in config.sources_and_flags("x86_64")}
    assert by_name["f32_gemm_6x16__avx2.c"] == config.ISA_FLAGS["avx2"]
    assert not any(name.endswith(("__neon.c", "__neondot.c")) for name in by_name)
    armv7 = {os.path.basename(p): flags for p, flags in config.sources_and_flags("armv7l")}
    assert armv7["f32_gemm_4x8__neon.c"] == config.ARM_NEON_FLAGS
    assert not any(name.endswith(("__neondot.c", "__avx2.c")) for name in armv7)
    aarch64 = {os.path.basename(p): flags for p, flags in config.sources_and_flags("aarch64")}
    assert aarch64["qs8_qc8w_gemm_4x16c4__neondot.c"] == ["-march=armv8.2-a+dotprod"]
    assert aarch64["f32_gemm_4x8__neon.c"] == []
    armv6 = [os.path.basename(p) for p, _ in config.sources_and_flags("armv6l")]
    assert not any("__neon" in name or "__avx" in name for name in armv6)


def lstm_files(folder: Path) -> dict[str, tuple[Path, np.ndarray]]:
    """A float, an int8 and a hybrid LSTM (tests/runtime's builders) at sizes past the NEON kernels' steps (8
    int8 and 4 float values along a row, 4 rows, 8 int16 and 4 float activations), with one feed each."""
    import sys

    sys.path.insert(0, str(NATIVE.parent / "tests" / "runtime"))
    from test_lstm import lstm_model
    from test_lstm_hybrid import HybridSpec, float_feeds, hybrid_model
    from test_lstm_int8 import LstmSpec, int8_feeds, lstm_int8_model

    shape = {"batch": 2, "steps": 3, "n_input": 19, "n_cell": 13, "n_output": 11}
    rng = np.random.default_rng(4)
    int8_spec = LstmSpec(**shape, layer_norm=True, weight_scale=0.1 / 127)
    hybrid_spec = HybridSpec(**shape, asymmetric=True, weight_scale=0.1 / 127)
    files = {"float": (lstm_model(**shape), rng.uniform(-1, 1, (2, 3, 19)).astype(np.float32)),
             "int8": (lstm_int8_model(int8_spec), int8_feeds(int8_spec, 1)[0]),
             "hybrid": (hybrid_model(hybrid_spec), float_feeds(hybrid_spec, 1)[0])}
    found = {}
    for form, (content, feed) in files.items():
        (folder / f"lstm_{form}.tflite").write_bytes(content)
        found[form] = (folder / f"lstm_{form}.tflite", feed)
    return found


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("form", ["float", "int8", "hybrid"])
def test_lstm_on_arm_path_matches_scalar_and_litert(model_runner, tmp_path_factory, form: str, arch: str, cpu: str,
                                                    path: str):
    """The three LSTMs on the NEON row-dot and activation kernels: int8 the scalar path's bits, float and hybrid
    within 1e-5 of it, and all of LiteRT's output (run on this host)."""
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    file, feed = lstm_files(tmp_path_factory.mktemp("lstm-files"))[form]
    view = ModelView(file.read_bytes())
    (input_tensor,), (output_tensor,) = list(view.subgraphs[0].inputs), list(view.subgraphs[0].outputs)
    scalar = model_runner(file, arch, cpu, "scalar", int(input_tensor), feed)
    fast = model_runner(file, arch, cpu, path, int(input_tensor), feed)
    it = litert.Interpreter(model_path=str(file))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], feed)
    it.invoke()
    expected = it.get_tensor(it.get_output_details()[0]["index"])
    for name, result in (("scalar", scalar), (path, fast)):
        got = np.frombuffer(result[int(output_tensor)], expected.dtype).reshape(expected.shape)
        if form == "int8":
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=name)
    if form == "int8":
        assert fast[int(output_tensor)] == scalar[int(output_tensor)]


TRANSFORMERS = NATIVE.parent / "tests" / "data" / "transformers"
DYNAMIC_RANGE = ["bert_tiny_dynamic", "vit_tiny_dynamic", "whisper_tiny_encoder_dynamic"]


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("model", DYNAMIC_RANGE)
def test_dynamic_range_transformer_on_arm_path(model_runner, model: str, arch: str, cpu: str, path: str):
    """The dynamic-range transformer fixtures (hybrid FULLY_CONNECTED and BATCH_MATMUL on the path's qd8 GEMM:
    4x16c4 sdot on neondot; on neon, 2x8c16 on aarch64 for weights without -128, else 4x8c1) against LiteRT's stored outputs, within the 1e-5 the x86 paths are held
    to (tests/runtime/test_transformer_models.py), and every float tensor near the scalar path's."""
    file = TRANSFORMERS / f"{model}.tflite"
    view = ModelView(file.read_bytes())
    graph = view.subgraphs[0]
    (input_tensor,) = list(graph.inputs)
    with np.load(TRANSFORMERS / f"{model}.npz") as npz:
        (feed,) = [npz[k] for k in npz.files if "/in/" in k]
        expected = {k.rsplit("/", 1)[1]: npz[k] for k in npz.files if "/out/" in k}
    scalar = model_runner(file, arch, cpu, "scalar", int(input_tensor), feed)
    fast = model_runner(file, arch, cpu, path, int(input_tensor), feed)
    assert fast.keys() == scalar.keys()
    for index, want in scalar.items():
        if graph.tensors[index].type == 0:
            got_values, want_values = np.frombuffer(fast[index], np.float32), np.frombuffer(want, np.float32)
            np.testing.assert_allclose(got_values, want_values, rtol=1e-4, atol=1e-5 * max(1.0, float(
                np.abs(want_values).max())), err_msg=f"tensor {index} {graph.tensors[index].name}")
    (signature,) = view.signature_defs
    outputs = {o.name: int(o.tensor_index) for o in signature.outputs}
    assert outputs.keys() == expected.keys()
    for name, result in (("scalar", scalar), (path, fast)):
        for key, want in expected.items():
            index = outputs[key]
            got = np.frombuffer(result[index], want.dtype).reshape(want.shape)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"{name} tensor {index}")


def elementwise_files(folder: Path) -> dict[str, tuple[Path, np.ndarray]]:
    """Float PRELU with a per-channel alpha, LEAKY_RELU, MAXIMUM against one value, SUB with the vector on the
    left and MUL by a value per row (vbinaryc row by row), over rows of 19 channels (the NEON kernels' 8- and
    4-element steps and a 3-element tail), with zeros, -0.0 and infinities in the input."""
    import sys

    sys.path.insert(0, str(NATIVE.parent / "tests" / "runtime"))
    from single_op import Const, Input, op_model

    rng = np.random.default_rng(6)
    shape, f32 = (1, 5, 7, 19), np.float32
    feed = rng.uniform(-3, 3, shape).astype(f32)
    feed.reshape(-1)[:4] = [0.0, -0.0, np.inf, -np.inf]
    models = {
        "prelu": op_model("PRELU", [Input(shape), Const(rng.uniform(-1, 1, (1, 1, 19)).astype(f32))], [(shape, f32)]),
        "leaky_relu": op_model("LEAKY_RELU", [Input(shape)], [(shape, f32)], {"alpha": 0.2}),
        # f32_unary__neon: 8 values a step, then 4, then a 3-value tail per 19-channel row (665 values in one call)
        "hard_swish": op_model("HARD_SWISH", [Input(shape)], [(shape, f32)]),
        "maximum": op_model("MAXIMUM", [Input(shape), Const(np.array(0.5, f32))], [(shape, f32)]),
        "sub": op_model("SUB", [Const(rng.uniform(-1, 1, (19,)).astype(f32)), Input(shape)], [(shape, f32)],
                        {"fused_activation_function": 3}),
        "mul_row_value": op_model("MUL", [Input(shape), Const(rng.uniform(-2, 2, (1, 5, 7, 1)).astype(f32))],
                                  [(shape, f32)], {}),
        # channels first: a 35 x 19 transpose (x32_transpose_2d: 4 x 4 register blocks and 3-wide edges both ways)
        "transpose": op_model("TRANSPOSE", [Input(shape), Const(np.array([0, 3, 1, 2], np.int32))],
                              [((1, 19, 5, 7), f32)]),
    }
    feeds = {name: feed for name in models}
    # MEAN over H and W of 23 channels (f32_rdsum__neon: a 16-channel step, a 4-channel one and a 3-channel tail)
    feeds["mean_hw"] = rng.uniform(-3, 3, (1, 5, 7, 23)).astype(f32)
    feeds["mean_hw"][0, 0, 0, :] = -0.0
    feeds["mean_hw"][0, 4, 6, 22] = np.inf
    models["mean_hw"] = op_model("MEAN", [Input((1, 5, 7, 23)), Const(np.array([1, 2], np.int32))],
                                 [((1, 1, 1, 23), f32)], {"keep_dims": True})
    # a tile's last 1-3 columns (x32_transpose_2d's store_last_columns): channels last from 3 (RGB: one vst3q per
    # 4 pixels), 2 and 5 channels (5 = a 4 x 4 block and 1 column, stored a lane at a time as 42 floats apart are
    # whole rows), and channels first from 5 (2 columns of 42-float output rows); 42 = 4 x 10 + 2 rows at the end
    for name, (channels_first, perm) in {"transpose_rgb": ((1, 3, 6, 7), [0, 2, 3, 1]),
                                         "transpose_two": ((1, 2, 6, 7), [0, 2, 3, 1]),
                                         "transpose_five": ((1, 5, 6, 7), [0, 2, 3, 1]),
                                         "transpose_to_first": ((1, 6, 7, 5), [0, 3, 1, 2]),
                                         # 130 x 67 both ways: two whole 64 x 64 tiles and their edges (a block
                                         # row of 16 blocks, of 0 blocks and 2 or 3 last columns, 2 or 3 last rows)
                                         "transpose_tiles": ((1, 130, 67), [0, 2, 1]),
                                         "transpose_tiles_back": ((1, 67, 130), [0, 2, 1]),
                                         # attention's heads split: runs of 32 floats (two 64-byte blocks copied
                                         # as fixed blocks on aarch64), and of 19 floats (memcpy)
                                         "transpose_heads": ((1, 21, 6, 32), [0, 2, 1, 3]),
                                         "transpose_heads_odd": ((1, 21, 6, 19), [0, 2, 1, 3])}.items():
        feeds[name] = rng.uniform(-3, 3, channels_first).astype(f32)
        out_shape = tuple(channels_first[p] for p in perm)
        models[name] = op_model("TRANSPOSE", [Input(channels_first), Const(np.array(perm, np.int32))],
                                [(out_shape, f32)])
    found = {}
    for name, content in models.items():
        (folder / f"{name}.tflite").write_bytes(content)
        found[name] = (folder / f"{name}.tflite", feeds[name])
    return found


def path_output_and_litert(model_runner, file: Path, feed: np.ndarray, arch: str, cpu: str,
                           path: str) -> tuple[bytes, np.ndarray]:
    """A one-input, one-output model's output bytes on an Arm path, checked equal to the scalar path's on the
    same emulated CPU, and LiteRT's output for the same input (run on this host)."""
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    view = ModelView(file.read_bytes())
    (input_tensor,), (output_tensor,) = list(view.subgraphs[0].inputs), list(view.subgraphs[0].outputs)
    scalar = model_runner(file, arch, cpu, "scalar", int(input_tensor), feed)
    fast = model_runner(file, arch, cpu, path, int(input_tensor), feed)
    assert fast[int(output_tensor)] == scalar[int(output_tensor)], f"{path} differs from scalar"
    it = litert.Interpreter(model_path=str(file))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], feed)
    it.invoke()
    expected = it.get_tensor(it.get_output_details()[0]["index"])
    return fast[int(output_tensor)], expected


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("op", ["prelu", "leaky_relu", "hard_swish", "mean_hw", "maximum", "sub", "mul_row_value",
                                "transpose", "transpose_rgb", "transpose_two", "transpose_five", "transpose_to_first",
                                "transpose_tiles", "transpose_tiles_back", "transpose_heads", "transpose_heads_odd"])
def test_float_elementwise_on_arm_path_matches_scalar_and_litert(model_runner, tmp_path_factory, op: str, arch: str,
                                                                 cpu: str, path: str):
    """The f32_vbinary / f32_vlrelu / f32_unary / f32_rdsum / x32_transpose_2d NEON kernels in a whole model: the
    scalar path's bits on the same emulated CPU, and LiteRT's values (run on this host)."""
    file, feed = elementwise_files(tmp_path_factory.mktemp("elementwise-files"))[op]
    got, expected = path_output_and_litert(model_runner, file, feed, arch, cpu, path)
    got = np.frombuffer(got, np.float32).reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def attention_files(folder: Path) -> dict[str, tuple[Path, np.ndarray]]:
    """int8 BATCH_MATMUL against a constant y, y's zero point 0 (the int8 GEMM) and 5 (exact sums on the float GEMM in
    depth chunks of 256, then the fixed-point requantization kernel), depth 300 and adj_y; and EMBEDDING_LOOKUP of
    a hybrid int8 table."""
    import sys

    sys.path.insert(0, str(NATIVE.parent / "tests" / "runtime"))
    from single_op import Const, Input, Quant, op_model

    rng = np.random.default_rng(8)
    i8 = np.int8
    x = rng.integers(-128, 128, (2, 9, 300)).astype(i8)
    y = rng.integers(-128, 128, (2, 21, 300)).astype(i8)
    found = {}
    for zy in (0, 5):
        content = op_model("BATCH_MATMUL", [Input(x.shape, i8, Quant(0.02, -7)), Const(y, Quant(0.03, zy))],
                           [((1,), i8, Quant(2.5, 3))], {"adj_y": True}, version=4)
        (folder / f"bmm_zy{zy}.tflite").write_bytes(content)
        found[f"bmm_zy{zy}"] = (folder / f"bmm_zy{zy}.tflite", x)
    ids = np.array([3, 0, 7, 7, 1], np.int32)
    table = rng.integers(-127, 128, (8, 6)).astype(i8)
    content = op_model("EMBEDDING_LOOKUP", [Input(ids.shape, np.int32), Const(table, Quant(0.05, 0))],
                       [((5, 6), np.float32)])
    (folder / "embedding.tflite").write_bytes(content)
    found["embedding"] = (folder / "embedding.tflite", ids)
    return found


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("name", ["bmm_zy0", "bmm_zy5", "embedding"])
def test_int8_attention_ops_on_arm_path_match_scalar_and_litert(model_runner, tmp_path_factory, name: str, arch: str,
                                                                cpu: str, path: str):
    """ops/batch_matmul_int8.c and embedding_lookup.c on the Arm paths: the scalar path's bits, and LiteRT's bits
    (run on this host)."""
    file, feed = attention_files(tmp_path_factory.mktemp("attention-files"))[name]
    got, expected = path_output_and_litert(model_runner, file, feed, arch, cpu, path)
    assert got == expected.tobytes(), f"{path} differs from LiteRT"


def int8_conv_files(folder: Path) -> dict[str, tuple[Path, np.ndarray]]:
    """int8 CONV_2D (1x1: the GEMM; 3x3 SAME: the IGEMM) and FULLY_CONNECTED with per-channel weights over 40 input
    channels (two 16-k blocks and a last 8), inputs mostly -128: with weights in [-127, 127] (the pairs tile on
    aarch64 NEON) and with one output channel of -128 weights, whose pair sums (-128 * -128 twice) overflow int16,
    so the driver must keep the exact kr-1 tile for that filter."""
    import sys

    sys.path.insert(0, str(NATIVE.parent / "tests" / "runtime"))
    from single_op import Const, Input, Quant, op_model

    rng = np.random.default_rng(29)
    i8 = np.int8
    x = np.where(rng.random((1, 5, 6, 40)) < 0.7, -128, rng.integers(-128, 128, (1, 5, 6, 40))).astype(i8)
    found = {}
    for shape, op, name in (((20, 1, 1, 40), "CONV_2D", "conv1x1"), ((12, 3, 3, 40), "CONV_2D", "conv3x3"),
                            ((20, 40), "FULLY_CONNECTED", "fc")):
        for with_min in (False, True):
            w = rng.integers(-127, 128, shape).astype(i8)
            if with_min:
                w[3] = -128
            scales = rng.uniform(0.002, 0.01, shape[0]).astype(np.float32)
            bias = rng.integers(-3000, 3000, shape[0]).astype(np.int32)
            inputs = [Input(x.shape if op == "CONV_2D" else (30, 40), i8, Quant(0.05, -3)),
                      Const(w, Quant(scales, 0, 0)), Const(bias, Quant(scales * 0.05, 0, 0))]
            if op == "CONV_2D":
                options = {"padding": 0, "stride_w": 1, "stride_h": 1, "fused_activation_function": 0,
                           "dilation_w_factor": 1, "dilation_h_factor": 1}
                content = op_model(op, inputs, [((1, 5, 6, shape[0]), i8, Quant(0.9, 2))], options, version=3)
                feed = x
            else:
                content = op_model(op, inputs, [((30, shape[0]), i8, Quant(0.9, 2))],
                                   {"fused_activation_function": 0}, version=4)
                feed = x.reshape(30, 40)
            key = f"{name}_{'with' if with_min else 'without'}_min"
            (folder / f"{key}.tflite").write_bytes(content)
            found[key] = (folder / f"{key}.tflite", feed)
    return found


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("name", [f"{op}_{w}_min" for op in ("conv1x1", "conv3x3", "fc") for w in ("with", "without")])
def test_int8_conv_weights_with_and_without_min_on_arm_path(model_runner, tmp_path_factory, name: str, arch: str,
                                                            cpu: str, path: str):
    """ops/conv_gemm.c's choice between the pairs tile (filters without -128) and the exact one: the scalar path's
    bits and LiteRT's (run on this host) either way."""
    file, feed = int8_conv_files(tmp_path_factory.mktemp("int8-conv-files"))[name]
    got, expected = path_output_and_litert(model_runner, file, feed, arch, cpu, path)
    assert got == expected.tobytes(), f"{path} differs from LiteRT"


INT16X8 = ["dense_2d", "dense_3d", "dense_no_bias", "conv_same_stride", "conv_valid_dilated", "depthwise",
           "transpose_conv"]


@pytest.mark.parametrize(("arch", "cpu", "path"), MODEL_RUNS)
@pytest.mark.parametrize("name", INT16X8)
def test_int16x8_models_on_arm_path_match_scalar_and_litert(model_runner, name: str, arch: str, cpu: str, path: str):
    """The converter's 16x8 files (tests/data/int16x8) on the Arm paths: every tensor the scalar path's bits on the
    same emulated CPU, and the output LiteRT's stored one."""
    folder = NATIVE.parent / "tests" / "data" / "int16x8"
    file, data = folder / f"{name}.tflite", np.load(folder / f"{name}.npz")
    view = ModelView(file.read_bytes())
    (input_tensor,), (output_tensor,) = list(view.subgraphs[0].inputs), list(view.subgraphs[0].outputs)
    scalar = model_runner(file, arch, cpu, "scalar", int(input_tensor), data["x"])
    fast = model_runner(file, arch, cpu, path, int(input_tensor), data["x"])
    assert fast == scalar, [i for i in scalar if fast.get(i) != scalar[i]]
    assert fast[int(output_tensor)] == data["y"].tobytes(), f"{path} differs from LiteRT"
