"""`rillet deploy` and the named targets, on the host: what a bundle holds, its run.py and train.py run here
on the installed rillet (the emulated device runs the same files: test_emulated.py), and each refusal is one
line with its exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from rillet.cli import main
from rillet.targets.devices import ARCHITECTURES, DEVICES, device

from support import golden, model_path


def fake_wheels(folder: Path, platforms: list[str]) -> Path:
    """Wheel files named as tools/build_wheels.py names them (deploy only copies them)."""
    folder.mkdir(parents=True, exist_ok=True)
    for platform in platforms:
        zipfile.ZipFile(folder / f"rillet-0.1.0-py3-none-{platform}.whl", "w").close()
    zipfile.ZipFile(folder / "flatbuffers-25.12.19-py2.py3-none-any.whl", "w").close()
    return folder


def test_targets_name_the_issue_boards_with_their_wheel_and_best_kernel_path():
    table = {name: (d.wheel_platform, d.best_kernel_path) for name, d in DEVICES.items()}
    assert table == {"rpi0": ("linux_armv6l", "scalar"), "rpi3-32": ("linux_armv7l", "neon"),
                     "rpi4-32": ("linux_armv7l", "neon"), "rpi3": ("linux_aarch64", "neon"),
                     "rpi4": ("linux_aarch64", "neon"), "rpi5": ("linux_aarch64", "neondot")}
    assert all(d.kernel_paths[-1] == "scalar" for d in DEVICES.values())
    assert ARCHITECTURES["armv6l"].cflags == ("-march=armv6kz", "-mfpu=vfp", "-mfloat-abi=hard", "-marm")
    assert device("host").wheel_platform.startswith("linux_")
    with pytest.raises(ValueError, match="unknown target 'rpi9': choose one of rpi0"):
        device("rpi9")


def test_the_abi_binding_of_cross_built_wheels_runs_models_here_too(tmp_path):
    """Cross-built wheels have only the ABI binding (librillet.so through libffi); a host build adds the API-mode
    extension. RILLET_LIBRARY makes rillet.native take the ABI path: LiteRT's bits through it as well."""
    from rillet import native

    assert Path(native.LIBRARY_PATH).name == "librillet.so"
    assert native.BINDING == ("api" if list(Path(native.__file__).parent.glob("_librillet_api*.so")) else "abi")
    script = ("import numpy as np, rillet.native as n; from rillet.runtime import Interpreter; "
              f"r = Interpreter(model_path={str(model_path('cnn_small_int8'))!r}).get_signature_runner(); "
              f"g = np.load({str(model_path('cnn_small_int8').with_suffix('.npz'))!r}); "
              "(y,) = r(**{next(iter(r.get_input_details())): g['x']}).values(); "
              "print(n.BINDING, np.array_equal(y, g['y']))")
    # cwd=tmp_path: the checkout's ./rillet would shadow the installed package
    proc = subprocess.run([sys.executable, "-c", script], env={**os.environ, "RILLET_LIBRARY": native.LIBRARY_PATH},
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    assert proc.stdout.split() == ["abi", "True"]


def test_a_bundle_holds_wheel_model_scripts_and_its_archive(tmp_path, capsys):
    wheels = fake_wheels(tmp_path / "dist", ["linux_aarch64", "linux_armv7l"])
    out = tmp_path / "bundle"
    assert main(["deploy", "--target", "rpi4", str(model_path("cnn_small_int8")), "-o", str(out),
                 "--wheels", str(wheels)]) == 0
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == [".rillet-bundle", "README.md", "bundle.json", "cnn_small_int8.tflite", "install.sh", "rillet.service.in",
                     "run.py", "wheels/flatbuffers-25.12.19-py2.py3-none-any.whl",
                     "wheels/rillet-0.1.0-py3-none-linux_aarch64.whl"]
    config = json.loads((out / "bundle.json").read_text())
    # the int8 input's scale 1/127.5 and zero point 0 cover [-1, 1]: pixels map there, and deploy says so
    assert config == {"model": "cnn_small_int8.tflite", "target": "rpi4", "signature": "serving_default",
                      "input_range": [-1.0, 1.0], "labels": None, "train": False}
    assert (out / "install.sh").stat().st_mode & 0o111
    with tarfile.open(tmp_path / "bundle.tar.gz") as tar:
        assert sorted(m.name for m in tar.getmembers() if m.isfile()) == [f"bundle/{f}" for f in files]
    stdout = capsys.readouterr().out
    assert "bundle.tar.gz" in stdout
    assert "image pixels 0..255 map to [-1, 1] (from the int8 input's quantization" in stdout
    readme = (out / "README.md").read_text()
    assert "(int8 [1, 28, 28, 1])" in readme and "np." not in readme


def test_a_float_input_keeps_0_1_and_says_it_is_the_default(tmp_path, capsys):
    assert main(["deploy", "--target", "rpi4", str(model_path("cnn_small_f32")), "-o", str(tmp_path / "b"),
                 "--wheels", str(fake_wheels(tmp_path / "dist", ["linux_aarch64"]))]) == 0
    assert json.loads((tmp_path / "b" / "bundle.json").read_text())["input_range"] == [0.0, 1.0]
    assert "map to [0, 1] (the default for a float input; --input-range" in capsys.readouterr().out


def _project(folder: Path) -> dict[str, bytes]:
    """A user's project folder: the model, a script and a subfolder, as `rillet deploy -o .` once emptied."""
    (folder / "src").mkdir(parents=True)
    files = {"model.tflite": model_path("cnn_small_f32").read_bytes(), "notes.txt": b"my notes\n",
             "src/train.py": b"print('hello')\n", "labels.txt": b"a\nb\n"}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def _survive(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        assert (folder / name).read_bytes() == data, f"{name} was changed or deleted"


@pytest.mark.parametrize(("out", "says"), [
    (".", "is the working directory"),
    ("..", "is a folder above the working directory"),
    ("{project}", "is the working directory"),
    ("{project}/src", "is a folder with files that rillet did not write"),
    ("{project}/notes.txt", "is a file, not a folder"),
], ids=["dot", "parent", "absolute cwd", "user folder", "a file"])
def test_deploy_never_empties_a_folder_it_did_not_write(tmp_path, monkeypatch, capsys, out, says):
    """The data loss the issue reports: `-o .` deleted every file of the project, the model included. Now
    the working directory, a folder above it, a folder with files and no bundle marker, or a file are
    refused with exit 2 before anything is written, and every file survives."""
    project = tmp_path / "project"
    files = _project(project)
    wheels = fake_wheels(tmp_path / "dist", ["linux_aarch64"])
    monkeypatch.chdir(project)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["deploy", "--target", "rpi4", "model.tflite", "-o", out.format(project=project),
                 "--wheels", str(wheels)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rillet deploy: -o ") and says in err, err
    _survive(project, files)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no archive written beside it either


@pytest.mark.parametrize("holder", ["model", "labels", "wheels"])
def test_deploy_refuses_a_folder_holding_one_of_its_inputs(tmp_path, monkeypatch, capsys, holder):
    """A folder that holds the model, the labels or the wheels is refused even when it carries a bundle
    marker (an earlier bundle someone put the model back into)."""
    project = tmp_path / "project"
    files = _project(project)
    (project / ".rillet-bundle").write_text("an earlier bundle\n")
    wheels = fake_wheels((project if holder == "wheels" else tmp_path) / "dist", ["linux_aarch64"])
    model = project / "model.tflite" if holder == "model" else model_path("cnn_small_f32")
    labels = ["--labels", str(project / "labels.txt")] if holder == "labels" else []
    monkeypatch.chdir(tmp_path)
    assert main(["deploy", "--target", "rpi4", str(model), "-o", str(project), "--wheels", str(wheels),
                 *labels]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"-o {project} holds " in err and "an input of this deploy" in err, err
    _survive(project, files)


def test_deploy_fills_an_empty_folder_and_replaces_only_its_own_bundle(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    wheels = fake_wheels(tmp_path / "dist", ["linux_aarch64"])
    out = tmp_path / "b"
    out.mkdir()
    argv = ["deploy", "--target", "rpi4", str(model_path("cnn_small_f32")), "-o", str(out), "--wheels", str(wheels)]
    assert main(argv) == 0  # an empty folder
    (out / "stale.txt").write_text("left from the last bundle\n")
    assert main(argv) == 0  # an earlier bundle (its marker is there): replaced whole
    assert not (out / "stale.txt").exists() and (out / "cnn_small_f32.tflite").is_file()
    capsys.readouterr()

    (out / ".rillet-bundle").unlink()  # the same files without the marker: not ours any more
    assert main(argv) == 2
    assert "did not write (no .rillet-bundle in it)" in capsys.readouterr().err
    assert (out / "cnn_small_f32.tflite").is_file()


def test_deploy_does_not_overwrite_an_archive_it_did_not_write(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.tar.gz").write_bytes(b"the user's own archive")
    assert main(["deploy", "--target", "rpi4", str(model_path("cnn_small_f32")), "-o", str(tmp_path / "b"),
                 "--wheels", str(fake_wheels(tmp_path / "dist", ["linux_aarch64"]))]) == 2
    assert "b.tar.gz exists and is not a bundle's archive" in capsys.readouterr().err
    assert (tmp_path / "b.tar.gz").read_bytes() == b"the user's own archive" and not (tmp_path / "b").exists()


@pytest.mark.parametrize("name", ["cnn_small_int8", "cnn_small_f32"])
def test_run_py_gives_litert_outputs(tmp_path, name):
    """The bundle's run.py, run here as on the device: int8 bit for bit with LiteRT's golden, float 1e-5."""
    out = tmp_path / "bundle"
    assert main(["deploy", "--target", "rpi3", str(model_path(name)), "-o", str(out),
                 "--wheels", str(fake_wheels(tmp_path / "dist", ["linux_aarch64"]))]) == 0
    reference = golden(name)
    np.save(out / "x.npy", reference["x"])
    proc = subprocess.run([sys.executable, str(out / "run.py"), str(out / "x.npy"), "--save", str(out / "y.npz")],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.startswith("x.npy: ")
    (y,) = np.load(out / "y.npz").values()
    if y.dtype == np.int8:
        np.testing.assert_array_equal(y, reference["y"][0])
    else:
        np.testing.assert_allclose(y, reference["y"][0], rtol=1e-5, atol=1e-7)


def test_run_py_turns_an_image_into_the_quantized_input(tmp_path):
    """A 0..255 image of another size is resized and mapped to --input-range, then quantized: the same outputs
    as the input array made by hand."""
    out = tmp_path / "bundle"
    assert main(["deploy", "--target", "rpi5", str(model_path("cnn_small_int8")), "-o", str(out),
                 "--wheels", str(fake_wheels(tmp_path / "dist", ["linux_aarch64"])), "--input-range", "-1", "1"]) == 0
    sys.path.insert(0, str(out))
    try:
        import run  # the bundle's run.py
    finally:
        sys.path.remove(str(out))
        sys.modules.pop("run", None)
    model = run.BundledModel(json.loads((out / "bundle.json").read_text()))
    image = np.random.default_rng(0).integers(0, 256, (56, 56), dtype=np.uint8)  # twice the input's 28x28
    scale, zero_point = model.input["quantization"]
    by_hand = np.clip(np.round((image[::2, ::2] / 255.0 * 2 - 1) / scale) + zero_point, -128, 127)
    np.testing.assert_array_equal(model.prepare(image), by_hand.astype(np.int8)[:, :, None])


def test_train_py_trains_and_run_py_uses_the_checkpoint(tmp_path):
    out = tmp_path / "bundle"
    assert main(["deploy", "--target", "rpi4-32", str(model_path("train_mlp")), "-o", str(out), "--train",
                 "--wheels", str(fake_wheels(tmp_path / "dist", ["linux_armv7l"]))]) == 0
    rng = np.random.default_rng(0)
    np.savez(out / "data.npz", x=rng.normal(size=(32, 64)).astype(np.float32),
             y=np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)])
    proc = subprocess.run([sys.executable, str(out / "train.py"), str(out / "data.npz"), "--epochs", "3",
                           "--export", str(out / "trained.tflite")], capture_output=True, text=True, check=True)
    losses = [float(line.split("mean loss ")[1].split()[0]) for line in proc.stdout.splitlines() if "loss" in line]
    assert len(losses) == 3 and losses[-1] < losses[0]
    assert set(np.load(out / "checkpoint.npz").files) and (out / "trained.tflite").stat().st_size > 0


def test_refusals_are_one_line_with_their_exit_code(tmp_path, capsys):
    wheels = fake_wheels(tmp_path / "dist", ["linux_aarch64"])
    cases = [
        (["--target", "rpi9", str(model_path("mlp_f32"))], 2, "unknown target 'rpi9'"),
        (["--target", "rpi0", str(model_path("mlp_f32"))], 1, "lacks the rillet wheel for linux_armv6l"),
        (["--target", "rpi4", str(model_path("mlp_f32")), "--train"], 1, "mlp_f32.tflite has no train signature"),
        (["--target", "rpi4", str(tmp_path / "none.tflite")], 2, "none.tflite: no such model file"),
        (["--target", "rpi4", str(tmp_path)], 2, f"{tmp_path} is a folder, not a model file"),
        (["--target", "rpi4", str(model_path("mlp_f32")), "--input-range", "1", "0"], 2,
         "--input-range 1 0: LOW must be below HIGH"),
    ]
    for args, code, message in cases:
        assert main(["deploy", *args, "-o", str(tmp_path / "b"), "--wheels", str(wheels)]) == code
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("rillet deploy: ") and message in err, err
