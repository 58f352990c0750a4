"""A well-formed file whose graph is not a dataflow graph is refused at load, naming the op: an op writing a
graph input (a RESHAPE -> PAD cycle back into the input crashed at invoke), two writers of one tensor, a tensor
read before any op writes it, an op writing a constant."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.converter.format import Operator, load, save
from rillet.runtime import Interpreter, InterpreterError

F32 = np.float32


def _relu_model():
    """in0 -> RELU -> out0, as plain objects to rewire."""
    return load(op_model("RELU", [Input((1, 4))], [((1, 4), F32)]))


def _refused(model, pattern: str) -> None:
    with pytest.raises(InterpreterError, match=pattern):
        Interpreter(model_content=save(model))


def test_an_op_writing_a_graph_input_is_refused():
    model = _relu_model()
    sg = model.subgraphs[0]
    sg.operators.append(Operator(opcode_index=0, inputs=[sg.outputs[0]], outputs=[sg.inputs[0]]))
    _refused(model, r"RELU op 1 .*output 0 writes tensor 0, a graph input")


def test_a_reshape_pad_cycle_into_the_input_is_refused():
    m = load(op_model("RESHAPE", [Input((1, 4)), np.array([1, 4], np.int32)], [((1, 4), F32)], {"new_shape": [1, 4]}))
    pad = load(op_model("PAD", [Input((1, 4)), np.zeros((2, 2), np.int32)], [((1, 4), F32)]))
    sg = m.subgraphs[0]
    m.operator_codes.append(pad.operator_codes[0])
    zero_pads = copy.deepcopy(pad.subgraphs[0].tensors[1])
    m.buffers.append(pad.buffers[zero_pads.buffer])
    zero_pads.buffer = len(m.buffers) - 1
    sg.tensors.append(zero_pads)
    sg.operators.append(Operator(opcode_index=1, inputs=[sg.outputs[0], len(sg.tensors) - 1], outputs=[sg.inputs[0]]))
    _refused(m, r"PAD op 1 .*writes tensor 0, a graph input")


def test_two_writers_of_one_tensor_are_refused():
    model = _relu_model()
    sg = model.subgraphs[0]
    sg.operators.append(copy.deepcopy(sg.operators[0]))
    _refused(model, r"RELU op 1 .*writes tensor 1, which op 0 writes already")


def test_a_tensor_read_before_it_is_written_is_refused():
    model = _relu_model()
    sg = model.subgraphs[0]
    middle = copy.deepcopy(sg.tensors[sg.outputs[0]])
    middle.name = "middle"
    sg.tensors.append(middle)
    m_index = len(sg.tensors) - 1
    # out0 = RELU(middle) runs before middle = RELU(in0): the order is not topological.
    sg.operators = [Operator(opcode_index=0, inputs=[m_index], outputs=[sg.outputs[0]]),
                    Operator(opcode_index=0, inputs=[sg.inputs[0]], outputs=[m_index])]
    _refused(model, r"RELU op 0 .*input 0 \(tensor 2\) is read before any op writes it")


def test_an_op_writing_a_constant_is_refused():
    m = load(op_model("ADD", [Input((1, 4)), np.ones((1, 4), F32)], [((1, 4), F32)], {}))
    sg = m.subgraphs[0]
    sg.operators[0].outputs = [1]
    sg.outputs = [1]
    _refused(m, r"ADD op 0 .*output 0 \(tensor 1\) is a constant of the file")


def test_a_proper_chain_still_runs():
    model = _relu_model()
    sg = model.subgraphs[0]
    middle = copy.deepcopy(sg.tensors[sg.outputs[0]])
    sg.tensors.append(middle)
    m_index = len(sg.tensors) - 1
    sg.operators = [Operator(opcode_index=0, inputs=[sg.inputs[0]], outputs=[m_index]),
                    Operator(opcode_index=0, inputs=[m_index], outputs=[sg.outputs[0]])]
    it = Interpreter(model_content=save(model))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.array([[-1, 2, -3, 4]], F32))
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), [[0, 2, 0, 4]])
