"""IF and WHILE over a model's subgraphs, hand-built with the format layer and run against LiteRT: the branch
taken by the condition, a counted loop carrying a tensor, nesting (an IF inside a WHILE body), a resize
that reaches the callees, and refusals naming the mismatch."""

from __future__ import annotations

import numpy as np
import pytest
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

pytest.importorskip("ai_edge_litert")

OPS = ["IF", "WHILE", "ADD", "MUL", "LESS", "SUB"]


class Graph:
    """One subgraph under construction: tensors, constants (into the shared buffers) and ops."""

    def __init__(self, buffers: list[Buffer]) -> None:
        self.buffers, self.tensors, self.ops = buffers, [], []

    def tensor(self, shape, dtype=np.float32, value=None) -> int:
        buffer = 0
        if value is not None:
            buffer = len(self.buffers)
            self.buffers.append(Buffer(data=np.frombuffer(np.asarray(value, dtype).tobytes(), np.uint8)))
        self.tensors.append(Tensor(shape=list(shape), type=TYPE_CODES[np.dtype(dtype)], buffer=buffer,
                                   name=f"t{len(self.tensors)}"))
        return len(self.tensors) - 1

    def op(self, name, inputs, outputs, options=None) -> None:
        self.ops.append(Operator(opcode_index=OPS.index(name), inputs=inputs, outputs=outputs, builtin_options=options))

    def subgraph(self, inputs, outputs, name) -> SubGraph:
        return SubGraph(tensors=self.tensors, inputs=inputs, outputs=outputs, operators=self.ops, name=name)


def model(subgraphs) -> bytes:
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[n], 127), builtin_code=BUILTIN_CODES[n], version=1)
             for n in OPS]
    return save(ModelFile(operator_codes=codes, subgraphs=subgraphs, buffers=BUFFERS[0]))


BUFFERS: list[list[Buffer]] = [[]]


def buffers() -> list[Buffer]:
    BUFFERS[0] = [Buffer(data=None)]
    return BUFFERS[0]


def if_model(shape=(2, 3)) -> bytes:
    b = buffers()
    main, then, other = Graph(b), Graph(b), Graph(b)
    cond, x, y = main.tensor([], np.bool_), main.tensor(shape), main.tensor(shape)
    main.op("IF", [cond, x], [y], Options("IfOptions", then_subgraph_index=1, else_subgraph_index=2))
    a, sq = then.tensor(shape), then.tensor(shape)
    then.op("MUL", [a, a], [sq], Options("MulOptions", fused_activation_function=0))
    a2, one, plus = other.tensor(shape), other.tensor([], value=1.0), other.tensor(shape)
    other.op("ADD", [a2, one], [plus], Options("AddOptions", fused_activation_function=0))
    return model([main.subgraph([cond, x], [y], "main"), then.subgraph([a], [sq], "then"),
                  other.subgraph([a2], [plus], "else")])


def while_model(limit=5, body_if=False) -> bytes:
    """(i, x) -> while i < limit: (i + 1, x * 1.5), or with body_if: (i + 1, x - 1 if i < 2 else x * 1.5)."""
    b = buffers()
    main, cond, body = Graph(b), Graph(b), Graph(b)
    i, x, i_out, x_out = main.tensor([], np.int32), main.tensor([2]), main.tensor([], np.int32), main.tensor([2])
    main.op("WHILE", [i, x], [i_out, x_out], Options("WhileOptions", cond_subgraph_index=1, body_subgraph_index=2))
    ci, cx, lim, go = cond.tensor([], np.int32), cond.tensor([2]), cond.tensor([], np.int32, limit), cond.tensor([], np.bool_)
    cond.op("LESS", [ci, lim], [go])
    bi, bx, one, step, bi2, bx2 = (body.tensor([], np.int32), body.tensor([2]), body.tensor([], np.int32, 1),
                                   body.tensor([], value=1.5), body.tensor([], np.int32), body.tensor([2]))
    body.op("ADD", [bi, one], [bi2], Options("AddOptions", fused_activation_function=0))
    graphs = [main.subgraph([i, x], [i_out, x_out], "main"), cond.subgraph([ci, cx], [go], "cond")]
    if not body_if:
        body.op("MUL", [bx, step], [bx2], Options("MulOptions", fused_activation_function=0))
        return model(graphs + [body.subgraph([bi, bx], [bi2, bx2], "body")])
    two, small = body.tensor([], np.int32, 2), body.tensor([], np.bool_)
    body.op("LESS", [bi, two], [small])
    body.op("IF", [small, bx], [bx2], Options("IfOptions", then_subgraph_index=3, else_subgraph_index=4))
    dec = Graph(b)
    a, one_f, a_out = dec.tensor([2]), dec.tensor([], value=1.0), dec.tensor([2])
    dec.op("SUB", [a, one_f], [a_out], Options("SubOptions", fused_activation_function=0))
    grow = Graph(b)
    g_in, g_step, g_out = grow.tensor([2]), grow.tensor([], value=1.5), grow.tensor([2])
    grow.op("MUL", [g_in, g_step], [g_out], Options("MulOptions", fused_activation_function=0))
    return model(graphs + [body.subgraph([bi, bx], [bi2, bx2], "body"), dec.subgraph([a], [a_out], "dec"),
                           grow.subgraph([g_in], [g_out], "grow")])


