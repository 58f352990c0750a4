"""The int8 rule for UNIDIRECTIONAL_SEQUENCE_LSTM, as TensorFlow's quantizer writes TFLite's integer LSTM
(the 8x8->16 kernel: int8 input, output and output state, int8 weights, int16 cell state, peepholes and
layer norm coefficients, int32 biases, five intermediates).

TensorFlow adds the intermediates to the float op before calibrating and records into them with a logging
copy of the float kernel: the four gates' sums before layer norm (each gate's int16 scale, used with layer
norm; without it the kernel takes Q3.12) and the hidden state o * tanh(c) before the projection (int8).
Here `add_intermediates` adds them to the float model and `Replay` runs TFLite's float LSTM in numpy over
the op's calibrated inputs to see those values and the cell state (whose int16 scale is the power of two
2^(p - 15) with 2^p the smallest power of two reaching the largest |c| seen, TensorFlow's
GetPowerOfTwoScale). Weights are symmetric int8 per tensor, peepholes and layer norm coefficients symmetric
int16, gate biases int32 on the input times the input weights' scale (on the layer norm coefficients' scale
times 2^-10 with layer norm: the kernel adds them after normalizing), the projection bias on the projection
weights' scale times the hidden state's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rillet.converter.format import ModelFile, Tensor

from .params import QParams, round_half_away

LSTM = "UNIDIRECTIONAL_SEQUENCE_LSTM"
FLOAT32, INT8, INT16, INT32 = 0, 9, 7, 2
X, W_X, W_H, PEEPHOLE, BIAS, PROJ, PROJ_B, H_STATE, C_STATE, LAYER_NORM = 0, 1, 5, 9, 12, 16, 17, 18, 19, 20
TANH = 4
INT16_MAX = 32767


def lstm_ops(model: ModelFile, k: int = 0) -> list[int]:
    return [j for j, op in enumerate(model.subgraphs[k].operators) if model.op_name(op) == LSTM]


def _input(op, slot: int) -> int:
    return op.inputs[slot] if slot < len(op.inputs) else -1


def add_intermediates(model: ModelFile) -> ModelFile:
    """The model with five float intermediates on each LSTM that has none (what calibration records into)."""
    for k, sg in enumerate(model.subgraphs):
        for j in lstm_ops(model, k):
            op = sg.operators[j]
            if op.intermediates:
                continue
            name = sg.tensors[op.outputs[0]].name
            op.intermediates = []
            for what in ("input_gate", "forget_gate", "cell_gate", "output_gate", "hidden"):
                sg.tensors.append(Tensor(shape=[], type=FLOAT32, buffer=0, name=f"{name}/{what}"))
                op.intermediates.append(len(sg.tensors) - 1)
    return model


def internal_tensors(model: ModelFile, k: int = 0) -> set[int]:
    """Tensors an LSTM keeps to itself (its intermediates and state): calibration records them by replay,
    not from the interpreter."""
    found: set[int] = set()
    sg = model.subgraphs[k]
    for j in lstm_ops(model, k):
        op = sg.operators[j]
        found.update(op.intermediates or [])
        found.update(i for i in (_input(op, H_STATE), _input(op, C_STATE)) if i >= 0)
    return found


def why_float(model: ModelFile, k: int, j: int) -> str | None:
    """Why this float LSTM cannot become TFLite's integer LSTM, or None when it can."""
    op = model.subgraphs[k].operators[j]
    if op.builtin_options is None or op.builtin_options.fields().get("fused_activation_function", TANH) != TANH:
        return "TFLite's integer LSTM applies tanh, and this one another activation"
    for slot in list(range(W_X, PROJ_B + 1)) + list(range(LAYER_NORM, len(op.inputs))):
        i = _input(op, slot)
        if i >= 0 and model.tensor_data(k, i) is None:
            return f"its input {slot} (weights, bias or coefficients) is not a constant"
    if _input(op, W_X + 1) < 0 or _input(op, H_STATE) < 0 or _input(op, C_STATE) < 0:
        return "it has no forget gate weights or no state tensors"
    peephole = _input(op, PEEPHOLE + 1) >= 0
    n_cell, n_output = _dims(model, k, op)
    if peephole and n_output != n_cell:
        return ("TFLite's integer LSTM applies peepholes to n_output of the n_cell values (a quirk rillet's int8 "
                "kernel keeps for its bits), so with a projection to another size it would not compute this LSTM")
    return None


