"""One process of a `fit` run for the multi-process tests: joins the run its environment describes
(targets/distributed.py), trains fit_nets' classifier and, in process 0, writes the history and the
trained variables as JSON to argv[1]. argv[2], when given, is a checkpoint folder."""

import json
import sys

from rillet.targets import distributed

distributed.initialize()

import fit_nets
import jax

from rillet.targets import xla

model, data, optimizer = fit_nets.classifier()
history = xla.fit(model, data, loss="softmax_cross_entropy", optimizer=optimizer, epochs=2,
                  batch_size=fit_nets.BATCH, metrics=["accuracy"], validation=fit_nets.validation(),
                  checkpoint_dir=sys.argv[2] if len(sys.argv) > 2 else None, every=3, progress=False)
if jax.process_index() == 0:
    with open(sys.argv[1], "w") as f:
        json.dump({"processes": jax.process_count(), "devices": len(jax.devices()), "history": history,
                   "variables": {k: v.tolist() for k, v in model.graph.store.items()}}, f)
