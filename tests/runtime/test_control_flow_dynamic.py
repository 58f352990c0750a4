"""IF and WHILE whose shapes change at run time (dynamic shapes): LiteRT runs them with dynamic tensors, rillet
does not yet, and refuses them at load with a message naming the op, the tensor and both shapes."""

from __future__ import annotations

import numpy as np
import pytest
import test_control_flow as cf

from rillet.converter.format import Options, load, save
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

if "CONCATENATION" not in cf.OPS:
    cf.OPS.append("CONCATENATION")


def doubling_while_model(limit: int = 3) -> bytes:
    """(i, x) -> while i < limit: (i + 1, concat(x, x)): x grows from [1] to [2 ** limit]."""
    b = cf.buffers()
    main, cond, body = cf.Graph(b), cf.Graph(b), cf.Graph(b)
    i, x, i_out, x_out = main.tensor([], np.int32), main.tensor([1]), main.tensor([], np.int32), main.tensor([1])
    main.op("WHILE", [i, x], [i_out, x_out], Options("WhileOptions", cond_subgraph_index=1, body_subgraph_index=2))
    ci, cx = cond.tensor([], np.int32), cond.tensor([1])
    limit_t, go = cond.tensor([], np.int32, limit), cond.tensor([], np.bool_)
    cond.op("LESS", [ci, limit_t], [go])
    bi, bx, one = body.tensor([], np.int32), body.tensor([1]), body.tensor([], np.int32, 1)
    bi2, bx2 = body.tensor([], np.int32), body.tensor([2])
    body.op("ADD", [bi, one], [bi2], Options("AddOptions", fused_activation_function=0))
    body.op("CONCATENATION", [bx, bx], [bx2], Options("ConcatenationOptions", axis=0, fused_activation_function=0))
    return cf.model([main.subgraph([i, x], [i_out, x_out], "main"), cond.subgraph([ci, cx], [go], "cond"),
                     body.subgraph([bi, bx], [bi2, bx2], "body")])


def test_litert_runs_a_while_that_grows_a_tensor():
    """What rillet refuses below is a real gap: LiteRT's default Interpreter runs the model."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    it = LiteRT(model_content=doubling_while_model())
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.array(0, np.int32))
    it.set_tensor(it.get_input_details()[1]["index"], np.array([2.0], np.float32))
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[1]["index"]), np.full(8, 2.0, np.float32))


def test_a_while_that_grows_a_tensor_is_refused_by_name():
    with pytest.raises(RuntimeError, match=r"WHILE op 0 .*body subgraph 2 changes the shape of loop value 1 "
                                           r"\(tensor 1\) from \[1\] to \[2\].*dynamic shapes"):
        Interpreter(model_content=doubling_while_model()).allocate_tensors()


def test_branches_of_different_shapes_are_refused_with_both_shapes():
    m = load(cf.if_model())
    m.subgraphs[2].operators[0].inputs = [1, 1]  # else: 1 + 1, a scalar where then gives [2, 3]
    with pytest.raises(RuntimeError, match=r"IF op 0 .*output 0 \(tensor 2\) different shapes, \[2, 3\] from then "
                                           r"subgraph 1 and \[\] from else subgraph 2"):
        Interpreter(model_content=save(m)).allocate_tensors()
