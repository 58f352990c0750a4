"""Checkpoints hold any variable name: the runtime writes them member by member, so variables named "file"
or "allow_pickle" (np.savez's own keywords) save and restore like any other."""

from __future__ import annotations

import numpy as np

import rillet as rl
from rillet.graph import Graph, Variable, ops, optimizers
from rillet.runtime import Interpreter


def test_variables_named_like_savez_keywords_round_trip(tmp_path):
    g = Graph()
    with g.as_default():
        x = ops.placeholder([4, 3], name="x")
        weights = Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="file")
        bias = Variable(np.zeros(2, np.float32), name="allow_pickle")
        y = ops.add(ops.batch_matmul(x, weights.value), bias.value)
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.1), trainable=[weights, bias])
    data = rl.convert(inputs={"x": x}, outputs={"y": y}, train=spec)
    rs = np.random.default_rng(0)
    feeds = {"x": rs.normal(size=(4, 3)).astype(np.float32), "y": rs.normal(size=(4, 2)).astype(np.float32)}
    it = Interpreter(model_content=data)
    it.get_signature_runner("train")(**feeds)
    trained = it.get_variables()
    assert set(trained) == {"file", "allow_pickle"}
    assert not np.array_equal(trained["file"], weights.initial_value)  # the step changed it
    it.save_checkpoint(tmp_path / "names.npz")
    with np.load(tmp_path / "names.npz") as saved:
        assert sorted(saved.files) == ["allow_pickle", "file"]
    fresh = Interpreter(model_content=data)
    fresh.restore_checkpoint(tmp_path / "names.npz")
    restored = fresh.get_signature_runner("save")()
    for name, value in trained.items():
        np.testing.assert_array_equal(restored[name], value)
