"""Invoking again without setting the input gives the same output: the planner keeps graph inputs alive
through the whole plan (TFLite's preserve_inputs), so no intermediate tensor reuses their memory."""

import numpy as np

from rillet.bundled import bundled_model_path
from rillet.runtime import Interpreter


def test_second_invoke_reads_the_same_input():
    # the bundled digits CNN: its input feeds only the first op, so a planner that ends the input's
    # lifetime there lets a later tensor overwrite it
    it = Interpreter(model_path=str(bundled_model_path("digits.tflite")))
    (inp,), (out,) = it.get_input_details(), it.get_output_details()
    it.resize_tensor_input(inp["index"], [16, 8, 8, 1])
    it.allocate_tensors()
    it.set_tensor(inp["index"], np.random.default_rng(0).integers(0, 17, (16, 8, 8, 1)).astype(np.float32))
    it.invoke()
    first = it.get_tensor(out["index"]).copy()
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(out["index"]), first)
