"""One interpreter hammered by threads is serialised, never a crash or a mixed-up result; memory stays flat
over 10,000 invokes and 1,000 interpreters."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from rillet.runtime import Interpreter

from support import golden, model_path

F32 = np.float32


def single_thread_outputs(path: str, batches: list[np.ndarray]) -> list[np.ndarray]:
    it = Interpreter(model_path=path)
    runner = it.get_signature_runner()
    (name,) = runner.get_input_details()
    return [next(iter(runner(**{name: x}).values())) for x in batches]


def test_threads_sharing_one_interpreter_are_serialised():
    """Signature calls (resize, allocate, set, invoke, copy: one call) from six threads on one interpreter,
    with batch sizes that make every call reallocate, while two more threads invoke and read by index:
    every runner result is the single-thread result for its own input."""
    path = str(model_path("cnn_small_f32"))
    rng = np.random.default_rng(7)
    batches = [rng.uniform(-1, 1, (n, 28, 28, 1)).astype(F32) for n in (1, 2, 3, 5, 1, 4)]
    expected = single_thread_outputs(path, batches)
    shared = Interpreter(model_path=path, num_threads=2)
    runner = shared.get_signature_runner()
    (name,) = runner.get_input_details()
    errors: list[BaseException] = []
    mismatches: list[int] = []
    start = threading.Barrier(len(batches) + 2)

    def call_runner(k: int) -> None:
        try:
            start.wait()
            for _ in range(30):
                got = next(iter(runner(**{name: batches[k]}).values()))
                if not np.array_equal(got, expected[k]):
                    mismatches.append(k)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def invoke_by_index() -> None:
        try:
            start.wait()
            for _ in range(30):
                try:
                    shared.allocate_tensors()
                    shared.invoke()
                except RuntimeError as e:  # a runner resized the input between the two calls
                    assert "not ready" in str(e), e
                shared.get_tensor(shared.get_output_details()[0]["index"])
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=call_runner, args=(k,)) for k in range(len(batches))]
    threads += [threading.Thread(target=invoke_by_index) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert not mismatches, mismatches


def resident_bytes() -> int:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


needs_proc = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc/self/statm (Linux)")
# ASan's quarantine holds freed memory back, so resident memory grows under the sanitizer build by design.
UNDER_SANITIZERS = pytest.mark.skipif(bool(os.environ.get("RILLET_SANITIZED")),
                                      reason="resident memory is not steady under AddressSanitizer's quarantine")


@needs_proc
@UNDER_SANITIZERS
def test_memory_is_flat_over_ten_thousand_invokes():
    """Invokes by index on a small CNN, and training steps through a signature runner (variables are
    assigned at every step)."""
    g = golden("cnn_small_f32")
    it = Interpreter(model_path=str(model_path("cnn_small_f32")))
    it.allocate_tensors()
    out = it.get_output_details()[0]["index"]
    t = golden("train_mlp")
    train = Interpreter(model_path=str(model_path("train_mlp"))).get_signature_runner("train")

    def step(k: int) -> None:
        it.set_tensor(0, g["x"])
        it.invoke()
        it.get_tensor(out)
        if k % 4 == 0:
            train(x=t["xs"][0], y=t["ys"][0])

    for k in range(500):
        step(k)
    before = resident_bytes()
    for k in range(10_000):
        step(k)
    grown = resident_bytes() - before
    assert grown < 4 << 20, f"resident memory grew {grown} bytes over 10,000 invokes and 2,500 training steps"


@needs_proc
@UNDER_SANITIZERS
def test_memory_is_flat_over_a_thousand_interpreters():
    data = model_path("cnn_small_f32").read_bytes()
    g = golden("cnn_small_f32")

    def make() -> None:
        it = Interpreter(model_content=data)
        it.allocate_tensors()
        it.set_tensor(0, g["x"])
        it.invoke()

    for _ in range(100):
        make()
    gc.collect()
    before = resident_bytes()
    for _ in range(1_000):
        make()
    gc.collect()
    grown = resident_bytes() - before
    assert grown < 8 << 20, f"resident memory grew {grown} bytes over 1,000 interpreters"
