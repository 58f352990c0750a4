"""`rillet demo`: the bundled digits CNN classifies held-out digits on rillet's runtime (and on LiteRT when
installed), with accuracy, file size and latency per image and per batch; then its head is fine-tuned on
the device runtime to digits written in a new style (shifted), with accuracy before and after.

Each model the demo shows is a (label, .tflite bytes) row from `model_rows`; every row runs on every
runtime, so a quantized copy of the model is one more row.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .common import WorkError, positive_int


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("demo", help="classify held-out digits with the bundled model: accuracy, size, latency",
        description=("The digits CNN shipped with rillet classifies handwritten digits it never saw "
                     "in training, on rillet's C runtime (and on LiteRT when ai-edge-litert is "
                     "installed): its operators, parameters and file size, the accuracy, and the "
                     "median latency per image and per batch. It then quantizes the same model to "
                     "int8 on the spot (calibrated on 100 bundled training images) and prints that "
                     "row beside the float one, and last fine-tunes the model's dense head on the "
                     "device runtime on digits shifted by a pixel or two, printing the accuracy "
                     "before and after. The images are scikit-learn's held-out digits when scikit-"
                     "learn is installed, else 200 bundled with rillet; the demo says which."))
    p.add_argument("--runs", type=positive_int, default=100,
                   help="timed invokes of one image (default 100); a whole batch is timed runs/10 times, at least 3")
    p.add_argument("--threads", type=positive_int, default=1, help="threads for every interpreter (default 1)")
    p.add_argument("--bundled-sample", action="store_true",
                   help="use the sample of held-out digits bundled with rillet even if scikit-learn is installed")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def model_rows() -> list[tuple[str, bytes]]:
    """The models the demo compares: (label, .tflite bytes): the bundled float model, and the same model
    quantized to int8 here, calibrated on bundled training images (float input and output, so both rows
    take the same images)."""
    from rillet.bundled import bundled_model_path, digits_calibration_images
    from rillet.quant import quantize

    float_model = bundled_model_path().read_bytes()
    return [("float32", float_model), ("int8", quantize(float_model, digits_calibration_images(), progress=False))]


def runtimes(threads: int = 1) -> dict[str, Callable[[bytes], Any] | str]:
    """name -> a function making an interpreter from model bytes, or why that runtime is absent."""
    from rillet.runtime import Interpreter

    found: dict[str, Callable[[bytes], Any] | str] = {
        "rillet": lambda data: Interpreter(model_content=data, num_threads=threads)}
    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRT
    except ImportError:
        found["LiteRT"] = "not installed (pip install ai-edge-litert to compare)"
    else:
        from .common import quiet_litert

        quiet = quiet_litert(LiteRT)
        found["LiteRT"] = lambda data: quiet(model_content=data, num_threads=threads)
    return found


@dataclass
class Measurement:
    predictions: np.ndarray
    correct: int
    one_image_ms: float  # median invoke time with a batch of one
    batch_ms: float      # median invoke time with the whole data set as one batch


def _interpreter_for_batch(make: Callable[[bytes], Any], data: bytes, batch: int) -> tuple[Any, int, int]:
    interpreter = make(data)
    (inp,), (out,) = interpreter.get_input_details(), interpreter.get_output_details()
    interpreter.resize_tensor_input(inp["index"], [batch, *inp["shape"][1:]])
    interpreter.allocate_tensors()
    return interpreter, inp["index"], out["index"]


def _median_invoke_ms(interpreter: Any, runs: int, before: Callable[[int], None] | None = None) -> float:
    times = []
    for i in range(runs + 2):  # two warm-up invokes
        if before is not None:
            before(i)
        start = time.perf_counter()
        interpreter.invoke()
        if i >= 2:
            times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


def measure(make: Callable[[bytes], Any], data: bytes, images: np.ndarray, labels: np.ndarray,
            runs: int = 100) -> Measurement:
    """Classify every image as one batch (accuracy, and the batch's latency), then time one image at a time."""
    batch, inp, out = _interpreter_for_batch(make, data, len(images))
    batch.set_tensor(inp, images)
    batch_ms = _median_invoke_ms(batch, max(3, runs // 10))
    predictions = np.asarray(batch.get_tensor(out)).argmax(-1)

    single, inp, _ = _interpreter_for_batch(make, data, 1)
    one_ms = _median_invoke_ms(single, runs, lambda i: single.set_tensor(inp, images[i % len(images)][None]))
    return Measurement(predictions, int(np.sum(predictions == labels)), one_ms, batch_ms)


def describe_model(data: bytes) -> list[str]:
    from rillet.converter.format import load
    from rillet.converter.format.summary import summarize

    summary = summarize(load(data))
    counts = Counter(op["op"] for sg in summary["subgraphs"] for op in sg["operators"])
    ops = ", ".join(name if n == 1 else f"{name} x{n}" for name, n in counts.items())
    totals = summary["totals"]
    return [f"{totals['operators']} operators: {ops}",
            f"{totals['parameters']:,} parameters, {totals['macs']:,} multiply-accumulates per image"]


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KiB"


def measure_all(rows: list[tuple[str, bytes]], runtimes_found: dict[str, Any], test: Any,
                runs: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Every model row on every runtime: one record each (accuracy, size, latencies, or why it could not
    run), and a line per row saying whether rillet and LiteRT agree on every image."""
    n = len(test.labels)
    records, agreement = [], []
    for label, data in rows:
        results: dict[str, Measurement] = {}
        for name, make in runtimes_found.items():
            record: dict[str, Any] = {"variant": label, "runtime": name, "size_bytes": len(data)}
            records.append(record)
            if isinstance(make, str):
                record["error"] = make
                continue
            try:
                m = results[name] = measure(make, data, test.images, test.labels, runs)
            except (RuntimeError, ValueError) as e:
                record["error"] = f"cannot run: {str(e).splitlines()[0][:80]}"
                continue
            record.update(correct=m.correct, images=n, accuracy=m.correct / n, one_image_ms=m.one_image_ms,
                          batch_ms=m.batch_ms)
        if len(results) == 2:
            differ = int(np.sum(results["rillet"].predictions != results["LiteRT"].predictions))
            agreement.append(f"{label}: rillet and LiteRT " + (
                f"give the same class for all {n} images" if differ == 0 else f"disagree on {differ} of {n} images"))
    return records, agreement


def format_table(records: list[dict[str, Any]], n: int) -> str:
    header = f"{'variant':<9}{'runtime':<9}{'accuracy':<20}{'size':>10}{'1 image':>12}{f'batch of {n}':>16}"
    lines = [header, "-" * len(header)]
    for r in records:
        if "error" in r:
            lines.append(f"{r['variant']:<9}{r['runtime']:<9}{r['error']}")
            continue
        accuracy = f"{r['accuracy']:.2%} ({r['correct']}/{n})"
        lines.append(f"{r['variant']:<9}{r['runtime']:<9}{accuracy:<20}"
                     f"{_size(r['size_bytes']):>10}{r['one_image_ms']:>9.3f} ms{r['batch_ms']:>13.3f} ms"
                     f"  ({r['batch_ms'] * 1e3 / n:.1f} us/image)")
    return "\n".join(lines)


def fine_tune(test: Any, shift: tuple[int, int] = (1, 2), epochs: int = 20, batch: int = 16) -> dict[str, Any]:
    """The model's dense head trained on rillet's runtime (convolutions frozen) on half the held-out digits,
    shifted; accuracy measured on the other half, shifted the same way."""
    from rillet.finetune import accuracy, head_training_file, shifted, train_head
    from rillet.runtime import Interpreter

    started = time.perf_counter()
    it = Interpreter(model_content=head_training_file(learning_rate=0.01))
    convert_seconds = time.perf_counter() - started
    images, labels = shifted(test.images, *shift), test.labels
    order = np.random.default_rng(0).permutation(len(labels))
    tune, held_out = order[: len(order) // 2], order[len(order) // 2:]
    infer = it.get_signature_runner("infer")
    before, _ = accuracy(infer, images[held_out], labels[held_out])
    run = train_head(it, images[tune], labels[tune], epochs, batch)
    after, _ = accuracy(infer, images[held_out], labels[held_out])
    return {"shift": list(shift), "tune_images": len(tune), "held_out_images": len(held_out), "epochs": epochs,
            "batch": batch, "steps": run.steps, "ms_per_step": run.ms_per_step, "convert_seconds": convert_seconds,
            "accuracy_before": before, "accuracy_after": after, "final_loss": run.epoch_losses[-1]}


def describe_fine_tune(f: dict[str, Any]) -> list[str]:
    return [
        (f"fine-tune  the head (dense layer) on the device runtime, convolutions frozen: digits shifted by "
        f"{tuple(f['shift'])} pixels,"),
        f"           a style the model never saw; {f['tune_images']} images to train, {f['held_out_images']} held out",
        (f"           accuracy on the held-out shifted digits: {100 * f['accuracy_before']:.1f}% -> "
        f"{100 * f['accuracy_after']:.1f}% after {f['steps']} steps ({f['epochs']} epochs of {f['batch']}),"),
        (f"           {f['ms_per_step']:.2f} ms a step on rillet's runtime; the training file took "
        f"{f['convert_seconds']:.1f} s to make (rl.convert with rl.TrainSpec)"),
    ]


def run(args: argparse.Namespace) -> int:
    from rillet.bundled import DEFAULT_MODEL, bundled_model_path, digits_calibration_images, digits_test_set

    rows = model_rows()
    runtimes_found = runtimes(args.threads)
    test = digits_test_set(use_sklearn=not args.bundled_sample)
    n = len(test.labels)
    records, agreement = measure_all(rows, runtimes_found, test, args.runs)
    rillet_ran = all("error" not in r for r in records if r["runtime"] == "rillet")
    tuned = fine_tune(test) if rillet_ran else None
    if args.json:
        print(json.dumps({"model": str(bundled_model_path(DEFAULT_MODEL)), "data": test.source, "runs": args.runs,
                          "threads": args.threads, "results": records, "agreement": agreement,
                          "fine_tune": tuned}, indent=2))
    else:
        print("rillet demo: a small CNN, trained on the desktop (examples/train_desktop.py) and shipped with "
              "rillet,\nclassifies handwritten digits it never saw in training.\n")
        print(f"model  {bundled_model_path(DEFAULT_MODEL)} ({len(rows[0][1]):,} bytes)")
        for line in describe_model(rows[0][1]):
            print(f"       {line}")
        print(f"data   {test.source}")
        print("int8   the same model quantized by `rillet.quant.quantize` just now (per-channel weights, min/max")
        print(f"       ranges from {len(digits_calibration_images())} training images; float input and output)\n")
        print(format_table(records, n))
        litert = "" if isinstance(runtimes_found["LiteRT"], str) else "; LiteRT with its default XNNPACK delegate"
        print(f"\nlatency: median invoke time of {args.runs} runs with 1 image and {max(3, args.runs // 10)} with "
              f"the batch, after 2 warm-up runs;\n         {args.threads} thread{'s' if args.threads != 1 else ''}"
              f"{litert}")
        for line in agreement:
            print(line)
        if tuned is not None:
            print()
            for line in describe_fine_tune(tuned):
                print(line)
    if not rillet_ran:
        raise WorkError("rillet could not run the bundled model: " +
                        "; ".join(r["error"] for r in records if r["runtime"] == "rillet" and "error" in r))
    return 0
