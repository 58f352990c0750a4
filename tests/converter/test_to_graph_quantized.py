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
