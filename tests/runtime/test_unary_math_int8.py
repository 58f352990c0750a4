"""int8 RSQRT, SQRT, LOG, EXP, ELU and GELU against LiteRT's kernels, bit for bit: every one of the 256 input
values, under several input and output scales and zero points; RSQRT and SQRT refuse an input below the zero
point at invoke, as LiteRT does."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, Input, Quant, op_model, run

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")
OPTIONS_TYPES.setdefault("GELU", "GeluOptions")

EVERY_INT8 = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
# (input scale, input zero point, output scale, output zero point)
SCALES = [(0.05, -128, 0.02, 5), (0.1, 0, 0.05, -128), (1 / 256, -128, 1 / 64, -100), (0.7, -20, 0.3, 17),
          (0.002, 3, 0.25, 0), (3.0, -128, 0.01, 127), (0.02, -128, 0.08, -3),
          (4.0, -128, 1e-9, -7), (4.0, -128, 1e-9, 9)]  # past int32: float-to-int conversion overflows


def model(name: str, scales: tuple[float, int, float, int]) -> bytes:
    """The one-op model; GELU_TANH is GELU with approximate=True."""
    si, zi, so, zo = scales
    options = {"approximate": name == "GELU_TANH"} if name.startswith("GELU") else None
    return op_model(name.removesuffix("_TANH"), [Input((1, 256), np.int8, Quant(si, zi))],
                    [((1, 256), np.int8, Quant(so, zo))], options)


def litert(content: bytes, x: np.ndarray) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    return run(LiteRT, content, [x])[0]


@pytest.mark.parametrize("scales", SCALES, ids=lambda s: f"{s[0]:g}_{s[1]}_{s[2]:g}_{s[3]}")
@pytest.mark.parametrize("name", ["LOG", "EXP", "ELU", "GELU", "GELU_TANH"])
def test_table_ops_match_litert_on_every_input(name, scales):
    content = model(name, scales)
    np.testing.assert_array_equal(run(Interpreter, content, [EVERY_INT8])[0], litert(content, EVERY_INT8))


@pytest.mark.parametrize("scales", SCALES, ids=lambda s: f"{s[0]:g}_{s[1]}_{s[2]:g}_{s[3]}")
@pytest.mark.parametrize("name", ["RSQRT", "SQRT"])
def test_root_ops_match_litert_on_every_valid_input(name, scales):
    content = model(name, scales)
    valid = EVERY_INT8[:, EVERY_INT8[0] >= scales[1]]
    x = np.concatenate([valid, np.full((1, 256 - valid.shape[1]), valid.max(), np.int8)], axis=1)
    np.testing.assert_array_equal(run(Interpreter, content, [x])[0], litert(content, x))


@pytest.mark.parametrize("name", ["RSQRT", "SQRT"])
def test_root_ops_refuse_an_input_below_the_zero_point(name):
    content = model(name, (0.1, 0, 0.05, -128))
    x = np.zeros((1, 256), np.int8)
    x[0, 7] = -1
    with pytest.raises(RuntimeError):
        litert(content, x)
    with pytest.raises(RuntimeError, match=f"int8 {name} is only defined for values >= 0: input 7 is -1"):
        run(Interpreter, content, [x])
