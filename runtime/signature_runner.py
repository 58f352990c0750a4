"""`SignatureRunner`: one SignatureDef of an Interpreter, run by its input and output names, as LiteRT's
(same constructor, same attributes LiteRT's users reach for: `_inputs`, `_outputs`, `_subgraph_index`,
`_signature_key`, `_signature_def`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .interpreter import Interpreter


class SignatureRunner:
    """Runs one signature of a model by its names, as LiteRT's SignatureRunner: `runner(image=x)` returns
    `{"probs": array}`. Get one from `Interpreter.get_signature_runner(key)`.

    Args:
        interpreter: the Interpreter whose model holds the signature.
        signature_key: the signature's key, as `Interpreter.get_signature_list()` lists it.

    Raises:
        ValueError: no interpreter or key given, or a key the model has no signature for.
    """

    def __init__(self, interpreter: Interpreter | None = None, signature_key: str | None = None) -> None:
        if not interpreter:
            raise ValueError("None interpreter provided.")
        if not signature_key:
            raise ValueError("None signature_key provided.")
        self._interpreter = interpreter
        self._signature_key = signature_key
        signature_defs = interpreter._get_full_signature_list()
        if signature_key not in signature_defs:
            raise ValueError(f'Invalid signature_key provided: "{signature_key}".')
        self._signature_def = signature_defs[signature_key]
        self._inputs: dict[str, int] = self._signature_def["inputs"]
        self._outputs = self._signature_def["outputs"].items()
        self._output_indices: dict[str, int] = dict(self._outputs)
        self._subgraph_index: int = interpreter._signature_subgraphs()[signature_key]

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        """Runs the signature on `kwargs` (input name -> array): inputs whose shape differs are resized,
        the plan prepared when it must be; returns output name -> a copy of the output."""
        return self._interpreter._run_signature(self._subgraph_index, self._inputs, self._output_indices, kwargs)

    def get_input_details(self) -> dict[str, dict[str, Any]]:
        """The signature's inputs by name, each as `Interpreter.get_input_details()` describes one."""
        return {name: self._interpreter._get_tensor_details(i, self._subgraph_index)
                for name, i in self._inputs.items()}

    def get_output_details(self) -> dict[str, dict[str, Any]]:
        """The signature's outputs by name, in get_input_details' form."""
        return {name: self._interpreter._get_tensor_details(i, self._subgraph_index) for name, i in self._outputs}
