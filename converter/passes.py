"""Graph passes on the converter's IR: constant folding, batch-norm folding, activation fusion, dead code.

Each pass rewrites the IR in place and keeps its meaning: the file computes what `graph.run` does.
"""

from __future__ import annotations

import numpy as np

from .lowering import IR, IROp

LINEAR_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
FUSABLE_INTO = LINEAR_OPS + ("ADD",)
ACTIVATION_CODES = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
EFFECT_OPS = ("ASSIGN_VARIABLE", "CALL_ONCE")  # live for what they do, not for an output


def optimize(ir: IR) -> IR:
    fold_constants(ir)
    while fold_affine_into_linear(ir):
        pass
    fuse_activations(ir)
    remove_dead(ir)
    return ir


def fold_constants(ir: IR) -> None:
    """Evaluate, once, every op whose inputs are all constant (on the graph's numpy reference), but DENSIFY,
    whose constant is there to be stored sparse."""
    kept = []
    for op in ir.ops:
        values = [ir.tensors[i].value for i in op.node_inputs]
        if op.node is None or op.node.opdef.stateful or op.builtin == "DENSIFY" or any(v is None for v in values):
            kept.append(op)
            continue
        results = op.node.opdef.numpy(op.node.attrs, *values)
        results = results if isinstance(results, tuple) else (results,)
        for index, value in zip(op.outputs, results):
            ir.tensors[index].value = np.asarray(value, dtype=ir.tensors[index].dtype)
    ir.ops = kept


def _per_channel(value: np.ndarray, channels: int) -> np.ndarray | None:
    """`value` as a [channels] vector if it broadcasts along the last axis only, else None."""
    if value.size == 1:
        return np.full(channels, value.reshape(()), dtype=value.dtype)
    if value.shape[-1:] == (channels,) and value.size == channels:
        return value.reshape(channels)
    return None


def fold_affine_into_linear(ir: IR) -> bool:
    """Fold a per-channel MUL/DIV/ADD/SUB by a constant into the convolution or dense layer before it.

    Batch normalization in inference mode is such a chain once its statistics are constants, so this
    is batch-norm folding, whatever formula the graph used. Returns whether anything changed.
    """
    producers = {t: op for op in ir.ops for t in op.outputs}
    for op in ir.ops:
        if op.builtin not in ("MUL", "DIV", "ADD", "SUB") or op.options.get("fused_activation_function"):
            continue
        a, b = op.inputs
        if ir.tensors[b].value is None:
            a, b = b, a
            if op.builtin in ("DIV", "SUB"):  # constant / x and constant - x are not affine in x
                continue
        linear = producers.get(a)
        if (linear is None or linear.builtin not in LINEAR_OPS or ir.tensors[b].value is None
                or linear.options.get("fused_activation_function") or len(ir.consumers(a)) != 1
                or a in ir.outputs.values()):
            continue
        weights, bias = (ir.tensors[linear.inputs[1]], ir.tensors[linear.inputs[2]] if
                         len(linear.inputs) > 2 and linear.inputs[2] >= 0 else None)
        if weights.value is None or (bias is not None and bias.value is None):
            continue
        channels = ir.tensors[a].shape[-1]
        factor = _per_channel(ir.tensors[b].value, channels)
        if factor is None or ir.tensors[op.outputs[0]].shape != ir.tensors[a].shape:
            continue
        w = weights.value.astype(np.float32)
        bv = bias.value.astype(np.float32) if bias is not None else np.zeros(channels, np.float32)
        axis = 3 if linear.builtin == "DEPTHWISE_CONV_2D" else 0  # the output-channel axis of the filter
        shape = [1] * w.ndim
        shape[axis] = channels
        if op.builtin == "MUL":
            w, bv = w * factor.reshape(shape), bv * factor
        elif op.builtin == "DIV":
            w, bv = w / factor.reshape(shape), bv / factor
        elif op.builtin == "ADD":
            bv = bv + factor
        else:
            bv = bv - factor
        linear.inputs[1] = ir.add_constant(weights.name, w, "float32")
        bias_name = bias.name if bias is not None else ir.tensors[linear.outputs[0]].name + "/bias"
        if len(linear.inputs) < 3:
            linear.inputs.append(-1)
        linear.inputs[2] = ir.add_constant(bias_name, bv, "float32")
        linear.outputs = list(op.outputs)
        linear.node = None  # its numpy reference no longer describes it
        ir.ops.remove(op)
        return True
    return False


def fuse_activations(ir: IR) -> None:
    """RELU, RELU6 and RELU_N1_TO_1 after a convolution, dense layer or ADD become its fused activation."""
    producers = {t: op for op in ir.ops for t in op.outputs}
    for act in list(ir.ops):
        if act.builtin not in ACTIVATION_CODES:
            continue
        x = act.inputs[0]
        producer = producers.get(x)
        if (producer is None or producer.builtin not in FUSABLE_INTO
                or producer.options.get("fused_activation_function") or len(ir.consumers(x)) != 1
                or x in ir.outputs.values()):
            continue
        producer.options["fused_activation_function"] = ACTIVATION_CODES[act.builtin]
        producer.outputs = list(act.outputs)
        producer.node = None
        for t in act.outputs:
            producers[t] = producer
        ir.ops.remove(act)


def remove_dead(ir: IR) -> None:
    """Drop ops and tensors that no signature output and no assignment needs."""
    needed = set(ir.outputs.values())
    live: list[IROp] = []
    for op in reversed(ir.ops):
        if needed.intersection(op.outputs) or op.builtin in EFFECT_OPS:
            live.append(op)
            needed.update(op.outputs)  # a SPLIT's or UNPACK's unread parts stay: the op writes them all
            needed.update(i for i in op.inputs if i >= 0)
    ir.ops = live[::-1]
    keep = sorted(needed | set(ir.inputs.values()))
    renumber = {old: new for new, old in enumerate(keep)}
    ir.tensors = [ir.tensors[i] for i in keep]
    for op in ir.ops:
        op.inputs = [renumber[i] if i >= 0 else -1 for i in op.inputs]
        op.outputs = [renumber[i] for i in op.outputs]
        op.node_inputs = [renumber.get(i, -1) for i in op.node_inputs]
    ir.inputs = {k: renumber[v] for k, v in ir.inputs.items()}
    ir.outputs = {k: renumber[v] for k, v in ir.outputs.items()}
