"""The bridge from a .tflite subgraph to librillet's plan: librillet reads the flatbuffer itself
(`rl_plan_build_from_tflite`, which also checks every subgraph's ops and calls); this module names what it
refuses: the op, the tensor, every unknown op of the model, `load`'s message for a malformed file."""

import functools
import os
import re
import weakref
from typing import Any

import numpy as np

from rillet.converter.format import ModelError, ModelView
from rillet.converter.format.schema import CUSTOM_CODE, tensor_type_name
from rillet.native import STATUS_NAMES, ffi, lib

from .program import Program


class InterpreterError(RuntimeError):
    """librillet refused or failed: the message names the op, its index and the problem."""


class InvokeCancelledError(InterpreterError):
    """The invoke stopped early: Interpreter.cancel() from another thread, or its time limit
    (set_invoke_timeout, RILLET_INVOKE_TIMEOUT_MS). The interpreter stays ready for the next invoke."""


class UnsupportedOpsError(InterpreterError, ValueError):
    """The model holds ops (or op/dtype pairs) rillet has no kernel for; the message lists every one."""


@functools.cache
def _best_isa() -> int:
    return int(lib.rl_best_isa())


@functools.cache
def _block_cache() -> Any:
    """The process's cache of freed plan memory (rl_block_cache_create): a model readied again reuses the blocks
    its last interpreter freed, as LiteRT reuses glibc's heap. At most 32 MiB of freed blocks stay, as glibc's
    largest mmap threshold; never destroyed, as plans may be collected after this module at exit."""
    return lib.rl_block_cache_create(32 << 20)


def _default_isa() -> int:
    """The kernel path for a new plan: the CPU's best, detected once per process (each detection is a few
    cpuid traps in a virtual machine, as long as readying a small model), or -1 when RILLET_ISA is set, for
    librillet to read and check it."""
    return -1 if os.environ.get("RILLET_ISA") else _best_isa()


def unsupported_ops(model: "ModelView") -> str:
    """Every op of every subgraph that librillet has no kernel for, as one line; empty when none."""
    found: dict[str, dict[int, list[int]]] = {}
    known: dict[tuple[int, int], bool] = {}
    for s, sg in enumerate(model.subgraphs):
        opcode_index = sg.operator_columns().opcode_index
        for index, (k, code) in enumerate(zip(opcode_index.tolist(), model.opcode_codes[opcode_index].tolist())):
            key = (code, k if code == CUSTOM_CODE else -1)  # a custom op is known by its name
            if key not in known:
                known[key] = (bool(lib.rl_custom_op_is_known(model.opcode_name(k).encode())) if code == CUSTOM_CODE
                              else bool(lib.rl_op_is_known(code)))
            if not known[key]:
                found.setdefault(model.opcode_name(k), {}).setdefault(s, []).append(index)
    parts = []
    for name, by_subgraph in found.items():
        places = [f"ops {', '.join(map(str, ix))}" if len(ix) > 1 else f"op {ix[0]}" for ix in by_subgraph.values()]
        if len(model.subgraphs) > 1:
            places = [f"subgraph {s} {p}" for s, p in zip(by_subgraph, places)]
        parts.append(f"{name} ({'; '.join(places)})")
    return ", ".join(parts)


# LiteRT's words for an allocate_tensors while numpy views of the arena are alive (its _ensure_safe).
LIVE_VIEWS_MESSAGE = ("There is at least 1 reference to internal data in the interpreter in the form of a numpy "
                      "array or slice. Be sure to only hold the function returned from tensor() if you are using "
                      "raw data access.")


class _PlanMemory:
    """The owner of a numpy view of a plan's memory (an arena slot, or a constant in the model's bytes):
    it keeps the plan, and so the bytes it points into (an mmap'd file), alive while the view lives."""

    def __init__(self, plan: "NativePlan", pointer: Any, nbytes: int, readonly: bool) -> None:
        self.plan = plan
        self.__array_interface__ = {"data": (int(ffi.cast("uintptr_t", pointer)), readonly), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}


