"""Every ```python block of README.md runs as written, in a fresh process in a temporary folder holding the
files the blocks name (model.tflite, train_mlp.tflite from tests/data/models), so a snippet cannot rot: the
train_mlp block once used `Interpreter` and `xb`/`yb` that it never defined."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import model_path

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.DOTALL | re.MULTILINE)
# the files the blocks read, by the names they use
FILES = {"model.tflite": "cnn_small_f32", "train_mlp.tflite": "train_mlp"}


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 4  # the format layer, graphs, the training file, the graph API


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block {i + 1}: {b.splitlines()[0][:40]}" for i, b in enumerate(BLOCKS)])
def test_each_python_block_runs_as_written(code, tmp_path):
    if "rillet.targets.xla" in code:
        pytest.importorskip("jax")
    for name, model in FILES.items():
        shutil.copy(model_path(model), tmp_path / name)
    (tmp_path / "block.py").write_text(code)
    # a fresh process from the tmp folder: the checkout's ./rillet would shadow the installed package
    proc = subprocess.run([sys.executable, "block.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 0, f"README block failed:\n{code}\n{proc.stderr}"
