"""The desktop backend: lowers a graph (inference, or a whole training step) to one jitted JAX function,
data parallel across `jax.devices()`, with npz checkpoints keyed by variable name.

Variables are functional state: the jitted step takes the values of the variables it touches and returns
their new values. Every read sees the value from before the step and every ASSIGN_VARIABLE the step reaches
writes the returned value, which is exactly what `Graph.run` does on the numpy reference.
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from rillet.graph import Graph, Node, Tensor, Variable

_STRUCTURAL = {"PLACEHOLDER", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "NO_OP"}
BATCH_AXIS = "batch"
"""The name of the mesh axis a batch is split along (data parallelism)."""
# Mixed precision computes these in the low precision: they are where the time goes, and their float32
# results keep everything else (losses, softmax, the optimizer's update of float32 variables) in float32.
LOW_PRECISION_OPS = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL"}
"""The ops `precision="bfloat16"` computes in bfloat16 (where the time goes); everything else,
losses and the optimizer's float32 updates included, stays float32."""


def _fetch_node(f: Any) -> Node:
    if isinstance(f, Variable):
        return f.value.node
    if isinstance(f, Tensor):
        return f.node
    if isinstance(f, Node):
        return f
    raise TypeError(f"cannot fetch {f!r}: expected a Tensor, Variable or Node")


def _fetch_tensor(f: Any) -> Tensor | None:
    """The tensor whose value a fetch returns; None for a node fetched only to run it (an assign, a group)."""
    if isinstance(f, Variable):
        return f.value
    return f if isinstance(f, Tensor) else None


class CompiledStep:
    """One jitted JAX function for a subgraph: `step(variables, feeds, rng_key=None) -> (fetched, new_variables)`.

    variables: name -> array for every variable in `variable_names` (those the subgraph reads or assigns);
    feeds: one array per placeholder in `feeds`, in order; rng_key: a `jax.random` key for random ops
    (default: a fixed key). `fetched` has the structure of the fetches given to `compile`, with None for
    fetched nodes that have no value; `new_variables` has the same keys as `variables`. `lower` is the same
    function not jitted, for callers that trace it inside a jitted function of their own (`fit`).
    `compute_dtype="bfloat16"` runs LOW_PRECISION_OPS on bfloat16 operands; variables stay float32.
    """

    def __init__(self, fetches: Any, feeds: Sequence[Tensor], donate_variables: bool = False,
                 state_sharding: Any = None, compute_dtype: str | None = None):
        flat, self._treedef = jax.tree_util.tree_flatten(fetches)
        if not flat:
            raise ValueError("nothing to fetch")
        self.graph: Graph = _fetch_node(flat[0]).graph
        self.feeds = [self._check_feed(p) for p in feeds]
        self._fetch_tensors = [_fetch_tensor(f) for f in flat]
        needed = self.graph.ancestors(flat, stop=self.feeds)
        self._nodes = [n for n in self.graph.nodes if n in needed]
        for node in self._nodes:
            if node.op == "PLACEHOLDER" and node.outputs[0] not in self.feeds:
                raise ValueError(f'input "{node.attrs["name"]}" is needed by the fetches but not in feeds')
            if node.op not in _STRUCTURAL and node.opdef.jax is None:
                raise NotImplementedError(f'{node.op} "{node.name}": no JAX lowering')
        touched = {n.attrs["shared_name"] for n in self._nodes if n.op == "VAR_HANDLE"}
        self.variable_names = [name for name in self.graph.variables if name in touched]
        self.assigned = sorted({self._handle_name(n) for n in self._nodes if n.op == "ASSIGN_VARIABLE"})
        self._state_sharding = state_sharding
        self.compute_dtype = None if compute_dtype in (None, "float32") else jnp.dtype(compute_dtype)
        self._jitted = jax.jit(self.lower, donate_argnums=(0,) if donate_variables else ())

    def _check_feed(self, p: Any) -> Tensor:
        if isinstance(p, str):
            if p not in self.graph.placeholders:
                raise KeyError(f'no input named "{p}" (inputs: {sorted(self.graph.placeholders)})')
            p = self.graph.placeholders[p]
        if not isinstance(p, Tensor) or p.node.op != "PLACEHOLDER" or p.graph is not self.graph:
            raise TypeError(f"feeds must be placeholders of the fetches' graph, got {p!r}")
        return p

    @staticmethod
    def _handle_name(node: Node) -> str:
        return node.inputs[0].node.attrs["shared_name"]

    def __call__(self, variables: Mapping[str, Any], feeds: Sequence[Any], rng_key: Any = None):
        missing = [name for name in self.variable_names if name not in variables]
        if missing:
            raise KeyError(f"no value given for variables {missing}")
        if len(feeds) != len(self.feeds):
            raise ValueError(f"expected {len(self.feeds)} feeds ({[p.name for p in self.feeds]}), got {len(feeds)}")
        state = {name: variables[name] for name in self.variable_names}
        return self._jitted(state, tuple(feeds), rng_key)

    def lower(self, state: dict, feeds: tuple, rng_key: Any = None):
        """The step lowered by JAX for `state`, `feeds` and `rng_key` (not compiled): `.as_text()` shows the
        StableHLO, `.compile()` compiles it. Matrix products and convolutions in full float32, as when run."""
        # matmuls and convolutions in full float32 on every backend (GPUs default to TF32), as the reference
        with jax.default_matmul_precision("highest"):
            return self._lower(state, feeds, rng_key)

    def _lower(self, state: dict, feeds: tuple, rng_key: Any):
        values: dict[Tensor, Any] = dict(zip(self.feeds, feeds))
        new_state = dict(state)
        for node in self._nodes:
            if node.outputs and all(t in values for t in node.outputs):
                continue
            op, args = node.op, [values[t] for t in node.inputs]
            if op in ("NO_OP", "PLACEHOLDER"):
                continue
            if op == "VAR_HANDLE":
                values[node.outputs[0]] = node.attrs["shared_name"]
                continue
            if op == "READ_VARIABLE":
                values[node.outputs[0]] = state[args[0]]
                continue
            if op == "ASSIGN_VARIABLE":
                var = self.graph.variables[args[0]]
                new_state[args[0]] = jnp.broadcast_to(jnp.asarray(args[1], dtype=var.dtype), var.shape)
                continue
            if op == "SHAPE":  # static under jit: keep it a host array so ops taking a shape can read it
                values[node.outputs[0]] = np.array(args[0].shape, dtype=node.attrs["out_type"])
                continue
            try:
                if op == "RANDOM_UNIFORM":
                    key = jax.random.PRNGKey(node.attrs["seed"]) if rng_key is None else rng_key
                    out = node.opdef.jax(node.attrs, *args, key=jax.random.fold_in(key, node.id))
                elif self.compute_dtype is not None and op in LOW_PRECISION_OPS:
                    out = self._low_precision(node, args)
                else:
                    out = node.opdef.jax(node.attrs, *args)
            except Exception as e:
                raise RuntimeError(f'{op} "{node.name}": {e}') from e
            outs = out if isinstance(out, tuple) else (out,)
            for t, v in zip(node.outputs, outs):
                values[t] = v
        if self._state_sharding is not None:
            new_state = jax.lax.with_sharding_constraint(new_state, self._state_sharding)
        fetched = [None if t is None else values[t] for t in self._fetch_tensors]
        return jax.tree_util.tree_unflatten(self._treedef, fetched), new_state


    def _low_precision(self, node: Node, args: list):
        low = [a.astype(self.compute_dtype) if jnp.result_type(a) == jnp.float32 else a for a in args]
        return node.opdef.jax(node.attrs, *low).astype(node.outputs[0].dtype)


