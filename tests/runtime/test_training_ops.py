"""The builtins a training file's backward graph uses that inference rarely does, each against LiteRT's
reference kernels: TRANSPOSE_CONV (a convolution's input gradient), STRIDED_SLICE with negative strides (a
flipped filter), BATCH_MATMUL with broadcast batch dimensions, and what the graph's convolution gradient
rules emit composed in one file."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, Input, assert_matches_litert, litert_reference, op_model, run

pytest.importorskip("ai_edge_litert")

F32 = np.float32
OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
SAME, VALID = 0, 1


def conv_output_size(size: int, kernel: int, stride: int, padding: int) -> int:
    return -(-size // stride) if padding == SAME else (size - kernel) // stride + 1


@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("kernel, out_hw, channels", [((3, 3), (7, 9), (2, 3)), ((2, 4), (8, 8), (3, 1)),
                                                      ((1, 1), (5, 4), (4, 4))])
def test_transpose_conv(padding, stride, kernel, out_hw, channels):
    rng = np.random.default_rng(stride * 10 + padding)
    kh, kw = kernel
    c_out, c_in = channels
    in_h, in_w = (conv_output_size(s, k, stride, padding) for s, k in zip(out_hw, kernel))
    x = rng.standard_normal((2, in_h, in_w, c_in)).astype(F32)
    w = rng.standard_normal((c_out, kh, kw, c_in)).astype(F32)
    shape = np.array([2, *out_hw, c_out], np.int32)
    options = {"padding": padding, "stride_h": stride, "stride_w": stride}
    model = op_model("TRANSPOSE_CONV", [shape, w, Input(x.shape)], [(tuple(shape), F32)], options)
    assert_matches_litert(model, [x])


def test_transpose_conv_with_bias_and_variable_filter():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 4, 4, 3)).astype(F32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(F32)
    bias = rng.standard_normal(2).astype(F32)
    shape = np.array([1, 8, 8, 2], np.int32)
    model = op_model("TRANSPOSE_CONV", [shape, Input(w.shape), Input(x.shape), bias], [((1, 8, 8, 2), F32)],
                     {"padding": SAME, "stride_h": 2, "stride_w": 2}, version=3)
    assert_matches_litert(model, [w, x])


def test_transpose_conv_is_the_adjoint_of_conv2d():
    # <conv(x, f), y> == <x, transpose_conv(y, f)>: what makes it a convolution's input gradient
    from rillet.graph import REGISTRY

    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 7, 6, 2)).astype(np.float64)
    f = rng.standard_normal((3, 3, 2, 2)).astype(np.float64)
    attrs = {"padding": "SAME", "stride_h": 2, "stride_w": 2, "dilation_h": 1, "dilation_w": 1}
    y_fwd = REGISTRY["CONV_2D"].numpy(attrs, x, f)
    y = rng.standard_normal(y_fwd.shape)
    back = REGISTRY["TRANSPOSE_CONV"].numpy({"padding": "SAME", "stride_h": 2, "stride_w": 2,
                                                 "shape": x.shape}, np.array(x.shape), np.transpose(f, [3, 1, 2, 0]), y)
    assert np.sum(y_fwd * y) == pytest.approx(np.sum(x * back), rel=1e-12)


def test_transpose_conv_refuses_a_filter_of_the_wrong_depth():
    from rillet.runtime import Interpreter

    model = op_model("TRANSPOSE_CONV", [np.array([1, 4, 4, 2], np.int32), np.zeros((2, 3, 3, 5), F32),
                                        Input((1, 4, 4, 3))], [((1, 4, 4, 2), F32)],
                     {"padding": SAME, "stride_h": 1, "stride_w": 1})
    with pytest.raises(Exception, match="filter is \\[2, 3, 3, 5\\]"):
        run(Interpreter, model, [np.zeros((1, 4, 4, 3), F32)])


@pytest.mark.parametrize("begin, end, strides, begin_mask, end_mask", [
    ([0, 2, 2, 0], [0, 0, 0, 0], [1, -1, -1, 1], 0b1001, 0b1111),   # a filter flipped in both spatial axes
    ([0, 3, 4, 0], [1, 0, 1, 2], [1, -2, -3, 1], 0, 0),             # negative strides over two, with ends
    ([0, -1, 0, 1], [1, -5, 5, 2], [1, -1, 2, 1], 0, 0),            # negative begin and end
])
def test_strided_slice_with_negative_strides(begin, end, strides, begin_mask, end_mask):
    x = np.arange(1 * 5 * 5 * 2, dtype=F32).reshape(1, 5, 5, 2)
    index = tuple(slice(None if begin_mask >> a & 1 else b, None if end_mask >> a & 1 else e, s)
                  for a, (b, e, s) in enumerate(zip(begin, end, strides)))
    expected = x[index]
    model = op_model("STRIDED_SLICE", [Input(x.shape), np.array(begin, np.int32), np.array(end, np.int32),
                                       np.array(strides, np.int32)], [(expected.shape, F32)],
                     {"begin_mask": begin_mask, "end_mask": end_mask})
    assert_matches_litert(model, [x])
    np.testing.assert_array_equal(litert_reference(model, [x])[0], expected)


@pytest.mark.parametrize("a_shape, b_shape, adj_x, adj_y", [
    ((2, 3, 4, 5), (5, 6), False, False),        # y shared by every batch
    ((3, 4, 5), (2, 1, 5, 6), False, False),     # both broadcast
    ((1, 5, 4), (3, 5, 2), True, False),         # x shared, transposed
    ((2, 1, 4, 5), (3, 6, 5), False, True),      # [2,1] against [3]
])
def test_batch_matmul_broadcasting(a_shape, b_shape, adj_x, adj_y):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(a_shape).astype(F32)
    b = rng.standard_normal(b_shape).astype(F32)
    expected = np.matmul(np.swapaxes(a, -1, -2) if adj_x else a, np.swapaxes(b, -1, -2) if adj_y else b)
    model = op_model("BATCH_MATMUL", [Input(a_shape), Input(b_shape)], [(expected.shape, F32)],
                     {"adj_x": adj_x, "adj_y": adj_y})
    assert_matches_litert(model, [a, b])
    np.testing.assert_allclose(litert_reference(model, [a, b])[0], expected, rtol=1e-5, atol=1e-5)


OPTIONS_TYPES.setdefault("RANDOM_UNIFORM", "RandomOptions")


@pytest.mark.parametrize("shape", [(2, 3, 4), (7,), (3, 5)])
@pytest.mark.parametrize("seeds", [(1, 0), (42, 7), (0, 99), (2**40 + 3, -5)])  # LiteRT keeps 32 bits
def test_random_uniform_draws_litert_stream(shape, seeds):
    """Same seeds, same numbers, bit for bit, invoke after invoke (the stream advances; a size that is not a
    multiple of four drops the rest of the last block, as TFLite does)."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    model = op_model("RANDOM_UNIFORM", [np.array(shape, np.int32)], [(shape, F32)],
                     {"seed": seeds[0], "seed2": seeds[1]})
    draws = {}
    for cls in (LiteRT, Interpreter):
        it = cls(model_content=model)
        it.allocate_tensors()
        out = it.get_output_details()[0]["index"]
        values = []
        for _ in range(4):
            it.invoke()
            values.append(it.get_tensor(out))
        draws[cls] = np.stack(values)
    ours, theirs = draws[Interpreter], draws[LiteRT]
    assert ours.tobytes() == theirs.tobytes()
    assert ours.min() >= 0 and ours.max() < 1 and not np.array_equal(ours[0], ours[1])


