"""Every command fails the same way: one line on stderr naming the file or the problem, no traceback, and
the exit status rillet/commands/common.py defines (0 success, 1 the work failed, 2 bad usage)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from rillet import __version__
from rillet.cli import main

from support import golden, model_path

MLP = str(model_path("mlp_f32"))
INT8 = str(model_path("cnn_small_int8"))


@pytest.fixture
def files(tmp_path):
    np.save(tmp_path / "x.npy", golden("mlp_f32")["x"])
    np.save(tmp_path / "calib.npy", np.zeros((4, 28, 28, 1), np.float32))
    (tmp_path / "notes.tflite").write_text("these are notes, not a model\n")
    (tmp_path / "builder.py").write_text("def make_model():\n    raise RuntimeError('the builder broke')\n")
    return tmp_path


# (argv with {dir} for the files, exit status, what stderr's one line says)
CASES = [
    (["run", "{dir}/missing.tflite", "--input", "{dir}/x.npy"], 2, "model {dir}/missing.tflite does not exist"),
    (["run", MLP, "--input", "{dir}/missing.npy"], 2, "input file {dir}/missing.npy does not exist"),
    (["run", MLP, "--input", "{dir}"], 2, "input file {dir} is not a file"),
    (["run", MLP, "--input", "{dir}/x.npy", "--output", "{dir}/no/such/dir/y.npy"], 1,
     "cannot write output {dir}/no/such/dir/y.npy"),
    (["run", "{dir}/notes.tflite", "--input", "{dir}/x.npy"], 1, "{dir}/notes.tflite: not a TFLite model"),
    (["run", MLP, "--input", "{dir}/notes.tflite"], 1, "{dir}/notes.tflite: not a .npy or .npz"),
    (["run", MLP, "--input", "{dir}/x.npy", "--threads", "0"], 2, "--threads: must be at least 1, got 0"),
    (["bench", MLP, "--runs", "0"], 2, "--runs: must be at least 1, got 0"),
    (["bench", MLP, "--warmup", "-1"], 2, "--warmup: must be at least 0, got -1"),
    (["bench", "{dir}/missing.tflite"], 2, "model {dir}/missing.tflite does not exist"),
    (["bench", "{dir}/notes.tflite", "--runs", "1"], 1, "{dir}/notes.tflite: rillet cannot run: not a TFLite model"),
    (["quantize", INT8, "--calib", "{dir}/calib.npy", "-o", "{dir}/q.tflite", "--quiet"], 1,
     f"{INT8} is quantized already (13 int8 tensors): quantize the float model it came from"),
    (["quantize", "{dir}/missing.tflite", "--mode", "dynamic", "-o", "{dir}/q.tflite"], 2,
     "model {dir}/missing.tflite does not exist"),
    (["quantize", MLP, "--calib", "{dir}/missing.npz", "-o", "{dir}/q.tflite"], 2,
     "calibration file {dir}/missing.npz does not exist"),
    (["quantize", MLP, "-o", "{dir}/q.tflite"], 2, "--mode int8 needs --calib"),
    (["quantize", MLP, "--mode", "dynamic", "-o", "{dir}/no/such/dir/q.tflite", "--quiet"], 1,
     "cannot write output {dir}/no/such/dir/q.tflite"),
    (["quantize", "{dir}/notes.tflite", "--mode", "dynamic", "-o", "{dir}/q.tflite"], 1,
     "{dir}/notes.tflite: not a TFLite model"),
    (["inspect", "{dir}/missing.tflite"], 2, "model {dir}/missing.tflite does not exist"),
    (["inspect", "{dir}/notes.tflite"], 1, "{dir}/notes.tflite: not a TFLite model"),
    (["convert", "{dir}/missing.py:make_model", "-o", "{dir}/m.tflite"], 2, "builder {dir}/missing.py does not exist"),
    (["convert", "{dir}/builder.py", "-o", "{dir}/m.tflite"], 2, "must be FILE.py:FUNCTION"),
    (["convert", "{dir}/builder.py:make_model", "-o", "{dir}/m.tflite"], 1,
     "{dir}/builder.py:make_model: RuntimeError: the builder broke"),
    (["run", MLP, "--input", "{dir}/x.npy", "--no-such-option"], 2, "unrecognized arguments: --no-such-option"),
    (["no-such-command"], 2, "invalid choice: 'no-such-command'"),
]


@pytest.mark.parametrize(("argv", "status", "says"), CASES, ids=[" ".join(c[0][:2]) + f" -> {c[1]}" for c in CASES])
def test_each_error_is_one_line_with_its_exit_status(argv, status, says, files, capsys):
    argv = [a.format(dir=files) for a in argv]
    assert main(argv) == status
    err = capsys.readouterr().err
    assert says.format(dir=files) in err
    assert "Traceback" not in err
    ours = [line for line in err.splitlines() if line.startswith(f"rillet {argv[0]}: ")]
    argparse_usage = status == 2 and "usage:" in err
    assert len(ours) == 1 or argparse_usage, err
    if not argparse_usage:
        assert err.count("\n") == 1, err


def test_version_and_success_exit_zero(files, capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"rillet {__version__}"
    assert main(["run", MLP, "--input", f"{files}/x.npy"]) == 0


def test_the_installed_command_exits_with_the_same_statuses(files):
    def status(*argv: str) -> int:
        # From the tmp dir: `python -m` puts the working directory first on sys.path, where the checkout's
        # ./rillet would shadow the installed package.
        return subprocess.run([sys.executable, "-m", "rillet.cli", *argv], capture_output=True, cwd=files,
                              check=False, timeout=120).returncode

    assert status("bench", MLP, "--runs", "0") == 2
    assert status("run", f"{files}/missing.tflite", "--input", f"{files}/x.npy") == 2
    assert status("inspect", f"{files}/notes.tflite") == 1
    assert status("--version") == 0
