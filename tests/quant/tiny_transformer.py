"""A tiny float transformer block (the ops TensorFlow's and litert-torch's files hold: a layer-norm chain with
NEG, fully connected projections, RESHAPE / TRANSPOSE into heads, BATCH_MATMUL between activations, SOFTMAX,
a residual ADD), written with rillet's graph API, for the quantizer's tests."""

from __future__ import annotations

import functools

import numpy as np

from rillet.graph import Graph, ops

T, D, HEADS = 8, 16, 2


def _layer_norm(x, gamma: np.ndarray, beta: np.ndarray, name: str):
    """TensorFlow's LayerNormalization as its converter lowers it: x * s + (beta - mean * s), the
    subtraction as NEG and ADD."""
    mean = ops.reduce_mean(x, axes=[2], keepdims=True, name=f"{name}/mean")
    var = ops.reduce_mean(ops.squared_difference(x, mean, name=f"{name}/sqdiff"), axes=[2], keepdims=True,
                          name=f"{name}/var")
    s = ops.mul(ops.rsqrt(ops.add(var, np.float32(1e-3), name=f"{name}/eps"), name=f"{name}/rsqrt"), gamma,
                name=f"{name}/scale")
    shift = ops.add(ops.mul(ops.neg(mean, name=f"{name}/neg"), s, name=f"{name}/negmean"), beta,
                    name=f"{name}/shift")
    return ops.add(ops.mul(x, s, name=f"{name}/xs"), shift, name=f"{name}/out")


@functools.cache
def block(seed: int = 0) -> bytes:
    """The .tflite bytes of one pre-norm attention block on a [1, T, D] input."""
    with Graph().as_default():
        return _block(seed)


def _block(seed: int) -> bytes:
    from rillet.converter.from_graph import convert

    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.normal(size=shape) / np.sqrt(shape[-1])).astype(np.float32)

    dh = D // HEADS
    x = ops.placeholder([1, T, D], name="x")
    h = _layer_norm(x, rng.uniform(0.5, 1.5, D).astype(np.float32), rng.normal(0, 0.1, D).astype(np.float32), "ln")
    flat = ops.reshape(h, [T, D], name="flat")

    def heads(w: str):
        y = ops.fully_connected(flat, weight(D, D), rng.normal(0, 0.1, D).astype(np.float32), name=w)
        return ops.transpose(ops.reshape(y, [1, T, HEADS, dh], name=f"{w}/split"), [0, 2, 1, 3], name=f"{w}/heads")

    q, k, v = heads("q"), heads("k"), heads("v")
    scores = ops.mul(ops.batch_matmul(q, k, adj_y=True, name="qk"), np.float32(1 / np.sqrt(dh)), name="scaled")
    p = ops.softmax(scores, name="attn")
    ctx = ops.transpose(ops.batch_matmul(p, v, name="pv"), [0, 2, 1, 3], name="ctx")
    out = ops.fully_connected(ops.reshape(ctx, [T, D], name="merge"), weight(D, D), None, name="proj")
    y = ops.add(x, ops.reshape(out, [1, T, D], name="unflat"), name="residual")
    return convert(inputs={"x": x}, outputs={"y": y})


def samples(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, 1, T, D)) * rng.uniform(0.5, 2, (n, 1, T, 1))).astype(np.float32)


def padded_max_pool(pad_value: float = -np.inf) -> bytes:
    """PADV2 with `pad_value` around a [1, 6, 6, 4] input, then a 3x3 stride-2 VALID max pool: how litert-torch
    writes a padded torch max pool (ResNet18's)."""
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

    def const(array: np.ndarray) -> int:
        buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(array).tobytes(), np.uint8)))
        return len(buffers) - 1

    buffers = [Buffer()]
    tensors = [Tensor(shape=[1, 6, 6, 4], type=0, buffer=0, name="x"),
               Tensor(shape=[4, 2], type=2, buffer=const(np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32)),
                      name="paddings"),
               Tensor(shape=[], type=0, buffer=const(np.array(pad_value, np.float32)), name="pad_value"),
               Tensor(shape=[1, 8, 8, 4], type=0, buffer=0, name="padded"),
               Tensor(shape=[1, 3, 3, 4], type=0, buffer=0, name="pooled")]
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n], version=1)
             for n in ("PADV2", "MAX_POOL_2D")]
    pool = Options("Pool2DOptions", padding=1, stride_w=2, stride_h=2, filter_width=3, filter_height=3,
                   fused_activation_function=0)
    ops_ = [Operator(opcode_index=0, inputs=[0, 1, 2], outputs=[3]),
            Operator(opcode_index=1, inputs=[3], outputs=[4], builtin_options=pool)]
    return save(ModelFile(operator_codes=codes, subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[4],
                                                                     operators=ops_, name="main")],
                          buffers=buffers))


