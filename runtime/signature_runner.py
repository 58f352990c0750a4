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
        self._carried: dict[str, str] | None = None

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        """Runs the signature on `kwargs` (input name -> array): inputs whose shape differs are resized,
        the plan prepared when it must be; returns output name -> a copy of the output."""
        return self._interpreter._run_signature(self._subgraph_index, self._inputs, self._output_indices, kwargs,
                                                self._carried)

    def carry(self, **outputs_to_inputs: str) -> None:
        """Feeds outputs back as the next call's inputs inside the runtime, as a generation loop does with its
        KV cache (or a stateful model with its state): after `runner.carry(kv_cache_k_0="kv_cache_k_0")` each
        call copies output kv_cache_k_0 into input kv_cache_k_0 once it has run and leaves it out of the dict it
        returns, and a call may leave that input out (it then holds the last call's output) or pass it (to start
        again, a new prompt's cache). The first call after carry() must pass every input, as must the first
        after allocate_tensors() or another runner's call on the same subgraph (ValueError otherwise).
        `carry()` with no arguments stops carrying. rillet's own API: LiteRT's runner has no such method.
        A DYNAMIC_UPDATE_SLICE that writes a carried cache (its operand the carried input, its result the output)
        updates the input in place, so a step writes one slot instead of copying the cache twice; the input then
        holds the output after every invoke of this subgraph, as the copy would leave it. The plan is prepared
        again at the next call; after a call that fails, the next passes every input again.

        Raises:
            ValueError: a name that is not one of the signature's outputs or inputs, an input fed by two outputs,
                or an output whose type differs from its input's (a shape that differs is refused at the call).
        """
        outputs, inputs = self.get_output_details(), self.get_input_details()
        for output, name in outputs_to_inputs.items():
            if output not in outputs:
                raise ValueError(f"carry: {output!r} is not an output of signature {self._signature_key!r} "
                                 f"(its outputs: {', '.join(outputs)})")
            if name not in inputs:
                raise ValueError(f"carry: {name!r} is not an input of signature {self._signature_key!r} "
                                 f"(its inputs: {', '.join(inputs)})")
            if outputs[output]["dtype"] != inputs[name]["dtype"]:
                raise ValueError(f"carry: output {output!r} is {np.dtype(outputs[output]['dtype']).name}, input "
                                 f"{name!r} {np.dtype(inputs[name]['dtype']).name}")
        fed = list(outputs_to_inputs.values())
        if len(set(fed)) != len(fed):
            twice = next(name for name in fed if fed.count(name) > 1)
            raise ValueError(f"carry: input {twice!r} is fed by more than one output")
        self._carried = dict(outputs_to_inputs) or None
        self._interpreter._set_carried(self._subgraph_index, {self._output_indices[output]: self._inputs[name]
                                                              for output, name in outputs_to_inputs.items()})

    def get_input_details(self) -> dict[str, dict[str, Any]]:
        """The signature's inputs by name, each as `Interpreter.get_input_details()` describes one."""
        return {name: self._interpreter._get_tensor_details(i, self._subgraph_index)
                for name, i in self._inputs.items()}

    def get_output_details(self) -> dict[str, dict[str, Any]]:
        """The signature's outputs by name, in get_input_details' form."""
        return {name: self._interpreter._get_tensor_details(i, self._subgraph_index) for name, i in self._outputs}
