"""librillet itself: strict C99 builds, no mutable globals, and the C API's status/message contract."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

from rillet.native import ffi, lib

NATIVE = Path(__file__).resolve().parents[2] / "native"
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-fPIC", "-c"]


def build_config():
    """native/build_config.py, the one list of sources and per-ISA flags (None without the checkout)."""
    path = NATIVE / "build_config.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("rillet_build_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_all(tmp_path: Path) -> list[Path]:
    config = build_config()
    if config is None:
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    objects = []
    includes = [f"-I{d}" for d in config.INCLUDE_DIRS]
    for source in map(Path, config.sources()):
        obj = tmp_path / (source.stem + ".o")
        subprocess.run([gcc, *FLAGS, *config.flags_for(str(source)), *includes, str(source), "-o", str(obj)],
                       check=True, capture_output=True, text=True)
        objects.append(obj)
    return objects


def test_every_source_compiles_as_strict_c99_and_holds_no_mutable_global(tmp_path):
    objects = compile_all(tmp_path)
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("no objdump")
    table = subprocess.run([objdump, "-t", *map(str, objects)], check=True, capture_output=True, text=True).stdout
    # Writable sections only: constant tables of function pointers sit in .rodata or .data.rel.ro.
    mutable = [line for line in table.splitlines()
               if any(f" {section}\t" in line for section in (".data", ".bss", "*COM*"))]
    assert mutable == []


def test_status_and_message_instead_of_crashes():
    out = ffi.new("rl_plan **")
    assert lib.rl_plan_create(out, 1) == lib.RL_OK
    plan = ffi.gc(out[0], lib.rl_plan_destroy)
    assert lib.rl_plan_invoke(plan) == lib.RL_BAD_STATE
    assert b"prepared" in ffi.string(lib.rl_plan_message(plan))
    shape = ffi.new("int32_t[]", [2, 2])
    assert lib.rl_plan_add_tensor(plan, lib.RL_FLOAT32, 2, shape, ffi.NULL, 0, 0) == lib.RL_OK
    assert lib.rl_plan_add_tensor(plan, lib.RL_FLOAT32, 9, shape, ffi.NULL, 0, 0) == lib.RL_UNSUPPORTED
    assert lib.rl_plan_add_op(plan, 19, 1, ffi.new("int32_t[]", [5]), 1, ffi.new("int32_t[]", [0]), ffi.NULL) \
        == lib.RL_INVALID
    assert b"tensor 5" in ffi.string(lib.rl_plan_message(plan))
    data = ffi.new("float[]", [1.0, 2.0, 3.0])  # 12 bytes for a 16-byte tensor
    assert lib.rl_plan_add_tensor(plan, lib.RL_FLOAT32, 2, shape, data, 12, 0) == lib.RL_OK
    assert lib.rl_plan_prepare(plan) == lib.RL_INVALID
    assert b"holds 12 bytes" in ffi.string(lib.rl_plan_message(plan))


def test_the_arena_reuses_memory_across_lifetimes():
    """A chain of four RELUs over 1 KiB tensors needs three buffers, not five: the input, kept for the whole
    plan as TFLite keeps it (a caller may invoke again), and two intermediates that take turns."""
    out = ffi.new("rl_plan **")
    lib.rl_plan_create(out, 1)
    plan = ffi.gc(out[0], lib.rl_plan_destroy)
    shape = ffi.new("int32_t[]", [256])
    for _ in range(5):
        lib.rl_plan_add_tensor(plan, lib.RL_FLOAT32, 1, shape, ffi.NULL, 0, 0)
    for i in range(4):
        assert lib.rl_plan_add_op(plan, 19, 1, ffi.new("int32_t[]", [i]), 1, ffi.new("int32_t[]", [i + 1]),
                                  ffi.NULL) == lib.RL_OK
    lib.rl_plan_set_io(plan, 1, ffi.new("int32_t[]", [0]), 1, ffi.new("int32_t[]", [4]))
    assert lib.rl_plan_prepare(plan) == lib.RL_OK, ffi.string(lib.rl_plan_message(plan))
    assert lib.rl_plan_arena_bytes(plan) == 3 * 1024
    x = ffi.cast("float *", lib.rl_plan_tensor_data(plan, 0))
    for i in range(256):
        x[i] = i - 128.0
    assert lib.rl_plan_invoke(plan) == lib.RL_OK
    y = ffi.cast("float *", lib.rl_plan_tensor_data(plan, 4))
    assert [y[i] for i in (0, 127, 128, 255)] == [0.0, 0.0, 0.0, 127.0]


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs binutils' readelf")
def test_the_library_binds_its_own_functions_at_link_time():
    """Built with -Bsymbolic (build_ffi.LINK_FLAGS): no relocation names one of librillet's own functions, which
    the dynamic loader would otherwise look up by name at every start (~770 of them, ~0.55M instructions on x86).
    What stays named is libc's and libm's."""
    from rillet.native import LIBRARY_PATH

    def readelf(*args: str) -> list[list[str]]:
        out = subprocess.run(["readelf", "-W", *args, LIBRARY_PATH], capture_output=True, text=True, check=True)
        return [line.split() for line in out.stdout.splitlines()]

    # --dyn-syms rows: Num: Value Size Type Bind Vis Ndx Name (Ndx UND: another library's)
    defined = {row[7].split("@")[0] for row in readelf("--dyn-syms")
               if len(row) >= 8 and row[0].endswith(":") and row[6] != "UND"}
    # -r rows: Offset Info Type Value Name + Addend (a relative relocation names no symbol)
    named = {row[4].split("@")[0] for row in readelf("-r") if len(row) >= 5 and row[2].startswith("R_")}
    assert len(defined) > 100  # the library's API and kernels were read
    assert sorted(named & defined) == []
