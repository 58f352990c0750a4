"""to_graph imports float models only: a quantized one (full-integer, float-io, dynamic-range) is refused by
name up front. Its int8 convolutions used to be imported as float ones that ignored the scales, and the
error came later, from an unrelated op ("RELU expects a float tensor"), or not at all."""

from __future__ import annotations

import pytest

from rillet.converter import ModelError
from rillet.converter.to_graph import to_graph
from rillet.quant import quantize

from support import model_path


@pytest.mark.parametrize("name", ["cnn_small_int8", "cnn_small_int8_floatio", "mobilenet_v2_035_96_int8"])
def test_a_quantized_model_is_refused_naming_a_quantized_tensor(name):
    with pytest.raises(ModelError, match=r"tensor \d+ '.*' is quantized \(int8, scale .*\): to_graph imports float"):
        to_graph(model_path(name))


def test_a_dynamic_range_model_is_refused():
    dynamic = quantize(model_path("mlp_f32").read_bytes(), mode="dynamic", progress=False)
    with pytest.raises(ModelError, match="is quantized"):
        to_graph(dynamic)


def test_a_path_object_and_bytes_import_alike():
    path = model_path("mlp_f32")
    assert list(to_graph(path).outputs) == list(to_graph(path.read_bytes()).outputs) == ["output_0"]


def test_per_channel_quantize_and_dequantize_round_trip_through_a_file():
    """QUANTIZE and DEQUANTIZE with one scale and zero point per index of an axis (TFLite's quantized_dimension):
    the graph's numpy reference is LiteRT's on the file the converter writes (its levels tensor quantized per
    channel along that axis), and to_graph imports the file back (it refused per-channel tensors) with the
    same values; rillet's runtime gives them too. The per-channel QUANTIZE rounds a tie away from zero, as LiteRT
    (TFLite's reference kernel) does: the inputs hold exact ties."""
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    import rillet.graph as rg
    from rillet.converter import load
    from rillet.converter.from_graph import convert
    from rillet.graph import ops
    from rillet.runtime import Interpreter

    rs = np.random.default_rng(0)
    scales, zero_points = np.array([0.01, 0.02, 0.0078125, 0.125], np.float32), (0, 1, -2, 3)
    g = rg.Graph()
    with g.as_default():
        q = ops.placeholder([3, 4], dtype="int8", name="q")
        x = ops.placeholder([3, 4], name="x")
        a = ops.dequantize(q, scales, zero_points, axis=1)
        b = ops.dequantize(ops.quantize(x, scales, zero_points, axis=-1), scales, zero_points, axis=-1)
    both = convert(inputs={"q": q, "x": x}, outputs={"a": a, "b": b})
    sg = load(both).subgraphs[0]
    levels = [t.quantization for t in sg.tensors if t.quantization is not None and t.quantization.scale is not None]
    assert len(levels) == 2 and all(list(p.scale) == list(scales) and list(p.zero_point) == list(zero_points)
                                    and p.quantized_dimension == 1 for p in levels)
    qv, xv = rs.integers(-128, 128, (3, 4)).astype(np.int8), rs.uniform(-1, 1, (3, 4)).astype(np.float32)
    xv[:2, 2:] = np.array([[2.5, -2.5], [-7.5, 0.5]]) * scales[2:]  # ties, on the power-of-two scales
    want_a = (qv.astype(np.float32) - np.array(zero_points)) * scales
    steps = xv / scales
    rounded = np.where(np.abs(steps - np.trunc(steps)) == 0.5, np.trunc(steps) + np.sign(steps), np.round(steps))
    want_b = (np.clip(rounded + zero_points, -128, 127) - zero_points) * scales
    reference = g.run([a, b], {q: qv, x: xv})
    np.testing.assert_allclose(reference[0], want_a, rtol=1e-6)
    np.testing.assert_allclose(reference[1], want_b, rtol=1e-6)
    litert = LiteRT(model_content=both).get_signature_runner("infer")(q=qv, x=xv)
    imported = to_graph(both).run({"q": qv, "x": xv})
    ours = Interpreter(model_content=both).get_signature_runner("infer")(q=qv, x=xv)
    for got in (litert, imported, ours):
        np.testing.assert_array_equal(got["a"], reference[0])
        np.testing.assert_array_equal(got["b"], reference[1])
    dequantized = convert(inputs={"q": q}, outputs={"a": a})
    np.testing.assert_array_equal(Interpreter(model_content=dequantized).get_signature_runner("infer")(q=qv)["a"],
                                  reference[0])
    with pytest.raises(ValueError, match="per channel along axis 1"):
        ops.dequantize(q, scales[:3], 0, axis=1)
