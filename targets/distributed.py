"""Several processes, on one host or many, through `jax.distributed`: `initialize` joins this process to
the others (coordinator address, process count and id from arguments or the environment), after which
`jax.devices()` lists every process's devices and `fit` trains on one mesh over all of them;
`launch_local` starts N such processes on this machine for a user trying it.

On the CPU, the processes' collectives go through gloo (JAX's CPU collectives; older JAX versions had
none unless asked). Local processes run on the CPU unless JAX_PLATFORMS says otherwise: one process already
uses every GPU of its host, and two processes cannot share one GPU's collectives.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence

COORDINATOR, NUM_PROCESSES, PROCESS_ID = "RILLET_COORDINATOR", "RILLET_NUM_PROCESSES", "RILLET_PROCESS_ID"


def initialize(coordinator: str | None = None, num_processes: int | None = None,
               process_id: int | None = None) -> bool:
    """Join the run described by the arguments or, where they are None, by RILLET_COORDINATOR
    (host:port of process 0), RILLET_NUM_PROCESSES and RILLET_PROCESS_ID. Returns False (and does nothing)
    when neither names a coordinator: a single-process run. Call it before anything else uses JAX."""
    coordinator = coordinator or os.environ.get(COORDINATOR)
    if not coordinator:
        return False
    num_processes = num_processes if num_processes is not None else _env_int(NUM_PROCESSES)
    process_id = process_id if process_id is not None else _env_int(PROCESS_ID)
    if num_processes is None or process_id is None:
        raise ValueError(f"coordinator {coordinator}: also give the process count and this process's id "
                         f"(arguments, or {NUM_PROCESSES} and {PROCESS_ID})")
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process id {process_id} is not in 0..{num_processes - 1}")
    import jax

    if getattr(jax.config, "jax_cpu_collectives_implementation", "gloo") in (None, "none"):
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                               process_id=process_id)
    return True


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not an integer") from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_environment(process_id: int, processes: int, coordinator: str,
                        base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.update({COORDINATOR: coordinator, NUM_PROCESSES: str(processes), PROCESS_ID: str(process_id)})
    env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def launch_local(argv: Sequence[str], processes: int, timeout: float | None = None,
                 env: Mapping[str, str] | None = None, quiet_others: bool = True) -> int:
    """Run `argv` (a command line that calls `initialize()`) as `processes` processes on this machine and
    wait for them. The exit status is the first failing process's, else 0. When one fails, the others are
    stopped (they would wait for it forever in a collective); so are all on Ctrl-C or past `timeout`
    seconds (then TimeoutError). Processes other than 0 print only errors unless quiet_others=False."""
    if processes < 1:
        raise ValueError(f"processes={processes}: at least 1")
    coordinator = f"127.0.0.1:{free_port()}"
    children = []
    try:
        for k in range(processes):
            out = subprocess.DEVNULL if quiet_others and k else None  # their errors still show on stderr
            children.append(subprocess.Popen(list(argv), env=process_environment(k, processes, coordinator, env),
                                             stdout=out, start_new_session=True))
        return _wait(children, timeout)
    finally:
        _stop(children)


def _wait(children: list[subprocess.Popen], timeout: float | None) -> int:
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        codes = [c.poll() for c in children]
        failed = [code for code in codes if code not in (None, 0)]
        if failed:
            return failed[0]
        if all(code == 0 for code in codes):
            return 0
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"{len(children)} processes still running after {timeout} s")
        time.sleep(0.05)


def _stop(children: list[subprocess.Popen]) -> None:
    """Ask every child still running to stop (SIGINT: fit checkpoints and exits), then kill what is left."""
    running = [c for c in children if c.poll() is None]
    for c in running:
        _signal_group(c, signal.SIGINT)
    deadline = time.monotonic() + 10
    for c in running:
        try:
            c.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(c, signal.SIGKILL)
            c.wait()


def _signal_group(child: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(child.pid, sig)  # the child's whole session: it may have started helpers of its own
    except (ProcessLookupError, PermissionError):
        pass
