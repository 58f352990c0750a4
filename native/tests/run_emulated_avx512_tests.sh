#!/usr/bin/env bash
# The tests against the emulated AVX-512 build of librillet (build_config.EMULATED_AVX512_FLAGS: the AVX-512 kernel
# files on SIMDe, dispatch taking AVX-512 VNNI on an AVX2 CPU), in the given Python environment:
# `native/tests/run_emulated_avx512_tests.sh .venv/bin/python`. Every model then runs on the AVX-512 paths by
# default, and the path tests (tests/runtime/test_*_paths.py) take avx512 and avx512vnni too: int8 bit for bit
# with LiteRT and the scalar path, float within 1e-5. A CPU with AVX-512 VNNI runs those paths in the README's test
# command already, so this does nothing there.
set -euo pipefail
python="${1:-python3}"
case "$python" in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac  # absolute: we cd
cd "$(dirname "$0")/../.."
if grep -qw avx512_vnni /proc/cpuinfo 2>/dev/null; then
    echo "emulated AVX-512: this CPU has AVX-512 VNNI; its paths ran natively in the test command"
    exit 0
fi
library="$("$python" native/tests/build_emulated_avx512.py | tail -1)"
export RILLET_LIBRARY="$library" CI=1
# From / : `python -c` puts the working directory on sys.path, where the checkout's ./rillet would shadow the
# installed package.
(cd / && "$python" -c "import rillet.native as n; assert n.LIBRARY_PATH == '$library', n.LIBRARY_PATH; \
assert n.kernel_path() == 'avx512vnni', n.kernel_path(); print('emulated AVX-512:', n.LIBRARY_PATH)")
# Everything that runs a model through librillet; the kernel testers (tests/native) build their own emulated
# copies in the test command, and the Arm and deploy tests are about other builds.
"$(dirname "$python")/pytest" -q -p no:cacheprovider tests/runtime tests/quant tests/cli tests/training \
    tests/converter tests/examples tests/fuzz
