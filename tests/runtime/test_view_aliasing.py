"""RESHAPE, SQUEEZE and EXPAND_DIMS share their input's arena block instead of copying it (plan.c's
share_view_blocks): chains of views, views whose input is read again after them, views of views read later,
and views that are graph outputs (which keep a block of their own) give LiteRT's values, on every invoke and
at any thread count, and the arena is smaller than one with a copy per view."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, TYPE_CODES

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)
from rillet.runtime import Interpreter

F32 = np.float32


def _graph(tensors: dict[str, tuple], ops: list[tuple], inputs: list[str], outputs: list[str]) -> bytes:
    """tensors: name -> (shape,) for float activations or (array,) for constants; ops: (op, [in], [out],
    options)."""
    names = list(tensors)
    buffers = [Buffer(data=None)]
    table = []
    for name in names:
        spec = tensors[name][0]
        if isinstance(spec, np.ndarray):
            buffers.append(Buffer(data=np.frombuffer(spec.tobytes(), dtype=np.uint8)))
            table.append(Tensor(shape=list(spec.shape), type=TYPE_CODES[spec.dtype], buffer=len(buffers) - 1,
                                name=name))
        else:
            table.append(Tensor(shape=list(spec), type=0, buffer=0, name=name))
    codes = sorted({op for op, *_ in ops})
    operators = [Operator(opcode_index=codes.index(op), inputs=[names.index(t) for t in ins],
                          outputs=[names.index(t) for t in outs],
                          builtin_options=Options(OPTIONS_TYPES[op], **opts) if opts is not None else None)
                 for op, ins, outs, opts in ops]
    ins, outs = [names.index(t) for t in inputs], [names.index(t) for t in outputs]
    model = ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[c], 127),
                                     builtin_code=BUILTIN_CODES[c], version=1) for c in codes],
        subgraphs=[SubGraph(tensors=table, inputs=ins, outputs=outs, operators=operators, name="main")],
        buffers=buffers,
        signature_defs=[SignatureDef(inputs=[TensorMap(name=names[t], tensor_index=t) for t in ins],
                                     outputs=[TensorMap(name=names[t], tensor_index=t) for t in outs],
                                     signature_key="serving_default", subgraph_index=0)],
    )
    return save(model)


def _views_model() -> bytes:
    """x -> ABS a -> RESHAPE b -> EXPAND_DIMS c -> NEG d -> RESHAPE e; f = ADD(e, a) (a read after its views);
    g = SQUEEZE(c) then MUL(g, g) (a view of a view read after NEG); the output y = RESHAPE(f) is a view that
    is a graph output, and z = RESHAPE(x) a view of a graph input."""
    tensors = {
        "x": ((2, 3, 8),), "a": ((2, 3, 8),), "b": ((6, 8),), "c": ((1, 6, 8),), "d": ((1, 6, 8),),
        "e": ((2, 3, 8),), "f": ((2, 3, 8),), "g": ((6, 8),), "h": ((6, 8),), "y": ((48,),), "z": ((6, 8),),
        "s68": (np.array([6, 8], np.int32),), "s238": (np.array([2, 3, 8], np.int32),),
        "s48": (np.array([48], np.int32),),
        "axis0": (np.array([0], np.int32),),
    }
    ops = [
        ("ABS", ["x"], ["a"], None),
        ("RESHAPE", ["a", "s68"], ["b"], {"new_shape": [6, 8]}),
        ("EXPAND_DIMS", ["b", "axis0"], ["c"], {}),
        ("NEG", ["c"], ["d"], None),
        ("RESHAPE", ["d", "s238"], ["e"], {"new_shape": [2, 3, 8]}),
        ("ADD", ["e", "a"], ["f"], {}),
        ("SQUEEZE", ["c"], ["g"], {"squeeze_dims": [0]}),
        ("MUL", ["g", "g"], ["h"], {}),
        ("RESHAPE", ["f", "s48"], ["y"], {"new_shape": [48]}),
        ("RESHAPE", ["x", "s68"], ["z"], {"new_shape": [6, 8]}),
    ]
    return _graph(tensors, ops, ["x"], ["y", "h", "z"])


def _expected(x: np.ndarray) -> list[np.ndarray]:
    a = np.abs(x)
    return [(-a + a).reshape(48), (a * a).reshape(6, 8), x.reshape(6, 8)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_views_share_blocks_and_keep_values(threads: int) -> None:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = _views_model()
    it = Interpreter(model_content=content, num_threads=threads)
    it.allocate_tensors()
    ref = LiteRT(model_content=content)
    ref.allocate_tensors()
    rng = np.random.default_rng(threads)
    for _ in range(3):  # a second invoke reads blocks the first one left behind
        x = rng.standard_normal((2, 3, 8)).astype(F32)
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        ref.set_tensor(ref.get_input_details()[0]["index"], x)
        ref.invoke()
        got = [it.get_tensor(d["index"]) for d in it.get_output_details()]
        want = [ref.get_tensor(d["index"]) for d in ref.get_output_details()]
        for g, w, e in zip(got, want, _expected(x)):
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(g, e)
    # The output views keep blocks of their own: changing the input after invoke leaves z as it was.
    z = it.get_tensor(it.get_output_details()[2]["index"]).copy()
    it.set_tensor(it.get_input_details()[0]["index"], np.zeros((2, 3, 8), F32))
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[2]["index"]), z)


def test_views_take_no_arena_of_their_own() -> None:
    """a, b, c, e and g share one block. With a copy per view, ADD's step alone holds x, a, c, e and f (five
    192-byte blocks); shared, the whole plan fits in four."""
    it = Interpreter(model_content=_views_model())
    it.allocate_tensors()
    shared = it.memory_report()["arena_bytes"]
    preserved = Interpreter(model_content=_views_model(), experimental_preserve_all_tensors=True)
    preserved.allocate_tensors()
    assert shared < preserved.memory_report()["arena_bytes"]
    assert shared <= 4 * 192
