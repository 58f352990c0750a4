"""`Program`: a model's subgraphs over one store of resource variables (librillet's rl_program).

Every subgraph's plan joins the interpreter's program, so VAR_HANDLE names the same variable in every
signature, values assigned in one invoke are read in the next, and CALL_ONCE runs its initialising
subgraph the first time only (again after `reset`)."""

from typing import Any

import numpy as np

from rillet.converter.format.schema import TENSOR_TYPE_DTYPES
from rillet.native import ffi, lib


class Program:
    def __init__(self) -> None:
        out = ffi.new("rl_program **")
        if lib.rl_program_create(out) != lib.RL_OK:
            raise MemoryError("librillet could not create a program")
        self._program = ffi.gc(out[0], lib.rl_program_destroy)
        self._plans: list[Any] = []  # destroyed before the program: it points at them

    @property
    def pointer(self) -> Any:
        return self._program

    def variable_id(self, container: str, shared_name: str) -> int:
        found = lib.rl_program_variable_id(self._program, container.encode(), shared_name.encode())
        if found < 0:
            raise MemoryError("librillet is out of memory for another variable")
        return int(found)

    def reset(self) -> None:
        lib.rl_program_reset_variables(self._program)

    def variable_bytes(self) -> int:
        return int(lib.rl_program_variable_bytes(self._program))

    def mark_initialized(self) -> None:
        """Every CALL_ONCE counts as done: restored values are not overwritten by the initialiser."""
        lib.rl_program_mark_initialized(self._program)


# The TensorType codes librillet holds (its rl_dtype), with the format layer's numpy twins.
DTYPES = {code: np.dtype(TENSOR_TYPE_DTYPES[code]) for code in (0, 1, 2, 3, 4, 6, 7, 9)}
CODES = {dtype: code for code, dtype in DTYPES.items()}


def read_variable(program: "Program", variable: int) -> "np.ndarray | None":
    """A copy of the variable's value, or None when nothing was assigned to it yet."""
    dtype, rank, dims = ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int32_t[]", 8)
    nbytes, data = ffi.new("size_t *"), ffi.new("void **")
    status = lib.rl_program_read_variable(program.pointer, variable, dtype, rank, dims, nbytes, data)
    if status == lib.RL_BAD_STATE:
        return None
    if status != lib.RL_OK or dtype[0] not in DTYPES:
        raise ValueError(f"variable {variable} cannot be read (status {status}, type {dtype[0]})")
    shape = tuple(dims[d] for d in range(rank[0]))
    return np.frombuffer(ffi.buffer(data[0], nbytes[0]), dtype=DTYPES[dtype[0]]).reshape(shape).copy()


def write_variable(program: "Program", variable: int, value: "np.ndarray") -> None:
    value = np.ascontiguousarray(value)
    if value.dtype not in CODES:
        raise ValueError(f"a variable cannot hold {value.dtype}")
    status = lib.rl_program_write_variable(program.pointer, variable, CODES[value.dtype], value.ndim,
                                           ffi.new("int32_t[]", list(value.shape) or [0]),
                                           ffi.from_buffer(value), value.nbytes)
    if status != lib.RL_OK:
        raise ValueError(f"variable {variable} cannot take a {value.dtype} {list(value.shape)} value "
                         "(its type differs, or the value is empty)")
