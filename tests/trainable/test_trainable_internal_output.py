"""`trainable(output=<a tensor inside the model>)`: the loss reads a tensor before the model's outputs, and
what follows it off the loss's way (here an IF, as openWakeWord's hey_jarvis has after its last dense layer:
past 0.5 the score is swapped for a second network's) stays in `infer` as the original's ops, reading the
trained weights from their variables. Checked against LiteRT on a small model made with the format layer."""

from __future__ import annotations

import numpy as np
import pytest

import rillet
from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

CODES = ["FULLY_CONNECTED", "LOGISTIC", "GREATER_EQUAL", "IF"]
FLOAT, BOOL = 0, 6


def _model() -> bytes:
    """x [1, 4] -> FC 3 (relu) -> FC 1 -> LOGISTIC "score" -> IF(score >= 0.5, x, score) -> "y": the IF's
    then branch gives LOGISTIC(FC(x)) of weights of its own, its else branch the score unchanged."""
    rs = np.random.default_rng(11)
    buffers = [Buffer(data=None)]

    def constant(value: np.ndarray) -> int:
        buffers.append(Buffer(data=np.frombuffer(value.astype(np.float32).tobytes(), np.uint8)))
        return len(buffers) - 1

    def fc(inputs: list[int], out: int, relu: bool = False) -> Operator:
        return Operator(opcode_index=0, inputs=inputs, outputs=[out],
                        builtin_options=Options("FullyConnectedOptions", fused_activation_function=int(relu)))

    t = [Tensor(shape=[1, 4], type=FLOAT, buffer=0, name="x"),
         Tensor(shape=[3, 4], type=FLOAT, buffer=constant(rs.standard_normal((3, 4))), name="w1"),
         Tensor(shape=[3], type=FLOAT, buffer=constant(rs.standard_normal(3)), name="b1"),
         Tensor(shape=[1, 3], type=FLOAT, buffer=0, name="hidden"),
         Tensor(shape=[1, 3], type=FLOAT, buffer=constant(rs.standard_normal((1, 3))), name="w2"),
         Tensor(shape=[1], type=FLOAT, buffer=constant(np.array([0.1])), name="b2"),
         Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="logit"),
         Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="score"),
         Tensor(shape=[], type=FLOAT, buffer=constant(np.array(0.5)), name="threshold"),
         Tensor(shape=[1, 1], type=BOOL, buffer=0, name="passed"),
         Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="y")]
    main = SubGraph(tensors=t, inputs=[0], outputs=[10], name="main", operators=[
        fc([0, 1, 2], 3, relu=True), fc([3, 4, 5], 6),
        Operator(opcode_index=1, inputs=[6], outputs=[7]),
        Operator(opcode_index=2, inputs=[7, 8], outputs=[9]),
        Operator(opcode_index=3, inputs=[9, 0, 7], outputs=[10],
                 builtin_options=Options("IfOptions", then_subgraph_index=1, else_subgraph_index=2))])
    then = SubGraph(name="second_opinion", inputs=[0, 1], outputs=[5], tensors=[
        Tensor(shape=[1, 4], type=FLOAT, buffer=0, name="then_x"),
        Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="then_score"),
        Tensor(shape=[1, 4], type=FLOAT, buffer=constant(rs.standard_normal((1, 4))), name="w3"),
        Tensor(shape=[1], type=FLOAT, buffer=constant(np.array([0.3])), name="b3"),
        Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="then_logit"),
        Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="then_y")],
        operators=[fc([0, 2, 3], 4), Operator(opcode_index=1, inputs=[4], outputs=[5])])
    otherwise = SubGraph(name="keep", inputs=[0, 1], outputs=[1], operators=[], tensors=[
        Tensor(shape=[1, 4], type=FLOAT, buffer=0, name="else_x"),
        Tensor(shape=[1, 1], type=FLOAT, buffer=0, name="else_score")])
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[c], 127),
                                     builtin_code=BUILTIN_CODES[c], version=1) for c in CODES],
        subgraphs=[main, then, otherwise], buffers=buffers,
        signature_defs=[SignatureDef(inputs=[TensorMap(name="x", tensor_index=0)],
                                     outputs=[TensorMap(name="y", tensor_index=10)],
                                     signature_key="serving_default", subgraph_index=0)]))


def _inputs() -> list[np.ndarray]:
    """Inputs on both sides of the threshold (checked: the IF takes each branch)."""
    rs = np.random.default_rng(5)
    return [rs.uniform(-2, 2, (1, 4)).astype(np.float32) for _ in range(12)]


