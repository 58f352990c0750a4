"""Malformed or unsupported int8 UNIDIRECTIONAL_SEQUENCE_LSTM files give a Python error naming the op and what is
wrong (never a crash): missing intermediates or their quantization, wrong dtypes, missing gates or state, a
cell scale TFLite's kernel cannot take, peepholes with a projection to more outputs than cells (where
TFLite's kernel reads past its arrays)."""

from __future__ import annotations

import numpy as np
import pytest
from test_lstm_int8 import LstmSpec, lstm_int8_model

from rillet.runtime import Interpreter


@pytest.mark.parametrize("kwargs, words", [
    ({"n_intermediates": 0}, "5 intermediate tensors"),
    ({"n_intermediates": 4}, "the file gives 4"),
    ({"hidden_q": None}, "intermediate tensor 4 has no quantization"),
    ({"dtypes": {13: np.int8}}, "input 13 is int8, an int8 LSTM needs int32"),
    ({"dtypes": {2: np.int16}}, "input 2 is int16"),
    ({"dtypes": {19: np.int8}}, "int16 cell state"),
    ({"drop": {2}}, "the forget gate needs"),
    ({"drop": {18}}, "state tensors"),
    ({"cell_exponent": -5}, "outside 2^-15 to 2^-9"),
    ({"peephole": True, "n_output": 6}, "more outputs than cells"),
    ({"layer_norm": True, "drop": {22}}, "layer norm coefficients 22"),
])
def test_malformed_int8_lstm_is_a_clear_error(kwargs, words):
    content = lstm_int8_model(LstmSpec(**kwargs))
    with pytest.raises(Exception) as info:
        it = Interpreter(model_content=content)
        it.allocate_tensors()
    message = str(info.value)
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in message and words in message, message
