"""The XLA backend against the numpy reference: inference, training steps, two devices, checkpoints."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

import xla_nets

from rillet.graph import Graph, Variable, ops, placeholder
from rillet.targets import xla


def close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_inference_matches_numpy_reference():
    net = xla_nets.conv_dense_net()
    (xb, _), = xla_nets.batches(1)
    expected = net["graph"].run(net["logits"], {net["x"]: xb})
    step = xla.compile({"logits": net["logits"]}, feeds=[net["x"]])
    fetched, new_values = step(net["graph"].store, [xb])
    close(fetched["logits"], expected)
    for name, value in new_values.items():  # inference assigns nothing
        np.testing.assert_array_equal(value, net["graph"].store[name])
    close(xla.XlaRunner(net["logits"], ["x"]).run([xb[:3]]), expected[:3])  # another batch size retraces


def test_training_steps_match_numpy_reference():
    reference, jitted = xla_nets.conv_dense_net(), xla_nets.conv_dense_net()
    initial = jitted["graph"].store["dense/weights"].copy()
    weights = jitted["graph"].variables["dense/weights"]
    runner = xla.XlaRunner([jitted["loss"], weights, jitted["train"]], [jitted["x"], jitted["labels"]])
    for i, (xb, yb) in enumerate(xla_nets.batches(3)):
        expected_loss = reference["graph"].run([reference["loss"], reference["train"]],
                                               {"x": xb, "labels": yb})[0]
        loss, read, nothing = runner.run({"x": xb, "labels": yb})
        close(loss, expected_loss)
        assert nothing is None
        if i == 0:  # reads see the values from before the step's assignments
            np.testing.assert_array_equal(read, initial)
        for name, value in runner.variables().items():
            close(value, reference["graph"].store[name])
    assert not np.allclose(runner.variables()["dense/weights"], initial)
    assert np.array_equal(jitted["graph"].store["dense/weights"], initial)  # until synced
    runner.sync_to_graph()
    close(jitted["graph"].store["dense/weights"], reference["graph"].store["dense/weights"])


def test_optimizer_train_op_matches_numpy_reference():
    optimizers = pytest.importorskip("rillet.graph.optimizers")
    graphs = []
    for _ in range(2):
        net = xla_nets.conv_dense_net()
        with net["graph"].as_default():
            net["train"] = optimizers.Adam(0.01).minimize(net["loss"])
        graphs.append(net)
    reference, jitted = graphs
    runner = xla.XlaRunner([jitted["loss"], jitted["train"]], ["x", "labels"])
    for xb, yb in xla_nets.batches(3):
        expected = reference["graph"].run([reference["loss"], reference["train"]], {"x": xb, "labels": yb})[0]
        close(runner.run([xb, yb])[0], expected)
    for name, value in runner.variables().items():
        close(value, reference["graph"].store[name])


DATA_PARALLEL_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import jax, numpy as np, xla_nets
from rillet.targets import xla
results = {"devices": len(jax.devices())}
for mode in ("one", "two"):
    net = xla_nets.conv_dense_net()
    runner = xla.XlaRunner([net["loss"], net["logits"], net["train"]], [net["x"], net["labels"]],
                           data_parallel=mode == "two", devices=jax.devices()[:1] if mode == "one" else None)
    losses = [float(runner.run([xb, yb])[0]) for xb, yb in xla_nets.batches(3)]
    results[mode] = {"losses": losses, "variables": {k: v.tolist() for k, v in runner.variables().items()},
                     "state_devices": len(runner._values["dense/weights"].sharding.device_set)}
try:
    runner.run([np.zeros((3, 8, 8, 2), np.float32), np.zeros(3, np.int32)])
except ValueError as e:
    results["uneven"] = str(e)
print(json.dumps(results))
"""


def test_data_parallel_on_two_devices_matches_one(tmp_path):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    # run outside the checkout: python puts the cwd on sys.path, and ./rillet would shadow the installed package
    out = subprocess.run([sys.executable, "-c", DATA_PARALLEL_SCRIPT, str(Path(__file__).parent)],
                         check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert results["devices"] == 2
    assert results["one"]["state_devices"] == 1 and results["two"]["state_devices"] == 2
    close(results["two"]["losses"], results["one"]["losses"])
    for name, value in results["one"]["variables"].items():
        close(np.array(results["two"]["variables"][name]), np.array(value))
    assert "batch of 3 does not split evenly over 2 devices" in results["uneven"]


def test_checkpoint_round_trip(tmp_path):
    trained = xla_nets.conv_dense_net()
    runner = xla.XlaRunner(trained["train"], ["x", "labels"])
    runner.run(list(xla_nets.batches(1)[0]))
    xla.save_checkpoint(tmp_path / "runner.npz", runner)

    fresh = xla_nets.conv_dense_net(seed=5)
    assert xla.load_checkpoint(tmp_path / "runner.npz", fresh["graph"]) == sorted(runner.variables())
    for name, value in runner.variables().items():
        np.testing.assert_array_equal(fresh["graph"].store[name], value)

    xla.save_checkpoint(tmp_path / "graph.npz", fresh["graph"])
    other = xla.XlaRunner(xla_nets.conv_dense_net(seed=6)["logits"], ["x"])
    xla.load_checkpoint(tmp_path / "graph.npz", other)
    for name, value in other.variables().items():
        np.testing.assert_array_equal(value, runner.variables()[name])

    graph = Graph()
    with graph.as_default():
        Variable(np.zeros(2, np.float32), name="file")  # a name np.savez's keywords would have clashed with
    with pytest.raises(KeyError, match="missing variables.*unknown variables|unknown variables.*missing"):
        xla.load_checkpoint(tmp_path / "graph.npz", graph)
    xla.save_checkpoint(tmp_path / "file.npz", graph)
    assert xla.load_checkpoint(tmp_path / "file.npz", graph) == ["file"]


def test_errors_name_what_the_user_gave():
    net = xla_nets.conv_dense_net()
    with pytest.raises(ValueError, match='input "labels" is needed'):
        xla.compile(net["loss"], feeds=[net["x"]])
    with pytest.raises(KeyError, match='no input named "y"'):
        xla.compile(net["loss"], feeds=["x", "y"])


def test_runner_takes_variables_made_after_it():
    net = xla_nets.conv_dense_net()
    runner = xla.XlaRunner(net["logits"], ["x"])
    with net["graph"].as_default():
        scale = Variable(np.float32(2.0), name="scale")
        scaled = net["logits"] * scale
    (xb, _), = xla_nets.batches(1)
    close(runner.run({"x": xb}, fetches=scaled), net["graph"].run(scaled, {"x": xb}))
    assert runner.variables()["scale"] == 2.0


def test_random_ops_draw_new_values_each_run():
    graph = Graph()
    with graph.as_default():
        x = placeholder([None, 4], name="x")
        noise = ops.random_uniform_like(x)
    runner = xla.XlaRunner(noise, [x])
    first, second = runner.run([np.zeros((2, 4), np.float32)]), runner.run([np.zeros((2, 4), np.float32)])
    assert first.shape == (2, 4) and np.all((first >= 0) & (first < 1))
    assert not np.array_equal(first, second)
