"""Invokes of a model with dynamic shapes: a WHILE that grows a stack of rows by CONCATENATION (its body
prepared again at each iteration, as the value grows) and a FULLY_CONNECTED after it (prepared again when the
row count differs from the last invoke's), rillet against LiteRT (default and builtin kernels), the same
process, interleaved; medians and ratios. Two cases: the same row count at every invoke, and a count that
alternates (every op after the loop prepared again each invoke).

    python bench/bench_dynamic_shapes.py [--runs 300] [--rows 32] [--width 64]
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from rillet.commands.bench import _time_interleaved
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

OPS = ["WHILE", "LESS", "ADD", "CONCATENATION", "FULLY_CONNECTED"]
FLOAT, INT32, BOOL = 0, 2, 6


def growing_rows_model(width: int) -> bytes:
    """(n, first [1, width]) -> rows: first, grown a constant row at a time while fewer than n;
    FULLY_CONNECTED(rows) [n, width]."""
    buffers = [Buffer(data=None)]

    def graph():
        tensors: list[Tensor] = []
        ops: list[Operator] = []

        def tensor(shape, type_=FLOAT, value=None):
            buffer = 0
            if value is not None:
                buffers.append(Buffer(data=np.frombuffer(np.asarray(value).tobytes(), np.uint8)))
                buffer = len(buffers) - 1
            tensors.append(Tensor(shape=list(shape), type=type_, buffer=buffer, name=f"t{len(tensors)}"))
            return len(tensors) - 1

        def op(name, inputs, outputs, options=None):
            ops.append(Operator(opcode_index=OPS.index(name), inputs=inputs, outputs=outputs, builtin_options=options))

        return tensors, ops, tensor, op

    rng = np.random.default_rng(0)
    plain = {"fused_activation_function": 0}
    mt, mo, t, op = graph()
    n, first, one, count, n_out, rows = (t([], INT32), t([1, width]), t([], INT32, np.int32(1)), t([], INT32),
                                         t([], INT32), t([1, width]))
    op("WHILE", [one, n, first], [count, n_out, rows], Options("WhileOptions", cond_subgraph_index=1,
                                                                 body_subgraph_index=2))
    w = t([width, width], value=rng.standard_normal((width, width)).astype(np.float32) / width)
    bias, dense = t([width], value=np.zeros(width, np.float32)), t([1, width])
    op("FULLY_CONNECTED", [rows, w, bias], [dense], Options("FullyConnectedOptions", **plain))
    main = SubGraph(tensors=mt, operators=mo, inputs=[n, first], outputs=[dense], name="main")
    ct, co, t, op = graph()
    ci, cn, cr, go = t([], INT32), t([], INT32), t([1, width]), t([], BOOL)
    op("LESS", [ci, cn], [go])
    cond = SubGraph(tensors=ct, operators=co, inputs=[ci, cn, cr], outputs=[go], name="cond")
    bt, bo, t, op = graph()
    bi, bn, br, step, bi2 = t([], INT32), t([], INT32), t([1, width]), t([], INT32, np.int32(1)), t([], INT32)
    row, br2 = t([1, width], value=rng.standard_normal((1, width)).astype(np.float32)), t([2, width])
    op("ADD", [bi, step], [bi2], Options("AddOptions", **plain))
    op("CONCATENATION", [br, row], [br2], Options("ConcatenationOptions", axis=0, **plain))
    body = SubGraph(tensors=bt, operators=bo, inputs=[bi, bn, br], outputs=[bi2, bn, br2], name="body")
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[o], 127), builtin_code=BUILTIN_CODES[o],
                          version=1) for o in OPS]
    return save(ModelFile(operator_codes=codes, subgraphs=[main, cond, body], buffers=buffers))


def invoker(interpreter, counts, width: int):
    interpreter.allocate_tensors()
    n, first = (d["index"] for d in interpreter.get_input_details())
    out = interpreter.get_output_details()[0]["index"]
    interpreter.set_tensor(first, np.ones((1, width), np.float32))
    cycle = itertools.cycle(counts)

    def invoke():
        interpreter.set_tensor(n, np.array(next(cycle), np.int32))
        interpreter.invoke()
        interpreter.get_tensor(out)

    return invoke


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--width", type=int, default=64)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    from rillet.runtime import Interpreter

    content = growing_rows_model(args.width)
    makers = {
        "rillet": lambda: Interpreter(model_content=content),
        "litert_xnnpack": lambda: LiteRT(model_content=content),
        "litert_builtin": lambda: LiteRT(model_content=content,
                                         experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES),
    }
    for case, counts in [("same rows", [args.rows]), ("alternating rows", [args.rows, args.rows - 1])]:
        stats = _time_interleaved({name: invoker(make(), counts, args.width) for name, make in makers.items()},
                                  args.runs)
        ours = stats["rillet"]["median_ms"]
        print(f"{case} ({args.rows} rows of {args.width}):")
        for name, s in stats.items():
            ratio = "" if name == "rillet" else f"  rillet / this = {ours / s['median_ms']:.2f}"
            print(f"  {name:<16} {s['median_ms'] * 1e3:8.1f} us{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
