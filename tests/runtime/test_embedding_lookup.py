"""EMBEDDING_LOOKUP (litert-torch's nn.Embedding) against LiteRT's default Interpreter, bit for bit: row copies
of every table type, the hybrid int8/uint8 table with a float output (per-tensor and per-row scales), and the
errors LiteRT gives too (int64 or rank-2 ids, an id outside the table at invoke, a hybrid zero point)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, assert_same_bits_as_litert, litert_default, op_model, run

pytest.importorskip("ai_edge_litert")

IDS = np.array([4, 0, 2, 2, 1, 4, 3], np.int32)
RNG = np.random.default_rng(0)
T8 = RNG.integers(-128, 128, (5, 3, 2)).astype(np.int8)


def lookup(table, out_dtype, out_quant=None, ids=IDS, ids_dtype=np.int32):
    rows = ids.shape[0] if ids.ndim == 1 else ids.shape
    table_shape = (table.array if isinstance(table, Const) else table).shape
    out_shape = (*np.atleast_1d(rows), *table_shape[1:])
    spec = (out_shape, out_dtype, out_quant) if out_quant else (out_shape, out_dtype)
    return op_model("EMBEDDING_LOOKUP", [Input(ids.shape, ids_dtype), table], [spec], None)


TABLES = {
    "float32": lambda: (RNG.standard_normal((5, 3)).astype(np.float32), np.float32, None),
    "float32 rank 3": lambda: (RNG.standard_normal((5, 2, 4)).astype(np.float32), np.float32, None),
    "int8 to int8": lambda: (Const(T8, Quant(0.1, 3)), np.int8, Quant(0.1, 3)),
    "uint8 to uint8": lambda: (Const(T8.view(np.uint8), Quant(0.1, 128)), np.uint8, Quant(0.1, 128)),
    "int32": lambda: (RNG.integers(-9, 9, (5, 4)).astype(np.int32), np.int32, None),
    "int64": lambda: (RNG.integers(-9, 9, (5, 4)).astype(np.int64), np.int64, None),
    "bool": lambda: (RNG.integers(0, 2, (5, 4)).astype(bool), np.bool_, None),
    "hybrid int8 per tensor": lambda: (Const(T8, Quant(0.0371, 0)), np.float32, None),
    "hybrid int8 per row": lambda: (Const(T8, Quant(RNG.uniform(0.01, 0.2, 5).astype(np.float32), 0, 0)), np.float32, None),
    "hybrid uint8 (read as int8, as LiteRT)": lambda: (Const(T8.view(np.uint8), Quant(0.05, 0)), np.float32, None),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_embedding_lookup_matches_litert(name):
    table, dtype, quant = TABLES[name]()
    assert_same_bits_as_litert(lookup(table, dtype, quant), [IDS])


def test_embedding_lookup_of_a_table_that_is_an_input():
    table = RNG.standard_normal((6, 8)).astype(np.float32)
    model = op_model("EMBEDDING_LOOKUP", [Input((3,), np.int32), Input((6, 8), np.float32)], [((3, 8), np.float32)])
    assert_same_bits_as_litert(model, [np.array([5, 0, 5], np.int32), table])


def test_embedding_lookup_hybrid_table_input():
    model = op_model("EMBEDDING_LOOKUP", [Input((3,), np.int32), Input((5, 3, 2), np.int8, Quant(0.02, 0))],
                     [((3, 3, 2), np.float32)])
    assert_same_bits_as_litert(model, [np.array([1, 4, 0], np.int32), T8])


@pytest.mark.parametrize("bad_id", [5, -1, 2**31 - 1, -(2**31)])
def test_embedding_lookup_id_outside_the_table_fails_the_invoke(bad_id):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    model = lookup(RNG.standard_normal((5, 3)).astype(np.float32), np.float32)
    ids = IDS.copy()
    ids[3] = bad_id
    with pytest.raises(RuntimeError, match="index out of bounds"):
        run(LiteRT, model, [ids])
    with pytest.raises(RuntimeError, match=f"EMBEDDING_LOOKUP op 0.*id {bad_id} \\(position 3\\) is outside"):
        run(Interpreter, model, [ids])
    ids[3] = 1  # the interpreter stays usable
    assert run(Interpreter, model, [ids])[0].tobytes() == litert_default(model, [ids])[0].tobytes()


@pytest.mark.parametrize("model, message", [
    (lambda: lookup(np.ones((5, 3), np.float32), np.float32, ids=IDS.astype(np.int64), ids_dtype=np.int64),
     "ids are int64"),
    (lambda: lookup(np.ones((5, 3), np.float32), np.float32, ids=IDS[:6].reshape(2, 3)), "ids have rank 2"),
    (lambda: op_model("EMBEDDING_LOOKUP", [Input((2,), np.int32), np.ones(5, np.float32)], [((2,), np.float32)]),
     "rank 1, must have rank 2"),
    (lambda: lookup(Const(T8, Quant(0.1, 3)), np.float32), "zero point 3"),
    (lambda: lookup(np.ones((5, 3), np.int32), np.float32), "output"),
])
def test_embedding_lookup_refuses_what_it_cannot_run(model, message):
    from rillet.runtime import Interpreter, InterpreterError

    with pytest.raises(InterpreterError, match=f"EMBEDDING_LOOKUP op 0 .*{message}"):
        Interpreter(model_content=model()).allocate_tensors()
