"""The device trainer (a .tflite's train signature on rillet's runtime): stopped mid-epoch by Ctrl-C, it
checkpoints the step reached, and the resumed run gives the losses of one never stopped, bit for bit."""

from __future__ import annotations

import json
import os
import signal

import numpy as np
import pytest

from rillet.targets import fit_data
from rillet.targets.device_train import DeviceTrainer
from rillet.targets.fit_data import FitError

from support import golden, model_path


@pytest.fixture
def data():
    g = golden("train_mlp")
    return g["xs"].reshape(40, 64), g["ys"].reshape(40, 10)


def test_stopped_mid_epoch_then_resumed_equals_uninterrupted(data, tmp_path, monkeypatch):
    uninterrupted = DeviceTrainer(model_path("train_mlp")).fit(data, epochs=3, progress=False)
    original = fit_data.ArraySource.epoch

    def epoch(self, index, start=0):
        for i, batch in enumerate(original(self, index, start)):
            if index == 1 and start + i == 2:  # step 8 of 15, between the checkpoints at 5 and 10
                os.kill(os.getpid(), signal.SIGINT)
            yield batch
    monkeypatch.setattr(fit_data.ArraySource, "epoch", epoch)
    with pytest.raises(KeyboardInterrupt, match="stopped at step 8"):
        DeviceTrainer(model_path("train_mlp")).fit(data, epochs=3, checkpoint_dir=tmp_path, every=5, progress=False)
    assert json.loads((tmp_path / "checkpoint.json").read_text())["step"] == 8
    monkeypatch.undo()
    resumed = DeviceTrainer(model_path("train_mlp")).fit(data, epochs=3, checkpoint_dir=tmp_path, every=5,
                                                         progress=False)
    assert resumed == uninterrupted
    assert uninterrupted["loss"][2] < uninterrupted["loss"][0]


def test_bad_data_is_named(data):
    x, y = data
    trainer = DeviceTrainer(model_path("train_mlp"))
    with pytest.raises(FitError, match=r'"x": a batch of shape \[8, 63\], the model takes \[batch, 64\]'):
        trainer.fit((x[:, :63], y), progress=False)
    with pytest.raises(FitError, match="has no 'learn' signature"):
        DeviceTrainer(model_path("train_mlp"), signature="learn")
    np.testing.assert_array_equal(trainer.interpreter.get_signature_list()["train"]["inputs"], ["x", "y"])
