"""RESIZE_BILINEAR where LiteRT's default Interpreter hands it to XNNPACK, bit for bit (int8 and float).

XNNPACK takes the op when the file declares its output 4-D with positive sides and its size is a constant;
its coordinates and blending (1/2048 weights for int8) differ from TFLite's kernel, so rillet chooses the same
arithmetic on the same condition (native/ops/resize.c). Each test here has a side of that boundary where the
two kernels disagree, so a wrong choice fails it. RESIZE_NEAREST_NEIGHBOR stays in TFLite's kernel in LiteRT
2.3; with declared shapes it is swept the same way.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import (
    Input,
    Quant,
    assert_close_to_litert,
    assert_same_bits_as_litert,
    litert_default,
    op_model,
)

pytest.importorskip("ai_edge_litert")

CONVENTIONS = [(False, False), (True, False), (False, True)]  # (align_corners, half_pixel_centers)


def resize_model(op, shape, size, corners, dtype, declared=None, q=None):
    """One resize with a constant size; the output declared as `declared` (default: its true 4-D shape)."""
    out = declared if declared is not None else (shape[0], size[0], size[1], shape[3])
    return op_model(op, [Input(shape, dtype, q), np.array(size, np.int32)], [(out, dtype, q)],
                    {"align_corners": corners[0], "half_pixel_centers": corners[1]})


def sample(rng, shape, dtype):
    if dtype == np.int8:
        return rng.integers(-128, 128, size=shape).astype(np.int8)
    return rng.standard_normal(shape).astype(np.float32)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.sampled_from(["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]),
       st.sampled_from([np.int8, np.float32]), st.integers(1, 2), st.integers(1, 9), st.integers(1, 9),
       st.integers(1, 5), st.integers(1, 30), st.integers(1, 30), st.sampled_from(CONVENTIONS))
def test_declared_output_shape(seed, op, dtype, n, h, w, c, oh, ow, corners):
    """Up and down, every convention, with the output's true shape declared (XNNPACK takes bilinear)."""
    x = sample(np.random.default_rng(seed), (n, h, w, c), dtype)
    q = Quant(0.05, -7) if dtype == np.int8 else None
    assert_same_bits_as_litert(resize_model(op, x.shape, (oh, ow), corners, dtype, q=q), [x])


@pytest.mark.parametrize("dtype", [np.int8, np.float32])
@pytest.mark.parametrize("corners", CONVENTIONS)
def test_quantized_model_repro(dtype, corners):
    """7x7x16 -> 14x14, as in the quantized palm and pose detectors: TFLite's kernel and XNNPACK's differ here."""
    x = sample(np.random.default_rng(7), (1, 7, 7, 16), dtype)
    q = Quant(0.1, 3) if dtype == np.int8 else None
    assert_same_bits_as_litert(resize_model("RESIZE_BILINEAR", x.shape, (14, 14), corners, dtype, q=q), [x])


@pytest.mark.parametrize("declared", [(1,), (14, 14, 16), (1, 0, 14, 16), (1, 3, 3, 16)])
@pytest.mark.parametrize("dtype", [np.int8, np.float32])
def test_declared_shape_decides(declared, dtype):
    """A placeholder, a 3-D or an empty declared output keeps LiteRT in TFLite's kernel; any positive 4-D one,
    even with the wrong sides, goes to XNNPACK. The int8 kernels give different bits for this input; float in
    TFLite's optimized kernel is held to 1e-5 (rillet's follows the reference kernel's order of operations)."""
    x = sample(np.random.default_rng(11), (1, 7, 7, 16), dtype)
    q = Quant(0.1, 3) if dtype == np.int8 else None
    m = resize_model("RESIZE_BILINEAR", x.shape, (14, 14), (False, True), dtype, declared, q)
    if dtype == np.int8 or declared == (1, 3, 3, 16):
        assert_same_bits_as_litert(m, [x])
    else:
        assert_close_to_litert(m, [x])


