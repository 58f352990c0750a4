"""fit: deterministic given its seed, resumed runs give the bits of uninterrupted ones, an interrupted run
loses nothing, bad input gets an error naming it, TensorBoard scalars read back, bfloat16 compute, and
fit computes what a hand-written loop of XlaRunner steps computes."""

from __future__ import annotations

import json
import os
import signal
import struct

import fit_nets
import numpy as np
import pytest

pytest.importorskip("jax")

from rillet.graph import losses, optimizers, placeholder
from rillet.targets import fit_data, xla


def train(model=None, data=None, **kw):
    model = model or fit_nets.model()
    options = {"loss": "softmax_cross_entropy", "optimizer": optimizers.Adam(0.01), "epochs": 2,
                   "batch_size": fit_nets.BATCH, "metrics": ["accuracy"], "progress": False}
    options.update(kw)
    history = xla.fit(model, fit_nets.data() if data is None else data, **options)
    return history, dict(model.graph.store)


def assert_same_bits(a, b):
    assert a[0] == b[0]
    assert sorted(a[1]) == sorted(b[1])
    for name in a[1]:
        assert a[1][name].tobytes() == b[1][name].tobytes(), name


def interrupt_at_step(monkeypatch, step: int):
    """SIGINT to this process as training batch `step` (1-based) is read, as a Ctrl-C would arrive."""
    read = {"batches": 0}
    for source in (fit_data.ArraySource, fit_data.IterableSource):
        def epoch(self, index, start=0, original=source.epoch):
            for batch in original(self, index, start):
                read["batches"] += 1
                if read["batches"] == step:
                    os.kill(os.getpid(), signal.SIGINT)
                yield batch
        monkeypatch.setattr(source, "epoch", epoch)


def test_same_seed_same_bits_and_training_learns():
    first, second = train(validation=fit_nets.validation()), train(validation=fit_nets.validation())
    assert_same_bits(first, second)
    history = first[0]
    assert sorted(history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert all(len(v) == 2 for v in history.values())
    assert history["loss"][1] < history["loss"][0]
    other_seed = train(seed=1)
    assert other_seed[0]["loss"] != history["loss"]  # the seed orders the batches


def test_npz_and_batches_give_what_arrays_give(tmp_path):
    x, y = fit_nets.data()
    np.savez(tmp_path / "train.npz", x=x, y=y)
    from_arrays = train(shuffle=False)
    assert_same_bits(train(data=str(tmp_path / "train.npz"), shuffle=False), from_arrays)
    batches = [(x[i:i + 8], y[i:i + 8]) for i in range(0, 40, 8)]
    assert_same_bits(train(data=batches), from_arrays)
    assert_same_bits(train(data={"image": x, "labels": y}, shuffle=False), from_arrays)


def test_resume_from_a_checkpoint_mid_epoch_equals_an_uninterrupted_run(tmp_path, monkeypatch):
    uninterrupted = train(epochs=3, validation=fit_nets.validation())
    folder = tmp_path / "ckpt"
    interrupt_at_step(monkeypatch, 7)  # epoch 2 of 3, batch 2 of 5; checkpoints every 4 steps
    with pytest.raises(KeyboardInterrupt, match="stopped at step 7"):
        train(epochs=3, validation=fit_nets.validation(), checkpoint_dir=folder, every=4)
    state = json.loads((folder / "checkpoint.json").read_text())
    # nothing lost between checkpoints: the stop wrote step 7, not the step-4 checkpoint
    assert (state["step"], state["epoch"], state["batch"]) == (7, 1, 2)
    assert len(state["epoch_values"]) == 2 and len(state["history"]["loss"]) == 1
    assert sorted(p.name for p in folder.glob("ckpt-*.npz")) == ["ckpt-4.npz", "ckpt-7.npz"]
    monkeypatch.undo()
    resumed = train(epochs=3, validation=fit_nets.validation(), checkpoint_dir=folder, every=4)
    assert_same_bits(resumed, uninterrupted)
    # the finished run's checkpoint holds it all: a later call trains no more and returns the history
    again = train(epochs=3, validation=fit_nets.validation(), checkpoint_dir=folder, every=4)
    assert_same_bits(again, uninterrupted)
    # every checkpoint's variables are a plain checkpoint load_checkpoint reads
    model = fit_nets.model()
    train(model=model, epochs=0)  # builds the optimizer's slots
    xla.load_checkpoint(folder / json.loads((folder / "checkpoint.json").read_text())["variables"], model.graph)
    for name, value in uninterrupted[1].items():
        np.testing.assert_array_equal(model.graph.store[name], value)


def test_resume_of_batches_from_an_iterable(tmp_path, monkeypatch):
    x, y = fit_nets.data()
    batches = [(x[i:i + 8], y[i:i + 8]) for i in range(0, 40, 8)]
    uninterrupted = train(data=batches, epochs=2)
    interrupt_at_step(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        train(data=batches, epochs=2, checkpoint_dir=tmp_path)
    monkeypatch.undo()
    assert_same_bits(train(data=batches, epochs=2, checkpoint_dir=tmp_path), uninterrupted)


def test_an_error_mid_run_still_checkpoints_the_steps_done(tmp_path):
    x, y = fit_nets.data()
    good = [(x[i:i + 8], y[i:i + 8]) for i in range(0, 24, 8)]

    def batches():
        yield from good
        yield x[:8, :, :, 0], y[:8]  # a batch of the wrong shape
    with pytest.raises(xla.FitError, match=r'"image": a batch of shape \[8, 6, 6\], the model takes '
                                           r"\[batch, 6, 6, 1\]"):
        train(data=batches(), epochs=1, checkpoint_dir=tmp_path)
    assert json.loads((tmp_path / "checkpoint.json").read_text())["step"] == 3


def test_bad_input_gets_an_error_naming_it(tmp_path):
    x, y = fit_nets.data()
    with pytest.raises(xla.FitError, match=r'"image": a batch of shape \[8, 6, 6, 2\]'):
        train(data=(np.concatenate([x, x], -1), y))
    with pytest.raises(xla.FitError, match='unknown metric "acuracy" .*accuracy'):
        train(metrics=["acuracy"])
    with pytest.raises(xla.FitError, match='unknown loss "cross_entropy"'):
        train(loss="cross_entropy")
    with pytest.raises(xla.FitError, match='"labels": float32 values, the model takes int32'):
        train(data=[(x[:8], y[:8]), (x[8:16], y[8:16].astype(np.float32))], epochs=1)
    with pytest.raises(xla.FitError, match="40 examples make no whole batch of 64"):
        train(batch_size=64)

    train(epochs=1, checkpoint_dir=tmp_path)
    with pytest.raises(xla.CheckpointMismatchError, match=r'another model\'s: variable "logits/kernel" is float32 '
                                                          r"\[3, 36\], this model.s is float32 \[4, 36\]"):
        train(model=fit_nets.model(classes=4), data=(x, y % 4), epochs=1, checkpoint_dir=tmp_path)
    with pytest.raises(xla.CheckpointMismatchError, match="written with batch_size 8, this run has 4"):
        train(epochs=1, checkpoint_dir=tmp_path, batch_size=4)
    assert train(epochs=1, checkpoint_dir=tmp_path, batch_size=4, resume=False)[0]["loss"]


def test_tensorboard_scalars_read_back(tmp_path):
    pytest.importorskip("tensorboardX")
    from tensorboardX.proto import event_pb2

    history, _ = train(log_dir=tmp_path, validation=fit_nets.validation())
    scalars: dict[str, list[tuple[int, float]]] = {}
    for path in tmp_path.glob("events.out.tfevents.*"):
        for record in _tfrecords(path.read_bytes()):
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                scalars.setdefault(value.tag, []).append((event.step, value.simple_value))
    assert [step for step, _ in scalars["train/loss"]] == list(range(1, 11))  # 5 steps an epoch, 2 epochs
    np.testing.assert_allclose([v for _, v in scalars["epoch/loss"]], history["loss"], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in scalars["epoch/val_accuracy"]], history["val_accuracy"], rtol=1e-6)
    np.testing.assert_allclose(np.mean([v for _, v in scalars["train/loss"][:5]]), history["loss"][0], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in scalars["train/learning_rate"]], 0.01, rtol=1e-6)
    assert all(v > 0 for _, v in scalars["train/step_time"])


