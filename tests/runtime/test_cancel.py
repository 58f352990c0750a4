"""Stopping an invoke that runs on: Interpreter.cancel() from another thread, the per-invoke time limit
(set_invoke_timeout, RILLET_INVOKE_TIMEOUT_MS) and the bound on the bytes a WHILE's loop values carry
(RILLET_LOOP_LIMIT_MB). Each stops a WHILE whose condition stays true for ~2^31 iterations, raises
InvokeCancelledError (or the loop limit's error) naming the op, and leaves the interpreter ready: the next
invoke runs whole and gives LiteRT's answer. Run in child processes: a regression would hang, not fail."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_control_flow import while_model

pytest.importorskip("ai_edge_litert")

FOREVER = 2**31 - 1  # the loop's limit: it counts up from 0, one per iteration


def run_child(script: str, model: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), model], check=False, capture_output=True,
                          text=True, timeout=180, env={**os.environ, **(env or {})},
                          cwd=os.path.dirname(__file__))  # the checkout's ./rillet would shadow the installed package
    assert done.returncode >= 0, f"killed by signal {-done.returncode}: {done.stderr[-2000:]}"
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def litert_answer(start: int) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    it = LiteRT(model_content=while_model(limit=FOREVER))
    it.allocate_tensors()
    it.set_tensor(0, np.array(start, np.int32))
    it.set_tensor(1, np.array([1.0, 2.0], np.float32))
    it.invoke()
    return it.get_tensor(it.get_output_details()[1]["index"])


PRELUDE = """
    import sys, threading, time
    import numpy as np
    from rillet.runtime import Interpreter, InvokeCancelledError
    it = Interpreter(model_path=sys.argv[1])
    it.allocate_tensors()

    def run(start):
        it.set_tensor(0, np.array(start, np.int32))
        it.set_tensor(1, np.array([1.0, 2.0], np.float32))
        began = time.monotonic()
        try:
            it.invoke()
            return "ran", time.monotonic() - began
        except InvokeCancelledError as e:
            return f"cancelled: {e}", time.monotonic() - began
"""


def test_cancel_from_another_thread_stops_an_endless_while_and_the_next_invoke_runs(tmp_path):
    (tmp_path / "loop.tflite").write_bytes(while_model(limit=FOREVER))
    out = run_child(PRELUDE + """
    done = threading.Event()

    def canceller():
        time.sleep(0.2)
        while not done.wait(0.01):  # again and again: a cancel before the invoke starts does not reach it
            it.cancel()

    thread = threading.Thread(target=canceller)
    thread.start()
    outcome, seconds = run(0)
    done.set()
    thread.join()
    print(outcome, "|", seconds < 60)
    it.cancel()  # while nothing runs: no effect on the next invoke
    print(run(FOREVER - 3)[0], it.get_tensor(it.get_output_details()[1]["index"]).tolist())
    """.replace("FOREVER", str(FOREVER)), str(tmp_path / "loop.tflite"))
    first, second = out.splitlines()
    assert first.startswith("cancelled: WHILE op 0") and "the invoke was cancelled [cancelled] | True" in first, out
    expected = litert_answer(FOREVER - 3)
    assert second == f"ran {expected.tolist()}", (out, expected)


def test_the_invoke_time_limit_stops_a_long_loop(tmp_path):
    (tmp_path / "loop.tflite").write_bytes(while_model(limit=FOREVER))
    script = PRELUDE + """
    if len(sys.argv) < 3:
        it.set_invoke_timeout(300)
    outcome, seconds = run(0)
    print(outcome, "|", 0.25 < seconds < 60)
    it.set_invoke_timeout(0)
    print(run(FOREVER - 2)[0])
    """.replace("FOREVER", str(FOREVER))
    out = run_child(script, str(tmp_path / "loop.tflite"))
    assert "the invoke ran past its time limit of 300 ms [cancelled] | True" in out.splitlines()[0], out
    assert out.splitlines()[1] == "ran", out
    # the environment's limit, for a service that sets it once
    out = run_child(script.replace("len(sys.argv) < 3", "False"), str(tmp_path / "loop.tflite"),
                    {"RILLET_INVOKE_TIMEOUT_MS": "400"})
    assert "time limit of 400 ms [cancelled] | True" in out.splitlines()[0], out


def test_the_loop_byte_limit_bounds_the_bytes_loop_values_carry(tmp_path):
    """12 bytes of loop values (an int32 counter, two floats) per iteration: RILLET_LOOP_LIMIT_MB=1 stops the
    loop after 1 MiB / 12 bytes = 87381 iterations, with an error naming the op; a shorter loop runs."""
    (tmp_path / "loop.tflite").write_bytes(while_model(limit=FOREVER))
    script = """
    import sys
    import numpy as np
    from rillet.runtime import Interpreter
    it = Interpreter(model_path=sys.argv[1])
    it.allocate_tensors()
    for start in (0, FOREVER - 80_000):
        it.set_tensor(0, np.array(start, np.int32))
        it.set_tensor(1, np.zeros(2, np.float32))
        try:
            it.invoke()
            print("ran")
        except RuntimeError as e:
            print(e)
    """.replace("FOREVER", str(FOREVER))
    out = run_child(script, str(tmp_path / "loop.tflite"), {"RILLET_LOOP_LIMIT_MB": "1"})
    first, second = out.splitlines()
    assert first.startswith("WHILE op 0") and "carried 1048584 bytes in 87382 iterations, more than the " \
        "program's loop limit of 1048576 bytes" in first, out
    assert second == "ran", out
