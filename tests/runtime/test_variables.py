"""Resource variables and several subgraphs: TensorFlow's own training model (train/infer signatures over
VAR_HANDLE/READ_VARIABLE/ASSIGN_VARIABLE, initialised by CALL_ONCE) trains in rillet as in LiteRT."""

from __future__ import annotations

import numpy as np
import pytest

from rillet.runtime import Interpreter

from support import golden, model_path


def train_five_steps(it: Interpreter, g) -> list[float]:
    train = it.get_signature_runner("train")
    return [float(train(x=g["xs"][i], y=g["ys"][i])["loss"]) for i in range(len(g["xs"]))]


@pytest.mark.parametrize("threads", [1, 2])
def test_train_mlp_reproduces_the_golden_losses_and_inference_after(threads):
    g = golden("train_mlp")
    it = Interpreter(model_path=str(model_path("train_mlp")), num_threads=threads)
    it.allocate_tensors()
    np.testing.assert_allclose(train_five_steps(it, g), g["losses"], rtol=1e-5)
    after = it.get_signature_runner("infer")(x=g["xs"][0])["output"]
    np.testing.assert_allclose(after, g["infer_after"], rtol=1e-5, atol=1e-6)


def test_variables_live_across_invokes_and_reset_starts_again():
    g = golden("train_mlp")
    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    infer = it.get_signature_runner("infer")
    before = infer(x=g["xs"][0])["output"]
    first = train_five_steps(it, g)
    assert not np.allclose(infer(x=g["xs"][0])["output"], before)  # the weights moved
    it.reset_resource_variables()
    np.testing.assert_array_equal(infer(x=g["xs"][0])["output"], before)
    assert train_five_steps(it, g) == first  # the same steps from the same start: the same bits


def test_signatures_list_both_subgraphs_and_inference_matches_litert():
    pytest.importorskip("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    g = golden("train_mlp")
    ours = Interpreter(model_path=str(model_path("train_mlp")))
    theirs = LiteRT(model_path=str(model_path("train_mlp")))
    assert ours.get_signature_list() == theirs.get_signature_list()
    ours.allocate_tensors()
    theirs.allocate_tensors()
    x = g["xs"][1]
    np.testing.assert_allclose(ours.get_signature_runner("infer")(x=x)["output"],
                               theirs.get_signature_runner("infer")(x=x)["output"], rtol=1e-5, atol=1e-6)


def test_checkpoint_saves_and_restores_training_state(tmp_path):
    g = golden("train_mlp")
    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    train = it.get_signature_runner("train")
    for i in range(2):
        train(x=g["xs"][i], y=g["ys"][i])
    it.save_checkpoint(tmp_path / "ckpt.npz")
    assert set(np.load(tmp_path / "ckpt.npz").files) == set(it.get_variables())
    rest = [float(train(x=g["xs"][i], y=g["ys"][i])["loss"]) for i in range(2, 5)]

    fresh = Interpreter(model_path=str(model_path("train_mlp")))
    fresh.allocate_tensors()
    fresh.restore_checkpoint(tmp_path / "ckpt.npz")  # the initialiser must not overwrite what was restored
    again = [float(fresh.get_signature_runner("train")(x=g["xs"][i], y=g["ys"][i])["loss"]) for i in range(2, 5)]
    assert again == rest
    np.testing.assert_allclose(again, g["losses"][2:], rtol=1e-5)


def test_checkpoint_errors_name_the_problem(tmp_path):
    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    with pytest.raises(ValueError, match="have no value yet"):
        it.save_checkpoint(tmp_path / "early.npz")
    np.savez(tmp_path / "wrong.npz", nope=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="holds variables \\['nope'\\]"):
        it.restore_checkpoint(tmp_path / "wrong.npz")
    it.get_signature_runner("infer")(x=golden("train_mlp")["xs"][0])
    values = it.get_variables()
    name = next(iter(values))
    values[name] = np.zeros((2, 2), np.float32)
    np.savez(tmp_path / "shape.npz", **values)
    with pytest.raises(ValueError, match=f"variable '{name}' is float32 \\[2, 2\\]"):
        it.restore_checkpoint(tmp_path / "shape.npz")
    assert not list(tmp_path.glob(".checkpoint-*"))  # no temporary left behind


def test_export_model_bakes_the_trained_variables_for_litert_and_rillet(tmp_path):
    g = golden("train_mlp")
    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    train_five_steps(it, g)
    it.export_model(tmp_path / "trained.tflite")
    runners = [Interpreter(model_path=str(tmp_path / "trained.tflite"))]
    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRT

        runners.append(LiteRT(model_path=str(tmp_path / "trained.tflite")))
    except ImportError:
        pass
    for runner in runners:
        assert list(runner.get_signature_list()) == ["infer"]
        out = runner.get_signature_runner("infer")(x=g["xs"][0])["output"]
        np.testing.assert_allclose(out, g["infer_after"], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="assigns variables"):
        it.export_model(tmp_path / "nope.tflite", signature_key="train")


def test_export_finds_variables_whose_names_hold_a_slash(tmp_path):
    """Keras names variables "dense/kernel": the name must not be split into a container."""
    from rillet.converter.format import load, save

    model = load(model_path("train_mlp"))
    for sg in model.subgraphs:
        for op in sg.operators:
            if model.op_name(op) == "VAR_HANDLE":
                op.builtin_options.shared_name = "dense/" + op.builtin_options.shared_name
    g = golden("train_mlp")
    it = Interpreter(model_content=save(model))
    it.allocate_tensors()
    train_five_steps(it, g)
    assert all(name.startswith("dense/") for name in it.get_variables())
    it.export_model(tmp_path / "trained.tflite")
    out = Interpreter(model_path=str(tmp_path / "trained.tflite")).get_signature_runner("infer")(x=g["xs"][0])
    np.testing.assert_allclose(out["output"], g["infer_after"], rtol=1e-5, atol=1e-6)