def compile(fetches: Any, feeds: Sequence[Tensor | str] = (), donate_variables: bool = False) -> CompiledStep:
    """Lower the subgraph that computes `fetches` (Tensors, Variables, Nodes, or lists/tuples/dicts of them)
    from `feeds` (placeholders, or their names) to one jitted JAX function; see CompiledStep."""
    return CompiledStep(fetches, feeds, donate_variables=donate_variables)


class XlaRunner:
    """Runs compiled steps of one graph, holding its variables on the device(s) between runs.

    `data_parallel=True` splits every feed whose first dimension is dynamic (the batch) across
    `jax.devices()` and replicates the variables; XLA then inserts the cross-device reductions, so a step
    computes what it computes on one device (up to the order of float sums).
    """

    def __init__(self, fetches: Any, feeds: Sequence[Tensor | str] = (), data_parallel: bool = False,
                 devices: Sequence[Any] | None = None, seed: int = 0):
        self._default = (fetches, list(feeds))
        flat = jax.tree_util.tree_leaves(fetches)
        self.graph: Graph = _fetch_node(flat[0]).graph
        self.data_parallel = data_parallel
        self.mesh = Mesh(np.asarray(devices or jax.devices()), (BATCH_AXIS,)) if data_parallel else None
        self._replicated = NamedSharding(self.mesh, PartitionSpec()) if data_parallel else None
        self._steps: dict[tuple, CompiledStep] = {}
        self._key = jax.random.PRNGKey(seed)
        self.load_from_graph()

    @property
    def num_devices(self) -> int:
        """How many devices the runner's mesh spans (1 without a mesh)."""
        return self.mesh.size if self.mesh is not None else 1

    def load_from_graph(self) -> None:
        """Take the variables' current values from the graph's store (onto the device(s))."""
        self._values = {name: self._place_variable(value) for name, value in self.graph.store.items()}

    def _place_variable(self, value: Any):
        return jax.device_put(value, self._replicated) if self.data_parallel else jnp.asarray(value)

    def _step_for(self, fetches: Any, feeds: list) -> CompiledStep:
        key = (tuple(map(id, jax.tree_util.tree_leaves(fetches))), str(jax.tree_util.tree_structure(fetches)),
               tuple(id(p) if isinstance(p, Tensor) else p for p in feeds))
        step = self._steps.get(key)
        if step is None:
            sharding = self._replicated if self.data_parallel else None
            step = self._steps[key] = CompiledStep(fetches, feeds, donate_variables=True, state_sharding=sharding)
        return step

    def run(self, feeds: Mapping[Any, Any] | Sequence[Any] = (), fetches: Any = None,
            feed_list: Sequence[Tensor | str] | None = None) -> Any:
        """Run one step: `feeds` maps placeholders (or names) to arrays, or lists arrays in the order of the
        runner's feeds. Returns the fetched values (numpy) with the fetches' structure; variables assigned by
        the step keep their new values on the device(s). `fetches`/`feed_list` override the runner's own."""
        if fetches is None:
            fetches, feed_list = self._default
        if isinstance(feeds, Mapping):
            feed_list = list(feeds) if feed_list is None else feed_list
            by_tensor = {self._resolve(p): v for p, v in feeds.items()}
            arrays = [by_tensor[self._resolve(p)] for p in feed_list]
        else:
            arrays = list(feeds)
        step = self._step_for(fetches, list(feed_list or []))
        for name in step.variable_names:  # variables made after this runner (an optimizer's slots) start from the store
            if name not in self._values:
                self._values[name] = self._place_variable(self.graph.store[name])
        arrays = [self._place_feed(p, a) for p, a in zip(step.feeds, arrays)]
        self._key, key = jax.random.split(self._key)
        fetched, new_state = step(self._values, arrays, key)
        self._values.update(new_state)
        return jax.tree_util.tree_map(np.asarray, fetched)

    def _resolve(self, p: Any) -> Tensor:
        return self.graph.placeholders[p] if isinstance(p, str) else p

    def _place_feed(self, placeholder: Tensor, value: Any):
        value = np.asarray(value, dtype=placeholder.dtype)
        if not self.data_parallel:
            return jnp.asarray(value)
        if value.ndim and placeholder.shape and placeholder.shape[0] is None:
            if value.shape[0] % self.num_devices:
                raise ValueError(f'input "{placeholder.name}": a batch of {value.shape[0]} does not split '
                                 f"evenly over {self.num_devices} devices")
            return jax.device_put(value, NamedSharding(self.mesh, PartitionSpec(BATCH_AXIS)))
        return jax.device_put(value, self._replicated)

    def variables(self) -> dict[str, np.ndarray]:
        """The variables' current values, copied to the host."""
        return {name: np.array(value) for name, value in self._values.items()}

    def load_variables(self, values: Mapping[str, Any]) -> None:
        """Sets variables by name from host values (placed on the device(s)). KeyError for a name the graph
        lacks, ValueError for a value of another shape."""
        for name, value in values.items():
            var = self.graph.variables[name]
            value = np.asarray(value, dtype=var.dtype)
            if value.shape != var.shape:
                raise ValueError(f'variable "{name}": value has shape {value.shape}, expected {var.shape}')
            self._values[name] = self._place_variable(value)

    def sync_to_graph(self) -> None:
        """Write the variables' current values back into the graph's store (for graph.run, the converter)."""
        for name, value in self.variables().items():
            self.graph.variables[name].load(value)


