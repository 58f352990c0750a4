"""Helpers for the quantization tests: running a model in LiteRT and rillet, SQNR, and the explicit check of
rillet's runtime giving LiteRT's bits."""

from __future__ import annotations

import numpy as np
from ai_edge_litert.interpreter import Interpreter as LiteRT


def sqnr_db(reference: np.ndarray, approx: np.ndarray) -> float:
    reference, approx = np.asarray(reference, np.float64), np.asarray(approx, np.float64)
    noise = np.sum((reference - approx) ** 2)
    return float("inf") if noise == 0 else float(10 * np.log10(np.sum(reference ** 2) / noise))


def run(content: bytes, xs: list[np.ndarray], interpreter_class=LiteRT, tensor_name: str | None = None,
        dequantize: bool = True) -> np.ndarray:
    """Runs the one-input model on each x (float; quantized first where the input is int8); returns the
    output (or the tensor named `tensor_name`), as float when dequantize."""
    it = interpreter_class(model_content=content, experimental_preserve_all_tensors=tensor_name is not None)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    if tensor_name is None:
        out = it.get_output_details()[0]
    else:
        out = next(d for d in it.get_tensor_details() if d["name"] == tensor_name)
    ys = []
    for x in xs:
        if inp["dtype"] == np.int8:
            scale, zero_point = inp["quantization"]
            x = np.clip(np.round(x / scale) + zero_point, -128, 127).astype(np.int8)
        it.set_tensor(inp["index"], x)
        it.invoke()
        y = it.get_tensor(out["index"])
        if dequantize and y.dtype == np.int8:
            scale, zero_point = out["quantization"]
            y = (y.astype(np.float64) - zero_point) * scale
        ys.append(y)
    return np.stack(ys)


def assert_same_bits_in_rillet(content: bytes, xs: list[np.ndarray]) -> None:
    """rillet gives LiteRT's bits on a quantized file."""
    from rillet.runtime import Interpreter

    expected = run(content, xs, LiteRT, dequantize=False)
    got = run(content, xs, Interpreter, dequantize=False)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes(), f"{np.count_nonzero(got != expected)} of {got.size} differ"
