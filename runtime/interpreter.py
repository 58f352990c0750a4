"""`Interpreter`: a drop-in for LiteRT's (and tflite_runtime's) Interpreter over librillet's plans.

The same constructor arguments, methods, detail dictionaries and exception types (tests/runtime/
test_dropin_parity.py runs one script against both). What rillet adds is named plainly: `profile()` (time
and output shape per op), `thread_profile()` (each thread's CPU time per op), `memory_report()`, `kernel_path`, and the resource variables' checkpoints
(runtime/variables.py).

One interpreter may be shared by threads: every call that reads or moves its tensors holds its lock, so
concurrent calls run one after another (invoke releases the GIL, so other interpreters run meanwhile).
"""

import _thread
import errno
import mmap
import os
import stat
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from rillet.converter.format.schema import BUILTIN_CODES
from rillet.converter.format.view import ModelView, TensorFacts
from rillet.native import lib

from .delegate import (
    Delegate,
    DelegateError,
    OpResolverType,
    check_delegates,
    check_op_resolver_type,
    load_delegate,
)
from .details import op_details, tensor_details
from .packed_pages import constant_spans, release_packed_pages
from .plan import LIVE_VIEWS_MESSAGE, InterpreterError, InvokeCancelledError, NativePlan
from .program import Program
from .variables import ResourceVariables

if TYPE_CHECKING:
    from rillet.converter.format import ModelFile

    from .signature_runner import SignatureRunner

__all__ = ["Delegate", "DelegateError", "Interpreter", "InterpreterWithCustomOps", "InvokeCancelledError",
           "ModelFileChangedError", "OpResolverType", "SignatureRunner", "load_delegate"]


_invoke_plan = lib.rl_plan_invoke


def __getattr__(name: str) -> type:
    # SignatureRunner's module is imported by the first runner (get_signature_runner), not by a start.
    if name == "SignatureRunner":
        from .signature_runner import SignatureRunner

        globals()[name] = SignatureRunner  # found as an attribute from now on (pdoc reads the module's dict)
        return SignatureRunner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The builtin codes of the ops that run another subgraph (IF, WHILE, CALL_ONCE): an invoke may prepare it.
_CALLING_OPS = np.array([BUILTIN_CODES[name] for name in ("IF", "WHILE", "CALL_ONCE")])


class _SignatureCall:
    """What a signature runner's checked call found, for the next call with the same names, shapes and types
    (Interpreter._run_signature_again)."""

    __slots__ = ("names", "inputs", "required", "outputs", "plan", "copies")

    def __init__(self, names: "dict[str, int]", inputs: "dict[str, tuple[np.ndarray, tuple[int, ...], np.dtype]]",
                 required: "frozenset[str]", outputs: "tuple[tuple[str, np.ndarray, bool], ...]", plan: Any,
                 copies: "tuple[tuple[np.ndarray, np.ndarray], ...]") -> None:
        self.names = names  # the runner's own dict: the same object means the same signature and names
        self.inputs = inputs  # name -> (arena view, its shape, its dtype)
        self.required = required  # the input names a call must pass (all but the carried ones)
        self.outputs = outputs  # (name, view, copy (else a 0-d tensor's scalar)) of each output returned
        self.plan = plan  # the native plan, invoked directly
        self.copies = copies  # (input view, output view) of each carried output the plan did not write in place


# Below this a file is read: copying a few pages costs less than setting up and tearing down a mapping.
SMALLEST_MAPPED_FILE = 64 * 1024


class NotAModelFileError(OSError):
    """The path names something other than a regular file (a directory, a device such as /dev/zero, a FIFO,
    a socket): reading it could block or never end."""


