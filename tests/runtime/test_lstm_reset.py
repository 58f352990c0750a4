"""reset_all_variables() zeroes an UNIDIRECTIONAL_SEQUENCE_LSTM's state (h and c, the model's variable tensors)
as LiteRT's does: the next invoke gives what a fresh interpreter's first invoke gives, in rillet and in LiteRT.
Resource variables are left alone, as in LiteRT."""

from __future__ import annotations

import numpy as np
import pytest
from test_lstm import lstm_model, run_invokes

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")


@pytest.mark.parametrize("kwargs", [{}, {"time_major": True, "peephole": True}, {"n_output": 3, "proj_clip": 0.3}])
def test_reset_all_variables_zeroes_lstm_state(kwargs):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = lstm_model(**kwargs)
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    rng = np.random.default_rng(2)
    first, second = (rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(2))
    feeds = [first, second, first, second]
    ours = run_invokes(Interpreter, content, feeds, reset_after=2)
    theirs = run_invokes(LiteRT, content, feeds, reset_after=2)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)
    # after the reset the sequence starts again: the same bits as before it, not a continuation
    np.testing.assert_array_equal(ours[2], ours[0])
    np.testing.assert_array_equal(ours[3], ours[1])
    fresh = run_invokes(Interpreter, content, [first], reset_after=-1)[0]
    np.testing.assert_array_equal(ours[2], fresh)


def test_without_reset_the_state_carries_on():
    """The test above could not fail if the state never carried over: here it does."""
    content = lstm_model()
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    x = np.random.default_rng(3).uniform(-1, 1, shape).astype(np.float32)
    outs = run_invokes(Interpreter, content, [x, x], reset_after=-1)
    assert not np.allclose(outs[0], outs[1])


def test_reset_before_the_first_invoke_is_harmless():
    content = lstm_model()
    it = Interpreter(model_content=content)
    it.reset_all_variables()  # before allocate_tensors: nothing is kept yet
    it.allocate_tensors()
    it.reset_all_variables()
    shape = it.get_input_details()[0]["shape"]
    x = np.random.default_rng(4).uniform(-1, 1, shape).astype(np.float32)
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]),
                                  run_invokes(Interpreter, content, [x], reset_after=-1)[0])
