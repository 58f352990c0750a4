"""`rillet deploy --c`: a bundle for an app written in C, with no Python on the device: the target's librillet
(librillet.so and librillet.a, taken from the target's wheel, or for `--target host` from this installation),
rillet.h, the model, examples/c/classify.c with a Makefile that builds it, and a README. A folder and a .tar.gz of
it, replaced by a later deploy as the Python bundle is (targets/bundle.py).
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path

import numpy as np

from rillet.converter.format.view import ModelView

from .bundle import MARKER, MARKER_TEXT, Bundle, BundleError, _our_archive, check_output_folder, find_wheels
from .devices import Device

HERE = Path(__file__).resolve().parent
# What a bundle takes from the target's wheel (every wheel carries them: tools/build_wheels.py checks).
WHEEL_FILES = {"rillet/native/include/rillet.h": "include/rillet.h",
               "rillet/native/lib/librillet.a": "lib/librillet.a",
               "rillet/native/librillet.so": "lib/librillet.so"}

MAKEFILE = """# Builds classify with librillet linked in statically (one file to run), or classify-shared, which loads
# lib/librillet.so. On the device: make. Cross-building on a PC: make CC={triple}-gcc
CC ?= cc
CFLAGS ?= -std=c99 -O2 -Wall -Wextra
LDLIBS = -lm -lpthread

classify: classify.c
\t$(CC) $(CFLAGS) -Iinclude classify.c lib/librillet.a $(LDLIBS) -o $@

classify-shared: classify.c
\t$(CC) $(CFLAGS) -Iinclude classify.c -Llib -lrillet -Wl,-rpath,'$$ORIGIN/lib' $(LDLIBS) -o $@

.PHONY: clean
clean:
\trm -f classify classify-shared
"""

README = """# {name}: {model} for {device}, in C

Made by `rillet deploy --c --target {target}`: librillet built for {arch} (`lib/librillet.a`, `lib/librillet.so`;
glibc >= 2.34 for the shared one), its C API `include/rillet.h` (ownership, threading and errors are described at
its top), the model, and `classify.c`, a complete program: load the model, set the input, invoke, read the output,
report errors with the library's messages. No Python is needed on the device.

```sh
sudo apt install gcc make        # on the device; or cross-build on a PC: make CC={cross}
make                             # classify, librillet linked statically
./classify {model} input.bin output.bin --threads 4
```

`input.bin` is the input tensor's raw bytes ({input}), e.g. `x.astype(np.{dtype}).tofile("input.bin")` with numpy
on a PC. classify prints the top three classes of the first output{quantized}; `output.bin` receives its raw
bytes. In your own app: `#include "rillet.h"` and link `lib/librillet.a -lm -lpthread` (or `-Llib -lrillet`).
{subgraphs}"""


def _library_files(device: Device, wheels_dir: Path) -> dict[str, bytes]:
    """The bundle's include/ and lib/ files: from the target's wheel in wheels_dir; for the host without one,
    from this installation (rillet.native's folder)."""
    try:
        wheel, _ = find_wheels(wheels_dir, device)
    except BundleError:
        if device.name != "host":
            raise
        import rillet.native

        package = Path(rillet.native.__file__).resolve().parent
        found = {}
        for member, target in WHEEL_FILES.items():
            path = package / member.removeprefix("rillet/native/")
            if not path.is_file():
                raise BundleError(f"this rillet lacks {path}: reinstall it (pip install rillet builds it)") from None
            found[target] = path.read_bytes()
        return found
    with zipfile.ZipFile(wheel) as z:
        missing = [m for m in WHEEL_FILES if m not in z.namelist()]
        if missing:
            raise BundleError(f"{wheel} lacks {', '.join(missing)}: it predates the C API; build it again with "
                              f"`python tools/build_wheels.py --arch {device.arch}`")
        return {target: z.read(member) for member, target in WHEEL_FILES.items()}


def _example_source() -> bytes:
    """examples/c/classify.c: packed beside this module in a wheel (setup.py), in the checkout otherwise."""
    for path in (HERE / "c_example" / "classify.c", HERE.parent / "examples" / "c" / "classify.c"):
        if path.is_file():
            return path.read_bytes()
    raise BundleError("classify.c is missing from this rillet (targets/c_example/ and examples/c/): reinstall it")


def make_c_bundle(model: Path, device: Device, out: Path, wheels_dir: Path) -> Bundle:
    """Writes the C bundle folder `out` and `out.tar.gz` beside it; the same output-folder rules as make_bundle."""
    from rillet.runtime import Interpreter

    if model.is_dir():
        raise BundleError(f"{model} is a folder, not a model file: give the .tflite inside it", exit_code=2)
    if not model.is_file():
        raise BundleError(f"{model}: no such model file", exit_code=2)
    replace = check_output_folder(out, [model, wheels_dir])
    name = out.resolve().name
    archive = out.resolve().parent / f"{name}.tar.gz"
    if archive.exists() and not _our_archive(archive, name):
        raise BundleError(f"{archive} exists and is not a bundle's archive: move it or give another -o", exit_code=2)
    files = _library_files(device, wheels_dir)
    source = _example_source()
    interpreter = Interpreter(model_path=str(model))  # refuses a model the runtime cannot run, here not there
    detail = interpreter.get_input_details()[0]
    subgraphs = interpreter.get_signature_list()
    several = len(ModelView(model.read_bytes()).subgraphs) > 1
    if replace:
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARKER).write_text(MARKER_TEXT)
    for relative, data in files.items():
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        (out / relative).write_bytes(data)
    shutil.copy2(model, out / model.name)
    (out / "classify.c").write_bytes(source)
    triple = device.architecture.triple or "x86_64-linux-gnu"
    (out / "Makefile").write_text(MAKEFILE.format(triple=triple))
    dtype = np.dtype(detail["dtype"]).name
    (out / "README.md").write_text(README.format(
        name=name, model=model.name, device=device.description, target=device.name, arch=device.arch,
        cross=f"{triple}-gcc", input=f"{dtype} {[int(n) for n in detail['shape']]}", dtype=dtype,
        quantized=" (dequantized with its scale and zero point when it is int8)" if detail["quantization"][0] else "",
        subgraphs=("\nThe model has several subgraphs (control flow or signatures "
                   f"{', '.join(subgraphs)}): classify.c runs subgraph 0; an app that calls the others builds one "
                   "plan per subgraph in an `rl_program` (rillet.h).\n") if several else ""))
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(out, arcname=name)
    return Bundle(out, archive, sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()), (0.0, 1.0),
                  "not used by a C bundle")
