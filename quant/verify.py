"""The check that a quantized file runs in rillet: it is loaded and allocated in rillet's Interpreter before
it is handed back; an op rillet refuses is named, so that the quantizer can keep it float and try again."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rillet.converter.format import ModelFile, load


@dataclass
class Refusal:
    """What rillet's Interpreter said of a quantized file, and the op of the float model it names."""

    message: str
    keep: str | None  # the float op to keep float ("12", or "2:12" in subgraph 2); None: no op to blame
    label: str  # the float op as the quantizer names it ("BATCH_MATMUL #21 ('qk')")


def rillet_refusal(data: bytes, float_model: ModelFile, shapes: list[tuple[int, ...]] | None = None,
                   float_data: bytes | None = None) -> Refusal | None:
    """None when rillet's Interpreter loads `data` and allocates it (its inputs sized to `shapes`, the
    calibration's, where given); else what it refused, traced back to the op of `float_model` that became the
    refused op (quantized tensors keep their float tensors' names). Without `shapes`, a file refused at the
    stored shape where the float model (`float_data`) is too says nothing of quantization (an open axis
    stored as 1 that no window fits): no refusal."""
    try:
        from rillet.runtime import Interpreter
        from rillet.runtime.plan import InterpreterError
    except ImportError:  # no native library here: nothing to check against
        return None
    from .calibrate import allocate_for

    def refused(content: bytes) -> str | None:
        try:
            interpreter = Interpreter(model_content=content)
            if shapes is None:
                interpreter.allocate_tensors()
            else:
                allocate_for(interpreter, shapes)
        except (InterpreterError, ValueError, RuntimeError) as e:
            return str(e)
        return None

    message = refused(data)
    if message is None or (shapes is None and float_data is not None and refused(float_data) is not None):
        return None
    return _trace(message, load(data), float_model) or Refusal(message, None, "")


def _trace(message: str, quantized: ModelFile, float_model: ModelFile) -> Refusal | None:
    from .rewrite import _op_label

    for name, index in re.findall(r"\b([A-Z][A-Z0-9_]*) op (\d+)\b", message):
        j = int(index)
        for k, sg in enumerate(quantized.subgraphs):
            if j >= len(sg.operators) or quantized.op_name(sg.operators[j]) != name:
                continue
            outs = {sg.tensors[o].name for o in sg.operators[j].outputs or [] if o >= 0}
            original = float_model.subgraphs[k]
            for jj, op in enumerate(original.operators):
                if outs & {original.tensors[o].name for o in op.outputs or [] if o >= 0}:
                    return Refusal(message, f"{k}:{jj}" if k else str(jj), _op_label(float_model, jj, k))
    return None
