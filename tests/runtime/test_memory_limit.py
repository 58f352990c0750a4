"""A model that asks for more memory than the machine has (or than RILLET_MEMORY_LIMIT_MB allows) is refused
by name before anything is allocated, instead of paging the machine to death."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.runtime import Interpreter, InterpreterError

F32 = np.float32


def test_an_arena_beyond_physical_memory_is_refused_naming_the_size():
    m = op_model("RELU", [Input((1, 100_000, 100_000))], [((1, 100_000, 100_000), F32)])
    with pytest.raises(InterpreterError, match=r"the arena needs 80000000000 bytes, more than the memory limit"):
        Interpreter(model_content=m).allocate_tensors()


def test_the_limit_can_be_set_lower(tmp_path):
    # In a child process: the limit is read when a plan is created, from the environment.
    script = (
        "import numpy as np, sys; sys.path[:0] = sys.argv[1:]\n"
        "from single_op import Input, op_model\n"
        "from rillet.runtime import Interpreter\n"
        "m = op_model('RELU', [Input((1, 1024, 1024))], [((1, 1024, 1024), np.float32)])\n"
        "try:\n"
        "    Interpreter(model_content=m).allocate_tensors()\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    here = str(Path(__file__).parent)
    # cwd=tmp_path: the checkout's ./rillet would shadow the installed package
    out = subprocess.run([sys.executable, "-c", script, here], check=True, capture_output=True, text=True, timeout=120,
                         cwd=tmp_path,
                         env={**os.environ, "RILLET_MEMORY_LIMIT_MB": "4"})
    assert "the arena needs 8388608 bytes, more than the memory limit of 4194304 bytes" in out.stdout, out
