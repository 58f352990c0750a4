"""What every command shares: its two kinds of error (and so its exit status), the checks of the files a
command line names, and feeding arrays from .npy/.npz files to a model's inputs by name, quantized to the
input's type when the model takes int8.

Exit status, the same in every command: 0 success; 1 the work failed (the model or the data was refused,
an output could not be written); 2 bad usage (an unknown option or a bad value, a file named on the command
line that does not exist)."""

from __future__ import annotations

import argparse
import contextlib
import os
import pickle
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np


class ParagraphFormatter(argparse.HelpFormatter):
    """Help text in paragraphs: each blank-line-separated paragraph of a description or epilog is wrapped on its
    own, and a paragraph whose lines are indented (command examples) is kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.strip("\n").split("\n\n"):
            if paragraph.startswith(" "):
                paragraphs.append("\n".join(indent + line for line in paragraph.splitlines()))
            else:
                paragraphs.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(paragraphs)


class UsageError(Exception):
    """The command line asks for something impossible before any work starts: exit status 2."""


class WorkError(Exception):
    """The work was tried and failed (the message names the file or the problem): exit status 1."""


def existing_file(path: str, what: str) -> str:
    """`path` when it names a readable file; UsageError naming it otherwise."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{what} {path} does not exist")
    if not p.is_file():
        raise UsageError(f"{what} {path} is not a file")
    if not os.access(p, os.R_OK):
        raise UsageError(f"{what} {path} is not readable")
    return path


def write_file(path: str, data: bytes | str, what: str = "output") -> None:
    """Writes `data` to `path`; WorkError naming the file and the reason when it cannot."""
    try:
        if isinstance(data, str):
            Path(path).write_text(data)
        else:
            Path(path).write_bytes(data)
    except OSError as e:
        raise WorkError(f"cannot write {what} {path}: {e.strerror or e}") from None


def output_file(path: str, what: str = "output") -> str:
    """`path` when a file can be written there (its folder exists and is writable; not a folder itself),
    checked before the work starts; WorkError naming the file otherwise (exit 1, as a failed write)."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise WorkError(f"cannot write {what} {path}: it is a folder")
    if not folder.is_dir():
        raise WorkError(f"cannot write {what} {path}: no such folder {folder}")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise WorkError(f"cannot write {what} {path}: permission denied")
    return path


# What np.load raises on a file that is not a whole .npy/.npz: a 0-byte or cut .npy (EOFError), a file of
# other bytes (ValueError, pickle's error), a damaged zip (BadZipFile), an unreadable one (OSError).
_NUMPY_READ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, pickle.UnpicklingError, KeyError)


def _unreadable(path: str, what: str, error: BaseException) -> WorkError:
    if Path(path).stat().st_size == 0:
        return WorkError(f"{what} {path} is empty (0 bytes): save arrays with numpy.save or numpy.savez")
    reason = str(error).splitlines()[0] if str(error).strip() else type(error).__name__
    return WorkError(f"{what} {path}: not a .npy or .npz file numpy can read ({reason})")


def load_arrays(path: str, what: str, want: str = "any") -> np.ndarray | dict[str, np.ndarray]:
    """The array of a .npy or the arrays of a .npz by name, for every command that reads data (`run --input`,
    `bench --input`, `quantize --calib`, `convert --weights`, `train --data`). UsageError when there is no
    such file; WorkError naming the file when it is empty, not numpy's, a .npz holding no arrays, or not
    the kind `want` says ("npz": arrays by name; "npy": one array)."""
    existing_file(path, what)
    try:
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.lib.npyio.NpzFile):
            with loaded:
                loaded = {key: loaded[key] for key in loaded.files}
    except _NUMPY_READ_ERRORS as e:
        raise _unreadable(path, what, e) from None
    _check_kind(loaded, path, what, want)
    return loaded


def npz_names(path: str, what: str) -> list[str]:
    """The array names of the .npz at `path`, reading only its index (a training set can be large and is
    read again by the trainer); errors as load_arrays(path, what, "npz")."""
    existing_file(path, what)
    try:
        loaded = np.load(path, allow_pickle=False, mmap_mode="r")
        if isinstance(loaded, np.lib.npyio.NpzFile):
            with loaded:
                names = list(loaded.files)
            _check_kind({name: None for name in names}, path, what, "npz")
            return names
    except _NUMPY_READ_ERRORS as e:
        raise _unreadable(path, what, e) from None
    _check_kind(loaded, path, what, "npz")
    return []


def _check_kind(loaded: Any, path: str, what: str, want: str) -> None:
    if isinstance(loaded, dict):
        if not loaded:
            raise WorkError(f"{what} {path} holds no arrays")
        if want == "npy":
            raise WorkError(f"{what} {path} is an .npz of {len(loaded)} arrays; one array (.npy) is wanted here")
    elif want == "npz":
        raise WorkError(f"{what} {path} is one array (.npy); arrays by name are wanted here: save them with "
                        "numpy.savez (for training, the inputs and the labels, e.g. x and y)")


def positive_int(text: str) -> int:
    """An argparse type: an int of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def open_interpreter(path: str, **options: Any) -> Any:
    """rillet's Interpreter on the model file `path` (UsageError when there is no such file); a model it
    refuses is a WorkError naming the file."""
    from rillet.runtime import Interpreter

    existing_file(path, "model")
    try:
        return Interpreter(model_path=path, **options)
    except (ValueError, RuntimeError) as e:
        raise WorkError(f"{path}: {e}") from None