@pytest.mark.parametrize("declared", [(1,), None])
def test_choice_survives_a_resized_input(declared):
    """The choice follows the file's declared output, not the shape rillet gave it on an earlier prepare."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    x = sample(np.random.default_rng(5), (2, 7, 7, 16), np.int8)
    m = resize_model("RESIZE_BILINEAR", (1, 7, 7, 16), (14, 14), (False, True), np.int8, declared, Quant(0.1, 3))
    outs = []
    for cls in (LiteRT, Interpreter):
        it = cls(model_content=m)
        it.allocate_tensors()
        it.resize_tensor_input(it.get_input_details()[0]["index"], list(x.shape))
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert outs[0].shape == outs[1].shape and outs[0].tobytes() == outs[1].tobytes()


def test_the_two_kernels_differ_on_the_repro():
    """The premise of the boundary tests: with a placeholder output LiteRT gives other bits than with a 4-D one."""
    x = sample(np.random.default_rng(11), (1, 7, 7, 16), np.int8)
    q = Quant(0.1, 3)
    placeholder = litert_default(resize_model("RESIZE_BILINEAR", x.shape, (14, 14), (False, True), np.int8, (1,), q), [x])
    declared = litert_default(resize_model("RESIZE_BILINEAR", x.shape, (14, 14), (False, True), np.int8, None, q), [x])
    assert placeholder[0].tobytes() != declared[0].tobytes()


def test_choice_holds_in_an_if_branch():
    """LiteRT's delegate takes a bilinear resize inside an IF branch too (probed: its bits are XNNPACK's there)."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from single_op import TYPE_CODES

    from rillet.converter.format import (
        BUILTIN_CODES,
        Buffer,
        ModelFile,
        Operator,
        OperatorCode,
        Options,
        SubGraph,
        Tensor,
        save,
    )
    from rillet.runtime import Interpreter

    shape, out = [1, 7, 7, 16], [1, 14, 14, 16]
    size = Buffer(data=np.frombuffer(np.array([14, 14], np.int32).tobytes(), np.uint8))
    f32, i32, b8 = (TYPE_CODES[np.dtype(t)] for t in (np.float32, np.int32, np.bool_))
    main = SubGraph(tensors=[Tensor(shape=[], type=b8, buffer=0, name="c"), Tensor(shape=shape, type=f32, buffer=0, name="x"),
                             Tensor(shape=out, type=f32, buffer=0, name="y")], inputs=[0, 1], outputs=[2],
                    operators=[Operator(opcode_index=0, inputs=[0, 1], outputs=[2],
                                        builtin_options=Options("IfOptions", then_subgraph_index=1, else_subgraph_index=1))],
                    name="main")
    branch = SubGraph(tensors=[Tensor(shape=shape, type=f32, buffer=0, name="a"), Tensor(shape=[2], type=i32, buffer=1, name="s"),
                               Tensor(shape=out, type=f32, buffer=0, name="r")], inputs=[0], outputs=[2],
                      operators=[Operator(opcode_index=1, inputs=[0, 1], outputs=[2],
                                          builtin_options=Options("ResizeBilinearOptions", align_corners=False,
                                                                  half_pixel_centers=True))], name="branch")
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n], version=1)
             for n in ("IF", "RESIZE_BILINEAR")]
    m = save(ModelFile(operator_codes=codes, subgraphs=[main, branch], buffers=[Buffer(data=None), size]))
    x = sample(np.random.default_rng(0), tuple(shape), np.float32)
    got = []
    for cls in (Interpreter, LiteRT):
        it = cls(model_content=m)
        it.allocate_tensors()
        d = it.get_input_details()
        it.set_tensor(d[0]["index"], np.array(True))
        it.set_tensor(d[1]["index"], x)
        it.invoke()
        got.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert got[0].tobytes() == got[1].tobytes()
