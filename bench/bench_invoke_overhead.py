"""Per-invoke overhead: a one-op model (a 4-element RELU), rillet against LiteRT (default and builtin
kernels), the same process, interleaved; medians and ratios. What remains is the cost of crossing from
Python into each runtime and back.

    python bench/bench_invoke_overhead.py [--runs 2000]
"""

from __future__ import annotations

import argparse

import numpy as np

from rillet.commands.bench import _ready, _time_interleaved
from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)


def one_op_model() -> bytes:
    code = BUILTIN_CODES["RELU"]
    tensors = [Tensor(shape=[1, 4], type=0, buffer=0, name="x"), Tensor(shape=[1, 4], type=0, buffer=0, name="y")]
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=code, builtin_code=code, version=1)],
        subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[1],
                            operators=[Operator(opcode_index=0, inputs=[0], outputs=[1])], name="main")],
        buffers=[Buffer(data=None)],
        signature_defs=[SignatureDef(inputs=[TensorMap(name="x", tensor_index=0)],
                                     outputs=[TensorMap(name="y", tensor_index=1)], signature_key="serving_default",
                                     subgraph_index=0)]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    from rillet.runtime import Interpreter

    content = one_op_model()
    interpreters = {
        "rillet": Interpreter(model_content=content),
        "litert_xnnpack": LiteRT(model_content=content),
        "litert_builtin": LiteRT(model_content=content,
                                 experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES),
    }
    stats = _time_interleaved({name: _ready(it) for name, it in interpreters.items()}, args.runs)
    ours = stats["rillet"]["median_ms"]
    for name, s in stats.items():
        ratio = "" if name == "rillet" else f"  rillet / this = {ours / s['median_ms']:.2f}"
        print(f"{name:16s} {s['median_ms'] * 1e3:7.2f} us  [{s['p10_ms'] * 1e3:.2f}-{s['p90_ms'] * 1e3:.2f}]{ratio}")
    x = np.ones((1, 4), np.float32)
    for it in interpreters.values():  # the same answer everywhere, or the timing means nothing
        it.set_tensor(it.get_input_details()[0]["index"], -x)
        it.invoke()
        assert not it.get_tensor(it.get_output_details()[0]["index"]).any()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
