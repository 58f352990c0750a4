"""The graph itself: tensors (edges), nodes (ops), variables (named mutable state) and numpy execution."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from .registry import REGISTRY, OpDef

Shape = tuple  # of int | None; None is a dimension known only at run time (usually the batch)


def canonical_dtype(dtype: Any) -> str:
    """'float32', 'int32', 'bool', ... or 'resource' (a variable handle)."""
    if dtype == "resource":
        return "resource"
    return np.dtype(dtype).name


class Tensor:
    """An edge of the graph: one output of one node, with a static shape and dtype."""

    __array_priority__ = 1000  # so that `ndarray * tensor` builds a node instead of broadcasting numpy

    def __init__(self, node: Node, index: int, shape: Shape, dtype: str):
        self.node = node
        self.index = index
        self.shape = tuple(shape)
        self.dtype = dtype
        self.layer_call = None  # set by a Layer: lets a Model rebuild this tensor in another mode

    @property
    def graph(self) -> Graph:
        """The Graph the tensor belongs to."""
        return self.node.graph

    @property
    def producer(self) -> Node:
        """The Node that computes this tensor."""
        return self.node

    @property
    def name(self) -> str:
        """The producing node's name, with `:i` for its output i > 0."""
        return self.node.name if self.index == 0 else f"{self.node.name}:{self.index}"

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def __repr__(self) -> str:
        dims = ", ".join("?" if d is None else str(d) for d in self.shape)
        return f'<Tensor "{self.name}" [{dims}] {self.dtype}>'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:  # identity, so tensors can key dicts
        return self is other

    # Operators build nodes; the op module is imported late because it imports this one.
    def __add__(self, other):
        from . import ops
        return ops.add(self, other)

    def __radd__(self, other):
        from . import ops
        return ops.add(other, self)

    def __sub__(self, other):
        from . import ops
        return ops.sub(self, other)

    def __rsub__(self, other):
        from . import ops
        return ops.sub(other, self)

    def __mul__(self, other):
        from . import ops
        return ops.mul(self, other)

    def __rmul__(self, other):
        from . import ops
        return ops.mul(other, self)

    def __truediv__(self, other):
        from . import ops
        return ops.div(self, other)

    def __rtruediv__(self, other):
        from . import ops
        return ops.div(other, self)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    def __matmul__(self, other):
        from . import ops
        return ops.batch_matmul(self, other)

    def __gt__(self, other):
        from . import ops
        return ops.greater(self, other)

    def __lt__(self, other):
        from . import ops
        return ops.greater(other, self)


class Node:
    """One op application: an op name from the registry, input tensors, attrs, output tensors."""

    def __init__(self, graph: Graph, op: str, name: str, inputs: list[Tensor], attrs: dict,
                 control_inputs: list[Node]):
        self.graph = graph
        self.op = op
        self.name = name
        self.inputs = inputs
        self.attrs = attrs
        self.control_inputs = control_inputs
        self.outputs: list[Tensor] = []
        self.id = len(graph.nodes)

    @property
    def opdef(self) -> OpDef:
        """The OpDef registered for this node's op."""
        return REGISTRY[self.op]

    def __repr__(self) -> str:
        return f'<Node {self.op} "{self.name}">'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


class Variable:
    """Mutable state: a VAR_HANDLE, one READ_VARIABLE of it, and its current value in the graph's store.

    There is one read per variable, created with it, so every read in a run sees the value from the start
    of the run; assignments made by the run are visible to the next run (TensorFlow's resource semantics
    with the reads ordered before the writes, which is also what a TFLite `train` signature does).
    """

    __array_priority__ = 1000

    def __init__(self, initial_value: Any, name: str = "variable", trainable: bool = True,
                 dtype: Any = None, graph: Graph | None = None):
        from . import ops

        graph = graph or get_default_graph()
        value = np.array(initial_value, dtype=dtype if dtype is not None else None)
        if dtype is None and value.dtype == np.float64 and not isinstance(initial_value, np.ndarray):
            value = value.astype(np.float32)  # python floats make float32 variables, as in TensorFlow
        self.graph = graph
        self.trainable = trainable
        self.initial_value = value
        base = candidate = graph.scoped(name)
        for i in range(1, len(graph.variables) + 2):
            if candidate not in graph.variables:
                break
            candidate = f"{base}_{i}"
        self.name = candidate
        self.handle = ops.var_handle(self.name, value.shape, value.dtype.name, graph=graph)
        self.value = ops.read_variable(self.handle, value.shape, value.dtype.name)
        graph.variables[self.name] = self
        graph.store[self.name] = value.copy()

    @property
    def shape(self) -> Shape:
        """The variable's shape (fixed when it is made)."""
        return self.value.shape

    @property
    def dtype(self) -> str:
        """The variable's dtype name ("float32", ...)."""
        return self.value.dtype

    def assign(self, new_value: Any) -> Node:
        """An ASSIGN_VARIABLE node; it takes effect when a run reaches it."""
        from . import ops
        return ops.assign_variable(self.handle, new_value)

    def numpy(self) -> np.ndarray:
        """A copy of the variable's current value, as the graph's store holds it."""
        return self.graph.store[self.name].copy()

    def load(self, value: Any) -> None:
        """Set the current value from the host, outside any run."""
        value = np.asarray(value, dtype=self.dtype)
        if value.shape != self.shape:
            raise ValueError(f'variable "{self.name}": value has shape {value.shape}, expected {self.shape}')
        self.graph.store[self.name] = value.copy()

    def __repr__(self) -> str:
        return f'<Variable "{self.name}" {list(self.shape)} {self.dtype}>'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    __add__ = Tensor.__add__
    __radd__ = Tensor.__radd__
    __sub__ = Tensor.__sub__
    __rsub__ = Tensor.__rsub__
    __mul__ = Tensor.__mul__
    __rmul__ = Tensor.__rmul__
    __truediv__ = Tensor.__truediv__
    __rtruediv__ = Tensor.__rtruediv__
    __neg__ = Tensor.__neg__
    __matmul__ = Tensor.__matmul__


