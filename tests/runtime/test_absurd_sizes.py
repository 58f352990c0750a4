"""A model (or a resize) asking for an absurd tensor or arena is refused by name when tensors are allocated,
before anything is allocated: never a crash, never the machine paged to death."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.runtime import Interpreter, InterpreterError


@pytest.mark.parametrize(("shape", "says"), [
    ((1, 2**31 - 1, 2**31 - 1), "input tensor 0 'in0' is larger than 2\\^40 bytes"),
    ((2**20, 2**20, 4), "input tensor 0 'in0' is larger than 2\\^40 bytes"),
    ((3, 10**5, 10**5), "the arena needs 240000000000 bytes, more than the memory limit"),
])
def test_a_model_declaring_an_absurd_input_is_refused(shape, says, monkeypatch):
    # The arena's limit is the machine's memory unless set: 100 GB, so the 240 GB case is refused anywhere.
    monkeypatch.setenv("RILLET_MEMORY_LIMIT_MB", "100000")
    it = Interpreter(model_content=op_model("RELU", [Input(shape)], [(shape, np.float32)]))
    with pytest.raises(InterpreterError, match=says):
        it.allocate_tensors()


def test_a_resize_to_an_absurd_size_is_refused():
    it = Interpreter(model_content=op_model("RELU", [Input((1, 4))], [((1, 4), np.float32)]))
    with pytest.raises(OverflowError):  # as LiteRT: the size does not fit int32
        it.resize_tensor_input(0, [2**40, 4])
    it.resize_tensor_input(0, [2**30, 2**30])
    with pytest.raises(InterpreterError, match="larger than 2\\^40 bytes"):
        it.allocate_tensors()
    it.resize_tensor_input(0, [1, 4])  # and the interpreter still works
    it.allocate_tensors()
    it.set_tensor(0, np.array([[-1, 2, -3, 4]], np.float32))
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), [[0, 2, 0, 4]])
