"""`Interpreter`: a drop-in for tflite_runtime's (and LiteRT's) Interpreter over librillet's plan.

Same constructor arguments, methods and detail dictionaries. What rillet adds is named plainly:
`profile()` (time and output shape per op) and `memory_report()` (arena and weight bytes).
"""

from __future__ import annotations

import mmap
import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from rillet.converter.format import ModelFile, ModelView, save

from .export import bake_variables, variable_key
from .plan import LIVE_VIEWS_MESSAGE, NativePlan
from .program import Program, read_variable, write_variable


def map_model_file(path: str | os.PathLike) -> mmap.mmap | bytes:
    """The file's bytes, mapped read-only rather than read: the pages the plan touches (constants used in
    place) come from the page cache, shared, and nothing is copied. An empty file maps to no bytes."""
    with open(path, "rb") as f:
        try:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            return b""
        except OSError:  # not a regular file (a pipe): read it
            return f.read()


class Interpreter:
    """Runs a .tflite model with librillet. Every subgraph is a plan in one program, over one store of
    resource variables; the tensor methods address subgraph 0, signature runners their own subgraph."""

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        model_content: bytes | None = None,
        experimental_delegates: Any = None,
        num_threads: int | None = None,
        experimental_op_resolver_type: Any = None,
        experimental_preserve_all_tensors: bool = False,
        **unused_litert_options: Any,
    ) -> None:
        if (model_path is None) == (model_content is None):
            raise ValueError("give exactly one of model_path and model_content")
        if num_threads is not None and (not isinstance(num_threads, int) or num_threads < -1):
            raise ValueError("num_threads must be an int >= -1")
        if model_path is not None:
            content = map_model_file(model_path)
        else:
            content = model_content if isinstance(model_content, bytes) else bytes(model_content)
        self._content = content  # the constants' bytes: the plan points into them (and keeps them alive)
        self._model_view = ModelView(content)  # decodes what the plan reads; the rest on demand
        threads = num_threads if num_threads and num_threads > 0 else 1
        self._program = Program()
        self._plans = [NativePlan(self._model_view, k, threads, experimental_preserve_all_tensors, self._program)
                       for k in range(len(self._model_view.subgraphs))]
        self._plan = self._plans[0]
        self._sg = self._model_view.subgraphs[0]
        self._model: ModelFile | None = None
        self._views: dict[tuple[int, int], np.ndarray] = {}
        self._ready = False

    @property
    def model(self) -> ModelFile:
        """The whole model as plain objects (`load`'s), decoded on first use."""
        if self._model is None:
            self._model = self._model_view.to_model()
        return self._model

    # ---- the plan ----

    def allocate_tensors(self) -> None:
        # Tensors may move: the cached views go first (views are made again on demand), and a view the
        # caller still holds makes each plan refuse, as LiteRT does, instead of leaving it dangling.
        self._views = {}
        if any(plan.has_arena_views() for plan in self._plans):
            raise RuntimeError(LIVE_VIEWS_MESSAGE)
        for plan in self._plans:
            plan.prepare()
        self._ready = True

    def invoke(self) -> None:
        self._invoke(0)

    def _invoke(self, subgraph: int) -> None:
        if not self._ready:
            raise RuntimeError("Invoke called on model that is not ready (call allocate_tensors first).")
        self._plans[subgraph].invoke()

    def reset_all_variables(self) -> None:
        """Every resource variable back to unassigned and every CALL_ONCE to run again (LiteRT's
        reset_all_variables): the next invoke starts from the model's initial values."""
        self._program.reset()

    # ---- resource variables and checkpoints ----

    def _variables(self) -> dict[str, tuple[tuple[str, str], int]]:
        """Each variable a VAR_HANDLE names: by its name (shared_name, or container/shared_name), its
        (container, shared_name) and its id in the program."""
        found: dict[str, tuple[tuple[str, str], int]] = {}
        for sg in self._model_view.subgraphs:
            for op in sg.operators:
                if self._model_view.opcode_name(op.opcode_index) == "VAR_HANDLE":
                    key = variable_key(op.builtin_options)
                    found["/".join(key) if key[0] else key[1]] = (key, self._program.variable_id(*key))
        return found

    def _variable_ids(self) -> dict[str, int]:
        return {name: variable for name, (_, variable) in self._variables().items()}

    def get_variables(self) -> dict[str, np.ndarray]:
        """A copy of every resource variable's current value, by name (variables nothing has assigned yet,
        before the first invoke runs the model's initialiser, are left out)."""
        values = {name: read_variable(self._program, i) for name, i in self._variable_ids().items()}
        return {name: v for name, v in values.items() if v is not None}

    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Writes every variable by name to an .npz file. The write is atomic: a temporary file beside it is
        written, flushed to disk and renamed over `path`, so a crash mid-save leaves the previous checkpoint
        whole."""
        ids = self._variable_ids()
        values = self.get_variables()
        missing = sorted(set(ids) - set(values))
        if missing:
            raise ValueError(f"variables {', '.join(missing)} have no value yet: invoke a signature first (its "
                             "CALL_ONCE initialises them)")
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        fd, temporary = tempfile.mkstemp(prefix=".checkpoint-", suffix=".npz", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **values)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def restore_checkpoint(self, path: str | os.PathLike) -> None:
        """Sets every variable from a checkpoint save_checkpoint wrote (names, types and shapes must match the
        model's); the model's initialiser then does not run, so training goes on from the restored values."""
        ids = self._variable_ids()
        with np.load(os.fspath(path), allow_pickle=False) as saved:
            values = {name: saved[name] for name in saved.files}
        if set(values) != set(ids):
            raise ValueError(f"checkpoint {os.fspath(path)!r} holds variables {sorted(values)}, the model has "
                             f"{sorted(ids)}")
        for name, value in values.items():
            current = read_variable(self._program, ids[name])
            if current is not None and (current.shape != value.shape or current.dtype != value.dtype):
                raise ValueError(f"checkpoint {os.fspath(path)!r}: variable {name!r} is {value.dtype} "
                                 f"{list(value.shape)}, the model's is {current.dtype} {list(current.shape)}")
        for name, value in values.items():
            write_variable(self._program, ids[name], value)
        self._program.mark_initialized()

    def export_model(self, path: str | os.PathLike, signature_key: str = "infer") -> None:
        """Writes an inference .tflite of `signature_key` with the variables' current values baked in as
        constants: the trained model, for LiteRT or rillet, with no resource variables left."""
        signatures = {sd.signature_key: sd for sd in self.model.signature_defs or []}
        if signature_key not in signatures:
            raise ValueError(f"no signature {signature_key!r}: the model has {sorted(signatures)}")
        values = {key: read_variable(self._program, variable) for key, variable in self._variables().values()}
        by_key = {key: value for key, value in values.items() if value is not None}
        data = save(bake_variables(self.model, signatures[signature_key], by_key))
        with open(os.fspath(path), "wb") as f:
            f.write(data)

    def resize_tensor_input(self, input_index: int, tensor_size: Any, strict: bool = False) -> None:
        self._resize(int(input_index), tensor_size, strict, 0)

    def _resize(self, input_index: int, tensor_size: Any, strict: bool, subgraph: int) -> None:
        sg = self._model_view.subgraphs[subgraph]
        if input_index not in sg.inputs:
            raise ValueError(f"tensor {input_index} is not an input of the model")
        size = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        if strict:
            t = sg.tensors[input_index]
            signature = t.shape_signature or t.shape or []
            if len(size) != len(signature) or any(s != -1 and s != d for s, d in zip(signature, size)):
                raise ValueError(f"strict resize of input {input_index}: {size} does not fit {list(signature)}")
        self._plans[subgraph].set_shape(input_index, size)
        self._ready = False

    # ---- details ----

    def _details(self, index: int, subgraph: int = 0) -> dict[str, Any]:
        t = self._model_view.subgraphs[subgraph].tensors[index]
        shape = np.array(self._plans[subgraph].shape(index), dtype=np.int32)
        q = t.quantization
        scales = np.array(q.scale or [], dtype=np.float32) if q else np.zeros(0, np.float32)
        zero_points = np.array(q.zero_point or [], dtype=np.int32) if q else np.zeros(0, np.int32)
        per_tensor = (float(scales[0]), int(zero_points[0])) if scales.size == 1 and zero_points.size == 1 else (0.0, 0)
        signature = t.shape_signature if t.shape_signature else list(shape)
        return {
            "name": t.name or "",
            "index": index,
            "shape": shape,
            "shape_signature": np.array(signature, dtype=np.int32),
            "dtype": t.dtype.type,
            "quantization": per_tensor,
            "quantization_parameters": {
                "scales": scales,
                "zero_points": zero_points,
                "quantized_dimension": int(q.quantized_dimension) if q else 0,
                "block_size": 0,
            },
            "sparsity_parameters": {},
        }

    def get_input_details(self) -> list[dict[str, Any]]:
        return [self._details(i) for i in self._sg.inputs]

    def get_output_details(self) -> list[dict[str, Any]]:
        return [self._details(i) for i in self._sg.outputs]

    def get_tensor_details(self, subgraph_index: int = 0) -> list[dict[str, Any]]:
        if subgraph_index != 0:
            raise ValueError(f"subgraph_index {subgraph_index}: rillet runs subgraph 0 only for now")
        details = []
        for i in range(len(self._sg.tensors)):
            try:
                details.append(self._details(i))
            except ValueError:  # a type numpy has no twin of (resource, variant): LiteRT skips those too
                continue
        return details

    # ---- tensors ----

    def _check_index(self, index: int) -> int:
        index = int(index)
        if not 0 <= index < len(self._sg.tensors):
            raise ValueError(f"Invalid tensor index {index} exceeds max tensor index {len(self._sg.tensors) - 1}")
        return index

    def _view(self, index: int, subgraph: int = 0) -> np.ndarray:
        # A view stays valid until the next allocate_tensors (which empties the cache): a signature runner's
        # invoke then costs no new numpy object per input and output.
        cached = self._views.get((subgraph, index)) if self._ready else None
        if cached is not None:
            return cached
        t = self._model_view.subgraphs[subgraph].tensors[index]
        view = self._plans[subgraph].view(index, t.dtype)
        if view is None:
            raise ValueError(f"tensor {index} {t.name!r} has no data: call allocate_tensors "
                             "first (or it is an intermediate no op reads)")
        if self._ready:
            self._views[(subgraph, index)] = view
        return view

    def set_tensor(self, tensor_index: int, value: Any) -> None:
        self._set(self._check_index(tensor_index), value, 0)

    def _set(self, index: int, value: Any, subgraph: int) -> None:
        value = np.asarray(value)
        t = self._model_view.subgraphs[subgraph].tensors[index]
        if value.dtype != t.dtype:
            raise ValueError(f"Cannot set tensor: Got value of type {value.dtype.name.upper()} but expected type "
                             f"{t.dtype.name.upper()} for input {index}, name: {t.name}")
        target = self._view(index, subgraph)
        if value.shape != target.shape:
            raise ValueError(f"Cannot set tensor: got shape {list(value.shape)}, expected {list(target.shape)} "
                             f"for tensor {index} {t.name!r}")
        if not target.flags.writeable:
            raise ValueError(f"Cannot set tensor {index} {t.name!r}: it is a constant")
        np.copyto(target, value)

    def get_tensor(self, tensor_index: int, subgraph_index: int = 0) -> np.ndarray:
        if subgraph_index != 0:
            raise ValueError(f"subgraph_index {subgraph_index}: rillet runs subgraph 0 only for now")
        return self._view(self._check_index(tensor_index)).copy()

    def tensor(self, tensor_index: int) -> Callable[[], np.ndarray]:
        """A function returning a numpy view of the tensor's memory. As in LiteRT, hold the function, not the
        array: allocate_tensors refuses (RuntimeError) while an array it returned is alive."""
        index = self._check_index(tensor_index)
        return lambda: self._view(index)

    # ---- signatures ----

    def _signatures(self) -> dict[str, dict[str, dict[str, int]]]:
        found = {}
        for sd in self._model_view.signature_defs or []:
            found[sd.signature_key] = {
                "inputs": {m.name: m.tensor_index for m in sd.inputs},
                "outputs": {m.name: m.tensor_index for m in sd.outputs},
                "subgraph_index": sd.subgraph_index,
            }
        return found

    def get_signature_list(self) -> dict[str, dict[str, list[str]]]:
        return {key: {"inputs": list(s["inputs"]), "outputs": list(s["outputs"])}
                for key, s in self._signatures().items()}

    def get_signature_runner(self, signature_key: str | None = None) -> SignatureRunner:
        signatures = self._signatures()
        if signature_key is None:
            if len(signatures) != 1:
                raise ValueError(f"SignatureDef signature_key is None and the model has {len(signatures)} "
                                 "signatures: name one")
            signature_key = next(iter(signatures))
        if signature_key not in signatures:
            raise ValueError(f'Invalid signature_key provided: "{signature_key}".')
        return SignatureRunner(self, signature_key, signatures[signature_key])

    # ---- what rillet adds ----

    def profile(self, runs: int = 1) -> list[dict[str, Any]]:
        """Invokes `runs` times and returns per op: index, op, output shape, seconds (the median), folded."""
        if not self._ready:
            raise RuntimeError("profile called on a model that is not ready (call allocate_tensors first)")
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

    def memory_report(self) -> dict[str, int]:
        """Arena bytes (every activation and each op's eval-time scratch, planned by lifetime), weight bytes
        (used in place from the file), folded bytes (constants computed at prepare), packed weight bytes (the
        weights repacked for the micro-kernels) and op state bytes (every op's prepared state: packed
        weights, indirection buffers, requantization scales), summed over every subgraph's plan, and variable
        bytes (the resource variables' values, which a training step updates)."""
        total: dict[str, int] = {}
        for plan in self._plans:
            for key, value in plan.memory().items():
                total[key] = total.get(key, 0) + value
        total["variable_bytes"] = self._program.variable_bytes()
        return total

    @property
    def kernel_path(self) -> str:
        """The kernel path this interpreter runs: "avx512vnni", "avx2", "scalar", ... (RILLET_ISA forces one)."""
        return self._plan.kernel_path()


class SignatureRunner:
    """Runs one SignatureDef by its input and output names, as LiteRT's SignatureRunner."""

    def __init__(self, interpreter: Interpreter, key: str, signature: dict[str, Any]) -> None:
        self._interpreter = interpreter
        self._key = key
        self._subgraph: int = signature["subgraph_index"]
        self._inputs: dict[str, int] = signature["inputs"]
        self._outputs: dict[str, int] = signature["outputs"]

    def __call__(self, **kwargs: Any) -> dict[str, np.ndarray]:
        it = self._interpreter
        if len(kwargs) != len(self._inputs):
            raise ValueError(f"Invalid number of inputs provided for running a SignatureDef, expected "
                             f"{len(self._inputs)} vs provided {len(kwargs)}")
        values = {}
        for name, value in kwargs.items():
            if name not in self._inputs:
                raise ValueError(f"Invalid Input name ({name}) for SignatureDef")
            values[name] = np.asarray(value)
            index = self._inputs[name]
            current = it._views.get((self._subgraph, index)) if it._ready else None
            shape = current.shape if current is not None else tuple(it._plans[self._subgraph].shape(index))
            if values[name].shape != shape:
                it._resize(index, values[name].shape, False, self._subgraph)
        if not it._ready:
            it.allocate_tensors()
        for name, value in values.items():
            it._set(self._inputs[name], value, self._subgraph)
        it._invoke(self._subgraph)
        return {name: it._view(index, self._subgraph).copy() for name, index in self._outputs.items()}

    def get_input_details(self) -> dict[str, dict[str, Any]]:
        return {name: self._interpreter._details(i, self._subgraph) for name, i in self._inputs.items()}

    def get_output_details(self) -> dict[str, dict[str, Any]]:
        return {name: self._interpreter._details(i, self._subgraph) for name, i in self._outputs.items()}