def _tfrecords(data: bytes):
    """TFRecord framing: length (u64), its CRC, the record, its CRC."""
    offset = 0
    while offset < len(data):
        (length,) = struct.unpack_from("<Q", data, offset)
        yield data[offset + 12:offset + 12 + length]
        offset += 12 + length + 4


def test_bfloat16_compute_keeps_float32_variables():
    exact = train(epochs=3)
    mixed = train(epochs=3, precision="bfloat16")
    assert all(v.dtype == np.float32 for v in mixed[1].values())
    assert mixed[0]["loss"][-1] < mixed[0]["loss"][0]
    assert mixed[0]["loss"] != exact[0]["loss"]  # the products did run in bfloat16 ...
    np.testing.assert_allclose(mixed[0]["loss"], exact[0]["loss"], rtol=0.05)  # ... to bfloat16's precision


def test_fit_computes_what_a_hand_written_loop_of_steps_computes():
    model = fit_nets.model()
    history, weights = train(model=model, epochs=2, shuffle=False)
    by_hand = fit_nets.model()
    with by_hand.graph.as_default():
        labels = placeholder([None], "int32", name="labels")
        logits = by_hand.outputs["probs"].node.inputs[0]
        loss = losses.softmax_cross_entropy(labels, logits)
        step = optimizers.Adam(0.01).minimize(loss, by_hand.trainable_variables)
    runner = xla.XlaRunner([loss, step], [by_hand.inputs["image"], labels])
    x, y = fit_nets.data()
    step_losses = [float(runner.run([x[i:i + 8], y[i:i + 8]])[0]) for _ in range(2) for i in range(0, 40, 8)]
    np.testing.assert_allclose(history["loss"], [np.mean(step_losses[:5]), np.mean(step_losses[5:])], rtol=1e-5)
    for name, value in runner.variables().items():
        np.testing.assert_allclose(weights[name], value, rtol=1e-5, atol=1e-7)
