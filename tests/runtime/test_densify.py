"""DENSIFY of sparse constants in TFLite's sparsity format (CSR levels, block maps, int32/uint16/uint8 index
vectors), against LiteRT: the dense tensor (fed into an ADD of a graph input) equal bit for bit; the folded
op runs once, at prepare; a sparse tensor read by anything but DENSIFY, or a format pointing outside its
values, is refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import TYPE_CODES, assert_same_bits_as_litert

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

pytest.importorskip("ai_edge_litert")

VECTORS = {np.int32: "Int32Vector", np.uint16: "Uint16Vector", np.uint8: "Uint8Vector"}


def csr_levels(blocks: np.ndarray, index_dtype) -> tuple[list[Options], np.ndarray]:
    """Rows DENSE, columns SPARSE_CSR over a [rows, cols, *block] array; the stored values of nonzero blocks."""
    rows, cols = blocks.shape[:2]
    nonzero = np.abs(blocks.reshape(rows, cols, -1)).sum(-1) != 0
    segments = np.concatenate([[0], np.cumsum(nonzero.sum(1))])
    indices = np.nonzero(nonzero)[1]
    vector = VECTORS[index_dtype]
    levels = [Options("DimensionMetadata", format=0, dense_size=rows),
              Options("DimensionMetadata", format=1, dense_size=0,
                      array_segments=Options(vector, values=[int(v) for v in segments]),
                      array_indices=Options(vector, values=[int(v) for v in indices]))]
    return levels, blocks[nonzero]


def sparse_model(dense: np.ndarray, index_dtype=np.int32, block: int | None = None, add: bool = True) -> bytes:
    """x + DENSIFY(dense stored sparse), or DENSIFY alone: CSR over its 2-d shape, or blocks of `block` columns."""
    rows, cols = dense.shape
    if block:
        blocked = dense.reshape(rows, cols // block, block)
        levels, values = csr_levels(blocked, index_dtype)
        levels.append(Options("DimensionMetadata", format=0, dense_size=block))
        sparsity = Options("SparsityParameters", traversal_order=[0, 1, 2], block_map=[1], dim_metadata=levels)
    else:
        levels, values = csr_levels(dense.reshape(rows, cols, 1), index_dtype)
        sparsity = Options("SparsityParameters", traversal_order=[0, 1], block_map=[], dim_metadata=levels)
    values = np.ascontiguousarray(values.reshape(-1), dense.dtype)
    code = TYPE_CODES[dense.dtype]
    tensors = [Tensor(shape=[rows, cols], type=code, buffer=1, name="w_sparse", sparsity=sparsity),
               Tensor(shape=[rows, cols], type=code, buffer=0, name="w"),
               Tensor(shape=[rows, cols], type=code, buffer=0, name="x"),
               Tensor(shape=[rows, cols], type=code, buffer=0, name="y")]
    ops = [Operator(opcode_index=0, inputs=[0], outputs=[1]), Operator(opcode_index=1, inputs=[2, 1], outputs=[3])]
    inputs, outputs = ([2], [3]) if add else ([], [1])
    if not add:
        ops, tensors = ops[:1], tensors[:2]
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[n], 127), builtin_code=BUILTIN_CODES[n], version=1)
             for n in ("DENSIFY", "ADD")]
    return save(ModelFile(operator_codes=codes, buffers=[Buffer(data=None), Buffer(data=values.view(np.uint8))],
                          subgraphs=[SubGraph(tensors=tensors, inputs=inputs, outputs=outputs, operators=ops,
                                              name="main")]))


def sparse_matrix(rng, shape, dtype=np.float32, density=0.3):
    dense = rng.standard_normal(shape).astype(dtype) if dtype == np.float32 else \
        rng.integers(-60, 60, shape).astype(dtype)
    dense[rng.random(shape) > density] = 0
    dense[1] = 0  # an empty row
    return dense


@pytest.mark.parametrize("index_dtype", [np.int32, np.uint16, np.uint8])
def test_csr(index_dtype):
    rng = np.random.default_rng(0)
    dense = sparse_matrix(rng, (5, 9))
    x = rng.standard_normal(dense.shape).astype(np.float32)
    assert_same_bits_as_litert(sparse_model(dense, index_dtype), [x])


@pytest.mark.parametrize("density", [0.4, 0.0])
def test_int8_densify_alone(density):
    """LiteRT's XNNPACK delegate fails to set up a model of DENSIFY alone; its values are numpy's here."""
    from rillet.runtime import Interpreter

    dense = sparse_matrix(np.random.default_rng(5), (6, 7), np.int8, density)
    it = Interpreter(model_content=sparse_model(dense, np.uint16, add=False))
    it.allocate_tensors()
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), dense)


@pytest.mark.parametrize("index_dtype", [np.int32, np.uint8])
def test_block_sparse(index_dtype):
    rng = np.random.default_rng(1)
    dense = rng.standard_normal((4, 12)).astype(np.float32)
    dense.reshape(4, 3, 4)[rng.random((4, 3)) > 0.5] = 0  # whole 1x4 blocks zero, as block sparsity stores them
    x = rng.standard_normal(dense.shape).astype(np.float32)
    assert_same_bits_as_litert(sparse_model(dense, index_dtype, block=4), [x])


def test_densify_is_folded():
    from rillet.runtime import Interpreter

    dense = sparse_matrix(np.random.default_rng(2), (3, 4), density=0.7)
    it = Interpreter(model_content=sparse_model(dense))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.zeros_like(dense))
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), dense)
    assert it._plans[0].op_folded(0)


def test_a_sparse_tensor_read_by_another_op_is_refused():
    from rillet.converter.format import load
    from rillet.runtime import Interpreter, UnsupportedOpsError

    model = load(sparse_model(sparse_matrix(np.random.default_rng(3), (3, 4))))
    model.subgraphs[0].operators[1].inputs = [2, 0]  # ADD reads the sparse constant itself
    with pytest.raises(UnsupportedOpsError, match="sparse"):
        Interpreter(model_content=save(model))


def test_a_segment_past_the_indices_is_refused():
    from rillet.converter.format import load
    from rillet.runtime import Interpreter

    model = load(sparse_model(sparse_matrix(np.random.default_rng(4), (3, 4))))
    level = model.subgraphs[0].tensors[0].sparsity.dim_metadata[1]
    level.array_segments.values = [0, 1, 50, 60]
    with pytest.raises((RuntimeError, ValueError), match="sparse tensor"):
        it = Interpreter(model_content=save(model))
        it.allocate_tensors()
