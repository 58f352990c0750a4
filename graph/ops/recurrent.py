"""Recurrent: UNIDIRECTIONAL_SEQUENCE_LSTM, TFLite's fused LSTM in the form Keras' LSTM layer converts to (four
gates with input and recurrent weights and biases; no peepholes, projection or layer norms; tanh), run over one
sequence. Its state either starts from zero at every run (`carry_state=False`, the default: what a training
step over independent samples needs, and what its gradient assumes) or is carried from one run to the next
(`carry_state=True`: a streaming model; what a TFLite file's LSTM does, keeping it in variable tensors until
reset_all_variables). The converter writes a carried LSTM as the fused op; a zero-start one as the builtins of
its unrolled steps, since the fused op cannot start from zero again (its state is a variable tensor no builtin
writes): either way every invoke gives graph.run's result, not the first one alone.

Its gradient rule unrolls the op into builtins (FULLY_CONNECTED, LOGISTIC, TANH, MUL, ADD per step) and
differentiates that: backpropagation through time, lowered like any other backward graph."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor, Variable
from ..registry import OpDef, register
from .core import _apply, _tfl, as_tensor

GATES = ("input", "forget", "cell", "output")
"""TFLite's gate order: its inputs 1-4 (input weights), 5-8 (recurrent weights) and 12-15 (biases)."""

LSTM_SLOTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, None, None, None, 9, 10, 11, 12, None, None, "h", "c", None, None, None,
              None]
"""TFLite's 24 inputs by the node's: node input k, None for an omitted one (peepholes, projection, layer norms),
"h" / "c" the output and cell state variable tensors."""


def _lstm_infer(attrs, specs):
    (xs, xd), *rest = specs
    if len(rest) != 12 or not np.issubdtype(np.dtype(xd), np.floating) or len(xs) != 3:
        raise ValueError(f"expects a float sequence [batch, time, features] and 12 weights, got {specs}")
    n_in, n_cell = xs[2], rest[0][0][0]
    for k, (shape, dtype) in enumerate(rest):
        want = (n_cell, n_in) if k < 4 else (n_cell, n_cell) if k < 8 else (n_cell,)
        if tuple(shape) != want or dtype != xd:
            raise ValueError(f"{GATES[k % 4]} {('input weights', 'recurrent weights', 'bias')[k // 4]}: "
                             f"{dtype} {shape}, expected {xd} {want}")
    return [(xs[:2] + (n_cell,), xd)]


def _lstm(xp, a, x, *w, state=None):
    """The sequence of outputs h_t; xp is numpy or jax.numpy. With `state` (a Graph, for a carried state): the
    run starts from the h and c its store holds (zeros the first time) and leaves the last ones there."""
    wx, wh, b = w[0:4], w[4:8], w[8:12]
    if a["time_major"]:
        x = xp.swapaxes(x, 0, 1)
    batch, steps = x.shape[0], x.shape[1]
    h = xp.zeros((batch, wh[0].shape[1]), x.dtype)
    c = xp.zeros((batch, wh[0].shape[0]), x.dtype)
    keys = (f"{a['state_name']}/h_state", f"{a['state_name']}/c_state")
    if a["carry_state"]:
        h, c = (state.store[k] if k in state.store and state.store[k].shape == v.shape else v
                for k, v in zip(keys, (h, c)))
    outs = []
    for t in range(steps):
        z = [x[:, t] @ wx[k].T + h @ wh[k].T + b[k] for k in range(4)]
        i, f, o = (1 / (1 + xp.exp(-z[k])) for k in (0, 1, 3))
        c = f * c + i * xp.tanh(z[2])
        if a["cell_clip"] > 0:
            c = xp.clip(c, -a["cell_clip"], a["cell_clip"])
        h = o * xp.tanh(c)
        outs.append(h)
    if a["carry_state"]:
        state.store.update(zip(keys, (np.asarray(h), np.asarray(c))))
    y = xp.stack(outs, axis=1)
    return xp.swapaxes(y, 0, 1) if a["time_major"] else y


def _jnp_lstm(a, *args):
    import jax.numpy as jnp
    if a["carry_state"]:
        raise NotImplementedError(f'LSTM "{a["state_name"]}": a carried state is not lowered to JAX (the desktop '
                                  "backend trains from a zero state: carry_state=False)")
    return _lstm(jnp, a, *args)


register(OpDef("UNIDIRECTIONAL_SEQUENCE_LSTM", attrs={"time_major": False, "cell_clip": 0.0, "carry_state": False,
                                                      "state_name": "lstm"},
               infer=_lstm_infer, numpy=lambda a, *args, state: _lstm(np, a, *args, state=state), jax=_jnp_lstm,
               stateful=True,
               tflite=_tfl("UNIDIRECTIONAL_SEQUENCE_LSTM", "UnidirectionalSequenceLSTMOptions",
                           {"time_major": "time_major", "cell_clip": "cell_clip"},
                           notes="24 inputs as LSTM_SLOTS; fused_activation_function TANH; carried: zeroed variable "
                                 "states; from zero: the unrolled steps' builtins")))