def test_random_uniform_without_seeds_differs_between_interpreters():
    from rillet.runtime import Interpreter

    model = op_model("RANDOM_UNIFORM", [np.array([64], np.int32)], [((64,), F32)], {"seed": 0, "seed2": 0})
    a, b = (run(Interpreter, model, [])[0] for _ in range(2))
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("stride, padding, kernel", [(1, SAME, 3), (2, VALID, 3), (1, VALID, 4), (2, SAME, 1)])
def test_conv2d_with_a_filter_that_changes(stride, padding, kernel):
    """A training step's convolutions take their filter from a variable, or (a filter gradient) from dy:
    packed for the GEMM at every invoke, so two invokes with different filters give two right answers."""
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(kernel + stride)
    x = rng.standard_normal((2, 7, 6, 5)).astype(F32)
    out_h, out_w = (conv_output_size(s, kernel, stride, padding) for s in (7, 6))
    model = op_model("CONV_2D", [Input(x.shape), Input((4, kernel, kernel, 5)), Input((4,))],
                     [((2, out_h, out_w, 4), F32)], {"padding": padding, "stride_h": stride, "stride_w": stride})
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    for seed in range(2):
        feeds = [x, rng.standard_normal((4, kernel, kernel, 5)).astype(F32), rng.standard_normal(4).astype(F32)]
        for detail, value in zip(it.get_input_details(), feeds):
            it.set_tensor(detail["index"], value)
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        np.testing.assert_allclose(got, litert_reference(model, feeds)[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride, padding", [(1, SAME), (2, VALID)])
def test_depthwise_conv2d_with_a_filter_that_changes(stride, padding):
    """A trained depthwise filter: packed for the depthwise micro-kernels at every invoke."""
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(stride)
    x = rng.standard_normal((2, 7, 6, 5)).astype(F32)
    out_h, out_w = (conv_output_size(s, 3, stride, padding) for s in (7, 6))
    model = op_model("DEPTHWISE_CONV_2D", [Input(x.shape), Input((1, 3, 3, 5)), Input((5,))],
                     [((2, out_h, out_w, 5), F32)],
                     {"padding": padding, "stride_h": stride, "stride_w": stride, "depth_multiplier": 1})
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    for _ in range(2):
        feeds = [x, rng.standard_normal((1, 3, 3, 5)).astype(F32), rng.standard_normal(5).astype(F32)]
        for detail, value in zip(it.get_input_details(), feeds):
            it.set_tensor(detail["index"], value)
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        np.testing.assert_allclose(got, litert_reference(model, feeds)[0], rtol=1e-5, atol=1e-5)
