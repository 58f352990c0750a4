"""Throughput of N threads, each with its own interpreter, against one thread with one: invoke releases the
GIL (cffi's API mode does for every call), so two interpreters in two threads run at once. Also one
interpreter shared by the threads (its lock serialises them: about 1x). Rounds alternate the set-ups;
medians and ratios.

    python bench/bench_threads_interpreters.py [--model mobilenet_v2_035_96_f32] [--threads 2] [--invokes 200]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np

from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import golden, model_path


def ready(path: str, x: np.ndarray) -> Interpreter:
    it = Interpreter(model_path=path, num_threads=1)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    return it


def invokes_per_second(interpreters: list[Interpreter], invokes: int) -> float:
    """Each interpreter in its own thread (the same one may appear twice: shared), `invokes` each."""
    start = threading.Barrier(len(interpreters) + 1)

    def work(it: Interpreter) -> None:
        start.wait()
        for _ in range(invokes):
            it.invoke()

    threads = [threading.Thread(target=work, args=(it,)) for it in interpreters]
    for t in threads:
        t.start()
    start.wait()
    began = time.perf_counter()
    for t in threads:
        t.join()
    return len(interpreters) * invokes / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mobilenet_v2_035_96_f32")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--invokes", type=int, default=200, help="invokes per thread per round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    path, x = str(model_path(args.model)), golden(args.model)["x"]
    one = ready(path, x)
    own = [ready(path, x) for _ in range(args.threads)]
    setups = {"1 thread, 1 interpreter": [one],
              f"{args.threads} threads, {args.threads} interpreters": own,
              f"{args.threads} threads, 1 shared interpreter": [one] * args.threads}
    rates: dict[str, list[float]] = {name: [] for name in setups}
    invokes_per_second([one], 20)  # warm up
    for _ in range(args.rounds):
        for name, interpreters in setups.items():
            rates[name].append(invokes_per_second(interpreters, args.invokes))
    base = float(np.median(rates["1 thread, 1 interpreter"]))
    print(f"{args.model}: invokes per second, median of {args.rounds} rounds of {args.invokes} invokes per thread "
          f"(each interpreter num_threads=1; kernel path {one.kernel_path})")
    for name, values in rates.items():
        median = float(np.median(values))
        print(f"  {name:<34} {median:9.1f}/s   x{median / base:.2f} of one thread")


if __name__ == "__main__":
    main()