def _kind_of_file(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def map_model_file(path: "str | os.PathLike") -> "mmap.mmap | bytes":
    """The file's bytes, mapped read-only rather than read: the pages the plan touches (constants used in
    place) come from the page cache, shared, and nothing is copied. A small file is read; an empty file maps
    to no bytes. Anything but a regular file is refused (NotAModelFileError) before a byte is read: /dev/zero
    would read without end, and opening a FIFO waits for a writer, so the path is opened non-blocking and
    checked by the descriptor (a path swapped after a check cannot slip through)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAModelFileError(errno.EINVAL, f"{_kind_of_file(info.st_mode)}, not a model file", os.fspath(path))
        if info.st_size == 0:  # an empty file cannot be mapped
            return b""
        if info.st_size < SMALLEST_MAPPED_FILE:
            return f.read()
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)


def _open_model(path: "str | os.PathLike") -> "mmap.mmap | bytes":
    """The model file's bytes; ValueError naming the file when it cannot be read, as LiteRT raises."""
    try:
        return map_model_file(path)
    except OSError as e:
        raise ValueError(f"Could not open {os.fspath(path)!r}: {e.strerror or e}") from e


class ModelFileChangedError(InterpreterError):
    """The model file opened by path shrank after it was mapped: its constants are read from the mapping, and
    reading past the file's new end would kill the process (SIGBUS). Open the model again."""


class Interpreter(ResourceVariables):
    """Runs a .tflite model with librillet. Every subgraph is a plan in one program, over one store of
    resource variables; the tensor methods address subgraph 0 unless given a subgraph_index.

    A drop-in for `tflite_runtime.interpreter.Interpreter` / `ai_edge_litert.interpreter.Interpreter`, with
    the same arguments, methods, exception types and messages (`rillet.interpreter` is the same module path).

    Args:
        model_path: a .tflite file; it is mapped, not read (a file under 64 KiB is read).
        model_content: the model's bytes instead of a path (exactly one of the two).
        experimental_delegates: must be empty: rillet runs no delegates (`load_delegate` raises ValueError).
        num_threads: threads each op's tiles are split over (default 1); results are the same bits for any N.
        experimental_op_resolver_type: an OpResolverType (rillet's or LiteRT's); every value runs the
            same kernels.
        experimental_preserve_all_tensors: keep every intermediate tensor readable after invoke (no arena
            reuse), as LiteRT does for debugging.
        experimental_compress_quantization_zero_points: accepted and reported, as LiteRT does.
        experimental_disable_delegate_clustering, experimental_default_delegate_latest_features,
        experimental_disable_delegate_node_fusion, experimental_force_delegate_node_profiling: accepted as
            LiteRT accepts them; there is no delegate for them to act on.

    Raises:
        ValueError: neither or both of model_path and model_content, a file that cannot be read, a bad
            num_threads, or a delegate given.
        TypeError: model_content that is not bytes-like.
        rillet.runtime.UnsupportedOpsError: the model has ops rillet has no kernel for (each one named).
        rillet.converter.ModelError: a corrupt or hostile file (the offset or index that is wrong is named).
    """

    def __init__(
        self,
        model_path: "str | os.PathLike | None" = None,
        model_content: "bytes | None" = None,
        experimental_delegates: "Iterable[Any] | None" = None,
        num_threads: "int | None" = None,
        experimental_op_resolver_type: "OpResolverType" = OpResolverType.AUTO,
        experimental_preserve_all_tensors: bool = False,
        experimental_disable_delegate_clustering: bool = False,
        experimental_default_delegate_latest_features: bool = False,
        experimental_compress_quantization_zero_points: bool = False,
        experimental_disable_delegate_node_fusion: bool = False,
        experimental_force_delegate_node_profiling: bool = False,
    ) -> None:
        # LiteRT's checks, in LiteRT's order, with its exception types and words. The delegate-partitioning
        # flags have nothing to act on here (no delegates); they are accepted as LiteRT accepts them.
        # threading.RLock is _thread.RLock; importing threading for it cost a start ~3M instructions (x86).
        self._lock = _thread.RLock()
        self._experimental_compress_quantization_zero_points = experimental_compress_quantization_zero_points
        check_op_resolver_type(experimental_op_resolver_type)
        if num_threads is not None:
            if not isinstance(num_threads, int):
                raise ValueError("type of num_threads should be int")
            if num_threads < 1:
                raise ValueError("num_threads should >= 1")
        if model_path and not model_content:
            content = _open_model(model_path)
        elif model_content and not model_path:
            if not isinstance(model_content, (bytes, bytearray, memoryview, mmap.mmap)):
                raise TypeError(f"model_content must be bytes, not {type(model_content).__name__}")
            content = model_content if isinstance(model_content, bytes) else bytes(model_content)
        elif not model_content and not model_path:
            raise ValueError("`model_path` or `model_content` must be specified.")
        else:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        check_delegates(experimental_delegates)
        self._delegates: list[Any] = []
        self._content = content  # the constants' bytes: the plan points into them (and keeps them alive)
        # A mapped file's length, checked before an invoke that reads the mapping (_watch_file, set at
        # allocate_tensors): a file truncated under the mapping raises instead of faulting.
        self._mapped_bytes = len(content) if isinstance(content, mmap.mmap) else 0
        self._model_path = os.fspath(model_path) if model_path else ""
        self._watch_file = False
        # Tensors of the model's tables as set_tensor and get_tensor look them up, by (subgraph, index), and each
        # subgraph's tensor count: decoded from the file once, after the check above (a lookup reads no file).
        self._tensor_tables: dict[tuple[int, int], TensorFacts] = {}
        self._tensor_counts: dict[int, int] = {}
        self._model_view = ModelView(content)  # decodes what the plan reads; the rest on demand
        self._program = Program()
        self._plans = [NativePlan(self._model_view, k, num_threads or 1, experimental_preserve_all_tensors,
                                  self._program) for k in range(len(self._model_view.subgraphs))]
        self._plan = self._plans[0]
        self._model: ModelFile | None = None
        self._views: dict[tuple[int, int], np.ndarray] = {}
        # Per subgraph, what its signature runner's last call found (_SignatureCall): a loop's next call with the
        # same names, shapes and types copies in, invokes and copies out with nothing else looked up. Emptied
        # with the views at allocate_tensors and whenever a plan is prepared again.
        self._signature_calls: dict[int, _SignatureCall] = {}
        # The subgraphs whose plans are prepared for their current input shapes. As in LiteRT, a signature
        # runner prepares its own subgraph only (and what its control flow calls), at its first call after a
        # resize: another signature's default shapes, which may be too small for its ops, are not prepared.
        self._prepared: set[int] = set()

    @property
    def _sg(self) -> Any:
        """Subgraph 0's tables, read on first use (not at construction: cold start)."""
        self._check_model_file()
        return self._model_view.subgraphs[0]

    def _tensor(self, index: int, subgraph: int = 0) -> "TensorFacts":
        """Tensor `index` of the subgraph as the file describes it (name, type, shape_signature, quantization):
        those fields alone, not the schema's whole Tensor record (whose module a start then never imports)."""
        found = self._tensor_tables.get((subgraph, index))
        if found is None:
            self._check_model_file()
            found = self._tensor_tables[(subgraph, index)] = self._model_view.subgraphs[subgraph].tensor_facts(index)
        return found

    def _tensor_count(self, subgraph: int) -> int:
        found = self._tensor_counts.get(subgraph)
        if found is None:
            self._check_model_file()
            found = self._tensor_counts[subgraph] = len(self._model_view.subgraphs[subgraph].tensors)
        return found

    @property
    def model(self) -> "ModelFile":
        """The whole model as plain objects (`load`'s), decoded on first use."""
        if self._model is None:
            self._check_model_file()
            self._model = self._model_view.to_model()
        return self._model

    @property
    def _signature_defs(self) -> "dict[str, dict[str, list[str]]]":
        """LiteRT's attribute of the same name, read when asked (not at construction: cold start)."""
        return self.get_signature_list()

    @property
    def experimental_compress_quantization_zero_points(self) -> bool:
        """The constructor's flag of the same name, as LiteRT reports it."""
        return self._experimental_compress_quantization_zero_points

    # ---- the plan ----

    def allocate_tensors(self) -> None:
        """Plans every subgraph for its current input shapes: places each tensor in one arena, packs the
        weights and prepares each op's state. Call it before the first invoke and after resize_tensor_input;
        arrays from `tensor()` and `get_tensor()` views made before it are not valid after it.

        Raises:
            RuntimeError: an array returned by `tensor()` is still alive (its memory could move), or an op
                refuses its shapes (the message names the op and the shapes).
            rillet.runtime.ModelFileChangedError: the mapped model file shrank since it was opened.
        """
        with self._lock:
            self._prepare(range(len(self._plans)))

    def _prepare(self, subgraphs: "Iterable[int]") -> None:
        """Prepares the plans of `subgraphs` (allocate_tensors: every one; a signature runner: its own)."""
        # Tensors may move: the cached views go first (views are made again on demand), and a view the
        # caller still holds makes the plans refuse, as LiteRT does, instead of leaving it dangling.
        self._views = {}
        self._signature_calls = {}
        self._ensure_safe()
        self._check_model_file()
        try:
            for k in subgraphs:
                self._prepared.discard(k)
                self._plans[k].prepare()
                self._prepared.add(k)
        finally:
            prepared = [self._plans[k] for k in sorted(self._prepared)]
            release_packed_pages(self._content, prepared)
            # An invoke reads the mapping when an op uses a constant in place, or may prepare a subgraph
            # again (IF, WHILE, CALL_ONCE); when every constant was packed at prepare it reads only the packed
            # copies. Subgraphs that are only signatures (a decoder's prefill and decode) call none.
            self._watch_file = self._mapped_bytes > 0 and (
                self._calls_subgraphs() or any(read for plan in prepared for _, _, read in constant_spans(plan)))

    def _calls_subgraphs(self) -> bool:
        """Some op of the model runs another subgraph: the only ops librillet runs that do are IF, WHILE and
        CALL_ONCE (a model with another is refused at load)."""
        if len(self._plans) < 2:
            return False
        return bool(np.isin(self._model_view.opcode_codes, _CALLING_OPS).any())

    def _check_model_file(self) -> None:
        """ModelFileChangedError when the mapped model file is now shorter than when it was mapped. (A file
        truncated while an invoke runs still faults, as with LiteRT's mapped files.)"""
        if self._mapped_bytes and self._content.size() < self._mapped_bytes:
            raise ModelFileChangedError(f"the model file {self._model_path!r} shrank from {self._mapped_bytes} to "
                                        f"{self._content.size()} bytes while it was mapped: its constants are read "
                                        "from it; open the model again")

    def _safe_to_run(self) -> bool:
        """No numpy array of the caller's points into an arena (LiteRT's name for the same question)."""
        return not any(plan.has_arena_views() for plan in self._plans)

    def _ensure_safe(self) -> None:
        if not self._safe_to_run():
            raise RuntimeError(LIVE_VIEWS_MESSAGE)

    def invoke(self) -> None:
        """Runs subgraph 0. Unlike LiteRT, views from tensor() may be held across it: invoke moves no tensor."""
        with self._lock:  # inline, not through _invoke: this is the call an app makes in its loop
            if 0 not in self._prepared:
                raise RuntimeError("Invoke called on model that is not ready.")
            if self._watch_file:
                self._check_model_file()
            status = _invoke_plan(self._plan._plan)  # cffi releases the GIL for the call
            if status:
                self._plan._check(status)

    def _invoke(self, subgraph: int) -> None:
        if subgraph not in self._prepared:
            raise RuntimeError("Invoke called on model that is not ready.")
        if self._watch_file:
            self._check_model_file()
        self._plans[subgraph].invoke()

    def cancel(self) -> None:
        """Stops the invoke running now in another thread (LiteRT's C++ Interpreter::Cancel): it stops at the
        next op or loop iteration and raises InvokeCancelledError; the interpreter stays ready and the next
        invoke runs whole. A cancel while no invoke runs does nothing. Takes no lock: the invoke holds it."""
        lib.rl_plan_cancel(self._plan._plan)

    def set_invoke_timeout(self, milliseconds: int) -> None:
        """The most time one invoke (of any signature) may run: past it the invoke stops as a cancelled one
        does (InvokeCancelledError saying so). 0 lifts the limit; the default is RILLET_INVOKE_TIMEOUT_MS or
        none. Checked between ops and at each WHILE iteration, so one long op finishes first."""
        with self._lock:
            lib.rl_plan_set_invoke_timeout(self._plan._plan, max(0, int(milliseconds)))

    def reset_all_variables(self) -> None:
        """LiteRT's: zeroes the state that ops like UNIDIRECTIONAL_SEQUENCE_LSTM carry across invokes (the
        model's `is_variable` tensors), in every subgraph. Resource variables keep their values, as in LiteRT;
        rillet's `reset_resource_variables()` starts those again."""
        with self._lock:
            for plan in self._plans:
                plan.reset_variable_tensors()

    def resize_tensor_input(self, input_index: int, tensor_size: Any, strict: bool = False) -> None:
        """Gives input tensor `input_index` of subgraph 0 a new shape; allocate_tensors must run before the
        next invoke.

        Args:
            input_index: the tensor's index, as in `get_input_details()[i]["index"]`.
            tensor_size: the new shape (a list or array of ints; converted to int32).
            strict: allow changing only the dimensions the model marks unknown (-1 in `shape_signature`),
                as LiteRT's ResizeInputTensorStrict.

        Raises:
            RuntimeError: an index outside the subgraph, a constant tensor, a negative dimension, or (strict)
                another rank or a change to a fixed dimension.
            ValueError, OverflowError: a size that is not integers or does not fit int32.
        """
        # LiteRT converts the size to int32 first (OverflowError, ValueError for what does not fit).
        size = np.array(tensor_size, dtype=np.int32)
        with self._lock:
            self._resize(int(input_index), size, strict, 0)

    def _resize(self, index: int, size: "np.ndarray", strict: bool, subgraph: int) -> None:
        """Refusals are RuntimeError, as LiteRT's are: an index out of range, a constant, a negative size, a
        strict resize of a fixed dimension or to another rank."""
        self._check_model_file()
        sg = self._model_view.subgraphs[subgraph]
        dims = [int(d) for d in size.reshape(-1)]
        if not 0 <= index < len(sg.tensors):
            raise RuntimeError(f"tensor {index} is outside the subgraph's {len(sg.tensors)} tensors")
        t = sg.tensors[index]
        if t.buffer < self._model_view.buffer_count and self._model_view.buffer_size[t.buffer] > 0:
            raise RuntimeError(f"Attempting to resize a fixed-size tensor (tensor {index} {t.name!r} is a constant).")
        if any(d < 0 for d in dims):
            raise RuntimeError(f"tensor {index}: a dimension of {dims} is negative")
        if strict:
            signature = list(t.shape_signature or t.shape or [])
            if len(dims) != len(signature):
                raise RuntimeError(f"strict resize of tensor {index}: {dims} has rank {len(dims)}, the tensor "
                                   f"{len(signature)}")
            for d, (s, new) in enumerate(zip(signature, dims)):
                if s != -1 and s != new:
                    raise RuntimeError(f"Attempting to resize dimension {d} of tensor {index} with value {s} to "
                                       f"{new}. ResizeInputTensorStrict only allows mutating unknown dimensions "
                                       "identified by -1.")
        if index not in sg.inputs:
            return  # LiteRT accepts it, and preparing recomputes the shape of any tensor an op writes
        self._plans[subgraph].set_shape(index, dims)
        self._prepared.discard(subgraph)

    # ---- details ----

    def num_subgraphs(self) -> int:
        """How many subgraphs the model has (signatures and IF / WHILE bodies each have their own)."""
        return len(self._plans)

    def _check_subgraph(self, subgraph_index: int) -> int:
        subgraph_index = int(subgraph_index)
        if not 0 <= subgraph_index < len(self._plans):
            raise ValueError(f"Invalid subgraph index {subgraph_index} exceeds max subgraph index "
                             f"{len(self._plans) - 1}")
        return subgraph_index

    def _check_index(self, index: int, subgraph: int = 0) -> int:
        index = int(index)
        count = self._tensor_count(subgraph)
        if not 0 <= index < count:
            raise ValueError(f"Invalid tensor index {index} exceeds max tensor index {count - 1}")
        return index

    def _get_tensor_details(self, tensor_index: int, subgraph_index: int) -> "dict[str, Any]":
        subgraph = self._check_subgraph(subgraph_index)
        index = self._check_index(tensor_index, subgraph)
        with self._lock:
            shape = self._plans[subgraph].shape(index)
        return tensor_details(self._tensor(index, subgraph), index, shape)

    def get_input_details(self) -> "list[dict[str, Any]]":
        """Subgraph 0's inputs, in order, as LiteRT describes them: a dict per input with `name`, `index`,
        `shape`, `shape_signature` (-1 for a dynamic dimension), `dtype`, `quantization` (scale, zero point),
        `quantization_parameters` (per-channel `scales`, `zero_points`, `quantized_dimension`) and
        `sparsity_parameters`."""
        return [self._get_tensor_details(i, 0) for i in self._sg.inputs]

    def get_output_details(self) -> "list[dict[str, Any]]":
        """Subgraph 0's outputs, in order, in get_input_details' form (the shapes are the current ones)."""
        return [self._get_tensor_details(i, 0) for i in self._sg.outputs]

    def get_tensor_details(self, subgraph_index: int = 0) -> "list[dict[str, Any]]":
        """Every tensor of the subgraph that has a numpy type (LiteRT leaves the others out too)."""
        subgraph_index = int(subgraph_index)
        if not 0 <= subgraph_index < len(self._plans):
            raise ValueError(f"subgraph_index is out of range: {subgraph_index} for the model, which has "
                             f"{len(self._plans)} subgraphs.")
        details = []
        for i in range(self._tensor_count(subgraph_index)):
            try:
                details.append(self._get_tensor_details(i, subgraph_index))
            except ValueError:
                continue
        return details

    def _get_op_details(self, op_index: int) -> "dict[str, Any]":
        """LiteRT's details of subgraph 0's op `op_index`: its name, input and output indices and types."""
        op_index = int(op_index)
        if not 0 <= op_index < len(self._sg.operators):
            raise ValueError("Invalid node index")
        op = self._sg.operators[op_index]
        return op_details(op_index, self._plan.op_names[op_index], op.inputs, op.outputs,
                          lambda i: self._get_tensor_details(i, 0)["dtype"])

    def _get_ops_details(self) -> "list[dict[str, Any]]":
        """Every op of subgraph 0, as LiteRT lists them with no delegate applied (with its default XNNPACK
        delegate LiteRT appends one DELEGATE node for the ops it took)."""
        return [self._get_op_details(i) for i in range(len(self._sg.operators))]

    get_ops_details = _get_ops_details  # the name issue 13 asked for; LiteRT has only the underscored one

    # ---- tensors ----

    def _view(self, index: int, subgraph: int = 0) -> "np.ndarray":
        # A view stays valid until the next allocate_tensors (which empties the cache): a signature runner's
        # invoke then costs no new numpy object per input and output.
        cached = self._views.get((subgraph, index)) if subgraph in self._prepared else None
        if cached is not None:
            return cached
        t = self._tensor(index, subgraph)
        plan = self._plans[subgraph]
        if plan.storage(index) == lib.RL_STORAGE_CONSTANT:
            self._check_model_file()  # a constant is read from the file
        # librillet gives no pointer to a tensor until the plan is prepared for its current shape (after a
        # resize its memory is still sized for the old one)
        view = plan.view(index, t.dtype)
        if view is None:
            why = ("; or it is an intermediate no op reads" if subgraph in self._prepared else
                   ": unallocated since the last resize_tensor_input, or before the first allocate_tensors")
            raise ValueError(f"Tensor data is null. Run allocate_tensors() first (tensor {index} {t.name!r}{why})")
        if subgraph in self._prepared and self._may_cache_view(index, subgraph):
            self._views[(subgraph, index)] = view
        return view

    def _may_cache_view(self, index: int, subgraph: int) -> bool:
        """A view stays valid until allocate_tensors, except of a dynamic tensor (a copy: an invoke may reshape
        and move it) and of a subgraph that only IF or WHILE run (an invoke prepares it again when the
        values passed in change shape)."""
        if self._plans[subgraph].is_dynamic(index):
            return False
        return subgraph == 0 or subgraph in self._signature_subgraphs().values()

    def set_tensor(self, tensor_index: int, value: Any) -> None:
        """Copies `value` into tensor `tensor_index` of subgraph 0 (usually an input, before invoke).

        Args:
            tensor_index: the tensor's index, as in `get_input_details()[i]["index"]`.
            value: an array of exactly the tensor's dtype and current shape.

        Raises:
            ValueError: an index out of range, another dtype or shape (both named), a tensor not allocated
                yet (call allocate_tensors first), or a constant tensor.
        """
        with self._lock:
            self._set(self._check_index(tensor_index), np.asarray(value), 0)

    def _set(self, index: int, value: "np.ndarray", subgraph: int) -> None:
        t = self._tensor(index, subgraph)
        if value.dtype != t.dtype:
            raise ValueError(f"Cannot set tensor: Got value of type {value.dtype.name.upper()} but expected type "
                             f"{t.dtype.name.upper()} for input {index}, name: {t.name}")
        try:
            target = self._view(index, subgraph)
        except ValueError:
            raise ValueError(f"Cannot set tensor: Tensor is unallocated. Try calling allocate_tensors() first "
                             f"(input {index}, name: {t.name})") from None
        if value.shape != target.shape:
            if value.ndim != target.ndim:
                raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {value.ndim} but expected "
                                 f"{target.ndim} dimensions for input {index}.")
            for d, (got, expected) in enumerate(zip(value.shape, target.shape)):
                if got != expected:
                    raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {got} but expected {expected} "
                                     f"for dimension {d} of input {index}.")
        if not target.flags.writeable:
            raise ValueError(f"Cannot set tensor {index} {t.name!r}: it is a constant")
        target[...] = value  # same dtype and shape: a plain copy (np.copyto's dispatch costs ~1 us more)

    def get_tensor(self, tensor_index: int, subgraph_index: int = 0) -> Any:
        """A copy of the tensor; a numpy scalar for a 0-d tensor, as LiteRT gives."""
        subgraph = self._check_subgraph(subgraph_index)
        with self._lock:
            view = self._view(self._check_index(tensor_index, subgraph), subgraph)
            value = view[()] if view.ndim == 0 else view.copy()
            del view  # before the lock goes: another thread's allocate_tensors refuses while a view lives
        return value

    def tensor(self, tensor_index: int) -> "Callable[[], Any]":
        """A function returning a numpy view of the tensor's memory (a numpy scalar, a copy, for a 0-d
        tensor, as LiteRT). As in LiteRT, hold the function, not the array: allocate_tensors refuses
        (RuntimeError) while an array it returned is alive."""

        def view() -> Any:
            with self._lock:
                array = self._view(self._check_index(tensor_index))
                return array[()] if array.ndim == 0 else array

        return view

    # ---- signatures ----

    def _get_full_signature_list(self) -> "dict[str, dict[str, dict[str, int]]]":
        """key -> {"inputs": name -> tensor index, "outputs": ...}; names in sorted order, as LiteRT's."""
        self._check_model_file()
        return {sd.signature_key: {"inputs": {m.name: m.tensor_index for m in sorted(sd.inputs or [], key=_name)},
                                   "outputs": {m.name: m.tensor_index for m in sorted(sd.outputs or [], key=_name)}}
                for sd in self._model_view.signature_defs or []}

    def _signature_subgraphs(self) -> "dict[str, int]":
        self._check_model_file()
        return {sd.signature_key: sd.subgraph_index for sd in self._model_view.signature_defs or []}

    def get_signature_list(self) -> "dict[str, dict[str, list[str]]]":
        """The model's signatures: `{key: {"inputs": [names], "outputs": [names]}}`, names sorted as LiteRT
        sorts them. Empty for a model without signatures."""
        return {key: {"inputs": list(s["inputs"]), "outputs": list(s["outputs"])}
                for key, s in self._get_full_signature_list().items()}

    def get_signature_runner(self, signature_key: "str | None" = None) -> "SignatureRunner":
        """A callable that runs one signature by its input and output names: `runner(x=array)` returns
        `{output name: array}` (see SignatureRunner).

        Args:
            signature_key: the signature's key (`get_signature_list()`); None when the model has exactly one.

        Raises:
            ValueError: None given for a model with no or several signatures, or a key the model lacks.
        """
        if signature_key is None:
            if len(self._signature_defs) != 1:
                raise ValueError(f"SignatureDef signature_key is None and model has {len(self._signature_defs)} "
                                 "Signatures. None is only allowed when the model has 1 SignatureDef")
            signature_key = next(iter(self._signature_defs))
        from .signature_runner import SignatureRunner

        return SignatureRunner(interpreter=self, signature_key=signature_key)

    def _current_shape(self, index: int, subgraph: int) -> "tuple[int, ...]":
        """The tensor's shape, from its cached view when there is one (no call into librillet). The view
        itself is not kept: a caller holding it would make allocate_tensors refuse."""
        cached = self._views.get((subgraph, index)) if subgraph in self._prepared else None
        return cached.shape if cached is not None else tuple(self._plans[subgraph].shape(index))

    def _run_signature(self, subgraph: int, names: "dict[str, int]", outputs: "dict[str, int]",
                       kwargs: "dict[str, Any]", carried: "dict[str, str] | None" = None) -> "dict[str, Any]":
        """A signature runner's call (`names`: its inputs' names -> tensor indices, the runner's own dict;
        `carried`: output name -> input name, SignatureRunner.carry's): resize what changed, prepare if
        needed, set, invoke, copy the outputs (each carried one into its input instead)."""
        with self._lock:
            # Each path in a call of its own: its locals (views of the arena) are gone when it returns, before
            # a plan is prepared or the lock released; otherwise that allocate would find them alive and refuse.
            found = self._run_signature_again(subgraph, names, kwargs, carried)
            if found is not None:
                return found
            return self._run_signature_locked(subgraph, names, outputs, kwargs, carried)

    def _set_carried(self, subgraph: int, outputs_to_inputs: "dict[int, int]") -> None:
        """SignatureRunner.carry changed (tensor indices, output -> input): the plan is prepared again at the
        runner's next call, where a DYNAMIC_UPDATE_SLICE of a carried cache may write in place, and that call
        takes the checked path."""
        with self._lock:
            plan = self._plans[subgraph]
            inputs, outputs = set(plan.subgraph.inputs), set(plan.subgraph.outputs)
            # a signature's name for a tensor that is no graph edge (not seen in a converter's file) stays copied
            plan.set_carried({o: i for o, i in outputs_to_inputs.items() if o in outputs and i in inputs})
            self._prepared.discard(subgraph)
            self._signature_calls.pop(subgraph, None)

    def _run_signature_again(self, subgraph: int, names: "dict[str, int]", kwargs: "dict[str, Any]",
                             carried: "dict[str, str] | None") -> "dict[str, Any] | None":
        """The steady state of a loop (a decoder's next token, a training step): the same names, shapes and
        types as the last call, copied straight into the views that call found, with nothing else looked up
        or built. None for anything else, which the checked path then runs (setting every input again)."""
        known = self._signature_calls.get(subgraph)
        if known is None or known.names is not names or subgraph not in self._prepared:
            return None
        inputs = known.inputs
        # Every name one of the inputs, and only carried inputs left out (they hold the last call's outputs).
        if len(kwargs) != len(inputs) and not known.required <= kwargs.keys():
            return None
        for name, value in kwargs.items():
            found = inputs.get(name)
            if found is None or type(value) is not np.ndarray:
                return None
            view, shape, dtype = found
            if value.shape != shape or (value.dtype is not dtype and value.dtype != dtype):
                return None
            view[...] = value  # same dtype and shape: a plain copy (np.copyto's dispatch costs ~1 us more)
        if self._watch_file:
            self._check_model_file()
        status = _invoke_plan(known.plan)
        if status:
            if carried:  # a cache written in place may be partly updated: the next call passes it again
                self._signature_calls.pop(subgraph, None)
            self._plans[subgraph]._check(status)
        for view, output in known.copies:
            view[...] = output
        return {name: v.copy() if copy else v[()] for name, v, copy in known.outputs}

    def _run_signature_locked(self, subgraph: int, names: "dict[str, int]", outputs: "dict[str, int]",
                              kwargs: "dict[str, Any]", carried: "dict[str, str] | None" = None) -> "dict[str, Any]":
        left_out = [name for name in (carried or {}).values() if name not in kwargs]
        if len(kwargs) + len(left_out) != len(names):
            raise ValueError(f"Invalid number of inputs provided for running a SignatureDef, expected "
                             f"{len(names) - len(left_out)} vs provided {len(kwargs)}")
        for name in kwargs:
            if name not in names:
                raise ValueError(f"Invalid Input name ({name}) for SignatureDef")
        if left_out:
            # A carried input left out holds the last call's output, read here before a resize may move it;
            # only this runner's last call, with no prepare since, can have put it there.
            known = self._signature_calls.get(subgraph)
            if known is None or known.names is not names or subgraph not in self._prepared:
                raise ValueError(f"carried input {left_out[0]!r} holds no output yet: pass every input in the first "
                                 "call after carry(), allocate_tensors() or another runner's call on this subgraph")
            kwargs = {**kwargs, **{name: known.inputs[name][0].copy() for name in left_out}}
            known = None  # its views would block the allocate below
        inputs = {names[name]: np.asarray(value) for name, value in kwargs.items()}
        self._signature_calls.pop(subgraph, None)  # its views would block the allocate below
        for index, value in inputs.items():
            if value.shape != self._current_shape(index, subgraph):
                self._resize(index, np.array(value.shape, dtype=np.int32), False, subgraph)
        if subgraph not in self._prepared:
            self._prepare([subgraph])
        for index, value in inputs.items():
            self._set(index, value, subgraph)
        for output, name in (carried or {}).items():
            have, want = self._current_shape(outputs[output], subgraph), self._current_shape(names[name], subgraph)
            if list(have) != list(want):
                raise ValueError(f"carried output {output!r} has shape {list(have)}, its input {name!r} "
                                 f"{list(want)}")
        self._invoke(subgraph)
        found = {name: self._view(index, subgraph) for name, index in outputs.items()}
        copies = [(self._view(names[name], subgraph), found[output]) for output, name in (carried or {}).items()]
        copies = [(view, output) for view, output in copies  # a cache updated in place is there already
                  if view.__array_interface__["data"][0] != output.__array_interface__["data"][0]]
        for view, output in copies:
            np.copyto(view, output)
        writable = all(self._view(index, subgraph).flags.writeable for index in inputs) and not any(
            self._plans[subgraph].is_dynamic(index) for index in outputs.values())  # copies, not views
        if writable:
            # Dropped whenever a plan is prepared again (_prepare), so a view never outlives its arena.
            views = {name: self._view(index, subgraph) for name, index in names.items()}
            self._signature_calls[subgraph] = _SignatureCall(
                names, {name: (v, v.shape, v.dtype) for name, v in views.items()},
                frozenset(name for name in names if name not in (carried or {}).values()),
                tuple((name, v, v.ndim != 0) for name, v in found.items() if not carried or name not in carried),
                self._plans[subgraph]._plan, tuple(copies))
        return {name: v[()] if v.ndim == 0 else v.copy() for name, v in found.items()
                if not carried or name not in carried}

    # ---- what rillet adds ----

    def profile(self, runs: int = 1) -> "list[dict[str, Any]]":
        """Invokes `runs` times and returns per op: index, op, output shape, seconds (the median), folded."""
        with self._lock:
            if 0 not in self._prepared:
                raise RuntimeError("profile called on a model that is not ready (call allocate_tensors first)")
            if self._watch_file:
                self._check_model_file()
            times = np.array([self._plan.invoke_profiled() for _ in range(max(1, runs))])
            report = []
            for i, op in enumerate(self._sg.operators):
                outs = [o for o in (op.outputs or []) if o >= 0]
                report.append({
                    "index": i,
                    "op": self._plan.op_names[i],
                    "output_shape": self._plan.shape(outs[0]) if outs else [],
                    "seconds": float(np.median(times[:, i])) if len(times) else 0.0,
                    "folded": self._plan.op_folded(i),
                })
        return report

    def thread_profile(self, runs: int = 1) -> "list[dict[str, Any]]":
        """Where each op's work ran: per op as profile(), plus `thread_seconds` (each thread's CPU seconds on
        it, the calling thread's first, medians over `runs`) and `segment_last` (an op that starts a run of ops
        executed in bands carries the whole run; the run's other ops read 0). CPU time, not wall time: a
        worker's share near 0 marks an op that does not split, however loaded the machine is."""
        with self._lock:
            if 0 not in self._prepared:
                raise RuntimeError("thread_profile called on a model that is not ready (call allocate_tensors first)")
            if self._watch_file:
                self._check_model_file()
            results = [self._plan.invoke_thread_profiled() for _ in range(max(1, runs))]
            seconds = np.array([r[0] for r in results])
            per_thread = np.array([r[1] for r in results])  # runs x ops x threads
            report = []
            for i, op in enumerate(self._sg.operators):
                outs = [o for o in (op.outputs or []) if o >= 0]
                report.append({
                    "index": i,
                    "op": self._plan.op_names[i],
                    "output_shape": self._plan.shape(outs[0]) if outs else [],
                    "seconds": float(np.median(seconds[:, i])),
                    "thread_seconds": [float(v) for v in np.median(per_thread[:, i, :], axis=0)],
                    "segment_last": self._plan.op_segment_last(i),
                    "folded": self._plan.op_folded(i),
                })
        return report

    def memory_report(self) -> "dict[str, int]":
        """Arena bytes (every activation and each op's eval-time scratch, planned by lifetime), weight bytes
        (used in place from the file), folded bytes (constants computed at prepare), packed weight bytes (the
        weights repacked for the micro-kernels), op state bytes (every op's prepared state: packed
        weights, indirection buffers, requantization scales) and dynamic bytes (the heap blocks of tensors
        whose shape an invoke changes: IF and WHILE outputs that depend on the data, and what is computed from
        them; as large as the largest invoke so far needed), summed over every subgraph's plan, and variable
        bytes (the resource variables' values, which a training step updates). A training file rillet wrote
        also splits the variables: trained_variable_bytes, optimizer_slot_bytes, statistics_variable_bytes
        and setting_variable_bytes (runtime/variables.py)."""
        total: dict[str, int] = {}
        with self._lock:
            for plan in self._plans:
                for key, value in plan.memory().items():
                    total[key] = total.get(key, 0) + value
            total["variable_bytes"] = self._program.variable_bytes()
            total.update(self._variable_role_bytes())
        return total

    @property
    def kernel_path(self) -> str:
        """The kernel path this interpreter runs: "avx512vnni", "avx2", "scalar", ... (RILLET_ISA forces one)."""
        return self._plan.kernel_path()


def _name(member: Any) -> str:
    return member.name or ""


class InterpreterWithCustomOps(Interpreter):
    """LiteRT's Interpreter that registers custom ops from symbols or functions. rillet's custom ops
    (RILLET_...) are built into librillet, so only an empty list of registerers can be honoured."""

    def __init__(self, custom_op_registerers: "list[Any] | None" = None, **kwargs: Any) -> None:
        self._custom_op_registerers = custom_op_registerers or []
        if self._custom_op_registerers:
            raise ValueError(f"cannot register custom ops {self._custom_op_registerers!r}: rillet's kernels are "
                             "built into librillet and it loads no others")
        super().__init__(**kwargs)