def run_both(content: bytes, feeds: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    results = []
    for cls in (Interpreter, LiteRT):
        it = cls(model_content=content)
        it.allocate_tensors()
        for d, v in zip(it.get_input_details(), feeds):
            it.set_tensor(d["index"], v)
        it.invoke()
        results.append([it.get_tensor(d["index"]) for d in it.get_output_details()])
    return results[0], results[1]


@pytest.mark.parametrize("cond", [True, False])
def test_if_takes_the_branch_the_condition_names(cond):
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    ours, theirs = run_both(if_model(), [np.array(cond), x])
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[0], x * x if cond else x + 1)


@pytest.mark.parametrize("start", [0, 3, 5, 9])
def test_while_loops_until_the_condition_is_false(start):
    x = np.array([1.0, -2.0], np.float32)
    ours, theirs = run_both(while_model(), [np.array(start, np.int32), x])
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    assert int(ours[0]) == max(start, 5)


def test_an_if_inside_a_while_body():
    x = np.array([1.0, 4.0], np.float32)
    ours, theirs = run_both(while_model(limit=4, body_if=True), [np.array(0, np.int32), x])
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    np.testing.assert_array_equal(ours[1], (x - 2) * 1.5 * 1.5)


def test_a_resize_reaches_the_branches():
    it = Interpreter(model_content=if_model())
    it.resize_tensor_input(it.get_input_details()[1]["index"], [4, 5])
    it.allocate_tensors()
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    it.set_tensor(it.get_input_details()[0]["index"], np.array(False))
    it.set_tensor(it.get_input_details()[1]["index"], x)
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), x + 1)


@pytest.mark.parametrize("cond", [True, False])
def test_branches_that_disagree_on_a_shape_run_as_litert_runs_them(cond):
    """The output takes the shape of the branch taken (a dynamic tensor; test_control_flow_dynamic.py has more)."""
    from rillet.converter.format import load

    m = load(if_model())
    m.subgraphs[2].operators[0].inputs = [1, 1]  # else: 1 + 1, a scalar where then gives [2, 3]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ours, theirs = run_both(save(m), [np.array(cond), x])
    assert np.shape(ours[0]) == np.shape(theirs[0]) == ((2, 3) if cond else ())
    np.testing.assert_array_equal(ours[0], theirs[0])


def test_a_branch_taking_another_count_of_inputs_is_refused():
    from rillet.converter.format import load

    m = load(if_model())
    m.subgraphs[0].operators[0].inputs = [0, 1, 1]  # the IF passes x twice; the branches take one input
    with pytest.raises(RuntimeError, match="then subgraph 1 takes 1 inputs, it passes 2"):
        Interpreter(model_content=save(m)).allocate_tensors()


def test_a_loop_limit_stops_a_while_that_runs_on(tmp_path):
    """TFLite's WHILE has no bound; RILLET_LOOP_LIMIT gives one (a service must not hang on a hostile model):
    a loop of a million iterations stops at the limit with an error naming the op, and one under it runs."""
    import os
    import subprocess
    import sys

    path = tmp_path / "loop.tflite"
    path.write_bytes(while_model(limit=1_000_000))
    script = (
        "import sys, numpy as np\n"
        "from rillet.runtime import Interpreter\n"
        "it = Interpreter(model_path=sys.argv[1]); it.allocate_tensors()\n"
        "it.set_tensor(it.get_input_details()[0]['index'], np.array(int(sys.argv[2]), np.int32))\n"
        "it.set_tensor(it.get_input_details()[1]['index'], np.zeros(2, np.float32))\n"
        "try:\n    it.invoke(); print('ran')\nexcept RuntimeError as e:\n    print(e)\n"
    )
    env = {**os.environ, "RILLET_LOOP_LIMIT": "1000"}
    runs = [subprocess.run([sys.executable, "-c", script, str(path), str(start)], capture_output=True, text=True,
                           check=True, cwd=tmp_path, env=env, timeout=120).stdout for start in (0, 999_500)]
    assert "WHILE op 0" in runs[0] and "ran 1000 iterations, the program's loop limit" in runs[0], runs[0]
    assert runs[1].strip() == "ran", runs[1]
