"""MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D, found by their custom names, against LiteRT's default
Interpreter (its XNNPACK delegate runs them): values and indices bit for bit, the indices compared as the uint32
tap numbers LiteRT stores in the float32 tensor. A NumPy reference written from XNNPACK's rules checks the
indices' meaning, so a test cannot pass merely by both runtimes agreeing on nonsense."""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest

from rillet.converter.format import Buffer, ModelFile, Operator, OperatorCode, SubGraph, Tensor, save

pytest.importorskip("ai_edge_litert")

SAME, VALID = 1, 2


def pool_options(padding: int, filter_hw: tuple[int, int], stride_hw=None, activation: int = 0) -> bytes:
    """TfLitePoolParams as MediaPipe's models store it: six int32 fields, then four of computed padding."""
    sh, sw = stride_hw or filter_hw
    return struct.pack("<10i", padding, sw, sh, filter_hw[1], filter_hw[0], activation, 0, 0, 0, 0)


def pooled_size(n: int, f: int, padding: int) -> int:
    return -(-n // f) if padding == SAME else (n - f) // f + 1


def custom_op_model(name: str, tensors: list, inputs: list[int], outputs: list[int], options: bytes) -> bytes:
    op = Operator(opcode_index=0, inputs=inputs, outputs=outputs, custom_options=np.frombuffer(options, np.uint8))
    code = OperatorCode(deprecated_builtin_code=32, builtin_code=32, custom_code=name)
    graph = SubGraph(tensors=tensors, inputs=inputs, outputs=outputs, operators=[op], name="main")
    return save(ModelFile(operator_codes=[code], buffers=[Buffer(data=None)], subgraphs=[graph]))


def argmax_model(shape, padding, filter_hw, options=None) -> bytes:
    n, h, w, c = shape
    pooled = [n, pooled_size(h, filter_hw[0], padding), pooled_size(w, filter_hw[1], padding), c]
    tensors = [Tensor(shape=list(shape), type=0, name="x"), Tensor(shape=pooled, type=0, name="values"),
               Tensor(shape=pooled, type=0, name="indices")]
    return custom_op_model("MaxPoolingWithArgmax2D", tensors, [0], [1, 2],
                           options or pool_options(padding, filter_hw))


def unpool_model(shape, filter_hw, padding=VALID, options=None, index_type=0) -> bytes:
    n, h, w, c = shape
    tensors = [Tensor(shape=list(shape), type=0, name="values"), Tensor(shape=list(shape), type=index_type, name="indices"),
               Tensor(shape=[n, h * filter_hw[0], w * filter_hw[1], c], type=0, name="y")]
    return custom_op_model("MaxUnpooling2D", tensors, [0, 1], [2], options or pool_options(padding, filter_hw))


def argmax_reference(x: np.ndarray, padding: int, filter_hw) -> tuple[np.ndarray, np.ndarray]:
    """XNNPACK's argmax pooling: taps x-major (t = fx * fh + fy), clamped into the image, first strict maximum."""
    n, h, w, c = x.shape
    fh, fw = filter_hw
    oh, ow = pooled_size(h, fh, padding), pooled_size(w, fw, padding)
    top, left = max(oh * fh - h, 0) // 2, max(ow * fw - w, 0) // 2
    values, indices = np.zeros((n, oh, ow, c), np.float32), np.zeros((n, oh, ow, c), np.uint32)
    for b, oy, ox in itertools.product(range(n), range(oh), range(ow)):
        taps = [x[b, min(max(oy * fh - top + fy, 0), h - 1), min(max(ox * fw - left + fx, 0), w - 1)]
                for fx in range(fw) for fy in range(fh)]
        best, where = taps[0].copy(), np.zeros(c, np.uint32)
        for t, tap in enumerate(taps[1:], 1):
            wins = tap > best
            best[wins], where[wins] = tap[wins], t
        values[b, oy, ox], indices[b, oy, ox] = best, where
    return values, indices


def run_both(content: bytes, feeds: list[np.ndarray]) -> list[list[np.ndarray]]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    results = []
    for cls in (Interpreter, LiteRT):
        it = cls(model_content=content)
        it.allocate_tensors()
        for detail, value in zip(it.get_input_details(), feeds):
            it.set_tensor(detail["index"], value)
        it.invoke()
        results.append([it.get_tensor(d["index"]).copy() for d in it.get_output_details()])
    return results


CASES = [((1, 4, 6, 3), VALID, (2, 3)), ((1, 6, 4, 2), VALID, (3, 2)), ((2, 5, 5, 5), SAME, (2, 2)),
         ((1, 4, 4, 2), SAME, (3, 3)), ((2, 7, 5, 17), SAME, (3, 2)), ((1, 6, 6, 1), SAME, (4, 4)),
         ((1, 8, 8, 32), VALID, (2, 2))]


@pytest.mark.parametrize("shape, padding, filter_hw", CASES)
@pytest.mark.parametrize("ties", [False, True])
def test_max_pooling_with_argmax(shape, padding, filter_hw, ties):
    x = np.random.default_rng(len(shape) + shape[-1]).standard_normal(shape).astype(np.float32)
    if ties:  # few distinct values: ties decide many windows, and SAME's repeated edge pixels can win them
        x = np.round(x)
    (values, indices), (lite_values, lite_indices) = run_both(argmax_model(shape, padding, filter_hw), [x])
    want_values, want_indices = argmax_reference(x, padding, filter_hw)
    np.testing.assert_array_equal(values, lite_values)
    np.testing.assert_array_equal(indices.view(np.uint32), lite_indices.view(np.uint32))
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices.view(np.uint32), want_indices)


