"""Packed weights expanded to dense float32 constants (converter/dense_weights.py): sparse constants in
TFLite's sparsity format as LiteRT's DENSIFY expands them, and MediaPipe's form (a float16 sparse constant,
DENSIFY, then DEQUANTIZE) folded so that to_graph imports it and the quantizer quantizes it."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import run
from test_densify import sparse_matrix, sparse_model

from rillet.converter import load, to_graph
from rillet.converter.dense_weights import densify, expand_weights
from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelError,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SubGraph,
    Tensor,
    save,
)
from rillet.quant import quantize

FLOAT32, FLOAT16 = 0, 1


def litert(content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    from ai_edge_litert.interpreter import Interpreter

    return run(Interpreter, content, feeds)


@pytest.mark.parametrize("index_dtype", [np.int32, np.uint16, np.uint8])
@pytest.mark.parametrize("block", [None, 4])
def test_densify_gives_what_litert_densify_gives(index_dtype, block):
    rng = np.random.default_rng(0)
    dense = sparse_matrix(rng, (5, 12))
    if block:
        dense.reshape(5, 3, 4)[rng.random((5, 3)) > 0.5] = 0
    content = sparse_model(dense, index_dtype, block=block)  # x + DENSIFY(w)
    np.testing.assert_array_equal(densify(load(content), 0, 0), dense)
    x = rng.standard_normal(dense.shape).astype(np.float32)
    (expected,) = litert(content, [x])
    np.testing.assert_array_equal(x + densify(load(content), 0, 0), expected)
    folded = expand_weights(load(content))
    assert [folded.op_name(op) for op in folded.subgraphs[0].operators] == ["ADD"]
    (got,) = litert(save(folded), [x])
    np.testing.assert_array_equal(got, expected)


def test_segments_outside_the_indices_are_a_model_error():
    model = load(sparse_model(sparse_matrix(np.random.default_rng(4), (3, 4))))
    model.subgraphs[0].tensors[0].sparsity.dim_metadata[1].array_segments.values = [0, 1, 50, 60]
    with pytest.raises(ModelError, match="'w_sparse': its sparse segments point outside its indices"):
        densify(model, 0, 0)


def mediapipe_style_model(rng) -> tuple[bytes, np.ndarray]:
    """y = FULLY_CONNECTED(x, DEQUANTIZE(DENSIFY(float16 sparse w)), b), as MediaPipe's sparse models store
    their 1x1 convolutions' filters."""
    w = sparse_matrix(rng, (6, 16)).astype(np.float16)
    b = rng.standard_normal(6).astype(np.float32)
    nonzero = w != 0
    levels = [Options("DimensionMetadata", format=0, dense_size=6),
              Options("DimensionMetadata", format=1, dense_size=0,
                      array_segments=Options("Int32Vector", values=[0, *np.cumsum(nonzero.sum(1)).tolist()]),
                      array_indices=Options("Int32Vector", values=np.nonzero(nonzero)[1].tolist()))]
    sparsity = Options("SparsityParameters", traversal_order=[0, 1], block_map=[], dim_metadata=levels)
    buffers = [Buffer(data=None), Buffer(data=np.ascontiguousarray(w[nonzero]).view(np.uint8)),
               Buffer(data=b.view(np.uint8))]
    tensors = [Tensor(shape=[6, 16], type=FLOAT16, buffer=1, name="w_sparse", sparsity=sparsity),
               Tensor(shape=[6, 16], type=FLOAT16, buffer=0, name="w_half"),
               Tensor(shape=[6, 16], type=FLOAT32, buffer=0, name="w"),
               Tensor(shape=[6], type=FLOAT32, buffer=2, name="b"),
               Tensor(shape=[1, 16], type=FLOAT32, buffer=0, name="x"),
               Tensor(shape=[1, 6], type=FLOAT32, buffer=0, name="y")]
    names = ["DENSIFY", "DEQUANTIZE", "FULLY_CONNECTED"]
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n],
                          version=3 if n == "DEQUANTIZE" else 1) for n in names]
    ops = [Operator(opcode_index=0, inputs=[0], outputs=[1]), Operator(opcode_index=1, inputs=[1], outputs=[2]),
           Operator(opcode_index=2, inputs=[4, 2, 3], outputs=[5],
                    builtin_options=Options("FullyConnectedOptions", fused_activation_function=0))]
    model = ModelFile(operator_codes=codes, buffers=buffers,
                      subgraphs=[SubGraph(tensors=tensors, inputs=[4], outputs=[5], operators=ops, name="main")])
    return save(model), w.astype(np.float32)