class NativePlan:
    """One subgraph as a librillet plan. Holds the model's bytes alive: constants are used in place."""

    def __init__(self, model: "ModelView", subgraph: int = 0, num_threads: int = 1,
                 preserve_all_tensors: bool = False, program: "Program | None" = None) -> None:
        self.model = model
        self.program = program  # kept alive while the plan is: its variables and sibling subgraphs
        self._subgraph_index = subgraph
        out = ffi.new("rl_plan **")
        status = lib.rl_plan_create_on(out, max(1, int(num_threads or 1)), _default_isa())
        if out[0] == ffi.NULL:
            raise MemoryError("librillet could not create a plan")
        self._plan = ffi.gc(out[0], lib.rl_plan_destroy)
        if status != lib.RL_OK:  # e.g. RILLET_ISA names a path this CPU lacks
            raise RuntimeError(ffi.string(lib.rl_plan_message(self._plan)).decode(errors="replace"))
        lib.rl_plan_set_block_cache(self._plan, _block_cache())
        if program is not None:
            self._check(lib.rl_program_add_plan(program.pointer, subgraph, self._plan))
        self._bytes = ffi.from_buffer("uint8_t[]", model.data)  # the constants point into it
        lib.rl_plan_set_preserve_all_tensors(self._plan, int(bool(preserve_all_tensors)))
        self._op_names: list[str] | None = None
        status = lib.rl_plan_build_from_tflite(self._plan, self._bytes, len(self._bytes), subgraph)
        if status != lib.RL_OK:
            self._explain_build(status)
        if lib.rl_plan_check_support(self._plan) != 0:
            raise UnsupportedOpsError("the model has ops rillet has no kernel for at these types: "
                                      + self._typed_support_listing())
        self._op_seconds = ffi.new("double[]", max(1, lib.rl_plan_op_count(self._plan)))
        # The owners of every live numpy view of the arena: preparing again may move or free the arena, so
        # it is refused while one lives (a view would otherwise point into freed memory).
        self._arena_views: weakref.WeakSet[_PlanMemory] = weakref.WeakSet()

    @property
    def subgraph(self) -> Any:
        """The subgraph's tables, read by the format layer when first asked for (names, details, errors):
        librillet builds the plan from the bytes itself, so a start does not wait for them."""
        return self.model.subgraphs[self._subgraph_index]

    @property
    def op_names(self) -> "list[str]":
        """Each op's name: CONV_2D, or a custom op's code."""
        if self._op_names is None:
            indices = self.subgraph.operator_columns().opcode_index.tolist()
            names = {k: self.model.opcode_name(k) for k in set(indices)}
            self._op_names = [names[k] for k in indices]
        return self._op_names

    def _explain_build(self, status: int) -> None:
        """Raises what librillet's reader refused, with the names it does not know. A problem `load` finds
        in the file, or the whole-model checks (calls between subgraphs, unknown ops anywhere), come first,
        as when the plan was fed from Python."""
        message = ffi.string(lib.rl_plan_message(self._plan)).decode(errors="replace")
        self.subgraph.columns()  # load's message for a file it refuses
        self.model.check_calls()
        if message.startswith("malformed: "):
            raise ModelError(self._name_tensor(message[len("malformed: "):]))
        if message.startswith("tensor ") and lib.rl_plan_failed_op(self._plan) < 0:
            text = f"{self._name_tensor(message)} [{STATUS_NAMES.get(status, status)}]"
            raise (UnsupportedOpsError if status == lib.RL_UNSUPPORTED else InterpreterError)(text)
        listing = unsupported_ops(self.model)
        if listing:
            raise UnsupportedOpsError(f"the model has ops rillet cannot run: {listing}")
        self._check(status)

    def _name_tensor(self, message: str) -> str:
        """"tensor 5: ..." as "tensor 5 'conv1/weights': ..."."""
        found = re.match(r"tensor (\d+): ", message)
        if not found or int(found[1]) >= len(self.subgraph.tensors):
            return message
        index = int(found[1])
        return f"tensor {index} {self.subgraph.tensors[index].name!r}: {message[found.end():]}"

    def _typed_support_listing(self) -> str:
        # librillet's check names the dtype it read, its data input's ("op 0 (code 67, int16)": TRANSPOSE_CONV's
        # input, not its int32 output_shape); an op its full message left out falls back to the first input's.
        message = ffi.string(lib.rl_plan_message(self._plan)).decode(errors="replace")
        checked = {int(i): why for i, why in re.findall(r"op (\d+) \(code -?\d+, ([^)]+)\)", message)}
        items = []
        for index, op in enumerate(self.subgraph.operators):
            if lib.rl_plan_op_supported(self._plan, index):
                continue
            first = next((i for i in (op.inputs or []) if i >= 0), None)
            dtype = self.subgraph.tensors[first].type if first is not None else None
            dtype = tensor_type_name(dtype) if dtype is not None else "no input"
            if checked.get(index, "no kernel") != "no kernel":
                dtype = checked[index].upper()
            items.append(f"{self.op_names[index]} op {index} on {dtype}")
        return "; ".join(items)

    def _name_sized_tensor(self, message: str) -> str:
        """"input tensor 0 is larger than 2^40 bytes" (prepare's size limit) with the tensor's name."""
        found = re.match(r"(input )?tensor (\d+) is larger", message)
        if not found or int(found[2]) >= len(self.subgraph.tensors):
            return message
        index = int(found[2])
        return f"{message[:found.end(2)]} {self.subgraph.tensors[index].name!r}{message[found.end(2):]}"

    def describe_op(self, index: int, problem: str) -> str:
        op = self.subgraph.operators[index]
        outs = [o for o in (op.outputs or []) if o >= 0]
        named = f" ({self.subgraph.tensors[outs[0]].name!r})" if outs else ""
        return f"{self.op_names[index]} op {index}{named}: {problem}"

    def _check(self, status: int, what: str = "") -> None:
        if status == 0:
            return
        message = ffi.string(lib.rl_plan_message(self._plan)).decode(errors="replace")
        failed = lib.rl_plan_failed_op(self._plan)
        if failed >= 0:
            text = self.describe_op(failed, message)
        else:
            text = f"{what}: {message}" if what else self._name_sized_tensor(message)
        text = f"{text} [{STATUS_NAMES.get(status, status)}]"
        kind = {lib.RL_UNSUPPORTED: UnsupportedOpsError, lib.RL_CANCELLED: InvokeCancelledError}
        raise kind.get(status, InterpreterError)(text)

    # ---- the plan's life ----

    def set_shape(self, tensor: int, shape: "list[int]") -> None:
        shape = [int(d) for d in shape]
        self._check(lib.rl_plan_set_tensor_shape(self._plan, tensor, len(shape), ffi.new("int32_t[]", shape or [0])))

    def set_carried(self, outputs_to_inputs: "dict[int, int]") -> None:
        """Tells the plan which outputs the caller copies into which inputs after each invoke (rl_plan_set_carried):
        at its next prepare a DYNAMIC_UPDATE_SLICE of such a cache writes in place, its output the input's memory."""
        outputs, inputs = list(outputs_to_inputs), list(outputs_to_inputs.values())
        self._check(lib.rl_plan_set_carried(self._plan, len(outputs), ffi.new("int32_t[]", outputs or [0]),
                                            ffi.new("int32_t[]", inputs or [0])), "carry")

    def has_arena_views(self) -> bool:
        return len(self._arena_views) > 0

    def prepare(self) -> None:
        if self._arena_views:
            raise RuntimeError(LIVE_VIEWS_MESSAGE)
        self._check(lib.rl_plan_prepare(self._plan))

    def invoke(self) -> None:
        self._check(lib.rl_plan_invoke(self._plan))  # cffi releases the GIL for the call

    def reset_variable_tensors(self) -> None:
        """Zeroes what stateful ops (an LSTM's h and c) keep across invokes."""
        lib.rl_plan_reset_variable_tensors(self._plan)

    def invoke_profiled(self) -> "list[float]":
        self._check(lib.rl_plan_invoke_profiled(self._plan, self._op_seconds))
        return [float(self._op_seconds[i]) for i in range(len(self.op_names))]

    def invoke_thread_profiled(self) -> "tuple[list[float], list[list[float]]]":
        """Per op its time and each thread's CPU seconds on it (rl_plan_invoke_thread_profiled)."""
        ops, threads = len(self.op_names), self.threads()
        per_thread = ffi.new("double[]", max(1, ops * threads))
        self._check(lib.rl_plan_invoke_thread_profiled(self._plan, self._op_seconds, per_thread))
        return ([float(self._op_seconds[i]) for i in range(ops)],
                [[float(per_thread[i * threads + k]) for k in range(threads)] for i in range(ops)])

    # ---- tensors ----

    def shape(self, tensor: int) -> "list[int]":
        return [lib.rl_plan_tensor_dim(self._plan, tensor, d) for d in range(lib.rl_plan_tensor_rank(self._plan, tensor))]

    def storage(self, tensor: int) -> int:
        return lib.rl_plan_tensor_storage(self._plan, tensor)

    def is_dynamic(self, tensor: int) -> bool:
        """Its shape is known only during invoke (a control-flow op's data-dependent output, or computed
        from one): view() then gives a copy, and its shape may differ after each invoke."""
        return self.storage(tensor) == lib.RL_STORAGE_DYNAMIC

    def view(self, tensor: int, dtype: "np.dtype") -> "np.ndarray | None":
        """The tensor's bytes as a numpy array (no copy); None when the tensor has no memory."""
        pointer = lib.rl_plan_tensor_data(self._plan, tensor)
        shape = self.shape(tensor)
        if pointer == ffi.NULL:
            return None
        nbytes = lib.rl_plan_tensor_bytes(self._plan, tensor)
        if nbytes == 0:
            return np.empty(shape, dtype)
        if self.is_dynamic(tensor):
            # The next invoke may give it another shape and move its memory: a view would dangle.
            return np.frombuffer(ffi.buffer(pointer, nbytes), dtype=dtype).reshape(shape).copy()
        constant = self.storage(tensor) == lib.RL_STORAGE_CONSTANT
        owner = _PlanMemory(self, pointer, nbytes, constant)
        if not constant:
            self._arena_views.add(owner)
        return np.asarray(owner).view(dtype).reshape(shape)

    def op_folded(self, op: int) -> bool:
        return bool(lib.rl_plan_op_is_folded(self._plan, op))

    def memory(self) -> "dict[str, int]":
        return {
            "arena_bytes": int(lib.rl_plan_arena_bytes(self._plan)),
            "weight_bytes": int(lib.rl_plan_constant_bytes(self._plan)),
            "folded_bytes": int(lib.rl_plan_folded_bytes(self._plan)),
            "packed_weight_bytes": int(lib.rl_plan_packed_weight_bytes(self._plan)),
            "op_state_bytes": int(lib.rl_plan_op_state_bytes(self._plan)),
            "dynamic_bytes": int(lib.rl_plan_dynamic_bytes(self._plan)),
        }

    def kernel_path(self) -> str:
        return ffi.string(lib.rl_plan_isa(self._plan)).decode()

    def op_segment_last(self, op: int) -> int:
        """The last op of the band segment op `op` starts (native/src/bands.h), or -1."""
        return int(lib.rl_plan_op_segment_last(self._plan, op))

    def threads(self) -> int:
        return int(lib.rl_plan_threads(self._plan))