def _score(content: bytes, x: np.ndarray) -> float:
    """The score the original model computes before its IF (LiteRT, preserving every tensor)."""
    it = litert.Interpreter(model_content=content, experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    it.set_tensor(0, x)
    it.invoke()
    return float(it.get_tensor(7)[0, 0])


def test_the_output_after_an_if_is_the_loss_its_gradient_through_the_branch_taken() -> None:
    """The IF in the trained tail: its gradient is an IF of the branches' gradients. The else branch passes the
    score on (its loss falls as the layers before train); the then branch's output does not depend on them.
    rillet's and LiteRT's losses over 22 steps agree."""
    content = _model()
    # the dense layers before the IF (train_last=2 would count the then branch's as the last)
    training = rillet.trainable(content, loss="mse", train=["hidden", "logit"], learning_rate=0.5)
    xs = _inputs()
    passed = np.array([_score(content, x) >= 0.5 for x in xs])
    y = np.full((1, 1), 0.05, np.float32)
    losses = {}
    for key, it in (("rillet", Interpreter(model_content=training)), ("litert", litert.Interpreter(model_content=training))):
        train = it.get_signature_runner("train")
        losses[key] = np.array([float(train(x=xs[k % len(xs)], y=y)["loss"]) for k in range(2 * len(xs))])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    first, second = losses["rillet"][:len(xs)], losses["rillet"][len(xs):]
    assert passed.any() and not passed.all()
    # an input past the threshold keeps its loss while it stays there (it may fall below as the score trains)
    assert np.all(second[passed] <= first[passed]) and np.any(second[passed] == first[passed])
    assert np.all(second[~passed] < first[~passed])


def test_a_loss_on_the_score_before_the_if_trains_as_in_litert() -> None:
    content = _model()
    training = rillet.trainable(content, loss="mse", output="score", train_last=2, learning_rate=0.5)
    ours, theirs = Interpreter(model_content=training), litert.Interpreter(model_content=training)
    assert list(ours.get_signature_runner("infer").get_output_details()) == ["y"]
    original = litert.Interpreter(model_content=content).get_signature_runner("serving_default")
    xs = _inputs()
    assert {_score(content, x) >= 0.5 for x in xs} == {True, False}  # both branches are taken
    for x in xs:  # infer: the original's outputs, through either branch
        got = ours.get_signature_runner("infer")(x=x)["y"]
        np.testing.assert_allclose(got, original(x=x)["y"], rtol=1e-5)
    y = np.full((1, 1), 0.05, np.float32)  # a learnable target for the score
    losses = {}
    for key, it in (("rillet", ours), ("litert", theirs)):
        train = it.get_signature_runner("train")
        losses[key] = np.array([float(train(x=xs[k % len(xs)], y=y)["loss"]) for k in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-4:].mean() < losses["rillet"][:4].mean()
    # after training, `infer` reads the trained weights, the IF still after them: LiteRT's outputs
    moved = 0
    for x in xs:
        got = ours.get_signature_runner("infer")(x=x)["y"]
        want = theirs.get_signature_runner("infer")(x=x)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-5)
        moved += not np.allclose(got, original(x=x)["y"])
    assert moved > 0


def test_an_internal_name_that_is_not_there_is_refused() -> None:
    with pytest.raises(ValueError, match="no output 'nope'"):
        rillet.trainable(_model(), loss="mse", output="nope")


def test_a_classification_loss_inside_the_model_gets_an_accuracy(tmp_path) -> None:
    """The loss reads the score before the IF: `infer` keeps the original's one output, and a `score` signature
    gives the tensor the loss reads, which the trainer scores (accuracy, validation) in both runtimes."""
    from rillet.targets.device_train import DeviceTrainer

    content = _model()
    training = rillet.trainable(content, loss="sigmoid_cross_entropy", output="score", train_last=2,
                                learning_rate=0.5)
    ours, theirs = Interpreter(model_content=training), litert.Interpreter(model_content=training)
    assert list(ours.get_signature_runner("infer").get_output_details()) == ["y"]
    xs = _inputs()
    for x in xs:  # before a step: the original's score, in both runtimes
        want = _score(content, x)
        assert float(ours.get_signature_runner("score")(x=x)["score"][0, 0]) == pytest.approx(want, rel=1e-5)
        assert float(theirs.get_signature_runner("score")(x=x)["score"][0, 0]) == pytest.approx(want, rel=1e-5)
    path = tmp_path / "train.tflite"
    path.write_bytes(training)
    x = np.concatenate(xs)
    labels = (x[:, :1] > 0).astype(np.float32)  # learnable: the sign of the first feature
    trainer = DeviceTrainer(path)
    assert trainer.classifies
    before = trainer.evaluate((x, labels))["val_accuracy"]
    history = trainer.fit((x, labels), epochs=30, progress=False)
    assert len(history["accuracy"]) == 30 and history["loss"][-1] < history["loss"][0]
    after = trainer.evaluate((x, labels))
    assert after["val_accuracy"] > before and after["val_loss"] < history["loss"][0]


def test_an_int8_model_trains_the_layers_before_its_if() -> None:
    """The int8 model (rillet.quant, its branch weights int8 constants of the branches): the IF in the trained
    tail, whose float copy takes the branches' subgraphs too (it took the signature's alone, and the tail's IF
    named subgraphs it did not have). `infer` gives the original's bits before a step; 24 steps give the same
    losses in rillet and LiteRT, those of inputs the else branch passes on falling."""
    from rillet.quant import quantize

    xs = _inputs()
    content = quantize(_model(), [[x] for x in xs], progress=False)
    training = rillet.trainable(content, loss="mse", train=["hidden", "logit"], learning_rate=0.5)
    original = litert.Interpreter(model_content=content).get_signature_runner()
    for x in xs:
        np.testing.assert_array_equal(Interpreter(model_content=training).get_signature_runner("infer")(x=x)["y"],
                                      original(x=x)["y"])
    y = np.full((1, 1), 0.05, np.float32)
    losses = {}
    for key, it in (("rillet", Interpreter(model_content=training)),
                    ("litert", litert.Interpreter(model_content=training))):
        train = it.get_signature_runner("train")
        losses[key] = np.array([float(train(x=xs[k % len(xs)], y=y)["loss"]) for k in range(2 * len(xs))])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    first, second = losses["rillet"][:len(xs)], losses["rillet"][len(xs):]
    passed = np.array([_score(_model(), x) >= 0.5 for x in xs])
    assert passed.any() and not passed.all()
    assert np.all(second[~passed] < first[~passed])
