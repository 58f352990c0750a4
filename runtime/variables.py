"""What rillet adds to LiteRT's Interpreter for training on the device: the resource variables by name,
checkpoints of them, starting them again, and writing the trained weights back into a model."""

import os
from typing import Any

import numpy as np

from rillet.converter.format.schema import TENSOR_TYPE_DTYPES

from .program import read_variable, write_variable

# Checkpoints, export and the variables' roles import what they use (zipfile, tempfile, json, the writer)
# when called: a plain load and invoke never needs them, and on a small device each module imported costs
# start time (tests/runtime/test_import_cost.py keeps them off `import rillet.runtime`'s path).


def variable_key(options: Any) -> "tuple[str, str]":
    """A VAR_HANDLE's (container, shared_name)."""
    return (getattr(options, "container", None) or "", getattr(options, "shared_name", None) or "")

ROLE_KEYS = {"trained": "trained_variable_bytes", "optimizer_slots": "optimizer_slot_bytes",
             "statistics": "statistics_variable_bytes", "settings": "setting_variable_bytes"}


class ResourceVariables:
    """Mixed into Interpreter: needs its `_model_view`, `_program`, `model` and `_lock`."""

    _model_view: Any
    _program: Any
    _lock: Any
    model: Any
    _check_model_file: Any

    def _variables(self) -> "dict[str, tuple[tuple[str, str], int]]":
        """Each variable a VAR_HANDLE names: by its name (shared_name, or container/shared_name), its
        (container, shared_name) and its id in the program."""
        found: dict[str, tuple[tuple[str, str], int]] = {}
        self._check_model_file()  # the tables are read from a mapped file
        for sg in self._model_view.subgraphs:
            for op in sg.operators:
                if self._model_view.opcode_name(op.opcode_index) == "VAR_HANDLE":
                    key = variable_key(op.builtin_options)
                    found["/".join(key) if key[0] else key[1]] = (key, self._program.variable_id(*key))
        return found

    def _variable_ids(self) -> "dict[str, int]":
        return {name: variable for name, (_, variable) in self._variables().items()}

    def _variable_file_values(self) -> "list[tuple[str, Any]]":
        """(variable name, tensor) for each value a READ_VARIABLE of it gives or an ASSIGN_VARIABLE stores."""
        self._check_model_file()
        view, found = self._model_view, []
        for sg in view.subgraphs:
            handles: dict[int, str] = {}
            for op in sg.operators:
                name = view.opcode_name(op.opcode_index)
                if name == "VAR_HANDLE":
                    key = variable_key(op.builtin_options)
                    handles[op.outputs[0]] = "/".join(key) if key[0] else key[1]
                elif name in ("READ_VARIABLE", "ASSIGN_VARIABLE") and op.inputs[0] in handles:
                    found.append((handles[op.inputs[0]],
                                  sg.tensors[op.outputs[0] if name == "READ_VARIABLE" else op.inputs[1]]))
        return found

    def _variable_file_bytes(self) -> "dict[str, int]":
        """Each variable's size from the file, known before anything is assigned: the largest value a
        READ_VARIABLE of it gives or an ASSIGN_VARIABLE stores, as the program reserves at prepare."""
        sizes: dict[str, int] = {}
        for variable, value in self._variable_file_values():
            count = int(np.prod(value.shape if value.shape is not None else [], dtype=np.int64))
            nbytes = count * np.dtype(TENSOR_TYPE_DTYPES.get(value.type, np.uint8)).itemsize
            sizes[variable] = max(sizes.get(variable, 0), nbytes)
        return sizes

    def _variable_file_types(self) -> "dict[str, tuple[np.dtype, tuple[int, ...]]]":
        """Each variable's type and shape as the file fixes them (every value read or assigned agrees, and
        none has a dimension left unknown); variables the file leaves open are left out."""
        seen: dict[str, set[tuple[Any, tuple[int, ...]]]] = {}
        for variable, value in self._variable_file_values():
            shape = tuple(value.shape_signature if value.shape_signature is not None else value.shape or [])
            seen.setdefault(variable, set()).add((TENSOR_TYPE_DTYPES.get(value.type), shape))
        return {variable: (np.dtype(dtype), shape) for variable, found in seen.items() if len(found) == 1
                for dtype, shape in found if dtype is not None and all(d >= 0 for d in shape)}

    def _variable_role_bytes(self) -> "dict[str, int]":
        """memory_report's split of variable_bytes by what the converter marked each variable as (trained
        weights, optimizer slots, moving statistics, settings); {} for a file without those marks."""
        from rillet.converter.format.variable_roles import decode_roles

        self._check_model_file()
        roles = decode_roles(self._model_view)
        if not roles:
            return {}
        report = dict.fromkeys(ROLE_KEYS.values(), 0)
        for name, nbytes in self._variable_file_bytes().items():
            if name in roles:
                report[ROLE_KEYS[roles[name]]] += nbytes
        return report

    def reset_resource_variables(self) -> None:
        """Every resource variable back to unassigned and every CALL_ONCE to run again: the next invoke
        starts from the model's initial values. (LiteRT's reset_all_variables leaves resource variables as
        they are: it zeroes the stateful tensors of ops like LSTM, as rillet's does.)"""
        with self._lock:
            self._program.reset()

    def get_variables(self) -> "dict[str, np.ndarray]":
        """A copy of every resource variable's current value, by name (variables nothing has assigned yet,
        before the first invoke runs the model's initialiser, are left out)."""
        with self._lock:
            values = {name: read_variable(self._program, i) for name, i in self._variable_ids().items()}
        return {name: v for name, v in values.items() if v is not None}

    def save_checkpoint(self, path: "str | os.PathLike") -> None:
        """Writes every variable by name to an .npz file. The write is atomic: a temporary file beside it is
        written, flushed to disk and renamed over `path`, so a crash mid-save leaves the previous checkpoint
        whole. A symbolic link is followed (its target replaced, the link kept); a directory, FIFO, device or
        socket at `path` is refused (OSError naming it), never replaced by a file."""
        with self._lock:  # an id is made on first ask: not while another thread's invoke reads the store
            ids = self._variable_ids()
            values = self.get_variables()
        missing = sorted(set(ids) - set(values))
        if missing:
            raise ValueError(f"variables {', '.join(missing)} have no value yet: invoke a signature first (its "
                             "CALL_ONCE initialises them)")
        # member by member (np.savez's keywords would clash with a variable named "file"), as the device
        # trainer's checkpoints are written; imported here, off the runtime's import path
        from rillet.atomic_file import write_atomically
        from rillet.targets.fit_checkpoint import write_variables

        write_atomically(path, lambda f: write_variables(f, values), prefix=".checkpoint-")

    def restore_checkpoint(self, path: "str | os.PathLike") -> None:
        """Sets every variable from a checkpoint save_checkpoint wrote (names, types and shapes must match the
        model's); the model's initialiser then does not run, so training goes on from the restored values."""
        import zipfile

        with self._lock:
            ids = self._variable_ids()
        try:
            saved = np.load(os.fspath(path), allow_pickle=False)
            if isinstance(saved, np.ndarray):
                raise TypeError("it is one unnamed array (an .npy file), not variables by name")
            with saved:
                values = {name: saved[name] for name in saved.files}
        except (TypeError, ValueError, EOFError, zipfile.BadZipFile) as e:  # not an .npz, cut short, objects
            raise ValueError(f"checkpoint {os.fspath(path)!r} cannot be read as save_checkpoint writes it: "
                             f"{e}") from e
        if set(values) != set(ids):
            raise ValueError(f"checkpoint {os.fspath(path)!r} holds variables {sorted(values)}, the model has "
                             f"{sorted(ids)}")
        with self._lock:
            declared = self._variable_file_types()
            for name, value in values.items():
                current = read_variable(self._program, ids[name])
                dtype, shape = (current.dtype, current.shape) if current is not None else declared.get(
                    name, (value.dtype, value.shape))  # before any invoke: the type and shape the file gives
                if shape != value.shape or dtype != value.dtype:
                    raise ValueError(f"checkpoint {os.fspath(path)!r}: variable {name!r} is {value.dtype} "
                                     f"{list(value.shape)}, the model's is {dtype} {list(shape)}")
            for name, value in values.items():
                write_variable(self._program, ids[name], value)
            self._program.mark_initialized()

    def export_model(self, path: "str | os.PathLike", signature_key: str = "infer", calibration: Any = None) -> None:
        """Writes an inference .tflite of `signature_key` with the variables' current values baked in as
        constants and the ops that then read only constants folded: the trained model, for LiteRT or rillet,
        with no resource variables left (a fine-tuned int8 model's weights int8 again, at the original's
        scales). calibration (a quantized model): samples of the inputs, as `signature_key` takes them (an
        array, samples on axis 0, or a dict by input name); the model is then quantized again over them
        (fresh weight scales and activation ranges, rillet.converter.recalibrate) instead of keeping the
        original's. Written as save_checkpoint writes (atomically; a symbolic link followed; a FIFO,
        device or directory refused)."""
        from rillet.atomic_file import write_atomically
        from rillet.converter.format import save

        from .export import bake_variables

        signatures = {sd.signature_key: sd for sd in self.model.signature_defs or []}
        if signature_key not in signatures:
            raise ValueError(f"no signature {signature_key!r}: the model has {sorted(signatures)}")
        with self._lock:
            values = {key: read_variable(self._program, variable) for key, variable in self._variables().values()}
        by_key = {key: value for key, value in values.items() if value is not None}
        # ops on nothing but constants (a quantized model's trained weights re-quantized at every run) fold
        # into constants: an int8 model exports as int8 weights with its own scales and its own ops
        from rillet.converter.fold_constants import fold_constant_ops

        data = save(fold_constant_ops(bake_variables(self.model, signatures[signature_key], by_key)))
        if calibration is not None:
            from rillet.converter.recalibrate import recalibrated

            data = recalibrated(data, calibration)
        write_atomically(path, lambda f: f.write(data))  # as checkpoints: never half a model, never over a FIFO
