#!/usr/bin/env bash
# Runs the Arm kernel tests alone: the float32/int8 kernel testers and the thread-pool tester cross-built for
# aarch64 and armv7 and run under qemu-user (with and without dot products), and the whole library
# cross-built for aarch64, armv7 and armv6. Needs gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf and
# qemu-user (each missing tool skips its cases, saying which). Usage: run_arm_kernel_tests.sh [python]
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${1:-python3}"
CI=1 "$python" -m pytest -q -p no:cacheprovider tests/native/test_arm_kernels.py -rs