def lstm(x, input_weights, recurrent_weights, biases, time_major: bool = False, cell_clip: float = 0.0,
         carry_state: bool = False, name: str | None = None) -> Tensor:
    """UNIDIRECTIONAL_SEQUENCE_LSTM over x [batch, time, features] ([time, batch, ...] with `time_major`): the
    outputs h_t [batch, time, cells]. Each of `input_weights` [cells, features], `recurrent_weights` [cells, cells]
    and `biases` [cells] is four tensors or values, one per gate in TFLite's order (input, forget, cell, output).
    `cell_clip` > 0 clips the cell state. The state starts from zero at every run, or with `carry_state` from
    where the last run left it (zero the first time; a streaming model, written as TFLite's fused op). A carried
    state of a static batch is held in two untrained Variables (`<name>/h_state`, `<name>/c_state`): its
    gradient covers one run from the state the run started from, and a training file keeps it as resource
    variables its `infer` and `train` share."""
    x = as_tensor(x)
    weights = [as_tensor(w, dtype=x.dtype, graph=x.graph)
               for group in (input_weights, recurrent_weights, biases) for w in group]
    state_name = x.graph.unique_name(x.graph.scoped(name or "unidirectional_sequence_lstm"), reserve=False)
    batch = x.shape[1 if time_major else 0]
    if carry_state and batch is not None:
        cells = weights[4].shape[0]
        with x.graph.name_scope(None):  # made before the op, so that their reads see the state a run starts from
            for key in state_keys(state_name):
                Variable(np.zeros((batch, cells), x.dtype), name=key, trainable=False, graph=x.graph)
    return _apply("UNIDIRECTIONAL_SEQUENCE_LSTM", [x, *weights],
                  {"time_major": bool(time_major), "cell_clip": float(cell_clip), "carry_state": bool(carry_state),
                   "state_name": state_name}, name=name)


def state_keys(state_name: str) -> tuple[str, str]:
    """The names of a carried LSTM's h and c: the keys of the graph's store, and of the Variables holding them."""
    return f"{state_name}/h_state", f"{state_name}/c_state"


def state_variables(node) -> tuple[Variable, Variable] | None:
    """A carried LSTM's state Variables (made by `lstm`), None when its graph has none (an imported one)."""
    found = tuple(node.graph.variables.get(k) for k in state_keys(node.attrs["state_name"]))
    return found if all(v is not None for v in found) else None


def unrolled_lstm(node, inputs: list[Tensor], start: tuple[Tensor, Tensor] | None = None, final: bool = False):
    """An LSTM node's outputs rebuilt from builtins over `inputs` (stand-ins for the node's, or the node's own),
    from zero or from `start` (h, c): what its gradient differentiates, and what the converter writes. With
    `final`: (outputs, last h, last c)."""
    x, *w = inputs
    wx, wh, b = w[0:4], w[4:8], w[8:12]
    if node.attrs["time_major"]:
        x = ops.transpose(x, [1, 0, 2])
    steps, clip = x.shape[1], node.attrs["cell_clip"]
    if steps is None:
        raise ValueError(f'gradient of UNIDIRECTIONAL_SEQUENCE_LSTM "{node.name}": the time axis must be static')
    h, c = start if start is not None else (None, None)
    outs = []
    for t in range(steps):
        xt = ops.strided_slice(x, [0, t, 0], [0, t + 1, 0], begin_mask=5, end_mask=5, shrink_axis_mask=2)
        z = [ops.fully_connected(xt, wx[k], b[k]) for k in range(4)]
        if h is not None:
            z = [ops.add(z[k], ops.fully_connected(h, wh[k])) for k in range(4)]
        i, f, o = (ops.sigmoid(z[k]) for k in (0, 1, 3))
        c = ops.mul(i, ops.tanh(z[2])) if c is None else ops.add(ops.mul(f, c), ops.mul(i, ops.tanh(z[2])))
        if clip > 0:
            c = ops.minimum(ops.maximum(c, -clip), clip)
        h = ops.mul(o, ops.tanh(c))
        outs.append(h)
    y = ops.pack(outs, axis=0 if node.attrs["time_major"] else 1)
    return (y, h, c) if final else y


def _grad_lstm(node, dys):
    from ..autodiff import gradients

    start = None
    if node.attrs["carry_state"]:
        # backpropagation through this run's steps from the state it started from, a constant (the reads of the
        # state Variables, which see the value from before the run): the runs before are not differentiated
        held = state_variables(node)
        if held is None:
            raise NotImplementedError(
                f'gradient of UNIDIRECTIONAL_SEQUENCE_LSTM "{node.name}": its state is carried from the last run '
                "but is not held in Variables (an imported LSTM, or a dynamic batch), so the state a run starts "
                "from cannot be read; build it with ops.lstm(carry_state=True) over a static batch, or train one "
                "that starts from zero (carry_state=False)")
        start = (held[0].value, held[1].value)

    # over stand-ins (IDENTITY: no op in a file): a weight that reaches the node twice (through another of its
    # inputs) would otherwise take that path's share here and again from the outer walk
    stand_ins = [ops.identity(t) for t in node.inputs]
    return gradients(unrolled_lstm(node, stand_ins, start), stand_ins, grad_ys=dys[0], name="bptt")


GRADIENTS = {
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _grad_lstm,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
