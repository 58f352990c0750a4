"""IF and WHILE whose shapes change at run time (dynamic shapes), against LiteRT, which runs them with dynamic
tensors: a WHILE that doubles a tensor n times (n an input), one that grows a stack of rows that ops after the
loop read, IF branches of different shapes, each invoked again and again with inputs that change the shapes;
and the bounds a hostile model meets (the loop limit, the memory limit)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import test_control_flow as cf

from rillet.converter.format import Options
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

for _name in ("CONCATENATION", "SUM", "FULLY_CONNECTED"):
    if _name not in cf.OPS:
        cf.OPS.append(_name)

NO_ACTIVATION = {"fused_activation_function": 0}


def doubling_while_model() -> bytes:
    """(i, n, x) -> while i < n: (i + 1, n, concat(x, x)): x [k] comes out [k * 2 ** (n - i)]."""
    b = cf.buffers()
    main, cond, body = cf.Graph(b), cf.Graph(b), cf.Graph(b)
    i, n, x = main.tensor([], np.int32), main.tensor([], np.int32), main.tensor([1])
    outs = [main.tensor([], np.int32), main.tensor([], np.int32), main.tensor([1])]
    main.op("WHILE", [i, n, x], outs, Options("WhileOptions", cond_subgraph_index=1, body_subgraph_index=2))
    ci, cn, cx, go = cond.tensor([], np.int32), cond.tensor([], np.int32), cond.tensor([1]), cond.tensor([], np.bool_)
    cond.op("LESS", [ci, cn], [go])
    bi, bn, bx, one = body.tensor([], np.int32), body.tensor([], np.int32), body.tensor([1]), body.tensor([], np.int32, 1)
    bi2, bx2 = body.tensor([], np.int32), body.tensor([2])
    body.op("ADD", [bi, one], [bi2], Options("AddOptions", **NO_ACTIVATION))
    body.op("CONCATENATION", [bx, bx], [bx2], Options("ConcatenationOptions", axis=0, **NO_ACTIVATION))
    return cf.model([main.subgraph([i, n, x], outs, "main"), cond.subgraph([ci, cn, cx], [go], "cond"),
                     body.subgraph([bi, bn, bx], [bi2, bn, bx2], "body")])


ROW = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)
WEIGHTS = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5
BIAS = np.array([0.1, -0.2, 0.3], np.float32)


def growing_rows_model() -> bytes:
    """(n, first [1, 4]) -> rows = first, then while len(rows) < n: rows = concat(rows, ROW) along axis 0; after
    the loop REDUCE_SUM over the rows ([4]) and FULLY_CONNECTED of every row ([n, 3]) read it."""
    b = cf.buffers()
    main, cond, body = cf.Graph(b), cf.Graph(b), cf.Graph(b)
    n, first = main.tensor([], np.int32), main.tensor([1, 4])
    zero, n_out, rows, count = (main.tensor([], np.int32, 1), main.tensor([], np.int32), main.tensor([1, 4]),
                                main.tensor([], np.int32))
    main.op("WHILE", [zero, n, first], [count, n_out, rows],
            Options("WhileOptions", cond_subgraph_index=1, body_subgraph_index=2))
    axis, total = main.tensor([1], np.int32, [0]), main.tensor([4])
    main.op("SUM", [rows, axis], [total], Options("ReducerOptions", keep_dims=False))
    w, bias, dense = main.tensor([3, 4], value=WEIGHTS), main.tensor([3], value=BIAS), main.tensor([1, 3])
    main.op("FULLY_CONNECTED", [rows, w, bias], [dense], Options("FullyConnectedOptions", **NO_ACTIVATION))
    ci, cn, cr, go = cond.tensor([], np.int32), cond.tensor([], np.int32), cond.tensor([1, 4]), cond.tensor([], np.bool_)
    cond.op("LESS", [ci, cn], [go])
    bi, bn, br, one = body.tensor([], np.int32), body.tensor([], np.int32), body.tensor([1, 4]), body.tensor([], np.int32, 1)
    row, bi2, br2 = body.tensor([1, 4], value=ROW), body.tensor([], np.int32), body.tensor([2, 4])
    body.op("ADD", [bi, one], [bi2], Options("AddOptions", **NO_ACTIVATION))
    body.op("CONCATENATION", [br, row], [br2], Options("ConcatenationOptions", axis=0, **NO_ACTIVATION))
    return cf.model([main.subgraph([n, first], [rows, total, dense], "main"),
                     cond.subgraph([ci, cn, cr], [go], "cond"), body.subgraph([bi, bn, br], [bi2, bn, br2], "body")])


def shape_changing_if_model() -> bytes:
    """(cond, x [2, 3]) -> y = concat(x, x) [4, 3] if cond else x + 1 [2, 3]; then the column sums of y."""
    b = cf.buffers()
    main, then, other = cf.Graph(b), cf.Graph(b), cf.Graph(b)
    c, x, y = main.tensor([], np.bool_), main.tensor([2, 3]), main.tensor([4, 3])
    main.op("IF", [c, x], [y], Options("IfOptions", then_subgraph_index=1, else_subgraph_index=2))
    axis, sums = main.tensor([1], np.int32, [0]), main.tensor([3])
    main.op("SUM", [y, axis], [sums], Options("ReducerOptions", keep_dims=False))
    a, doubled = then.tensor([2, 3]), then.tensor([4, 3])
    then.op("CONCATENATION", [a, a], [doubled], Options("ConcatenationOptions", axis=0, **NO_ACTIVATION))
    a2, one, plus = other.tensor([2, 3]), other.tensor([], value=1.0), other.tensor([2, 3])
    other.op("ADD", [a2, one], [plus], Options("AddOptions", **NO_ACTIVATION))
    return cf.model([main.subgraph([c, x], [y, sums], "main"), then.subgraph([a], [doubled], "then"),
                     other.subgraph([a2], [plus], "else")])


def while_over_a_shape_changing_if_model(limit: int = 3) -> bytes:
    """(i, x [1]) -> while i < limit: (i + 1, concat(x, x) if i < 1 else x + 1): an IF whose branches disagree,
    inside a WHILE body, makes the loop value dynamic from within."""
    b = cf.buffers()
    main, cond, body, then, other = (cf.Graph(b) for _ in range(5))
    i, x, i_out, x_out = main.tensor([], np.int32), main.tensor([1]), main.tensor([], np.int32), main.tensor([1])
    main.op("WHILE", [i, x], [i_out, x_out], Options("WhileOptions", cond_subgraph_index=1, body_subgraph_index=2))
    ci, cx, lim, go = cond.tensor([], np.int32), cond.tensor([1]), cond.tensor([], np.int32, limit), cond.tensor([], np.bool_)
    cond.op("LESS", [ci, lim], [go])
    bi, bx, one, first = body.tensor([], np.int32), body.tensor([1]), body.tensor([], np.int32, 1), body.tensor([], np.bool_)
    bi2, bx2 = body.tensor([], np.int32), body.tensor([2])
    body.op("ADD", [bi, one], [bi2], Options("AddOptions", **NO_ACTIVATION))
    body.op("LESS", [bi, one], [first])
    body.op("IF", [first, bx], [bx2], Options("IfOptions", then_subgraph_index=3, else_subgraph_index=4))
    a, doubled = then.tensor([1]), then.tensor([2])
    then.op("CONCATENATION", [a, a], [doubled], Options("ConcatenationOptions", axis=0, **NO_ACTIVATION))
    a2, one_f, plus = other.tensor([1]), other.tensor([], value=1.0), other.tensor([1])
    other.op("ADD", [a2, one_f], [plus], Options("AddOptions", **NO_ACTIVATION))
    return cf.model([main.subgraph([i, x], [i_out, x_out], "main"), cond.subgraph([ci, cx], [go], "cond"),
                     body.subgraph([bi, bx], [bi2, bx2], "body"), then.subgraph([a], [doubled], "then"),
                     other.subgraph([a2], [plus], "else")])


def interpreters(content: bytes):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    pair = [Interpreter(model_content=content), LiteRT(model_content=content)]
    for it in pair:
        it.allocate_tensors()
    return pair


def run(it, feeds: list[np.ndarray], resize: bool = False) -> list[tuple[list[int], np.ndarray]]:
    """Sets the inputs (resizing them first when asked), invokes, and gives each output's reported shape and
    value."""
    details = it.get_input_details()
    if resize:
        for d, v in zip(details, feeds):
            it.resize_tensor_input(d["index"], list(v.shape))
        it.allocate_tensors()
    for d, v in zip(details, feeds):
        it.set_tensor(d["index"], v)
    it.invoke()
    return [(d["shape"].tolist(), it.get_tensor(d["index"])) for d in it.get_output_details()]


def assert_same(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for (our_shape, our_value), (their_shape, their_value) in zip(ours, theirs):
        assert our_shape == their_shape
        assert np.shape(our_value) == np.shape(their_value)
        np.testing.assert_allclose(our_value, their_value, rtol=1e-5, atol=1e-6)


def test_a_while_doubles_a_tensor_as_many_times_as_an_input_says():
    ours, litert = interpreters(doubling_while_model())
    for start, n, width in [(0, 3, 1), (0, 0, 1), (1, 6, 1), (2, 3, 3), (0, 5, 2), (4, 2, 2), (0, 3, 1)]:
        x = np.arange(1, width + 1, dtype=np.float32)
        feeds = [np.array(start, np.int32), np.array(n, np.int32), x]
        got = run(ours, feeds, resize=True)
        assert_same(got, run(litert, feeds, resize=True))
        assert got[2][0] == [width * 2 ** max(0, n - start)]
        np.testing.assert_array_equal(got[2][1], np.tile(x, 2 ** max(0, n - start)))


def test_rows_grown_in_a_while_are_read_by_ops_after_it():
    ours, litert = interpreters(growing_rows_model())
    rng = np.random.default_rng(0)
    for n in [4, 1, 9, 2, 0, 30, 3]:
        feeds = [np.array(n, np.int32), rng.standard_normal((1, 4)).astype(np.float32)]
        got = run(ours, feeds)
        assert_same(got, run(litert, feeds))
        assert got[0][0] == [max(n, 1), 4] and got[2][0] == [max(n, 1), 3]


def test_if_branches_of_different_shapes_and_what_reads_them():
    ours, litert = interpreters(shape_changing_if_model())
    rng = np.random.default_rng(1)
    for cond, rows in [(True, 2), (False, 2), (True, 2), (False, 5), (True, 1), (True, 7), (False, 1)]:
        feeds = [np.array(cond), rng.standard_normal((rows, 3)).astype(np.float32)]
        got = run(ours, feeds, resize=True)
        assert_same(got, run(litert, feeds, resize=True))
        assert got[0][0] == [rows * (2 if cond else 1), 3]


def test_an_if_inside_a_while_body_changes_the_loop_values_shape():
    ours, litert = interpreters(while_over_a_shape_changing_if_model())
    for start, width in [(0, 1), (1, 1), (0, 3), (5, 2), (2, 4), (0, 1)]:
        feeds = [np.array(start, np.int32), np.linspace(-1, 1, width, dtype=np.float32)]
        got = run(ours, feeds, resize=True)
        assert_same(got, run(litert, feeds, resize=True))
        assert got[1][0] == [width * (2 if start < 1 else 1)]


def test_a_signature_runner_and_tensor_views_see_each_invokes_shape():
    """A dynamic output is handed out as a copy (its memory may move at the next invoke), never a cached view."""
    it = Interpreter(model_content=doubling_while_model())
    it.allocate_tensors()
    index = it.get_output_details()[2]["index"]
    view = it.tensor(index)
    for n in (2, 4, 1):
        for d, v in zip(it.get_input_details(), [np.array(0, np.int32), np.array(n, np.int32), np.ones(1, np.float32)]):
            it.set_tensor(d["index"], v)
        it.invoke()
        assert view().shape == (2 ** n,)
        assert it.get_tensor(index).shape == (2 ** n,)
    it.allocate_tensors()  # no live view of dynamic memory blocks it


def test_loops_and_branches_whose_shapes_hold_stay_in_the_arena():
    """Only what an invoke may reshape leaves the arena: a WHILE whose values keep their shapes, an IF whose
    branches agree, and everything computed from them are planned as before."""
    for content in (cf.while_model(), cf.if_model()):
        it = Interpreter(model_content=content)
        it.allocate_tensors()
        assert not any(it._plan.is_dynamic(i) for i in range(len(it._sg.tensors)))
        assert it.memory_report()["dynamic_bytes"] == 0
    it = Interpreter(model_content=growing_rows_model())
    it.allocate_tensors()
    assert [it._plan.is_dynamic(d["index"]) for d in it.get_output_details()] == [True, True, True]
    assert not any(it._plan.is_dynamic(d["index"]) for d in it.get_input_details())
    main_arena, before = it._plan.memory()["arena_bytes"], it.memory_report()
    run(it, [np.array(1000, np.int32), np.ones((1, 4), np.float32)])
    after = it.memory_report()
    assert it._plan.memory()["arena_bytes"] == main_arena  # the body's arena grows with the rows, main's not
    assert after["dynamic_bytes"] >= 1000 * (4 + 3) * 4 > before["dynamic_bytes"]


def test_an_op_that_cannot_take_the_shape_a_branch_gave_fails_at_invoke_by_name():
    """y + c, with c [4, 3]: the then branch's [4, 3] adds, the else branch's [5, 3] cannot broadcast. As in
    LiteRT, the op is prepared for the shape when it comes, and the invoke that brings a wrong one fails."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.converter.format import load, save

    m = load(shape_changing_if_model())
    main = m.subgraphs[0]
    m.buffers.append(type(m.buffers[0])(data=np.frombuffer(np.ones((4, 3), np.float32).tobytes(), np.uint8)))
    main.tensors.append(type(main.tensors[0])(shape=[4, 3], type=0, buffer=len(m.buffers) - 1, name="c"))
    main.operators[1].opcode_index = cf.OPS.index("ADD")
    main.operators[1].inputs = [2, len(main.tensors) - 1]
    main.operators[1].builtin_options = Options("AddOptions", **NO_ACTIVATION)
    content = save(m)
    for cls in (Interpreter, LiteRT):
        it = cls(model_content=content)
        it.resize_tensor_input(it.get_input_details()[1]["index"], [2, 3])
        it.allocate_tensors()
        got = run(it, [np.array(True), np.ones((2, 3), np.float32)])
        np.testing.assert_array_equal(got[1][1], np.full((4, 3), 2.0, np.float32))
        it.resize_tensor_input(it.get_input_details()[1]["index"], [5, 3])
        it.allocate_tensors()
        with pytest.raises(RuntimeError, match="ADD op 1 .*broadcast" if cls is Interpreter else None):
            run(it, [np.array(False), np.ones((5, 3), np.float32)])


