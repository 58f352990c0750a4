"""The memory report of a training file, before the first step: the variables split into the trained
weights, the optimizer's slots, the model's moving statistics and settings, from the roles the converter
writes into the file, and the split adds up to what the runtime reserves."""

from __future__ import annotations

import numpy as np

import rillet as rl
from rillet.converter import load
from rillet.converter.format.variable_roles import decode_roles
from rillet.graph import Graph, Variable, optimizers
from rillet.graph import layers as L
from rillet.runtime import Interpreter

from support import model_path


def small_cnn(graph: Graph) -> L.Model:
    with graph.as_default():
        L.set_seed(3)
        x = L.Input([6, 6, 2], name="image")
        h = L.Conv2D(4, 3, use_bias=False, name="conv")(x)
        h = L.BatchNormalization(name="bn")(h)
        h = L.Flatten(name="flatten")(L.ReLU(name="relu")(h))
        return L.Model(x, L.Dense(3, name="head")(h))


def test_adam_slots_are_named_apart_from_the_weights_before_the_first_step():
    g = Graph()
    model = small_cnn(g)
    data = rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.Adam(), label_dtype="int32"))
    trained = sum(v.initial_value.nbytes for v in model.variables if v.trainable)
    statistics = sum(v.initial_value.nbytes for v in model.variables if not v.trainable)  # moving mean, variance
    it = Interpreter(model_content=data)
    before = it.memory_report()  # nothing allocated or run yet
    assert before["trained_variable_bytes"] == trained
    assert before["optimizer_slot_bytes"] == 2 * trained + 2 * 4  # m and v per weight, the two beta powers
    assert before["statistics_variable_bytes"] == statistics > 0
    assert before["setting_variable_bytes"] == 0
    it.allocate_tensors()
    report = it.memory_report()
    parts = ("trained_variable_bytes", "optimizer_slot_bytes", "statistics_variable_bytes", "setting_variable_bytes")
    assert sum(report[k] for k in parts) == report["variable_bytes"]  # what the program reserved


def test_momentum_slots_and_a_learning_rate_setting():
    g = Graph()
    with g.as_default():
        L.set_seed(1)
        x = L.Input([5], name="x")
        model = L.Model(x, L.Dense(3, name="head")(x))
        rate = Variable(np.float32(0.1), name="learning_rate", trainable=False)
    spec = rl.TrainSpec("mean_squared_error", optimizers.Momentum(rate, momentum=0.9))
    data = rl.convert(model, train=spec)
    assert decode_roles(load(data)) == {"head/kernel": "trained", "head/bias": "trained",
                                        "Momentum/head/kernel/momentum": "optimizer_slots",
                                        "Momentum/head/bias/momentum": "optimizer_slots", "learning_rate": "settings"}
    report = Interpreter(model_content=data).memory_report()
    assert report["trained_variable_bytes"] == report["optimizer_slot_bytes"] == (5 * 3 + 3) * 4
    assert report["setting_variable_bytes"] == 4


def test_a_file_without_roles_reports_variables_whole():
    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    report = it.memory_report()
    assert report["variable_bytes"] > 0 and "optimizer_slot_bytes" not in report
