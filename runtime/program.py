"""`Program`: a model's subgraphs over one store of resource variables (librillet's rl_program).

Every subgraph's plan joins the interpreter's program, so VAR_HANDLE names the same variable in every
signature, values assigned in one invoke are read in the next, and CALL_ONCE runs its initialising
subgraph the first time only (again after `reset`)."""

from __future__ import annotations

from typing import Any

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
