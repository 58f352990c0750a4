"""fit over several processes on this machine (jax.distributed, JAX's CPU collectives): the same losses and
weights as one process over the same global batches; the launcher stops every process when one fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

from rillet.targets import distributed

HERE = Path(__file__).parent
WORKER = HERE / "fit_worker.py"


def worker_env() -> dict[str, str]:
    # the workers import fit_nets from here; they run in tmp_path, where no ./rillet shadows the package
    # (an empty PYTHONPATH entry would mean the current directory: the checkout, whose ./rillet shadows it)
    paths = [str(HERE), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), JAX_PLATFORMS="cpu")


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "result.json"
    subprocess.run([sys.executable, str(WORKER), str(out)], check=True, cwd=out.parent, env=worker_env(),
                   timeout=120)
    return json.loads(out.read_text())


@pytest.mark.parametrize("processes", [2, 4])
def test_processes_train_as_one_process_does(one_process, tmp_path, processes):
    out = tmp_path / "result.json"
    code = distributed.launch_local([sys.executable, str(WORKER), str(out), str(tmp_path / "ckpt")], processes,
                                    timeout=150, env=worker_env())
    assert code == 0
    result = json.loads(out.read_text())
    assert (result["processes"], result["devices"]) == (processes, processes)
    assert one_process["processes"] == 1
    for name, values in one_process["history"].items():
        np.testing.assert_allclose(result["history"][name], values, rtol=1e-5)
    assert sorted(result["variables"]) == sorted(one_process["variables"])
    for name, value in one_process["variables"].items():
        np.testing.assert_allclose(result["variables"][name], value, rtol=1e-5, atol=1e-7)
    state = json.loads((tmp_path / "ckpt" / "checkpoint.json").read_text())
    assert state["step"] == 10 and state["epoch"] == 2  # process 0 wrote the last checkpoint


def test_a_failing_process_stops_the_others(tmp_path):
    script = ("import os, sys, time\n"
              "if os.environ['RILLET_PROCESS_ID'] == '1': sys.exit(3)\n"
              "time.sleep(60)\n")
    start = time.monotonic()
    assert distributed.launch_local([sys.executable, "-c", script], 2, timeout=30) == 3
    assert time.monotonic() - start < 20


def test_environment_names_the_run(monkeypatch):
    for name in (distributed.COORDINATOR, distributed.NUM_PROCESSES, distributed.PROCESS_ID):
        monkeypatch.delenv(name, raising=False)
    assert distributed.initialize() is False  # no coordinator: one process, nothing to join
    monkeypatch.setenv(distributed.COORDINATOR, "127.0.0.1:1")
    with pytest.raises(ValueError, match="also give the process count"):
        distributed.initialize()
    with pytest.raises(ValueError, match="process id 2 is not in 0..1"):
        distributed.initialize(num_processes=2, process_id=2)
    monkeypatch.setenv(distributed.NUM_PROCESSES, "two")
    with pytest.raises(ValueError, match="RILLET_NUM_PROCESSES='two' is not an integer"):
        distributed.initialize(process_id=0)