class Graph:
    """Nodes in creation order (always a topological order), named placeholders, variables and their values."""

    def __init__(self, seed: int = 0):
        self.nodes: list[Node] = []
        self.variables: dict[str, Variable] = {}
        self.store: dict[str, np.ndarray] = {}  # the variables' current values
        self.placeholders: dict[str, Tensor] = {}
        # assignments made by layers in training mode (batch-norm statistics), with the tensor they belong to
        self.update_ops: list[tuple[Node, Tensor]] = []
        self.rng = np.random.default_rng(seed)  # for RANDOM_UNIFORM on the numpy reference
        self._names: set[str] = set()
        self._scopes: list[str] = []
        self._control: list[list[Node]] = []

    # naming
    def scoped(self, base: str) -> str:
        """`base` prefixed with the current name scopes (`block1/conv`)."""
        return "/".join([*self._scopes, base]) if self._scopes else base

    def unique_name(self, name: str, reserve: bool = True) -> str:
        """`name`, or `name_1`, `name_2`, ... when the graph has it already; `reserve` claims the result."""
        candidate, i = name, 1
        while candidate in self._names:
            candidate = f"{name}_{i}"
            i += 1
        if reserve:
            self._names.add(candidate)
        return candidate

    @contextlib.contextmanager
    def name_scope(self, scope: str | None) -> Iterator[None]:
        """Prefix node names with `scope/`; None clears the prefix for the duration."""
        saved = self._scopes
        self._scopes = [] if scope is None else [*saved, scope]
        try:
            yield
        finally:
            self._scopes = saved

    @contextlib.contextmanager
    def control_dependencies(self, nodes: list) -> Iterator[None]:
        """Nodes created inside run after `nodes` (which may be Nodes or Tensors)."""
        self._control.append([n.node if isinstance(n, Tensor) else n for n in nodes])
        try:
            yield
        finally:
            self._control.pop()

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """A context in which ops, placeholders and Variables made without a `graph=` go into this graph:
        `with g.as_default(): ...`. Contexts nest."""
        _DEFAULT_STACK.append(self)
        try:
            yield self
        finally:
            _DEFAULT_STACK.pop()

    # building
    def add_node(self, op: str, inputs: list[Tensor], attrs: dict | None = None, name: str | None = None,
                 control_inputs: list[Node] = ()) -> Node:
        """Add one node: checks attrs against the op's schema and infers its outputs' shapes and dtypes."""
        opdef = REGISTRY.get(op)
        if opdef is None:
            raise KeyError(f'unknown op "{op}"')
        for t in inputs:
            if t.graph is not self:
                raise ValueError(f'{op}: input "{t.name}" belongs to another graph')
        attrs = opdef.complete_attrs(attrs or {})
        node_name = self.unique_name(self.scoped(name or op.lower()))
        controls = [n for group in self._control for n in group] + list(control_inputs)
        node = Node(self, op, node_name, list(inputs), attrs, controls)
        try:
            specs = opdef.infer(attrs, [(t.shape, t.dtype) for t in inputs])
        except (ValueError, IndexError, TypeError) as e:
            raise ValueError(f'{op} "{node_name}": {e}') from None
        node.outputs = [Tensor(node, i, tuple(s), canonical_dtype(d)) for i, (s, d) in enumerate(specs)]
        self.nodes.append(node)
        return node

    # running
    def run(self, fetches: Any, feeds: dict | None = None) -> Any:
        """Evaluate `fetches` (a Tensor, Variable, Node, or a list/tuple/dict of them) on the numpy reference.

        `feeds` maps placeholders (Tensors or their names) to arrays. Assignments reached by the run update
        the variable store; all variable reads see the values from before the run.
        """
        feed_values = self._resolve_feeds(feeds or {})
        flat = _flatten(fetches)
        targets = [_fetch_node(f) for f in flat]
        needed = self._ancestors([n for n in targets if n is not None], stop=feed_values)
        values: dict[Tensor, Any] = dict(feed_values)
        for node in self.nodes:
            if node not in needed:
                continue
            if node.outputs and all(t in values for t in node.outputs):
                continue
            args = [values[t] for t in node.inputs]
            opdef = node.opdef
            try:
                if opdef.stateful:
                    out = opdef.numpy(node.attrs, *args, state=self)
                else:
                    out = opdef.numpy(node.attrs, *args)
            except Exception as e:
                raise RuntimeError(f'{node.op} "{node.name}": {e}') from e
            outs = out if isinstance(out, tuple) else (out,)
            for t, v in zip(node.outputs, outs):
                if t.dtype != "resource":
                    v = np.asarray(v, dtype=t.dtype)
                    if not _shape_fits(v.shape, t.shape):
                        raise RuntimeError(f'{node.op} "{node.name}": produced shape {v.shape}, '
                                           f"inferred {t.shape}")
                values[t] = v
        results = []
        for f in flat:
            if isinstance(f, Variable):
                results.append(values[f.value])
            elif isinstance(f, Tensor):
                results.append(values[f])
            else:
                results.append(None)
        return _unflatten(fetches, iter(results))

    def _resolve_feeds(self, feeds: dict) -> dict[Tensor, np.ndarray]:
        resolved = {}
        for key, value in feeds.items():
            if isinstance(key, str):
                if key not in self.placeholders:
                    raise KeyError(f'no input named "{key}" (inputs: {sorted(self.placeholders)})')
                key = self.placeholders[key]
            if not isinstance(key, Tensor) or key.graph is not self:
                raise KeyError(f"cannot feed {key!r}: not a tensor of this graph")
            value = np.asarray(value, dtype=key.dtype)
            if not _shape_fits(value.shape, key.shape):
                raise ValueError(f'input "{key.name}": fed shape {value.shape}, expected {key.shape}')
            resolved[key] = value
        return resolved

    def _ancestors(self, nodes: list[Node], stop: Any = (), control: bool = True) -> set[Node]:
        seen: set[Node] = set()
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            stack.extend(t.node for t in node.inputs if t not in stop)
            if control:
                stack.extend(node.control_inputs)
        return seen

    def ancestors(self, fetches: Any, stop: Any = (), control: bool = True) -> set[Node]:
        """Every node that a run of `fetches` evaluates. The walk ends at the tensors in `stop` (values fed
        from outside); `control=False` follows data edges only, as an inference export does."""
        return self._ancestors([n for n in map(_fetch_node, _flatten(fetches)) if n is not None],
                               stop=set(stop), control=control)

    @property
    def trainable_variables(self) -> list[Variable]:
        """The graph's Variables made with trainable=True, in creation order."""
        return [v for v in self.variables.values() if v.trainable]


