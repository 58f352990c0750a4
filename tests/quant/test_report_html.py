"""The quantization report people read: the HTML page names the model, output, options and calibration set,
ranks the layers with the added dB, explains its columns (and the terminal table's legend does), gives the whole
model's agreement (output SQNR, top-1 agreement computed here independently), fetches nothing, and renders in a
real browser: headless Chromium's screenshot of it is not blank (skipped, saying why, without `chromium`)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from rillet.quant import quantize_with_report
from rillet.runtime import Interpreter

from support import model_path

MODEL = "cnn_small_f32"


@pytest.fixture(scope="module")
def quantized(tmp_path_factory: pytest.TempPathFactory):
    """Quantizes the reference CNN through the command line, with the HTML and JSON reports; returns its folder."""
    folder = tmp_path_factory.mktemp("report")
    np.savez(folder / "calib.npz", x=np.random.default_rng(0).uniform(-1, 1, (12, 28, 28, 1)).astype(np.float32))
    done = subprocess.run([sys.executable, "-m", "rillet.cli", "quantize", str(model_path(MODEL)), "--calib",
                           "calib.npz", "-o", "q.tflite", "--html", "r.html", "--calibration", "mse", "--quiet"],
                          cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return folder, done.stdout


def outputs(model: Path, xs: np.ndarray) -> np.ndarray:
    interpreter = Interpreter(model_path=str(model))
    interpreter.allocate_tensors()
    (inp,), (out,) = interpreter.get_input_details(), interpreter.get_output_details()
    values = []
    for x in xs:
        interpreter.set_tensor(inp["index"], x[None])
        interpreter.invoke()
        values.append(interpreter.get_tensor(out["index"])[0])
    return np.array(values, np.float64)


def test_page_names_the_run_and_explains_its_columns(quantized) -> None:
    folder, _ = quantized
    page = (folder / "r.html").read_text()
    assert f"Quantization report: {MODEL}.tflite" in page
    assert "q.tflite" in page and "calib.npz: 12 samples" in page
    assert "calibration = mse" in page and "mode = int8" in page and "per_channel = True" in page
    assert "float32 [1, 28, 28, 1]" in page  # the calibration set's input
    for words in ("6 dB is roughly one bit", "<b>in dB</b>", "<b>added</b>", "RMSE / scale", "top-1"):
        assert words in page, words
    assert page.count("<tr") >= 2 * 8  # the ranking and the tensors, every layer
    assert "added dB" in page and "<svg" in page


def test_whole_model_agreement_is_the_models_own(quantized) -> None:
    folder, stdout = quantized
    xs = np.load(folder / "calib.npz")["x"]
    want = outputs(model_path(MODEL), xs)
    got = outputs(folder / "q.tflite", xs)
    agree = int((want.argmax(axis=1) == got.argmax(axis=1)).sum())
    sqnr = 10 * np.log10((want ** 2).sum() / ((want - got) ** 2).sum())
    page = (folder / "r.html").read_text()
    assert f"{agree} of 12 calibration inputs give the same class" in page
    assert f"{100 * agree / 12:.1f}%" in page
    assert f"{sqnr:.1f} dB</div>" in page
    assert f"top-1 agrees on {agree}/12 calibration inputs" in stdout


def test_terminal_table_has_a_legend(quantized) -> None:
    _, stdout = quantized
    header = next(i for i, line in enumerate(stdout.splitlines()) if line.lstrip().startswith("rank"))
    legend = "\n".join(stdout.splitlines()[:header])
    assert "SQNR dB:" in legend and "6 dB ~ 1 bit" in legend
    assert "in dB:" in legend and "added: in dB - SQNR dB" in legend


def test_page_fetches_nothing(quantized) -> None:
    page = (quantized[0] / "r.html").read_text()
    assert "<style>" in page
    assert not re.search(r"<script|<link|<img|<iframe|@import|url\(|src=|href=", page, re.IGNORECASE)
    # the one address: SVG's namespace, which a browser never fetches
    assert re.findall(r"https?://[^'\" ]+", page) == ["http://www.w3.org/2000/svg"]


def test_api_report_without_a_command_line_still_renders() -> None:
    calib = np.random.default_rng(1).uniform(-1, 1, (4, 1, 28, 28, 1)).astype(np.float32)
    _, report = quantize_with_report(str(model_path(MODEL)), calib, progress=False, report=True)
    page = report.to_html()
    assert "<i>not given</i>" in page  # the model's path: the API was given bytes-like input, no output file
    assert "4 samples" in page and report.agreement[0]["top1_rows"] == 4
    assert report.to_dict()["agreement"] == report.agreement


def png_pixels(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) as an [h, w, channels] array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows = np.zeros((height, stride), np.int32)
    previous = np.zeros(stride, np.int32)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) & 255
        else:  # sub, average, Paeth: each byte depends on the one `channels` before it
            row = np.zeros(stride, np.int32)
            for x in range(stride):
                left = row[x - channels] if x >= channels else 0
                up, corner = previous[x], (previous[x - channels] if x >= channels else 0)
                if kind == 1:
                    predicted = left
                elif kind == 3:
                    predicted = (left + up) // 2
                else:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    predicted = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[x] = (line[x] + predicted) & 255
        rows[y] = previous = row
    return rows.reshape(height, width, channels)[..., :3].astype(np.uint8)


def test_chromium_renders_the_page(quantized) -> None:
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                   None)
    if browser is None:
        pytest.skip("needs headless Chromium (Debian: apt-get install chromium)")
    folder, _ = quantized
    shot = folder / "shot.png"
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1000,1400", f"--screenshot={shot}", (folder / "r.html").as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    pixels = png_pixels(shot.read_bytes())
    assert pixels.shape[:2] == (1400, 1000)
    background = np.array([0xF5, 0xF7, 0xFA])
    drawn = np.abs(pixels.astype(int) - background).sum(axis=2) > 30
    assert drawn.mean() > 0.05, f"only {drawn.mean():.1%} of the page differs from its background"
    ink = (pixels.max(axis=2) < 80).mean()  # text
    green = ((pixels[..., 1] > 100) & (pixels[..., 0] < 60) & (pixels[..., 2] < 100)).sum()  # a good SQNR's figure
    assert ink > 0.005 and green > 50, (ink, green)