def _dims(model: ModelFile, k: int, op) -> tuple[int, int]:
    w_xo = model.tensor_data(k, op.inputs[W_X + 3])
    w_ho = model.tensor_data(k, op.inputs[W_H + 3])
    return w_xo.shape[0], w_ho.shape[1]


# ---------------------------------------------------------------------------------------- calibration

def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


class Replay:
    """TFLite's float LSTM (LstmStepFloat) in numpy for each LSTM of subgraph 0, its state carried from one
    sample to the next as the interpreter carries it, reporting the values the integer kernel's scales
    come from."""

    def __init__(self, model: ModelFile) -> None:
        sg = model.subgraphs[0]
        self.ops = []
        for j in lstm_ops(model):
            op = sg.operators[j]
            if not op.intermediates or why_float(model, 0, j):
                continue

            def const(slot: int, op=op) -> np.ndarray | None:
                i = _input(op, slot)
                return None if i < 0 else np.asarray(model.tensor_data(0, i), np.float64)

            fields = op.builtin_options.fields()
            self.ops.append({
                "op": op, "wx": [const(W_X + g) for g in range(4)], "wh": [const(W_H + g) for g in range(4)],
                "peephole": [const(PEEPHOLE), const(PEEPHOLE + 1), None, const(PEEPHOLE + 2)],
                "bias": [const(BIAS + g) for g in range(4)], "norm": [const(LAYER_NORM + g) for g in range(4)],
                "proj": const(PROJ), "proj_b": const(PROJ_B), "time_major": bool(fields.get("time_major")),
                "cell_clip": float(fields.get("cell_clip") or 0.0), "proj_clip": float(fields.get("proj_clip") or 0.0),
                "h": None, "c": None,
            })

    def needs(self) -> list[int]:
        return [r["op"].inputs[X] for r in self.ops]

    def record(self, values: dict[int, np.ndarray], add: Callable[[int, np.ndarray], None]) -> None:
        for r in self.ops:
            op = r["op"]
            if op.inputs[X] not in values:
                continue
            x = np.asarray(values[op.inputs[X]], np.float64)
            seq = x if r["time_major"] else np.swapaxes(x, 0, 1)  # [time, batch, input]
            n_cell, n_output = r["wx"][3].shape[0], r["wh"][3].shape[1]
            if r["h"] is None or r["h"].shape[0] != seq.shape[1]:
                r["h"], r["c"] = np.zeros((seq.shape[1], n_output)), np.zeros((seq.shape[1], n_cell))
            gates_seen = [[] for _ in range(4)]
            cells, hiddens, outputs = [], [], []
            for step in seq:
                gates = []
                for g in range(4):
                    if r["wx"][g] is None:  # CIFG: i = 1 - f
                        gates.append(None)
                        continue
                    s = step @ r["wx"][g].T + r["h"] @ r["wh"][g].T
                    if g == 3:  # the output gate's peephole reads the updated cell: done below
                        gates.append(s)
                        continue
                    if r["peephole"][g] is not None:
                        s = s + r["peephole"][g] * r["c"]
                    gates.append(self._activate(r, g, s, gates_seen))
                f, cell_gate = gates[1], gates[2]
                i = 1.0 - f if gates[0] is None else gates[0]
                c = f * r["c"] + i * cell_gate
                if r["cell_clip"] > 0:
                    c = np.clip(c, -r["cell_clip"], r["cell_clip"])
                o_sum = gates[3] if r["peephole"][3] is None else gates[3] + r["peephole"][3] * c
                o = self._activate(r, 3, o_sum, gates_seen)
                hidden = o * np.tanh(c)
                h = hidden
                if r["proj"] is not None:
                    h = hidden @ r["proj"].T + (0.0 if r["proj_b"] is None else r["proj_b"])
                    if r["proj_clip"] > 0:
                        h = np.clip(h, -r["proj_clip"], r["proj_clip"])
                r["c"], r["h"] = c, h
                cells.append(c)
                hiddens.append(hidden)
                outputs.append(h)
            for g in range(4):
                if gates_seen[g]:
                    add(op.intermediates[g], np.stack(gates_seen[g]))
            add(op.intermediates[4], np.stack(hiddens))
            add(op.inputs[C_STATE], np.stack(cells))
            self._check(op, values, np.stack(outputs), r["time_major"])

    @staticmethod
    def _activate(r: dict, g: int, s: np.ndarray, seen: list) -> np.ndarray:
        norm = r["norm"][g]
        if norm is not None:
            seen[g].append(s)  # what TensorFlow logs: the sum before layer norm
            mean = s.mean(axis=-1, keepdims=True)
            s = (s - mean) / np.sqrt(((s - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-8) * norm + r["bias"][g]
        else:
            s = s + r["bias"][g]
        return np.tanh(s) if g == 2 else _sigmoid(s)

    @staticmethod
    def _check(op, values: dict[int, np.ndarray], outputs: np.ndarray, time_major: bool) -> None:
        """The replay must follow the interpreter (same state, same values), or its ranges mean nothing."""
        y = values.get(op.outputs[0])
        if y is None:
            return
        mine = outputs if time_major else np.swapaxes(outputs, 0, 1)
        # float64 here, float32 there: over a long calibration the state drifts a little, never this far
        tolerance = 1e-2 * max(1.0, float(np.abs(y).max()))
        if mine.shape != np.shape(y) or float(np.abs(mine - y).max()) > tolerance:
            from .calibrate import CalibrationError

            raise CalibrationError(f"LSTM output tensor {op.outputs[0]}: the calibration replay of its float "
                                   f"kernel does not follow the interpreter (off by "
                                   f"{float(np.abs(mine - y).max()) if mine.shape == np.shape(y) else 'shape'})")


# ------------------------------------------------------------------------------------------ parameters

def int16_symmetric(values: np.ndarray) -> tuple[np.ndarray, QParams]:
    """Symmetric int16 (TensorFlow's for peepholes and layer norm coefficients): max|v| / 32767."""
    peak = float(np.abs(values).max()) if values.size else 0.0
    scale = np.float32(peak / INT16_MAX if peak > 0 else 1.0)
    q = np.clip(round_half_away(np.asarray(values, np.float64) / np.float64(scale)), -INT16_MAX, INT16_MAX)
    return q.astype(np.int16), QParams((float(scale),), (0,))


def cell_params(lo: float, hi: float) -> QParams:
    """The cell state's power-of-two int16 scale (TensorFlow's GetPowerOfTwoScale, at most 2^10), held to the
    2^-9 the integer kernel's tanh takes (cells past +-64 saturate)."""
    peak = max(abs(lo), abs(hi))
    power = 0
    for _ in range(10):
        if 2.0 ** power < peak:
            power += 1
    return QParams((2.0 ** (min(power, 6) - 15),), (0,))


def gate_params(lo: float, hi: float) -> QParams:
    peak = max(abs(lo), abs(hi))
    return QParams((float(np.float32(peak / INT16_MAX)) if peak > 0 else 2.0 ** -12,), (0,))


def internal_params(model: ModelFile, k: int, j: int, ranges: dict[int, tuple[float, float]],
                    output: QParams) -> tuple[dict[int, QParams], dict[int, int]]:
    """Parameters and types of the LSTM's own tensors: the intermediates, the cell and the output state (the
    output's parameters: TFLite copies it into the output)."""
    op = model.subgraphs[k].operators[j]
    layer_norm = _input(op, LAYER_NORM + 1) >= 0
    projection = _input(op, PROJ) >= 0
    params: dict[int, QParams] = {op.inputs[H_STATE]: output}
    types = {op.inputs[H_STATE]: INT8, op.inputs[C_STATE]: INT16}
    missing = [i for i in [op.inputs[C_STATE], op.intermediates[4]] if i not in ranges]
    if missing:
        raise ValueError(f"LSTM {model.subgraphs[k].tensors[op.outputs[0]].name!r}: calibration recorded no "
                         f"values of its state (it runs in a subgraph calibration does not replay)")
    params[op.inputs[C_STATE]] = cell_params(*ranges[op.inputs[C_STATE]])
    for g in range(4):
        i = op.intermediates[g]
        types[i] = INT16
        params[i] = gate_params(*ranges[i]) if layer_norm and i in ranges else QParams((2.0 ** -12,), (0,))
    hidden = op.intermediates[4]
    types[hidden] = INT8
    params[hidden] = hidden_params(*ranges[hidden]) if projection else output
    return params, types


def hidden_params(lo: float, hi: float) -> QParams:
    """The hidden state's int8 before a projection: symmetric. The kernel writes it with minus its zero point
    where plus is meant (and the projection's bias undoes that), so only a zero point of 0 keeps its values
    from saturating."""
    peak = max(abs(lo), abs(hi))
    return QParams((float(np.float32(peak / 127)) if peak > 0 else 1.0,), (0,))


def quantized_inputs(model: ModelFile, k: int, op, params: dict[int, QParams],
                     add_constant: Callable[[int, np.ndarray, int, QParams], int],
                     activation: Callable[[int], int], own: Callable[[int], int]) -> list[int]:
    """The int8 LSTM's inputs: add_constant(original tensor, values, type, params) writes a constant,
    activation(i) gives the int8 view of the input, own(i) the state tensor the plan typed."""
    from .params import quantize_bias, quantize_weights

    x_scale = params[op.inputs[X]].scale[0]
    layer_norm = _input(op, LAYER_NORM + 1) >= 0
    new = [-1] * len(op.inputs)
    new[X] = activation(op.inputs[X])
    new[H_STATE], new[C_STATE] = own(op.inputs[H_STATE]), own(op.inputs[C_STATE])
    weight_params: dict[int, QParams] = {}
    for slot in list(range(W_X, W_X + 8)) + [PROJ]:
        i = _input(op, slot)
        if i >= 0:
            q, weight_params[slot] = quantize_weights(model.tensor_data(k, i), None)
            new[slot] = add_constant(i, q, INT8, weight_params[slot])
    norm_params: dict[int, QParams] = {}
    for slot in list(range(PEEPHOLE, PEEPHOLE + 3)) + list(range(LAYER_NORM, LAYER_NORM + 4)):
        i = _input(op, slot)
        if i >= 0:
            q, p = int16_symmetric(model.tensor_data(k, i))
            norm_params[slot] = p
            new[slot] = add_constant(i, q, INT16, p)
    for g in range(4):
        i = _input(op, BIAS + g)
        if i < 0:
            continue
        if layer_norm:
            q, p = quantize_bias(model.tensor_data(k, i), norm_params[LAYER_NORM + g].scale[0] * 2.0 ** -10,
                                 QParams((1.0,), (0,)))
        else:
            q, p = quantize_bias(model.tensor_data(k, i), x_scale, weight_params[W_X + g])
        new[BIAS + g] = add_constant(i, q, INT32, p)
    i = _input(op, PROJ_B)
    if i >= 0:
        q, p = quantize_bias(model.tensor_data(k, i), params[op.intermediates[4]].scale[0], weight_params[PROJ])
        new[PROJ_B] = add_constant(i, q, INT32, p)
    return new