def test_a_float16_sparse_weight_folds_to_its_dense_float32_value():
    rng = np.random.default_rng(1)
    content, w = mediapipe_style_model(rng)
    folded = expand_weights(load(content))
    sg = folded.subgraphs[0]
    assert [folded.op_name(op) for op in sg.operators] == ["FULLY_CONNECTED"]
    assert {t.type for t in sg.tensors} == {FLOAT32} and len(sg.tensors) == 4  # the packed tensors are gone
    np.testing.assert_array_equal(folded.tensor_data(0, sg.operators[0].inputs[1]), w)
    assert len(folded.buffers) == 3  # the empty one, the dense weights, the bias
    x = rng.standard_normal((1, 16)).astype(np.float32)
    np.testing.assert_array_equal(litert(save(folded), [x])[0], litert(content, [x])[0])
    imported = to_graph(content)
    (got,) = imported.run({next(iter(imported.inputs)): x}).values()
    np.testing.assert_allclose(got, litert(content, [x])[0], rtol=1e-5, atol=1e-5)


def test_a_float16_sparse_model_quantizes_to_int8():
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(2)
    content, _ = mediapipe_style_model(rng)
    data = quantize(content, rng.standard_normal((16, 1, 16)).astype(np.float32), progress=False)
    model = load(data)
    assert [model.op_name(op) for op in model.subgraphs[0].operators] == ["QUANTIZE", "FULLY_CONNECTED",
                                                                         "DEQUANTIZE"]
    x = rng.standard_normal((1, 16)).astype(np.float32)
    assert run(Interpreter, data, [x])[0].tobytes() == litert(data, [x])[0].tobytes()


def test_float16_mode_keeps_a_sparse_float16_weight_as_it_is():
    from rillet.runtime import Interpreter

    content, _ = mediapipe_style_model(np.random.default_rng(3))
    data = quantize(content, mode="float16", progress=False)
    model = load(data)
    assert [model.op_name(op) for op in model.subgraphs[0].operators][-3:] == ["DENSIFY", "DEQUANTIZE",
                                                                              "FULLY_CONNECTED"]
    assert any(t.sparsity is not None for t in model.subgraphs[0].tensors)
    x = np.random.default_rng(4).standard_normal((1, 16)).astype(np.float32)
    np.testing.assert_allclose(run(Interpreter, data, [x])[0], litert(data, [x])[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(litert(data, [x])[0], litert(content, [x])[0], rtol=1e-2, atol=1e-2)  # bias float16


def test_the_graphs_densify_writes_its_weight_sparse():
    """ops.densify: the file holds the weight's nonzero values alone (rows DENSE, columns SPARSE_CSR) and a
    DENSIFY; LiteRT runs it with graph.run's result, and densify gives the dense weight back."""
    import rillet.graph as rg
    from rillet.converter.from_graph import convert
    from rillet.graph import ops

    rs = np.random.default_rng(4)
    w = np.where(rs.random((8, 24)) < 0.25, rs.normal(size=(8, 24)), 0).astype(np.float32)
    w[3] = 0  # an empty row
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder([2, 24], name="x")
        y = ops.fully_connected(x, ops.densify(w))
    model = load(convert(inputs={"x": x}, outputs={"y": y}))
    sg = model.subgraphs[0]
    (sparse,) = [k for k, t in enumerate(sg.tensors) if t.sparsity is not None]
    assert model.buffers[sg.tensors[sparse].buffer].data.size == 4 * np.count_nonzero(w)
    assert [model.op_name(op) for op in sg.operators] == ["DENSIFY", "FULLY_CONNECTED"]
    np.testing.assert_array_equal(densify(model, 0, sparse), w)
    xv = rs.uniform(-1, 1, (2, 24)).astype(np.float32)
    from ai_edge_litert.interpreter import Interpreter

    got = Interpreter(model_content=save(model)).get_signature_runner("infer")(x=xv)["y"]
    np.testing.assert_allclose(got, g.run(y, {x: xv}), rtol=1e-5, atol=1e-6)
