"""Small float .tflite graphs of a transformer's element-wise parts, written with the format layer: SOFTMAX,
GELU, and a layer norm as TensorFlow's Keras LayerNormalization lowers it (tf.nn.batch_normalization over the
last axis: MEAN keep_dims, SQUARED_DIFFERENCE, MEAN, ADD eps, RSQRT, MUL gamma, MUL x, MUL mean, SUB from beta,
ADD) and as a PyTorch export writes torch.nn.LayerNorm out (MEAN, SUB, MUL (the square), MEAN, ADD eps, RSQRT,
MUL, MUL gamma, ADD beta). Used by tests/runtime/test_transformer_ops.py and bench/bench_transformer_ops.py."""

from __future__ import annotations

from typing import Any

import numpy as np

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

NO_ACTIVATION = {"fused_activation_function": 0}
OPTIONS = {"MEAN": ("ReducerOptions", {"keep_dims": True}), "SUM": ("ReducerOptions", {"keep_dims": True}),
           "SQUARED_DIFFERENCE": ("SquaredDifferenceOptions", {}),
           "ADD": ("AddOptions", NO_ACTIVATION), "SUB": ("SubOptions", NO_ACTIVATION),
           "MUL": ("MulOptions", NO_ACTIVATION), "RSQRT": (None, None),
           "SOFTMAX": ("SoftmaxOptions", {"beta": 1.0}), "GELU": ("GeluOptions", {"approximate": False}),
           "FULLY_CONNECTED": ("FullyConnectedOptions", {"fused_activation_function": 0, "keep_num_dims": True}),
           "RESHAPE": (None, None), "NEG": (None, None), "SIN": (None, None), "TRANSPOSE": (None, None),
           "LOG_SOFTMAX": ("LogSoftmaxOptions", {}), "EXP": (None, None),
           "BATCH_MATMUL": ("BatchMatMulOptions", {"adj_x": False, "adj_y": False})}


def graph_model(inputs: dict[str, tuple[int, ...]], consts: dict[str, np.ndarray],
                ops: list[tuple[str, list[str], str, dict[str, Any] | None]], output: str,
                shapes: dict[str, tuple[int, ...]]) -> bytes:
    """A float32 graph: `ops` in order as (op, input names, output name, options or None for the defaults)."""
    tensors: list[Tensor] = []
    buffers = [Buffer(data=None)]
    index: dict[str, int] = {}

    def add(name: str, shape: tuple[int, ...], data: np.ndarray | None = None) -> None:
        buffer = 0
        if data is not None:
            buffer = len(buffers)
            buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(data, np.float32).tobytes(), np.uint8)))
        index[name] = len(tensors)
        tensors.append(Tensor(shape=list(shape), type=0, buffer=buffer, name=name))

    for name, shape in inputs.items():
        add(name, shape)
    for name, value in consts.items():
        if value.dtype == np.int32:
            index[name] = len(tensors)
            buffers.append(Buffer(data=np.frombuffer(value.tobytes(), np.uint8)))
            tensors.append(Tensor(shape=list(value.shape), type=2, buffer=len(buffers) - 1, name=name))
        else:
            add(name, value.shape, value)
    codes: list[str] = []
    operators = []
    for op, ins, out, options in ops:
        if out not in index:
            add(out, shapes[out])
        if op not in codes:
            codes.append(op)
        kind, defaults = OPTIONS[op]
        opts = Options(kind, **{**defaults, **(options or {})}) if kind else None
        operators.append(Operator(opcode_index=codes.index(op), inputs=[index[i] for i in ins], outputs=[index[out]],
                                  builtin_options=opts))
    model = ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[c], 127), builtin_code=BUILTIN_CODES[c],
                                     version=1) for c in codes],
        subgraphs=[SubGraph(tensors=tensors, inputs=[index[n] for n in inputs], outputs=[index[output]],
                            operators=operators, name="main")],
        buffers=buffers,
        signature_defs=[SignatureDef(inputs=[TensorMap(name=n, tensor_index=index[n]) for n in inputs],
                                     outputs=[TensorMap(name="y", tensor_index=index[output])],
                                     signature_key="serving_default", subgraph_index=0)],
    )
    return save(model)


def softmax_model(shape: tuple[int, ...], beta: float = 1.0) -> bytes:
    return graph_model({"x": shape}, {}, [("SOFTMAX", ["x"], "y", {"beta": beta})], "y", {"y": shape})


def gelu_model(shape: tuple[int, ...], approximate: bool = False) -> bytes:
    return graph_model({"x": shape}, {}, [("GELU", ["x"], "y", {"approximate": approximate})], "y", {"y": shape})


def layer_norm_model(seq: int, d: int, form: str = "keras", eps: float = 1e-3, seed: int = 0) -> bytes:
    """[1, seq, d] through a layer norm over d with random gamma and beta, `form` "keras" or "torch"."""
    rng = np.random.default_rng(seed)
    x, row = (1, seq, d), (1, seq, 1)
    consts = {"axis": np.array([-1], np.int32), "eps": np.array(eps, np.float32),
              "gamma": rng.uniform(0.5, 1.5, d).astype(np.float32),
              "beta": rng.uniform(-0.5, 0.5, d).astype(np.float32)}
    if form == "keras":
        ops = [("MEAN", ["x", "axis"], "mean", None), ("SQUARED_DIFFERENCE", ["x", "mean"], "sqd", None),
               ("MEAN", ["sqd", "axis"], "var", None), ("ADD", ["var", "eps"], "var_eps", None),
               ("RSQRT", ["var_eps"], "inv", None), ("MUL", ["inv", "gamma"], "scale", None),
               ("MUL", ["x", "scale"], "xs", None), ("MUL", ["mean", "scale"], "ms", None),
               ("SUB", ["beta", "ms"], "shift", None), ("ADD", ["xs", "shift"], "y", None)]
        shapes = {"mean": row, "sqd": x, "var": row, "var_eps": row, "inv": row, "scale": x, "xs": x, "ms": x,
                  "shift": x, "y": x}
    else:
        ops = [("MEAN", ["x", "axis"], "mean", None), ("SUB", ["x", "mean"], "xc", None),
               ("MUL", ["xc", "xc"], "sq", None), ("MEAN", ["sq", "axis"], "var", None),
               ("ADD", ["var", "eps"], "var_eps", None), ("RSQRT", ["var_eps"], "inv", None),
               ("MUL", ["xc", "inv"], "xn", None), ("MUL", ["xn", "gamma"], "xg", None),
               ("ADD", ["xg", "beta"], "y", None)]
        shapes = {"mean": row, "xc": x, "sq": x, "var": row, "var_eps": row, "inv": row, "xn": x, "xg": x, "y": x}
    return graph_model({"x": x}, consts, ops, "y", shapes)