# ---- LiteRT, quietly ----

@contextlib.contextmanager
def native_stderr_silenced():
    """Sends file descriptor 2 to /dev/null for the block. LiteRT's C++ logs `INFO: Created TensorFlow Lite
    XNNPACK delegate for CPU.` and its warnings straight to fd 2 when an interpreter first allocates, and
    honours no environment variable for it (TF_CPP_MIN_LOG_LEVEL is not read by its minimal logging): in
    `bench`, `demo` and `quantize --executor litert` it would sit among rillet's own lines. What LiteRT
    refuses still reaches the caller, as the exception its Python binding raises."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def quiet_litert(litert_class: Any) -> Any:
    """A maker of `litert_class` interpreters (same arguments) that are created and first allocated with
    native_stderr_silenced, where LiteRT logs."""
    def make(*args: Any, **kwargs: Any) -> Any:
        with native_stderr_silenced():
            interpreter = litert_class(*args, **kwargs)
            interpreter.allocate_tensors()
        return interpreter

    make.__module__, make.__qualname__ = litert_class.__module__, litert_class.__qualname__  # for messages
    return make


# ---- inputs from files ----

def input_names(interpreter: Any) -> dict[str, int]:
    """Every name an input of subgraph 0 goes by -> its tensor index: the signature's name for it (a model
    TensorFlow wrote calls it `keras_tensor`) and its tensor name (`serving_default_keras_tensor:0`)."""
    names = {d["name"]: d["index"] for d in interpreter.get_input_details()}
    for key in interpreter.get_signature_list():  # LiteRT's API, so LiteRT's interpreters are read alike
        runner = interpreter.get_signature_runner(key)
        if runner._subgraph_index == 0:
            names.update(runner._inputs)
    return names


def signature_inputs(interpreter: Any, signature: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The input details of `signature` in its order, and every name they go by -> tensor index (the
    signature's names first, then the tensors')."""
    runner = interpreter.get_signature_runner(signature)
    details = list(runner.get_input_details().values())
    return details, {**{d["name"]: d["index"] for d in details}, **runner._inputs}


def read_inputs(specs: list[str], interpreter: Any, signature: str | None = None) -> dict[int, np.ndarray]:
    """The arrays `--input` names, by input tensor index (of subgraph 0, or of `signature`'s subgraph). A
    spec is FILE.npz (arrays keyed by input name), NAME=FILE.npy, or FILE.npy (then one per model input, in
    the model's input order). Every input must be given exactly once; a key that names no input is refused,
    naming it."""
    if signature is None:
        details, names = interpreter.get_input_details(), input_names(interpreter)
    else:
        details, names = signature_inputs(interpreter, signature)
    by_index: dict[int, np.ndarray] = {}
    positional: list[tuple[str, np.ndarray]] = []
    for spec in specs:
        name, _, path = spec.rpartition("=") if "=" in spec and not Path(spec).exists() else ("", "", spec)
        arrays = load_arrays(path, "input file")
        if isinstance(arrays, dict):
            unknown = sorted(set(arrays) - set(names))
            if unknown:
                raise WorkError(f"{path}: arrays {unknown} name no input of the model; its inputs are "
                                f"{_listing(details, names)}")
            for key, value in arrays.items():
                _put(by_index, names[key], value, f"{path}[{key!r}]")
        elif name:
            if name not in names:
                raise WorkError(f"input {name!r} ({path}) names no input of the model; its inputs are "
                                f"{_listing(details, names)}")
            _put(by_index, names[name], arrays, path)
        else:
            positional.append((path, arrays))
    if positional:
        free = [d["index"] for d in details if d["index"] not in by_index]
        if len(positional) != len(free):
            raise WorkError(f"the model has {len(details)} inputs ({_listing(details, names)}), {len(by_index)} "
                            f"given by name and {len(positional)} .npy files for the other {len(free)}: give one "
                            ".npy per input in order, NAME=FILE.npy, or one .npz keyed by name")
        for index, (path, value) in zip(free, positional):
            by_index[index] = value
    missing = [d for d in details if d["index"] not in by_index]
    if missing:
        raise WorkError(f"no value for the model's inputs {_listing(missing, names)}")
    return by_index


