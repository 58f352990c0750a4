"""The int8 default's own choices (`quantize(auto=True)`): in a transformer, the parts that lose most at 8 bits
(layer norms, softmax, GELU, the residual stream and a convolutional stem) stay float, as litert-torch's PT2E
leaves them, the matrix products run int8, and activation ranges come from mse; any other model is
quantized as it was. Each choice comes with one line saying what and why, for the report."""

from __future__ import annotations

from dataclasses import dataclass, field

from rillet.converter.format import ModelFile

# The ops a layer norm is written with (TensorFlow's and litert-torch's lowerings): mean, variance, the
# reciprocal square root, the scale and shift.
NORM_OPS = {"MEAN", "SQUARED_DIFFERENCE", "RSQRT", "SQRT", "SUB", "ADD", "MUL", "DIV", "NEG"}
RESIDUAL_OPS = {"ADD", "SUB", "MUL"}
# Ops that only reshape: a layer norm's statistics pass through them (litert-torch's [17] mean reshaped to
# [1, 17, 1] before the subtraction); followed, never kept float themselves (the planner leaves them float
# where what they read is float).
RESHAPES = frozenset({"RESHAPE", "EXPAND_DIMS", "SQUEEZE"})
STEM_OPS = {"CONV_2D", "DEPTHWISE_CONV_2D"}


@dataclass
class AutoChoice:
    """What the default chose: keep_float entries (op indices), the calibration method, one line each."""

    keep: list[str] = field(default_factory=list)
    calibration: str | None = None
    lines: list[str] = field(default_factory=list)


def _entry(k: int, j: int) -> str:
    return f"{k}:{j}" if k else str(j)


def _count(model: ModelFile, sg_ops: list, indices: list[int]) -> str:
    """"9 MEAN, 9 RSQRT": the op types among `indices`, most first."""
    found: dict[str, int] = {}
    for j in indices:
        name = model.op_name(sg_ops[j])
        found[name] = found.get(name, 0) + 1
    return ", ".join(f"{n} {name}" for name, n in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))


def transformer_choice(model: ModelFile, *, keep_given: bool, calibration_given: bool) -> AutoChoice:
    """The int8 default's choices for `model`: none where no subgraph holds attention (a BATCH_MATMUL of two
    activations) with a SOFTMAX feeding one, or beside a layer norm. keep_given / calibration_given: the caller
    named keep_float / calibration itself, which then stand as given (the lines say so)."""
    choice = AutoChoice()
    for k, sg in enumerate(model.subgraphs):
        ops = sg.operators
        names = [model.op_name(op) for op in ops]

        def activation(i: int) -> bool:
            return i >= 0 and model.tensor_data(k, i) is None

        producer = {o: j for j, op in enumerate(ops) for o in op.outputs or [] if o >= 0}
        readers: dict[int, list[int]] = {}
        for j, op in enumerate(ops):
            for i in op.inputs or []:
                if i >= 0:
                    readers.setdefault(i, []).append(j)
        attention = [j for j, op in enumerate(ops) if names[j] == "BATCH_MATMUL" and len(op.inputs or []) >= 2
                     and activation(op.inputs[0]) and activation(op.inputs[1])]

        def reached(j: int, through: frozenset[str] = RESHAPES) -> list[int]:
            """The ops that read op j's outputs, through the ops `through` names."""
            found, todo = [], [r for o in ops[j].outputs or [] for r in readers.get(o, [])]
            while todo:
                r = todo.pop()
                if names[r] in through:
                    todo += [n for o in ops[r].outputs or [] for n in readers.get(o, [])]
                else:
                    found.append(r)
            return found

        # a layer norm's mean: a MEAN whose result is subtracted from (or squared against) the values it averages
        norm_means = [j for j in range(len(ops)) if names[j] == "MEAN" and any(
            names[r] in ("SQUARED_DIFFERENCE", "SUB", "NEG") for r in reached(j))]
        softmaxes = [j for j in range(len(ops)) if names[j] == "SOFTMAX"]
        # attention weighs values by a softmax (read through reshapes and transposes); a classifier's softmax
        # at the end of a CNN with some product of two activations is not a transformer
        weighs = any(r in attention for j in softmaxes for r in reached(j, RESHAPES | {"TRANSPOSE"}))
        if not attention or not (weighs or norm_means):
            continue
        # each layer norm: every NORM_OPS op its mean reaches through NORM_OPS ops (stops at a matrix product)
        norm: set[int] = set()
        todo = list(norm_means)
        while todo:
            j = todo.pop()
            if j in norm:
                continue
            norm.add(j)
            todo += [r for r in reached(j) if names[r] in NORM_OPS]
        gelus = [j for j in range(len(ops)) if names[j] == "GELU"]
        residual = [j for j, op in enumerate(ops) if names[j] in RESIDUAL_OPS and j not in norm
                    and any(activation(i) for i in op.inputs or [])]
        # a stem: a convolution the first attention reads from (ops are in execution order); a convolution
        # between blocks (a Conformer's) is not one
        upstream: set[int] = set()
        todo = list(ops[attention[0]].inputs or [])
        while todo:
            i = todo.pop()
            j = producer.get(i)
            if j is None or j in upstream:
                continue
            upstream.add(j)
            todo += list(ops[j].inputs or [])
        stem = [j for j in sorted(upstream) if names[j] in STEM_OPS]
        where = f" in subgraph {k}" if k else ""
        norms = f"{len(norm_means)} layer norm{'s' if len(norm_means) != 1 else ''}"
        choice.lines.append(
            f"transformer{where}: {len(attention)} BATCH_MATMUL of two activations (attention), "
            f"{len(softmaxes)} SOFTMAX, {norms}: int8 around the matrix products, float where 8 bits lose most "
            "(as litert-torch's PT2E); --no-auto quantizes every op")
        parts = [
            (sorted(norm), "layer norms", "the variance and its reciprocal square root span orders of magnitude one "
             "int8 scale cannot hold"),
            (softmaxes, "softmax", "int8 SOFTMAX's output step of 1/256 rounds small attention weights to 0"),
            (gelus, "GELU", "its input's range is set by rare large values, leaving the many small ones few steps"),
            (residual, "residual stream", "the residual adds (and the position embedding's, attention's scale and "
             "mask): a sum of the stream and a branch at one int8 scale drops the branch's small values, and the "
             "error carries through every block"),
            (stem, "stem", "the convolution that starts the residual stream: its error reaches every block"),
        ]
        for found, role, why in parts:
            if not found:
                continue
            if keep_given:
                choice.lines.append(f"{role} ({_count(model, ops, found)}): as --keep-float says (it overrides)")
                continue
            choice.keep += [_entry(k, j) for j in found]
            choice.lines.append(f"{role} float ({_count(model, ops, found)}): {why}")
    if choice.lines:
        if calibration_given:
            choice.lines.append("calibration as --calibration says (it overrides mse)")
        else:
            choice.calibration = "mse"
            choice.lines.append("calibration mse: the int8 activations' ranges with the least squared error; min/max "
                                "spends the 256 steps on a few outliers")
    return choice
