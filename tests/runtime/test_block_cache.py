"""rl_block_cache: a plan freed into the cache hands its blocks to the next plan, zeroed again, and results do not
change. The runtime gives every plan one process-wide cache (runtime/plan.py), so a model readied again reuses
the memory its last interpreter freed instead of faulting fresh pages in."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rillet.native import ffi, lib

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mobilenet_v2_035_96_f32.tflite"


def prepared_plan(content, cache):
    out = ffi.new("rl_plan **")
    assert lib.rl_plan_create(out, 1) == lib.RL_OK
    plan = out[0]
    lib.rl_plan_set_block_cache(plan, cache)
    assert lib.rl_plan_build_from_tflite(plan, content, len(content), 0) == lib.RL_OK
    assert lib.rl_plan_prepare(plan) == lib.RL_OK
    return plan


def arena_tensors(plan) -> list[tuple[int, int, int]]:
    """(tensor, address, bytes) of every tensor in the plan's arena."""
    found = []
    for t in range(lib.rl_plan_tensor_count(plan)):
        if lib.rl_plan_tensor_storage(plan, t) == lib.RL_STORAGE_ARENA and lib.rl_plan_tensor_bytes(plan, t):
            found.append((t, int(ffi.cast("uintptr_t", lib.rl_plan_tensor_data(plan, t))),
                          lib.rl_plan_tensor_bytes(plan, t)))
    return found


def output_of(plan, image: np.ndarray) -> np.ndarray:
    data = lib.rl_plan_tensor_data(plan, 0)
    nbytes = lib.rl_plan_tensor_bytes(plan, 0)
    ffi.memmove(data, image.tobytes(), nbytes)
    assert lib.rl_plan_invoke(plan) == lib.RL_OK
    last = lib.rl_plan_tensor_count(plan) - 1
    out = ffi.buffer(lib.rl_plan_tensor_data(plan, last), lib.rl_plan_tensor_bytes(plan, last))
    return np.frombuffer(out, np.float32).copy()


@pytest.fixture
def content() -> bytes:
    if not MODEL.exists():
        pytest.skip(f"{MODEL} is not in this checkout")
    return MODEL.read_bytes()


def test_a_freed_plans_blocks_serve_the_next_zeroed(content):
    cache = ffi.gc(lib.rl_block_cache_create(32 << 20), lib.rl_block_cache_destroy)
    first = prepared_plan(content, cache)
    before = arena_tensors(first)
    assert before
    for _, address, nbytes in before:  # what a freed block holds must not reach the next plan
        ffi.memmove(ffi.cast("void *", address), b"\xff" * nbytes, nbytes)
    lib.rl_plan_destroy(first)
    second = prepared_plan(content, cache)
    after = arena_tensors(second)
    assert [a for _, a, _ in after] == [a for _, a, _ in before]  # the same arena block, reused
    for _, address, nbytes in after:
        held = np.frombuffer(ffi.buffer(ffi.cast("void *", address), nbytes), np.uint8)
        assert np.count_nonzero(held) == 0
    lib.rl_plan_destroy(second)


def test_results_are_the_same_with_and_without_the_cache(content):
    image = np.random.default_rng(3).uniform(-1, 1, (1, 96, 96, 3)).astype(np.float32)
    plain = prepared_plan(content, ffi.NULL)
    expected = output_of(plain, image)
    lib.rl_plan_destroy(plain)
    cache = ffi.gc(lib.rl_block_cache_create(32 << 20), lib.rl_block_cache_destroy)
    for _ in range(3):  # fresh blocks, then kept ones
        plan = prepared_plan(content, cache)
        np.testing.assert_array_equal(output_of(plan, image), expected)
        lib.rl_plan_destroy(plan)