def _put(by_index: dict[int, np.ndarray], index: int, value: np.ndarray, where: str) -> None:
    if index in by_index:
        raise WorkError(f"{where}: input {index} is given twice")
    by_index[index] = value


def _listing(details: list[dict[str, Any]], names: dict[str, int]) -> str:
    alias = {index: name for name, index in names.items()}  # the signature's name wins: it is shorter
    return ", ".join(f"{alias.get(d['index'], d['name'])} {np.dtype(d['dtype']).name}"
                     f"{[int(n) for n in d['shape_signature']]}" for d in details)


def shape_text(shape: Any) -> str:
    return "[" + ", ".join("N" if int(n) < 0 else str(int(n)) for n in shape) + "]"


def check_input_shape(value: np.ndarray, detail: dict[str, Any], label: str) -> None:
    """WorkError unless `value`'s shape is the input's: every dimension equal but those the model leaves
    open (-1 in its shape_signature, a dynamic batch). Checked before the runtime resizes the input, which
    would otherwise fail deep inside the model (`RESHAPE op 8: cannot reshape 784 elements into 576`)."""
    want = [int(n) for n in detail.get("shape_signature", detail["shape"])]
    if not len(want) and len(detail["shape"]):
        want = [int(n) for n in detail["shape"]]
    got = list(np.shape(value))
    if len(got) != len(want) or any(w >= 0 and w != g for w, g in zip(want, got)):
        open_dims = " (N: any size)" if any(w < 0 for w in want) else ""
        raise WorkError(f"input {label!r} takes {shape_text(want)}{open_dims}, got {shape_text(got)}")


def as_model_input(value: np.ndarray, detail: dict[str, Any], where: str) -> np.ndarray:
    """`value` in the input's type: float arrays to an int8/uint8 input are quantized with the input's scale
    and zero point (as LiteRT's default interpreter does), float64 to float32 is narrowed, integers are
    taken when every value fits; anything else is refused, saying what the input takes."""
    want = np.dtype(detail["dtype"])
    value = np.asarray(value)
    if value.dtype == want:
        return value
    scale, zero_point = detail["quantization"]
    if value.dtype.kind == "f" and want.kind in "iu":
        if not scale:
            raise WorkError(f"{where}: {value.dtype.name} values for input {detail['name']!r}, which takes "
                            f"{want.name} with no quantization to map them by: give {want.name} values")
        # As LiteRT's default interpreter quantizes (XNNPACK's conversion, and rillet's QUANTIZE kernel):
        # times the float32 reciprocal of the scale, clamped, rounded with ties to even, plus the zero point.
        info = np.iinfo(want)
        v = value.astype(np.float32) * (np.float32(1) / np.float32(scale))
        v = np.clip(np.nan_to_num(v, nan=info.min - zero_point), info.min - zero_point, info.max - zero_point)
        return (np.rint(v).astype(np.int32) + zero_point).astype(want)
    if value.dtype.kind == "f" and want.kind == "f":
        return value.astype(want)
    if value.dtype.kind in "iub" and want.kind in "iu":
        info = np.iinfo(want)
        if not value.size or (value.min() >= info.min and value.max() <= info.max):
            return value.astype(want)
    raise WorkError(f"{where}: {value.dtype.name} values for input {detail['name']!r}, which takes {want.name}: "
                    f"convert them first")
