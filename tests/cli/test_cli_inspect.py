"""`rillet inspect` on every reference model, as text and as JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rillet.cli import main
from rillet.converter import load, save
from rillet.converter.format import OperatorCode

from support import MODEL_NAMES, model_path


def inspect_json(path, capsys) -> dict:
    assert main(["inspect", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_inspect_every_model(name, capsys):
    path = model_path(name)
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    summary = inspect_json(path, capsys)
    model = load(path)
    assert summary["totals"]["operators"] == sum(len(sg.operators) for sg in model.subgraphs)
    for sg in summary["subgraphs"]:
        for op in sg["operators"]:
            assert op["op"] in text
    for sig in summary["signatures"]:
        for name_, tensor in {**sig["inputs"], **sig["outputs"]}.items():
            assert name_ in text and tensor["dtype"] in text
    assert f"{summary['totals']['macs']:,} MACs" in text


def test_mobilenet_totals_match_the_published_figure(capsys):
    summary = inspect_json(model_path("mobilenet_v2_035_96_f32"), capsys)
    # tests/data/models/README.md: 10.7 M multiply-accumulates.
    assert 10.6e6 < summary["totals"]["macs"] < 10.75e6
    assert summary["custom_ops"] == []
    (sig,) = summary["signatures"]
    (x,) = sig["inputs"].values()
    assert x["shape"] == [-1, 96, 96, 3] or x["shape"] == [1, 96, 96, 3]


def test_cnn_macs_per_operator(capsys):
    summary = inspect_json(model_path("cnn_small_f32"), capsys)
    ops = summary["subgraphs"][0]["operators"]
    conv = ops[0]
    assert conv["op"] == "CONV_2D" and conv["inputs"][0] == [-1, 28, 28, 1]
    # 26*26 outputs x 8 channels, each a 3x3x1 window.
    assert conv["macs"] == 26 * 26 * 8 * 9
    assert all(op["macs"] == 0 for op in ops if op["op"] in ("MAX_POOL_2D", "SOFTMAX", "RESHAPE"))
    # Each buffer counts once: the first convolution and the depthwise share one zero bias of 8, the
    # dense layer has no bias, and Flatten's slice constants are three one-element buffers.
    conv1, depthwise, shared_bias, conv2, dense, flatten = 8 * 9, 8 * 9, 8, 16 * 8 + 16, 10 * 576, 3
    assert summary["totals"]["parameters"] == conv1 + depthwise + shared_bias + conv2 + dense + flatten


def test_int8_signature_shows_quantization(capsys):
    summary = inspect_json(model_path("cnn_small_int8"), capsys)
    (x,) = summary["signatures"][0]["inputs"].values()
    assert x["dtype"] == "int8" and isinstance(x["quantization"]["scale"], list)


def test_training_model_lists_both_signatures(capsys):
    summary = inspect_json(model_path("train_mlp"), capsys)
    sigs = {s["key"]: s for s in summary["signatures"]}
    assert set(sigs) == {"train", "infer"}
    assert set(sigs["train"]["inputs"]) == {"x", "y"} and set(sigs["train"]["outputs"]) == {"loss"}


def test_custom_ops_are_flagged(tmp_path, capsys):
    model = load(model_path("mlp_f32"))
    model.operator_codes.append(OperatorCode(deprecated_builtin_code=32, builtin_code=32, custom_code="RILLET_Foo"))
    model.subgraphs[0].operators[-1].opcode_index = len(model.operator_codes) - 1
    path = tmp_path / "custom.tflite"
    path.write_bytes(save(model))
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "RILLET_Foo (custom)" in text and "custom ops (need a runtime that registers them): RILLET_Foo" in text
    assert inspect_json(path, capsys)["custom_ops"] == ["RILLET_Foo"]


def test_bad_file_is_a_clear_error_not_a_traceback(tmp_path):
    path = tmp_path / "bad.tflite"
    path.write_bytes(b"\x00" * 64)
    # From tmp_path: `python -m` puts the working directory first on sys.path, where the checkout's
    # ./rillet would shadow the installed package.
    proc = subprocess.run(
        [sys.executable, "-m", "rillet.cli", "inspect", str(path)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )
    assert proc.returncode == 1  # the work failed: the file is no model
    assert "not a TFLite model" in proc.stderr and "Traceback" not in proc.stderr


def test_inspect_without_a_path_describes_the_bundled_model(capsys):
    assert main(["inspect"]) == 0
    text = capsys.readouterr().out
    assert "bundled with rillet" in text and "FULLY_CONNECTED" in text


def test_every_subgraph_is_checked_for_ops_rillet_cannot_run(tmp_path, capsys):
    """train_mlp's three subgraphs all run; an int64 ADD in subgraph 1 ('train') is named with its dtype, and
    an op librillet has no kernel for at all (a custom op) is named wherever it sits."""
    summary = inspect_json(model_path("train_mlp"), capsys)
    assert len(summary["subgraphs"]) == 3 and summary["unsupported"] == []
    assert all(op["rillet"] is True for sg in summary["subgraphs"] for op in sg["operators"])
    assert main(["inspect", str(model_path("train_mlp"))]) == 0
    assert "rillet runs every op of all 3 subgraphs" in capsys.readouterr().out

    model = load(model_path("train_mlp"))
    train = model.subgraphs[1]
    add = next(i for i, op in enumerate(train.operators) if model.operator_codes[op.opcode_index].name == "ADD")
    train.tensors[train.operators[add].inputs[0]].type = 4  # int64
    path = tmp_path / "int64_add.tflite"
    path.write_bytes(save(model))
    summary = inspect_json(path, capsys)
    assert summary["unsupported"] == [{"subgraph": 1, "index": add, "op": "ADD", "why": "no kernel at int64"}]
    assert main(["inspect", str(path)]) == 0
    assert f"rillet cannot run 1 op: subgraph 1 op {add} ADD (no kernel at int64)" in capsys.readouterr().out

    model = load(model_path("train_mlp"))
    model.operator_codes.append(OperatorCode(deprecated_builtin_code=32, builtin_code=32, custom_code="RILLET_Foo"))
    model.subgraphs[2].operators[0].opcode_index = len(model.operator_codes) - 1
    path.write_bytes(save(model))
    summary = inspect_json(path, capsys)
    assert {(m["subgraph"], m["index"], m["why"]) for m in summary["unsupported"]} == {(2, 0, "no kernel")}
