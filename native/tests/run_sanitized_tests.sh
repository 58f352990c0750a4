#!/usr/bin/env bash
# The native and runtime tests against librillet built with -fsanitize=address,undefined (UBSan fatal), in the
# given Python environment: `native/tests/run_sanitized_tests.sh .venv/bin/python`. Python itself is not
# instrumented, so ASan's runtime is preloaded, with libstdc++ beside it: ASan resolves __cxa_throw when it
# starts, and LiteRT (the tests' reference, C++) throws. Leak checking is off (CPython keeps its arenas to the
# end); RILLET_SANITIZED tells the tests that measure resident memory to skip (ASan's quarantine grows it).
set -euo pipefail
python="${1:-python3}"
case "$python" in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac  # absolute: we cd
cd "$(dirname "$0")/../.."
library="$("$python" native/tests/build_sanitized.py | tail -1)"
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)"
export RILLET_LIBRARY="$library" RILLET_SANITIZED=1 CI=1
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# From / : `python -c` puts the working directory on sys.path, where the checkout's ./rillet would shadow the
# installed package.
(cd / && "$python" -c "import rillet.native as n; assert n.LIBRARY_PATH == '$library', n.LIBRARY_PATH; print('sanitized:', n.LIBRARY_PATH)")
# The kernel testers build themselves (and the Arm ones need qemu): the library-level tests are what run here.
# The environment's pytest script, not `python -m pytest`, which would put the checkout (and its ./rillet) on
# sys.path ahead of the installed package.
# --capture=sys: a sanitizer's report is written to file descriptor 2 by C as the process dies; pytest's default
# capture would swallow it with the process.
"$(dirname "$python")/pytest" -q -p no:cacheprovider --capture=sys tests/runtime tests/fuzz tests/native/test_librillet.py