def _shape_fits(actual: tuple, spec: tuple) -> bool:
    return len(actual) == len(spec) and all(s is None or a == s for a, s in zip(actual, spec))


def _fetch_node(f: Any) -> Node | None:
    if isinstance(f, Tensor):
        return f.node
    if isinstance(f, Variable):
        return f.value.node
    if isinstance(f, Node):
        return f
    raise TypeError(f"cannot fetch {f!r}")


def _flatten(x: Any) -> list:
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in _flatten(v)]
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _flatten(v)]
    return [x]


def _unflatten(structure: Any, leaves: Iterator) -> Any:
    if isinstance(structure, dict):
        return {k: _unflatten(v, leaves) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_unflatten(v, leaves) for v in structure)
    return next(leaves)


_DEFAULT_STACK: list[Graph] = []
_GLOBAL_DEFAULT = [Graph()]


def get_default_graph() -> Graph:
    """The graph new nodes go into: the innermost `as_default()`'s, else the global default graph."""
    return _DEFAULT_STACK[-1] if _DEFAULT_STACK else _GLOBAL_DEFAULT[0]


def reset_default_graph() -> Graph:
    """Replace the global default graph with a fresh one (tests, notebooks)."""
    _GLOBAL_DEFAULT[0] = Graph()
    return _GLOBAL_DEFAULT[0]


def run(fetches: Any, feeds: dict | None = None) -> Any:
    """`Graph.run` on the graph the fetches belong to."""
    nodes = [n for n in map(_fetch_node, _flatten(fetches)) if n is not None]
    graph = nodes[0].graph if nodes else get_default_graph()
    return graph.run(fetches, feeds)
