"""A pytest plugin that saves every model the tests hand to rillet's Interpreter (the single-op models of every
op test, the hand-built multi-subgraph ones) into $RILLET_RECORD_MODELS, as fuzzing seeds that reach every op:
`pytest -p record_models tests/runtime` (tests/fuzz on the path), which make_corpus.py --from-tests runs."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

OUT = os.environ.get("RILLET_RECORD_MODELS")


def pytest_configure(config):
    if not OUT:
        return
    from rillet.runtime import interpreter

    original = interpreter.Interpreter.__init__
    out = Path(OUT)
    out.mkdir(parents=True, exist_ok=True)

    def recording_init(self, model_path=None, model_content=None, *args, **kwargs):
        data = model_content if model_content is not None else None
        if data is None and model_path is not None and Path(model_path).is_file():
            data = Path(model_path).read_bytes()
        if isinstance(data, (bytes, bytearray)) and 0 < len(data) <= 65536:
            (out / hashlib.sha1(data).hexdigest()).write_bytes(bytes(data))
        original(self, model_path, model_content, *args, **kwargs)

    interpreter.Interpreter.__init__ = recording_init
