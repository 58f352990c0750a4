"""examples/c/classify.c, the C API used as a device app uses it (no Python): built natively against the installed
package's include/rillet.h and lib/librillet.a (what every wheel carries) and against librillet.so, and cross-built
with Debian's compilers for aarch64 and armv7 (librillet.a made by build_ffi.build_static_library, as a wheel's
is) and run under qemu-user; on the reference models its outputs must be the Python API's (int8 bit for bit,
float within 1e-5), its top class the Python output's argmax, and its errors the library's messages.

The cross cases skip, saying what is missing, without the cross compiler, qemu-user or the checkout's native/
sources (`.ci/run` installs the tools).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import rillet.native
from rillet.runtime import Interpreter

from support import model_path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "c" / "classify.c"
PACKAGE = Path(rillet.native.__file__).resolve().parent  # include/rillet.h, lib/librillet.a, librillet.so
FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"]
MODELS = ["cnn_small_f32", "cnn_small_int8", "cnn_small_int8_floatio", "mobilenet_v2_035_96_int8"]
# (arch, Debian's compiler, qemu-user, qemu's -cpu): a Pi 4 on a 64-bit OS, a Pi 2/3/4 on a 32-bit one.
CROSS = {"aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64", "cortex-a72"),
         "armv7l": ("arm-linux-gnueabihf-gcc", "qemu-arm", "cortex-a15")}


def feeds(name: str) -> list[np.ndarray]:
    """Two inputs for the model: LiteRT's golden input, and a seeded one spread over the input type's range."""
    interpreter = Interpreter(model_path=str(model_path(name)))
    detail = interpreter.get_input_details()[0]
    golden = np.load(model_path(name).with_suffix(".npz"))["x"]
    rng = np.random.default_rng(7)
    if np.dtype(detail["dtype"]) == np.int8:
        other = rng.integers(-128, 128, detail["shape"]).astype(np.int8)
    else:
        other = rng.uniform(-1, 1, detail["shape"]).astype(np.float32)
    return [golden.astype(detail["dtype"]), other]


def python_output(name: str, x: np.ndarray) -> np.ndarray:
    interpreter = Interpreter(model_path=str(model_path(name)))
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


def run_example(exe: Path, name: str, x: np.ndarray, folder: Path, launcher: list[str] = (),
                threads: int = 1) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """The example's output tensor (as the Python output's dtype and shape) and its printed (class, value)s."""
    expected = python_output(name, x)
    x.tofile(folder / "input.bin")
    done = subprocess.run([*launcher, str(exe), str(model_path(name)), str(folder / "input.bin"),
                           str(folder / "output.bin"), "--threads", str(threads)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    got = np.fromfile(folder / "output.bin", expected.dtype).reshape(expected.shape)
    top = [(int(c), float(v)) for c, v in (line.split() for line in done.stdout.splitlines())]
    return got, top


def check_against_python(got: np.ndarray, top: list[tuple[int, float]], name: str, x: np.ndarray) -> None:
    expected = python_output(name, x)
    if expected.dtype == np.float32:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)
    values = expected.reshape(-1).astype(np.float64)
    assert len(top) == min(3, values.size)
    assert top[0][0] == int(np.argmax(values))  # first index on ties, as numpy
    assert [c for c, _ in top] == sorted(range(values.size), key=lambda k: (-values[k], k))[:len(top)]


def compile_example(compiler: str, out: Path, library: list[str], extra: list[str] = ()) -> Path:
    exe = out / "classify"
    done = subprocess.run([compiler, *FLAGS, *extra, f"-I{PACKAGE / 'include'}", str(EXAMPLE), *library,
                           "-lm", "-lpthread", "-o", str(exe)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return exe


def host_compiler() -> str:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    if not EXAMPLE.exists():
        pytest.skip("examples/c is not beside the tests (installed without the checkout)")
    return compiler


@pytest.fixture(scope="module")
def static_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = host_compiler()
    archive = PACKAGE / "lib" / "librillet.a"
    assert archive.is_file() and (PACKAGE / "include" / "rillet.h").is_file(), \
        f"the package lacks lib/librillet.a or include/rillet.h (in {PACKAGE})"
    return compile_example(compiler, tmp_path_factory.mktemp("static"), [str(archive)])


@pytest.mark.parametrize("name", MODELS)
def test_static_example_gives_the_python_apis_outputs(static_example, tmp_path: Path, name: str) -> None:
    for k, x in enumerate(feeds(name)):
        folder = tmp_path / str(k)
        folder.mkdir()
        got, top = run_example(static_example, name, x, folder, threads=1 + k)
        check_against_python(got, top, name, x)


def test_example_linked_to_the_shared_library(tmp_path: Path) -> None:
    compiler = host_compiler()
    exe = compile_example(compiler, tmp_path, [f"-L{PACKAGE}", "-lrillet"], [f"-Wl,-rpath,{PACKAGE}"])
    needed = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, check=False).stdout
    assert str(PACKAGE / "librillet.so") in needed, needed
    x = feeds("cnn_small_int8")[0]
    got, top = run_example(exe, "cnn_small_int8", x, tmp_path)
    check_against_python(got, top, "cnn_small_int8", x)


def test_example_reports_the_librarys_errors(static_example, tmp_path: Path) -> None:
    model = model_path("cnn_small_f32").read_bytes()
    (tmp_path / "truncated.tflite").write_bytes(model[:2000])
    np.zeros([1, 28, 28, 1], np.float32).tofile(tmp_path / "input.bin")
    np.zeros([3], np.float32).tofile(tmp_path / "short.bin")

    def run(*args: object) -> subprocess.CompletedProcess:
        return subprocess.run([str(static_example), *map(str, args)], capture_output=True, text=True, check=False)

    done = run(tmp_path / "truncated.tflite", tmp_path / "input.bin")
    assert done.returncode == 1 and "truncated.tflite: invalid: malformed: " in done.stderr, done.stderr
    done = run(model_path("cnn_small_f32"), tmp_path / "short.bin")
    assert done.returncode == 1 and "short.bin holds 12 bytes; the model's input takes 3136" in done.stderr
    done = run(tmp_path / "missing.tflite", tmp_path / "input.bin")
    assert done.returncode == 1 and "missing.tflite: No such file or directory" in done.stderr
    assert run(model_path("cnn_small_f32")).returncode == 2


def load_build_ffi() -> ModuleType:
    path = ROOT / "native" / "build_ffi.py"
    if not path.exists() or not (ROOT / "native" / "src").is_dir():
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    spec = importlib.util.spec_from_file_location("rillet_build_ffi", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cross_example(tmp_path_factory: pytest.TempPathFactory):
    """Builds (once per architecture) librillet.a as a wheel's is and the example linked statically to it, so
    qemu-user runs it without an Arm root."""
    from rillet.targets.devices import ARCHITECTURES

    built: dict[str, Path] = {}

    def get(arch: str) -> Path:
        compiler, qemu, _ = CROSS[arch]
        absent = [tool for tool in (compiler, qemu) if shutil.which(tool) is None]
        if absent:
            pytest.skip(f"needs {' and '.join(absent)} (apt-get install gcc-{compiler[:-4]} qemu-user)")
        if not EXAMPLE.exists():
            pytest.skip("examples/c is not beside the tests (installed without the checkout)")
        if arch not in built:
            build_ffi = load_build_ffi()
            out = tmp_path_factory.mktemp(f"c-{arch}")
            target = ARCHITECTURES[arch]
            archive = build_ffi.build_static_library(str(out / "librillet.a"), str(out / "objects"),
                                                     compiler=target.compiler(), arch=arch,
                                                     target_flags=target.cflags)
            built[arch] = compile_example(compiler, out, [archive], ["-static", *target.cflags])
        return built[arch]

    return get


@pytest.mark.parametrize("arch", list(CROSS))
def test_cross_built_example_under_qemu_gives_the_python_apis_outputs(cross_example, tmp_path: Path,
                                                                       arch: str) -> None:
    exe = cross_example(arch)
    _, qemu, cpu = CROSS[arch]
    for name in ("cnn_small_int8", "cnn_small_f32"):
        for k, x in enumerate(feeds(name)):
            folder = tmp_path / f"{name}-{k}"
            folder.mkdir()
            got, top = run_example(exe, name, x, folder, [qemu, "-cpu", cpu], threads=2)
            check_against_python(got, top, name, x)


# ---- `rillet deploy --c`: the bundle an app in C starts from ----

def test_deploy_c_bundle_for_the_host_builds_with_make_and_runs(tmp_path: Path, capsys) -> None:
    from rillet.cli import main

    if shutil.which("make") is None:
        pytest.skip("needs make")
    host_compiler()
    out = tmp_path / "cbundle"
    # no host wheel in an empty --wheels folder: the host bundle takes this installation's library
    assert main(["deploy", "--c", "--target", "host", str(model_path("cnn_small_int8")), "-o", str(out),
                 "--wheels", str(tmp_path)]) == 0
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == [".rillet-bundle", "Makefile", "README.md", "classify.c", "cnn_small_int8.tflite",
                     "include/rillet.h", "lib/librillet.a", "lib/librillet.so"]
    assert (out / "include" / "rillet.h").read_bytes() == (PACKAGE / "include" / "rillet.h").read_bytes()
    assert (tmp_path / "cbundle.tar.gz").is_file() and "make && ./classify" in capsys.readouterr().out
    done = subprocess.run(["make", "classify", "classify-shared", "CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror"],
                          cwd=out, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    x = feeds("cnn_small_int8")[1]
    for exe in ("classify", "classify-shared"):
        folder = tmp_path / exe
        folder.mkdir()
        got, top = run_example(out / exe, "cnn_small_int8", x, folder)
        check_against_python(got, top, "cnn_small_int8", x)


def test_deploy_c_bundle_takes_the_targets_wheel(tmp_path: Path, capsys) -> None:
    import zipfile

    from rillet.cli import main

    wheels = tmp_path / "dist"
    wheels.mkdir()
    members = {"rillet/native/include/rillet.h": b"/* header */", "rillet/native/lib/librillet.a": b"!<arch>\naarch64",
               "rillet/native/librillet.so": b"\x7fELF aarch64"}
    with zipfile.ZipFile(wheels / "rillet-0.1.0-py3-none-linux_aarch64.whl", "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    zipfile.ZipFile(wheels / "flatbuffers-25.12.19-py2.py3-none-any.whl", "w").close()
    out = tmp_path / "rpi4"
    assert main(["deploy", "--c", "--target", "rpi4", str(model_path("cnn_small_f32")), "-o", str(out),
                 "--wheels", str(wheels)]) == 0
    from rillet.targets.c_bundle import WHEEL_FILES

    for name, data in members.items():
        assert (out / WHEEL_FILES[name]).read_bytes() == data
    assert "make CC=aarch64-linux-gnu-gcc" in (out / "README.md").read_text()
    assert "float32 [1, 28, 28, 1]" in (out / "README.md").read_text()
    # an older wheel without the C files: said so, with how to make a new one
    with zipfile.ZipFile(wheels / "rillet-0.1.0-py3-none-linux_aarch64.whl", "w") as z:
        z.writestr("rillet/native/librillet.so", b"")
    capsys.readouterr()
    assert main(["deploy", "--c", "--target", "rpi4", str(model_path("cnn_small_f32")), "-o", str(out),
                 "--wheels", str(wheels)]) == 1
    assert "predates the C API" in capsys.readouterr().err
    assert main(["deploy", "--c", "--train", "--target", "rpi4", str(model_path("cnn_small_f32")), "-o",
                 str(tmp_path / "other"), "--wheels", str(wheels)]) == 2
    assert "--train: for the Python bundle" in capsys.readouterr().err