@pytest.mark.parametrize("shape, padding, filter_hw", CASES)
def test_max_unpooling_of_argmax_indices(shape, padding, filter_hw):
    """Unpooling what argmax pooling found puts each maximum back where it came from (when the windows tile the
    image exactly) and zeros elsewhere. Unpooling itself takes VALID padding only, in LiteRT as in rillet."""
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    want_values, want_indices = argmax_reference(x, padding, filter_hw)
    content = unpool_model(want_values.shape, filter_hw)
    (y,), (lite_y,) = run_both(content, [want_values, want_indices.view(np.float32)])
    np.testing.assert_array_equal(y, lite_y)
    assert np.count_nonzero(y) == np.count_nonzero(want_values)
    if shape[1] % filter_hw[0] == 0 and shape[2] % filter_hw[1] == 0:
        kept = y != 0
        np.testing.assert_array_equal(y[kept], x[kept])


def test_unpooling_skips_an_index_past_the_window():
    """LiteRT's XNNPACK would write out of bounds here; rillet leaves the window zero (as MediaPipe's kernel)."""
    from rillet.runtime import Interpreter

    values = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    indices = np.array([0, 1, 2, 3, 4, 7, 1000, 2**32 - 1], np.uint32).reshape(1, 2, 2, 2)
    it = Interpreter(model_content=unpool_model(values.shape, (2, 2)))
    it.allocate_tensors()
    it.set_tensor(0, values)
    it.set_tensor(1, indices.view(np.float32))
    it.invoke()
    y = it.get_tensor(2)
    expected = np.zeros((1, 4, 4, 2), np.float32)
    for (b, iy, ix, c), t in np.ndenumerate(indices):
        if t < 4:
            expected[b, iy * 2 + t % 2, ix * 2 + t // 2, c] = values[b, iy, ix, c]
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("make, message", [
    (lambda: argmax_model((1, 4, 4, 1), VALID, (3, 3), pool_options(VALID, (3, 3), (2, 2))), "differ from the filter"),
    (lambda: argmax_model((1, 4, 4, 1), VALID, (2, 2), pool_options(VALID, (2, 2), activation=1)), "fused activation"),
    (lambda: argmax_model((1, 4, 4, 1), VALID, (2, 2), pool_options(VALID, (2, 2))[:20]), "hold 20 bytes"),
    (lambda: argmax_model((1, 4, 4, 1), VALID, (2, 2), pool_options(0, (2, 2))), "neither SAME"),
    (lambda: argmax_model((1, 4, 4, 1), VALID, (2, 2), pool_options(VALID, (0, 2), (2, 2))), "filter 0 x 2"),
    (lambda: unpool_model((1, 2, 2, 1), (2, 2), index_type=4), "indices input is int64"),
    (lambda: unpool_model((1, 2, 2, 1), (2, 2), padding=SAME), "SAME padding"),
])
def test_bad_models_are_refused_by_name(make, message):
    from rillet.runtime import Interpreter

    with pytest.raises(Exception, match=message):
        it = Interpreter(model_content=make())
        it.allocate_tensors()


def test_a_3d_input_is_refused():
    from rillet.runtime import Interpreter

    tensors = [Tensor(shape=[4, 4, 1], type=0, name="x"), Tensor(shape=[2, 2, 1], type=0, name="v"),
               Tensor(shape=[2, 2, 1], type=0, name="i")]
    content = custom_op_model("MaxPoolingWithArgmax2D", tensors, [0], [1, 2], pool_options(VALID, (2, 2)))
    with pytest.raises(Exception, match="4-D"):
        Interpreter(model_content=content).allocate_tensors()


@pytest.mark.parametrize("shape, filter_hw", [((1, 8, 6, 4), (2, 2)), ((2, 6, 6, 3), (3, 2))])
def test_argmax_then_unpooling_in_one_model(shape, filter_hw):
    """The encoder-decoder pattern these ops exist for: the indices pass from one op to the other in the plan."""
    n, h, w, c = shape
    pooled = [n, h // filter_hw[0], w // filter_hw[1], c]
    tensors = [Tensor(shape=list(shape), type=0, name="x"), Tensor(shape=pooled, type=0, name="values"),
               Tensor(shape=pooled, type=0, name="indices"), Tensor(shape=list(shape), type=0, name="y")]
    options = np.frombuffer(pool_options(VALID, filter_hw), np.uint8)
    codes = [OperatorCode(deprecated_builtin_code=32, builtin_code=32, custom_code=name)
             for name in ("MaxPoolingWithArgmax2D", "MaxUnpooling2D")]
    ops = [Operator(opcode_index=0, inputs=[0], outputs=[1, 2], custom_options=options),
           Operator(opcode_index=1, inputs=[1, 2], outputs=[3], custom_options=options)]
    graph = SubGraph(tensors=tensors, inputs=[0], outputs=[3], operators=ops, name="main")
    content = save(ModelFile(operator_codes=codes, buffers=[Buffer(data=None)], subgraphs=[graph]))
    x = np.random.default_rng(11).standard_normal(shape).astype(np.float32)
    (y,), (lite_y,) = run_both(content, [x])
    np.testing.assert_array_equal(y, lite_y)
    kept = y != 0
    assert np.count_nonzero(kept) == np.prod(pooled)  # one maximum per window
    np.testing.assert_array_equal(y[kept], x[kept])


def test_two_threads_give_the_same_bits():
    """A pooling large enough to be split across the plan's threads gives what one thread gives."""
    from rillet.runtime import Interpreter

    shape = (1, 64, 64, 32)
    x = np.random.default_rng(12).standard_normal(shape).astype(np.float32)
    results = []
    for threads in (1, 2):
        it = Interpreter(model_content=argmax_model(shape, VALID, (2, 2)), num_threads=threads)
        it.allocate_tensors()
        it.set_tensor(0, x)
        it.invoke()
        results.append([it.get_tensor(d["index"]).view(np.uint32) for d in it.get_output_details()])
    want_values, want_indices = argmax_reference(x, VALID, (2, 2))
    for got in results:
        np.testing.assert_array_equal(got[0].view(np.float32), want_values)
        np.testing.assert_array_equal(got[1], want_indices)


@pytest.mark.parametrize("make, feeds, shapes", [
    (lambda: argmax_model((0, 4, 4, 2), VALID, (2, 2)), [(0, 4, 4, 2)], [(0, 2, 2, 2)] * 2),
    (lambda: argmax_model((1, 4, 4, 0), SAME, (2, 2)), [(1, 4, 4, 0)], [(1, 2, 2, 0)] * 2),
    (lambda: unpool_model((0, 2, 2, 1), (2, 2)), [(0, 2, 2, 1)] * 2, [(0, 4, 4, 1)]),
    (lambda: unpool_model((1, 2, 2, 0), (2, 2)), [(1, 2, 2, 0)] * 2, [(1, 4, 4, 0)]),
])
def test_empty_tensors_run(make, feeds, shapes):
    from rillet.runtime import Interpreter

    it = Interpreter(model_content=make())
    it.allocate_tensors()
    for detail, shape in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], np.zeros(shape, np.float32))
    it.invoke()
    assert [it.get_tensor(d["index"]).shape for d in it.get_output_details()] == shapes