def test_a_signature_runner_returns_each_calls_shape():
    """Its outputs are copies of dynamic tensors, and its quick path (cached views) is not taken for them."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.converter.format import SignatureDef, TensorMap, load, save

    m = load(doubling_while_model())
    m.signature_defs = [SignatureDef(inputs=[TensorMap(name=k, tensor_index=i) for i, k in enumerate("inx")],
                                     outputs=[TensorMap(name="y", tensor_index=5)], signature_key="grow",
                                     subgraph_index=0)]
    content = save(m)
    runners = [cls(model_content=content).get_signature_runner("grow") for cls in (Interpreter, LiteRT)]
    for n in (3, 1, 3, 5, 0):
        feeds = {"i": np.array(0, np.int32), "n": np.array(n, np.int32), "x": np.array([1.5, -2.0], np.float32)}
        ours, theirs = (runner(**feeds)["y"] for runner in runners)
        assert ours.shape == theirs.shape == (2 * 2 ** n,)
        np.testing.assert_array_equal(ours, theirs)


def run_script(content: bytes, tmp_path, env: dict[str, str], script: str, *args: str) -> str:
    path = tmp_path / "model.tflite"
    path.write_bytes(content)
    return subprocess.run([sys.executable, "-c", script, str(path), *args], capture_output=True, text=True, check=True,
                          cwd=tmp_path, env={**os.environ, **env}, timeout=120).stdout


DOUBLE_SCRIPT = (
    "import sys, numpy as np\n"
    "from rillet.runtime import Interpreter\n"
    "it = Interpreter(model_path=sys.argv[1]); it.allocate_tensors()\n"
    "for n in sys.argv[2:]:\n"
    "    for d, v in zip(it.get_input_details(), [np.array(0, np.int32), np.array(int(n), np.int32),\n"
    "                                             np.ones(1, np.float32)]):\n"
    "        it.set_tensor(d['index'], v)\n"
    "    try:\n"
    "        it.invoke(); print('ran', it.get_output_details()[2]['shape'].tolist())\n"
    "    except RuntimeError as e:\n"
    "        print(type(e).__name__, e)\n"
)


def test_a_tensor_grown_without_bound_stops_at_the_memory_limit(tmp_path):
    """A hostile loop that doubles a tensor 60 times fails the invoke at RILLET_MEMORY_LIMIT_MB, naming the op,
    instead of taking the machine's memory; the interpreter then runs a loop within the limit."""
    out = run_script(doubling_while_model(), tmp_path, {"RILLET_MEMORY_LIMIT_MB": "1"}, DOUBLE_SCRIPT, "60", "3")
    lines = out.strip().splitlines()
    assert len(lines) == 2, out
    assert lines[0].startswith("InterpreterError WHILE op 0") and "more than the memory limit of 1048576 bytes" in lines[0]
    assert lines[0].endswith("[out of memory]"), lines[0]
    assert lines[1] == "ran [8]", out


def test_the_loop_limit_still_stops_a_loop_whose_values_grow(tmp_path):
    out = run_script(doubling_while_model(), tmp_path, {"RILLET_LOOP_LIMIT": "5"}, DOUBLE_SCRIPT, "6", "4")
    lines = out.strip().splitlines()
    assert "WHILE op 0" in lines[0] and "ran 5 iterations, the program's loop limit" in lines[0], out
    assert lines[1] == "ran [16]", out
