"""Writes a seed corpus for the libFuzzer target (native/tests/fuzz_plan.c): the small reference models and
structure-aware mutations of each (tests/fuzz/structure_mutations.py), the small models that reach control
flow, variables, LSTMs, DENSIFY, custom ops and signatures (seed_models.py) and their feature mutations
(feature_mutations.py), plus every saved regression.

    python tests/fuzz/make_corpus.py build/fuzz-corpus [--per-model 300] [--from-tests]

--from-tests also runs tests/runtime with the record_models plugin, adding every model those tests build
(a single-op model for every op rillet runs) to the corpus.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from feature_mutations import FAMILIES
from seed_models import seeds
from structure_mutations import MUTATIONS, mutants

from rillet.converter.format import ModelError

MODELS = HERE.parent / "data" / "models"
# The large MobileNets make every libFuzzer step slow; their ops are in the small models too.
SEEDS = ["mlp_f32", "cnn_small_f32", "cnn_small_int8", "cnn_small_int8_floatio", "train_mlp"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-model", type=int, default=300)
    parser.add_argument("--from-tests", action="store_true", help="add the models tests/runtime builds")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    sources = [(MODELS / f"{name}.tflite").read_bytes() for name in SEEDS]
    sources += [p.read_bytes() for p in sorted((HERE / "regressions").glob("*.tflite"))]
    for k, data in enumerate(sources):
        try:
            blobs = [data, *mutants(data, seed=k, count=args.per_model)]
        except ModelError:  # a saved crash that the format layer cannot read: a seed as it is, not mutated
            blobs = [data]
        for blob in blobs:
            (args.out / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
            written += 1
    for family, mutations in FAMILIES.items():
        for k, (_, data) in enumerate(seeds(family)):
            for blob in [data, *mutants(data, seed=k, count=args.per_model // 4, mutations=mutations + MUTATIONS[:2])]:
                (args.out / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
                written += 1
    if args.from_tests:
        env = {**os.environ, "RILLET_RECORD_MODELS": str(args.out.resolve()), "CI": "1"}
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "record_models",
                        "-o", f"pythonpath=tests {HERE}", "tests/runtime"], cwd=HERE.parents[1], env=env, check=False,
                       stdout=subprocess.DEVNULL)
        written = len(list(args.out.iterdir()))
    print(f"{written} files in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
