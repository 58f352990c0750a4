"""The op registry: one record per op (attrs schema, shape/dtype rule, numpy reference, JAX and TFLite lowerings)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

REQUIRED = object()  # marks an attr without a default


@dataclass(frozen=True)
class OpDef:
    """Everything rillet knows about one op.

    name:     the TFLite builtin's name where there is one ("CONV_2D"), else a rillet name.
    attrs:    attr name -> default value (REQUIRED if the attr must be given).
    infer:    (attrs, [(shape, dtype), ...]) -> [(shape, dtype), ...]; a None dimension is dynamic.
    numpy:    (attrs, *arrays) -> array or tuple of arrays: the reference semantics. Stateful ops also
              get `state=` (the Graph, for its variable store and random generator).
    jax:      (attrs, *arrays) -> array or tuple; imports jax itself, lazily. None where there is none.
    tflite:   how the converter writes it: {"builtin": name, "options": options table,
              "option_map": {attr: option field}, "attr_inputs": [attrs written as constant input tensors],
              "notes": "..."}; None for graph structure (placeholders, constants).
    The gradient rule is not here but beside the op, in its family's GRADIENTS (graph/ops/<family>.py).
    """

    name: str
    infer: Callable[[dict, list], list]
    numpy: Callable[..., Any]
    jax: Callable[..., Any] | None = None
    tflite: dict | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    stateful: bool = False

    def complete_attrs(self, given: dict) -> dict:
        """`given` with every attr this op has filled in from its defaults. ValueError naming an unknown
        attr, or a required one (REQUIRED) left out."""
        unknown = set(given) - set(self.attrs)
        if unknown:
            raise ValueError(f"{self.name}: unknown attrs {sorted(unknown)} (known: {sorted(self.attrs)})")
        out = {}
        for key, default in self.attrs.items():
            if key in given:
                out[key] = given[key]
            elif default is REQUIRED:
                raise ValueError(f'{self.name}: attr "{key}" is required')
            else:
                out[key] = default
        return out


REGISTRY: dict[str, OpDef] = {}
"""Every op the graph knows, by its TFLite-style name ("CONV_2D", "ADD", ...): its OpDef (`register` adds
one)."""


def register(opdef: OpDef) -> OpDef:
    if opdef.name in REGISTRY:
        raise ValueError(f"op {opdef.name} registered twice")
    REGISTRY[opdef.name] = opdef
    return opdef