def shared_zero() -> bytes:
    """litert-torch's sharing of one 0.0 constant: SUB(0, x) (a layer norm's negation) and an attention mask's
    SELECT_V2(cond, 0, float-lowest) read the same tensor. Outputs: -x and the mask."""
    from rillet.converter.format import (
        BUILTIN_CODES,
        Buffer,
        ModelFile,
        Operator,
        OperatorCode,
        SubGraph,
        Tensor,
        save,
    )

    def const(array: np.ndarray) -> int:
        buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(array).tobytes(), np.uint8)))
        return len(buffers) - 1

    buffers = [Buffer()]
    cond = np.arange(8).reshape(1, 8) % 3 != 0
    tensors = [Tensor(shape=[1, 8], type=0, buffer=0, name="x"),
               Tensor(shape=[], type=0, buffer=const(np.array(0, np.float32)), name="zero"),
               Tensor(shape=[], type=0, buffer=const(np.array(np.finfo(np.float32).min, np.float32)), name="lowest"),
               Tensor(shape=[1, 8], type=6, buffer=const(cond), name="keep"),
               Tensor(shape=[1, 8], type=0, buffer=0, name="negated"),
               Tensor(shape=[1, 8], type=0, buffer=0, name="mask")]
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[n], 127), builtin_code=BUILTIN_CODES[n], version=1)
             for n in ("SUB", "SELECT_V2")]
    ops_ = [Operator(opcode_index=0, inputs=[1, 0], outputs=[4]),
            Operator(opcode_index=1, inputs=[3, 1, 2], outputs=[5])]
    return save(ModelFile(operator_codes=codes, subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[4, 5],
                                                                     operators=ops_, name="main")],
                          buffers=buffers))


def masked_softmax(n: int = 16) -> bytes:
    """litert-torch's causal attention mask: SELECT_V2(causal, 0, float-lowest) added to [1, n, n] scores, then
    SOFTMAX."""
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

    def const(array: np.ndarray) -> int:
        buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(array).tobytes(), np.uint8)))
        return len(buffers) - 1

    buffers = [Buffer()]
    causal = np.tril(np.ones((n, n), bool))[None]
    tensors = [Tensor(shape=[1, n, n], type=0, buffer=0, name="scores"),
               Tensor(shape=[1, n, n], type=6, buffer=const(causal), name="causal"),
               Tensor(shape=[], type=0, buffer=const(np.array(0, np.float32)), name="zero"),
               Tensor(shape=[], type=0, buffer=const(np.array(np.finfo(np.float32).min, np.float32)), name="lowest"),
               Tensor(shape=[1, n, n], type=0, buffer=0, name="mask"),
               Tensor(shape=[1, n, n], type=0, buffer=0, name="masked"),
               Tensor(shape=[1, n, n], type=0, buffer=0, name="weights")]
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[name], 127), builtin_code=BUILTIN_CODES[name],
                          version=1) for name in ("SELECT_V2", "ADD", "SOFTMAX")]
    ops_ = [Operator(opcode_index=0, inputs=[1, 2, 3], outputs=[4]),
            Operator(opcode_index=1, inputs=[0, 4], outputs=[5],
                     builtin_options=Options("AddOptions", fused_activation_function=0)),
            Operator(opcode_index=2, inputs=[5], outputs=[6], builtin_options=Options("SoftmaxOptions", beta=1.0))]
    return save(ModelFile(operator_codes=codes, subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[6],
                                                                     operators=ops_, name="main")],
                          buffers=buffers))
