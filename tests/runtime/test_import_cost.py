"""What a start imports: `import rillet.runtime`, a model's load and its first invoke leave out the modules only
checkpoints, export, the writer and the graph importer need (bench/bench_start_instructions.py counts what
each costs a start), and every public name still resolves."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from support import golden, model_path

# Imported by what uses them, never by a plain load and invoke.
LAZY_MODULES = [
    "flatbuffers",  # the format layer's writer
    "zipfile", "tempfile", "json",  # checkpoints, atomic writes, variable roles
    "threading",  # the interpreter's lock is _thread's
    "dataclasses", "rillet.converter.format.model",  # the records: a start reads tensors as columns and facts
    "rillet.converter.format.io",  # load and save: the view explains a refused file with load
    "rillet.runtime.signature_runner",  # imported by get_signature_runner
    "rillet.atomic_file", "rillet.runtime.export", "rillet.converter.format.variable_roles",
    "rillet.converter.to_graph", "rillet.converter.dense_weights", "rillet.converter.format.prune",
    "rillet.converter.format.summary", "rillet.graph", "rillet.targets",
]


def imported_by(script: str, *args: str, preload: str = "") -> set[str]:
    """The modules `script` adds to those `import numpy` (and `preload`) loads, in a fresh interpreter."""
    child = textwrap.dedent(f"""
        import sys
        import numpy
        {preload}
        before = set(sys.modules)
    """) + textwrap.dedent(script) + "\nprint(repr(sorted(set(sys.modules) - before)))\n"
    done = subprocess.run([sys.executable, "-c", child, *args], capture_output=True, text=True, check=False,
                          cwd=os.path.dirname(__file__))  # the checkout's ./rillet would shadow the installed one
    assert done.returncode == 0, done.stderr
    return set(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


def test_import_leaves_out_what_a_start_does_not_need():
    loaded = imported_by("import rillet.runtime")
    assert "rillet.runtime.interpreter" in loaded  # the check sees what the import loads
    assert sorted(set(LAZY_MODULES) & loaded) == []


def test_the_start_does_not_import_future():
    """The start's modules annotate without `from __future__ import annotations` (quoted where Python 3.9 could
    not evaluate them): importing __future__ cost a start ~0.7M instructions (x86). (`site` imports it before
    any test here can look, so the start's own modules are read.)"""
    loaded = sorted(m for m in imported_by("import rillet.runtime") if m.startswith("rillet") and
                    not m.startswith("rillet.native._librillet_api"))  # the compiled binding
    assert "rillet.runtime.interpreter" in loaded
    with_future = []
    for module in loaded:
        spec = importlib.util.find_spec(module)
        if spec.origin and spec.origin.endswith(".py"):
            with open(spec.origin, encoding="utf-8") as f:
                if "from __future__ import" in f.read():
                    with_future.append(module)
    assert with_future == []


@pytest.mark.parametrize("name", ["mobilenet_v2_035_96_int8", "cnn_small_f32"])
def test_load_and_invoke_leave_them_out_too(name):
    loaded = imported_by("""
        import numpy as np
        from rillet.runtime import Interpreter
        it = Interpreter(model_path=sys.argv[1])
        it.allocate_tensors()
        d = it.get_input_details()[0]
        it.set_tensor(d["index"], np.load(sys.argv[2])["x"].astype(d["dtype"]))
        it.invoke()
        it.get_tensor(it.get_output_details()[0]["index"])
    """, str(model_path(name)), str(model_path(name).with_suffix(".npz")),
        preload="import zipfile")  # np.load of the .npz feed imports it (and threading), not the interpreter
    assert sorted(set(LAZY_MODULES) & loaded) == []


def test_checkpoints_and_export_import_what_they_need(tmp_path):
    from rillet.runtime import Interpreter

    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    feeds = golden("train_mlp")
    it.get_signature_runner("train")(x=feeds["xs"][0], y=feeds["ys"][0])
    it.save_checkpoint(tmp_path / "c.npz")
    it.restore_checkpoint(tmp_path / "c.npz")
    it.export_model(tmp_path / "m.tflite", "infer")
    assert (tmp_path / "m.tflite").stat().st_size > 0
    assert it.memory_report() is not None


@pytest.mark.parametrize("module", ["rillet.runtime", "rillet.converter.format", "rillet.converter"])
def test_every_public_name_resolves(module):
    import importlib

    package = importlib.import_module(module)
    for name in package.__all__:
        assert getattr(package, name) is not None, f"{module}.{name}"
    star: dict = {}
    exec(f"from {module} import *", star)
    assert set(package.__all__) <= set(star)


def test_to_graph_stays_the_function_whichever_import_comes_first():
    loaded = imported_by("""
        import rillet.converter.to_graph
        import rillet.converter
        from rillet.converter import to_graph
        assert callable(rillet.converter.to_graph) and to_graph is rillet.converter.to_graph, rillet.converter.to_graph
        assert not isinstance(to_graph, type(sys))
    """)
    assert "rillet.converter.to_graph" in loaded