def save_checkpoint(path: str, source: Graph | XlaRunner) -> None:
    """Save every variable's current value to an npz file keyed by variable name."""
    values = source.variables() if isinstance(source, XlaRunner) else dict(source.store)
    # np.savez's keyword names would collide with variables named "file" or "allow_pickle"; write its format
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, value in values.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(value), allow_pickle=False)


def load_checkpoint(path: str, target: Graph | XlaRunner) -> list[str]:
    """Load a checkpoint written by save_checkpoint into a graph's store (or a runner's device values);
    every variable of the graph must be in the file and every name in the file must be a variable."""
    graph = target.graph if isinstance(target, XlaRunner) else target
    with np.load(path) as data:
        values = {name: data[name] for name in data.files}
    unknown = sorted(set(values) - set(graph.variables))
    missing = sorted(set(graph.variables) - set(values))
    if unknown or missing:
        raise KeyError(f"checkpoint {path}: unknown variables {unknown}, missing variables {missing}")
    if isinstance(target, XlaRunner):
        target.load_variables(values)
    else:
        for name, value in values.items():
            graph.variables[name].load(value)
    return sorted(values)



_FIT_NAMES = ("METRICS", "CheckpointMismatchError", "FitError", "History", "fit")


def __getattr__(name: str) -> Any:
    """fit and its errors, from targets/fit.py, which builds on this module (so imports it, not the reverse)."""
    if name in _FIT_NAMES:
        from . import fit as fit_module

        return getattr(fit_module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
