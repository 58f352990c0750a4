"""Every command fed the bad inputs of issue 25: an empty .npy, the wrong kind of file, an input of the wrong
shape, flags the mode or backend would ignore, two forms of a distributed run mixed, a folder where a file
goes, an output folder that does not exist. Each is refused at once in one line naming the file or the flag,
exit 2 for bad usage and 1 for a file whose contents are refused, no traceback; and what was accepted
silently before (a resumed run that trained nothing, LiteRT's log lines) now says what happened or is quiet."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from rillet.cli import main
from rillet.converter.format import load, save

from support import golden, model_path

MLP = str(model_path("mlp_f32"))
CNN = str(model_path("cnn_small_f32"))
TRAIN = str(model_path("train_mlp"))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "empty.npy").write_bytes(b"")
    np.save(tmp_path / "x.npy", golden("mlp_f32")["x"])
    np.save(tmp_path / "calib.npy", np.random.default_rng(0).random((4, 64), dtype=np.float32))
    np.save(tmp_path / "wide.npy", np.zeros((1, 32, 32, 1), np.float32))  # cnn_small takes [N, 28, 28, 1]
    np.save(tmp_path / "three.npy", np.zeros((3, 28, 28, 1), np.float32))  # a dynamic batch of 3: fine
    g = golden("train_mlp")
    np.savez(tmp_path / "train.npz", x=g["xs"].reshape(40, 64), y=g["ys"].reshape(40, 10))
    (tmp_path / "sub").mkdir()
    (tmp_path / "builder.py").write_text(
        "from rillet.graph import Graph, Model, layers\n\nNOT_CALLABLE = 3\n\n\n"
        "def make_model():\n    graph = Graph()\n    with graph.as_default():\n"
        "        x = layers.Input((64,), name='x')\n        y = layers.Dense(10, name='d')(x)\n"
        "    return Model({'x': x}, {'y': y})\n")
    svdf = load(MLP)  # mlp_f32 with its FULLY_CONNECTEDs recoded as SVDF, an op rillet's runtime lacks
    svdf.operator_codes[0].builtin_code = svdf.operator_codes[0].deprecated_builtin_code = 27
    (tmp_path / "svdf.tflite").write_bytes(save(svdf))
    return tmp_path


B = "{dir}/builder.py:make_model"
# (argv with {dir} for the files, exit status, what stderr's one line says)
CASES = [
    # 2: local processes and a run over several hosts are alternatives (mixed, JAX hung 5 minutes and aborted)
    (["train", B, "--data", "{dir}/train.npz", "--processes", "2", "--coordinator", "localhost:1234",
      "--num-processes", "2", "--process-id", "0"], 2,
     ("--processes 2 starts local processes; --coordinator, --num-processes, --process-id join a run over several "
      "hosts: give one form, not both")),
    (["train", B, "--data", "{dir}/train.npz", "--num-processes", "2"], 2,
     "needs --coordinator HOST:PORT, --num-processes N and --process-id K together"),
    (["train", B, "--data", "{dir}/train.npz", "--coordinator", "h:1", "--num-processes", "2", "--process-id", "2"],
     2, "--process-id 2: must be 0..1"),
    # 3: float16 and dynamic modes keep float32 inputs and outputs; it used to print "int8 inputs and outputs"
    (["quantize", MLP, "--mode", "float16", "--io", "int8", "-o", "{dir}/q.tflite"], 2,
     "--io int8 needs --mode int8: --mode float16 keeps float32 inputs and outputs"),
    (["quantize", MLP, "--mode", "dynamic", "--io", "int8", "-o", "{dir}/q.tflite"], 2,
     "--io int8 needs --mode int8: --mode dynamic keeps float32 inputs and outputs"),
    # 4: a 0-byte .npy (EOFError tracebacks before), and a .npy where arrays by name are needed
    (["run", MLP, "--input", "{dir}/empty.npy"], 1, "input file {dir}/empty.npy is empty (0 bytes)"),
    (["bench", MLP, "--input", "{dir}/empty.npy", "--runs", "1"], 1, "input file {dir}/empty.npy is empty (0 bytes)"),
    (["quantize", MLP, "--calib", "{dir}/empty.npy", "-o", "{dir}/q.tflite"], 1,
     "calibration file {dir}/empty.npy is empty (0 bytes)"),
    (["convert", B, "--weights", "{dir}/empty.npy", "-o", "{dir}/m.tflite"], 1,
     "checkpoint {dir}/empty.npy is empty (0 bytes)"),
    (["convert", B, "--weights", "{dir}/x.npy", "-o", "{dir}/m.tflite"], 1,
     "checkpoint {dir}/x.npy is one array (.npy); arrays by name are wanted here"),
    (["train", TRAIN, "--data", "{dir}/empty.npy"], 1, "--data file {dir}/empty.npy is empty (0 bytes)"),
    (["train", B, "--data", "{dir}/empty.npy"], 1, "--data file {dir}/empty.npy is empty (0 bytes)"),
    (["train", B, "--data", "{dir}/train.npz", "--validation", "{dir}/empty.npy"], 1,
     "--validation file {dir}/empty.npy is empty (0 bytes)"),
    (["train", TRAIN, "--data", "{dir}/x.npy"], 1,  # was TypeError: ndarray ... context manager protocol
     "--data file {dir}/x.npy is one array (.npy); arrays by name are wanted here"),
    # 5: flags that were accepted and ignored
    (["quantize", MLP, "--calib", "{dir}/calib.npy", "--calibration", "percentile", "--percentile", "150",
      "-o", "{dir}/q.tflite"], 2, "--percentile 150: must be above 0 and at most 100"),
    (["quantize", MLP, "--mode", "dynamic", "--min-sqnr", "30", "-o", "{dir}/q.tflite"], 2,
     "--min-sqnr chooses which ops of a --mode int8 model stay float"),
    (["quantize", MLP, "--calib", "{dir}/calib.npy", "--calibration", "percentile", "--percentile", "-5",
      "-o", "{dir}/q.tflite"], 2, "--percentile -5: must be above 0 and at most 100"),
    (["quantize", MLP, "--calib", "{dir}/calib.npy", "--percentile", "99", "-o", "{dir}/q.tflite"], 2,
     "--percentile applies to --calibration percentile, not minmax"),
    (["quantize", MLP, "--mode", "float16", "--per-tensor", "-o", "{dir}/q.tflite"], 2,
     "--per-tensor: --mode float16 stores weights as float16 with no scales"),
    (["quantize", MLP, "--mode", "float16", "--calibration", "mse", "-o", "{dir}/q.tflite"], 2,
     "--calibration mse: --mode float16 calibrates no activation ranges"),
    (["quantize", MLP, "--mode", "dynamic", "--calibration", "percentile", "-o", "{dir}/q.tflite"], 2,
     "--calibration percentile: --mode dynamic calibrates no activation ranges"),
    (["quantize", MLP, "--mode", "float16", "--keep-float", "SOFTMAX", "-o", "{dir}/q.tflite"], 2,
     "--keep-float: --mode float16 stores every float32 constant as float16"),
    (["train", TRAIN, "--data", "{dir}/train.npz", "--optimizer", "sgd"], 2,
     "--optimizer: {train}'s train signature has its loss, optimizer and learning rate built in"),
    (["train", TRAIN, "--data", "{dir}/train.npz", "--learning-rate", "0.1", "--loss", "mean_squared_error"], 2,
     "--loss, --learning-rate: {train}'s train signature has its loss, optimizer and learning rate built in"),
    (["train", B, "--data", "{dir}/train.npz", "--threads", "2"], 2, "--threads: device backend only"),
    (["train", B, "--data", "{dir}/train.npz", "--learning-rate", "0"], 2, "--learning-rate must be > 0"),
    # 6: the shape checked before the runtime resizes (a RESHAPE deep inside failed before), a signature
    (["run", CNN, "--input", "{dir}/wide.npy"], 1,
     "input 'keras_tensor_3' takes [N, 28, 28, 1] (N: any size), got [1, 32, 32, 1]"),
    (["bench", CNN, "--input", "{dir}/wide.npy", "--runs", "1"], 1,
     "input 'keras_tensor_3' takes [N, 28, 28, 1] (N: any size), got [1, 32, 32, 1]"),
    (["run", TRAIN, "--signature", "train", "--input", "{dir}/x.npy"], 1,
     "the model has 2 inputs (x float32[8, 64], y float32[8, 10]), 0 given by name and 1 .npy files"),
    (["run", TRAIN, "--signature", "serve", "--input", "{dir}/x.npy"], 2,
     "--signature 'serve': the model has 'infer', 'train'"),
    (["run", TRAIN, "--signature", "train", "--profile", "--input", "{dir}/x.npy"], 2,
     "--profile times the main graph; signature 'train' runs another subgraph"),
    # 7: messages that named the wrong problem, and outputs checked before the work
    (["train", "{dir}/sub", "--data", "{dir}/train.npz"], 2, "{dir}/sub is a folder: give FILE.py:FUNCTION"),
    (["convert", "{dir}/builder.py:NOT_CALLABLE", "-o", "{dir}/m.tflite"], 2,
     "{dir}/builder.py: 'NOT_CALLABLE' is int, not a function"),
    (["convert", "{dir}/builder.py:nothing", "-o", "{dir}/m.tflite"], 2, "{dir}/builder.py has no function 'nothing'"),
    (["train", TRAIN, "--data", "{dir}/train.npz", "-o", "{dir}/missing/t.tflite", "--checkpoint-dir",
      "{dir}/ckpt"], 1, "cannot write output {dir}/missing/t.tflite: no such folder {dir}/missing"),
    (["train", B, "--data", "{dir}/train.npz", "-o", "{dir}/missing/t.tflite"], 1,
     "cannot write output {dir}/missing/t.tflite: no such folder {dir}/missing"),
    (["convert", B, "-o", "{dir}/missing/m.tflite"], 1, "cannot write output {dir}/missing/m.tflite: no such folder"),
    (["quantize", MLP, "--mode", "dynamic", "-o", "{dir}/sub"], 1, "cannot write output {dir}/sub: it is a folder"),
    (["quantize", MLP, "--mode", "dynamic", "--calib", "{dir}/calib.npy", "--report", "{dir}/missing/r.json",
      "-o", "{dir}/q.tflite"], 1, "cannot write report {dir}/missing/r.json: no such folder"),
    (["quantize", "{dir}/svdf.tflite", "--calib", "{dir}/calib.npy", "-o", "{dir}/q.tflite", "--quiet"], 1,
     "{dir}/svdf.tflite: the model has ops rillet cannot run: SVDF"),
]


@pytest.mark.parametrize(("argv", "status", "says"), CASES,
                         ids=[f"{i}: {c[0][0]} -> {c[1]}" for i, c in enumerate(CASES)])
def test_each_bad_input_is_refused_in_one_line(argv, status, says, files, capsys):
    argv = [a.format(dir=files) for a in argv]
    assert main(argv) == status
    captured = capsys.readouterr()
    err = captured.err
    assert says.format(dir=files, train=TRAIN) in err, err
    assert err.startswith(f"rillet {argv[0]}: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert not (files / "q.tflite").exists() and not (files / "m.tflite").exists() and not (files / "ckpt").exists()


def test_run_checks_shapes_but_takes_any_dynamic_batch_and_names_outputs_by_signature(files, capsys):
    assert main(["run", CNN, "--input", f"{files}/three.npy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("output_0: float32[3, 10]")  # the signature's name, not StatefulPartitionedCall:0


def test_run_signature_runs_that_signature_with_its_names(files, capsys):
    g = golden("train_mlp")
    np.save(files / "y.npy", g["ys"][0])
    xs = f"x={files}/x8.npy"
    np.save(files / "x8.npy", g["xs"][0])
    assert main(["run", TRAIN, "--signature", "train", "--input", xs, "--input", f"y={files}/y.npy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("loss: float32[]")
    np.testing.assert_allclose(float(out.split("\n")[1]), g["losses"][0], rtol=1e-5)  # LiteRT's first step
    assert main(["run", TRAIN, "--signature", "infer", "--input", str(files / "x8.npy")]) == 0
    assert capsys.readouterr().out.startswith("output: float32[8, 10]")


def test_a_finished_run_resumed_says_it_trained_nothing(files, capsys):
    argv = ["train", TRAIN, "--data", str(files / "train.npz"), "--quiet", "--checkpoint-dir", str(files / "c")]
    assert main(argv) == 0
    first = summary_lines(capsys.readouterr().out)
    assert len(first) == 1 and first[0].startswith("trained 1 epochs: loss")
    assert main(argv) == 0
    again = summary_lines(capsys.readouterr().out)
    assert again[0] == f"resumed from {files / 'c'} at step 5 (epoch 1)"
    assert again[1].startswith("nothing to train: the checkpoint has finished 1 epochs and --epochs is 1; ran no step")
    assert main([*argv, "--epochs", "2"]) == 0
    assert summary_lines(capsys.readouterr().out)[1].startswith("trained 2 epochs: loss")


def summary_lines(out: str) -> list[str]:
    """`rillet train`'s output without its per-epoch lines ("epoch 1/2: loss ..."), which --quiet keeps: it
    hides the progress bar only."""
    return [line for line in out.splitlines() if not line.startswith("epoch ")]


def test_quantize_says_what_the_file_has_and_keeps_float_io_in_float16(files, capsys):
    assert main(["quantize", MLP, "--mode", "float16", "-o", str(files / "h.tflite")]) == 0
    assert ": float16, float inputs and outputs" in capsys.readouterr().out
    from rillet.runtime import Interpreter

    it = Interpreter(model_path=str(files / "h.tflite"))
    assert {np.dtype(d["dtype"]).name for d in it.get_input_details() + it.get_output_details()} == {"float32"}


@pytest.mark.parametrize("argv", [
    ["bench", MLP, "--runs", "2", "--warmup", "0"],
    ["quantize", MLP, "--calib", "{dir}/calib.npy", "-o", "{dir}/q8.tflite", "--executor", "litert", "--quiet",
     "--report", "{dir}/r.json"],
    ["demo", "--runs", "2"],
], ids=["bench", "quantize --executor litert", "demo"])
def test_litert_logs_nothing_into_rillets_output(argv, files):
    """LiteRT's C++ writes `INFO: Created TensorFlow Lite XNNPACK delegate for CPU.` to file descriptor 2 once
    a process, when its first interpreter allocates, and its Python binding warns about
    experimental_preserve_all_tensors (the quantizer's report): a fresh process shows both, so the command
    runs in one (from the tmp dir: the checkout's ./rillet would shadow the installed package)."""
    pytest.importorskip("ai_edge_litert")
    proc = subprocess.run([sys.executable, "-m", "rillet.cli", *[a.format(dir=files) for a in argv]],
                          capture_output=True, text=True, cwd=files, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "LiteRT" in proc.stdout or "wrote" in proc.stdout  # LiteRT ran
    assert proc.stderr == "", proc.stderr
