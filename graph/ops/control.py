"""Control flow: graph functions (`Function`: a Graph of its own with inputs and outputs) and the ops that call
them, IF (one of two branches), WHILE (a body while a condition holds) and CALL_ONCE (an initialiser, once per
graph state), written to a .tflite as the same builtins with each function as a subgraph of its own.

IF's gradient is an IF of its branches' gradients (each branch's vector-Jacobian product traced as a Function of
the branch's inputs and its outputs' gradients), and WHILE's a reverse WHILE of its body's over the loop run again
keeping every iteration's values, so a backward graph stays builtins-only and LiteRT runs it; CALL_ONCE gives no
values. Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, its gradient
rule."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

import numpy as np

from ..core import Graph, Node, Tensor, Variable
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _jnp, _tfl, as_tensor, placeholder


class Function:
    """A graph function: its own Graph, the placeholders it takes (in order), the tensors it gives (in order) and
    the nodes it runs for their effect (a CALL_ONCE initialiser's assignments)."""

    def __init__(self, graph: Graph, inputs: Sequence[Tensor], outputs: Sequence[Tensor],
                 effects: Sequence[Node] = (), name: str = "function"):
        for t in [*inputs, *outputs]:
            if t.graph is not graph:
                raise ValueError(f'function "{name}": tensor "{t.name}" is not of its graph')
        self.graph, self.name = graph, name
        self.inputs, self.outputs, self.effects = list(inputs), list(outputs), list(effects)
        self._own = graph.store  # the values of the Variables made in the function's graph

    @property
    def input_specs(self) -> list[tuple]:
        """(shape, dtype) of each input, in order."""
        return [(t.shape, t.dtype) for t in self.inputs]

    @property
    def output_specs(self) -> list[tuple]:
        """(shape, dtype) of each output, in order."""
        return [(t.shape, t.dtype) for t in self.outputs]

    def __call__(self, args: Sequence[np.ndarray], state: Graph | None = None) -> tuple:
        """The outputs for `args` on the numpy reference; with `state`, resource variables are the caller's
        (its store is shared), as a TFLite subgraph's are the interpreter's."""
        if state is not None:
            self.graph.store = _CallerStore(self._own, state.store)
        results = self.graph.run([self.outputs, self.effects], dict(zip(self.inputs, args)))
        return tuple(results[0])

    def __repr__(self) -> str:
        return f'<Function "{self.name}" {len(self.inputs)} -> {len(self.outputs)}>'


class _CallerStore(MutableMapping):
    """A called function's variable store: its own Variables' values, and every other resource the caller's."""

    def __init__(self, own: dict, caller: MutableMapping):
        self.own, self.caller = own, caller

    def _of(self, key: str) -> MutableMapping:
        return self.own if key in self.own else self.caller

    def __getitem__(self, key: str) -> np.ndarray:
        return self._of(key)[key]

    def __setitem__(self, key: str, value: np.ndarray) -> None:
        self._of(key)[key] = value

    def __delitem__(self, key: str) -> None:
        del self._of(key)[key]

    def __iter__(self):
        return iter({**self.caller, **self.own})

    def __len__(self) -> int:
        return len({**self.caller, **self.own})


def function(fn: Callable[..., Any], input_specs: Sequence[tuple], name: str = "function") -> Function:
    """Trace `fn` into a Function of its own graph: `fn` gets one placeholder per (shape, dtype) in `input_specs`
    and returns a tensor, a list of tensors, or Nodes (assignments) to run for their effect among them."""
    graph = Graph()
    with graph.as_default():
        inputs = [placeholder(shape, dtype, name=f"arg{i}") for i, (shape, dtype) in enumerate(input_specs)]
        result = fn(*inputs)
    result = [] if result is None else list(result) if isinstance(result, (list, tuple)) else [result]
    outputs = [as_tensor(r, graph=graph) for r in result if not isinstance(r, Node)]
    return Function(graph, inputs, outputs, [r for r in result if isinstance(r, Node)], name)


def _as_function(f: Function | Callable, specs: list[tuple], name: str) -> Function:
    return f if isinstance(f, Function) else function(f, specs, name)


def _check_inputs(f: Function, specs: list[tuple], what: str) -> None:
    if len(f.inputs) != len(specs):
        raise ValueError(f'{what} "{f.name}" takes {len(f.inputs)} inputs, given {len(specs)}')
    for k, ((fs, fd), (s, d)) in enumerate(zip(f.input_specs, specs)):
        if fd != d or len(fs) != len(s) or any(a is not None and b is not None and a != b for a, b in zip(fs, s)):
            raise ValueError(f'{what} "{f.name}": input {k} is {list(s)} {d}, the function takes {list(fs)} {fd}')


def _same_outputs(a: Function, b: Function, what: str) -> None:
    if [(tuple(s), d) for s, d in a.output_specs] != [(tuple(s), d) for s, d in b.output_specs]:
        raise ValueError(f'{what}: "{a.name}" gives {a.output_specs}, "{b.name}" gives {b.output_specs}')


def _jax_call(f: Function, args: Sequence[Any]) -> tuple:
    """The function's outputs on JAX: its nodes' JAX lowerings in order; a variable a function reads is a
    constant there (the value it has when traced)."""
    jnp = _jnp()
    values: dict = dict(zip(f.inputs, args))
    needed = f.graph.ancestors(f.outputs, stop=set(f.inputs), control=False)
    for node in f.graph.nodes:
        if node not in needed or node.op in ("PLACEHOLDER", "VAR_HANDLE") or all(t in values for t in node.outputs):
            continue
        if node.op == "READ_VARIABLE":
            out = jnp.asarray(f.graph.store[node.inputs[0].node.attrs["shared_name"]])
        else:
            out = node.opdef.jax(node.attrs, *[values[t] for t in node.inputs])
        for t, v in zip(node.outputs, out if isinstance(out, tuple) else (out,)):
            values[t] = v
    return tuple(values[t] for t in f.outputs)


def _truth(cond: np.ndarray) -> bool:
    """A condition tensor's value: its one element, as TFLite's IF and WHILE read it."""
    cond = np.asarray(cond)
    if cond.size != 1:
        raise ValueError(f"the condition has {cond.size} elements, not one")
    return bool(cond.reshape(()))


# ---------------------------------------------------------------------------------------------------- IF


def _if_infer(attrs, specs):
    if specs[0][1] != "bool" or int(np.prod([d or 1 for d in specs[0][0]])) != 1:
        raise ValueError(f"the condition must be one bool, got {list(specs[0][0])} {specs[0][1]}")
    for branch in ("then_branch", "else_branch"):
        _check_inputs(attrs[branch], specs[1:], "IF branch")
    _same_outputs(attrs["then_branch"], attrs["else_branch"], "IF's branches differ")
    return attrs["then_branch"].output_specs


def _if_np(attrs, cond, *args, state):
    return attrs["then_branch" if _truth(cond) else "else_branch"](args, state)


def _if_jax(attrs, cond, *args):
    from jax import lax
    return lax.cond(cond.reshape(()), lambda *a: _jax_call(attrs["then_branch"], a),
                    lambda *a: _jax_call(attrs["else_branch"], a), *args)


register(OpDef("IF", attrs={"then_branch": REQUIRED, "else_branch": REQUIRED}, infer=_if_infer, numpy=_if_np,
               jax=_if_jax, stateful=True,
               tflite=_tfl("IF", "IfOptions", notes="each branch a subgraph (then/else_subgraph_index)")))


def if_(cond: Any, then_branch: Function | Callable, else_branch: Function | Callable, *args: Any,
        name: str | None = None) -> Any:
    """IF: `then_branch(*args)` where the one-element bool `cond` is true, else `else_branch(*args)`. A branch
    is a Function or a callable traced over the args' shapes; both give the same shapes and dtypes. Returns the
    branch's output (a tensor, or a list for several)."""
    cond = as_tensor(cond)
    args = [as_tensor(a.value if isinstance(a, Variable) else a, graph=cond.graph) for a in args]
    specs = [(a.shape, a.dtype) for a in args]
    then_f = _as_function(then_branch, specs, "then")
    else_f = _as_function(else_branch, specs, "else")
    return _apply("IF", [cond, *args], {"then_branch": then_f, "else_branch": else_f}, name=name)


# ------------------------------------------------------------------------------------------------- WHILE


def _while_infer(attrs, specs):
    _check_inputs(attrs["cond"], specs, "WHILE condition")
    _check_inputs(attrs["body"], specs, "WHILE body")
    out = attrs["cond"].output_specs
    if len(out) != 1 or out[0][1] != "bool":
        raise ValueError(f'WHILE condition "{attrs["cond"].name}" must give one bool, gives {out}')
    body = [(tuple(s), d) for s, d in attrs["body"].output_specs]
    if [d for _, d in body] != [d for _, d in specs] or [len(s) for s, _ in body] != [len(s) for s, _ in specs]:
        raise ValueError(f'WHILE body "{attrs["body"].name}" gives {body}, the loop carries {specs}')
    # a dimension the body may change (a value that grows) is known at run time only
    return [(tuple(a if a == b else None for a, b in zip(s, bs)), d) for (s, d), (bs, _) in zip(specs, body)]


def _while_np(attrs, *values, state):
    values = tuple(values)
    while _truth(attrs["cond"](values, state)[0]):
        values = attrs["body"](values, state)
    return values


def _while_jax(attrs, *values):
    from jax import lax
    try:
        return lax.while_loop(lambda v: _jax_call(attrs["cond"], v)[0].reshape(()),
                              lambda v: _jax_call(attrs["body"], v), tuple(values))
    except TypeError as e:
        if "must have equal types" not in str(e):
            raise
        raise NotImplementedError(
            f'WHILE body "{attrs["body"].name}" changes a loop value\'s shape (a value that grows, as a WHILE\'s '
            "gradient keeps every iteration's), which JAX's while_loop cannot carry: train this graph on the device "
            "(its training file), or write the loop unrolled") from None


register(OpDef("WHILE", attrs={"cond": REQUIRED, "body": REQUIRED}, infer=_while_infer, numpy=_while_np,
               jax=_while_jax, stateful=True,
               tflite=_tfl("WHILE", "WhileOptions", notes="condition and body subgraphs (cond/body_subgraph_index)")))


def while_loop(cond: Function | Callable, body: Function | Callable, loop_vars: Sequence[Any],
               name: str | None = None) -> list[Tensor]:
    """WHILE: runs `body` on the loop values while `cond` of them (one bool) is true; the final values, a list.
    `cond` and `body` are Functions or callables traced over the loop values; the body keeps their dtypes and
    ranks."""
    values = [as_tensor(v.value if isinstance(v, Variable) else v) for v in loop_vars]
    specs = [(v.shape, v.dtype) for v in values]
    node = values[0].graph.add_node("WHILE", values, {"cond": _as_function(cond, specs, "cond"),
                                                      "body": _as_function(body, specs, "body")}, name)
    return list(node.outputs)


# --------------------------------------------------------------------------------------------- CALL_ONCE


def _call_once_infer(attrs, specs):
    if attrs["init"].inputs or attrs["init"].outputs:
        raise ValueError(f'CALL_ONCE initialiser "{attrs["init"].name}" must take and give nothing')
    return []


def _call_once_np(attrs, state):
    called = state.__dict__.setdefault("called_once", set())
    if id(attrs["init"]) not in called:  # once per graph state, as once per TFLite interpreter
        attrs["init"]((), state)
        called.add(id(attrs["init"]))
    return ()


register(OpDef("CALL_ONCE", attrs={"init": REQUIRED}, infer=_call_once_infer, numpy=_call_once_np,
               jax=lambda a: (), stateful=True,
               tflite=_tfl("CALL_ONCE", "CallOnceOptions",
                           notes="the initialiser a subgraph (init_subgraph_index); on JAX the variables start "
                                 "from the graph's store, so it does nothing there")))


def call_once(init: Function | Callable, graph: Graph | None = None, name: str | None = None) -> Node:
    """CALL_ONCE: runs `init` (a Function of no inputs and outputs, or a callable returning the assignments it
    makes) the first time a run reaches it; fetch it (or `group` it with the run) for its effect."""
    from ..core import get_default_graph
    graph = graph or get_default_graph()
    return graph.add_node("CALL_ONCE", [], {"init": _as_function(init, [], "init")}, name)


# ------------------------------------------------------------------------------------------- gradients


def _is_float(t: Tensor) -> bool:
    return t.dtype != "resource" and np.issubdtype(np.dtype(t.dtype), np.floating)


def replay(f: Function, args: Sequence[Tensor]) -> list[Tensor]:
    """`f`'s outputs rebuilt in the graph of `args` (stand-ins for its inputs): the nodes its outputs need, copied
    with their attrs. Its effects (assignments) are not replayed."""
    from ..core import get_default_graph

    graph = args[0].graph if args else get_default_graph()
    mapped: dict = dict(zip(f.inputs, args))
    needed = f.graph.ancestors(f.outputs, stop=set(f.inputs), control=False)
    for node in f.graph.nodes:
        if node not in needed or node.op == "PLACEHOLDER":
            continue
        copy = graph.add_node(node.op, [mapped[t] for t in node.inputs], node.attrs, node.name)
        mapped.update(zip(node.outputs, copy.outputs))
    return [mapped[t] for t in f.outputs]


def _zeros(t: Tensor) -> Tensor:
    from .composite import zeros_like
    from .core import constant
    return zeros_like(t) if None in t.shape else constant(np.zeros(t.shape, t.dtype), graph=t.graph)


def _copy(t: Tensor) -> Tensor:
    """t as a new tensor (a RESHAPE to its own shape): what a subgraph gives a second time."""
    from .movement import reshape
    return reshape(t, [-1 if d is None else d for d in t.shape])


def branch_vjp(f: Function, arg_specs: list[tuple], grad_specs: list[tuple], wrt: list[int], of: list[int],
               name: str) -> Function:
    """The vector-Jacobian product of Function `f` as a Function: it takes f's arguments (`arg_specs`) then the
    gradients of f's outputs `of` (`grad_specs`), recomputes f's outputs from the arguments (a TFLite branch keeps
    none of its values) and gives the gradients of arguments `wrt`, zeros where an argument does not reach them."""
    from ..autodiff import gradients

    graph = Graph()
    graph.store.update(f._own)  # the branch's own variables (read, never trained: a trained weight is an argument)
    with graph.as_default():
        args = [placeholder(s, d, name=f"arg{i}") for i, (s, d) in enumerate(arg_specs)]
        seeds = [placeholder(s, d, name=f"grad{i}") for i, (s, d) in enumerate(grad_specs)]
        outputs = replay(f, args)
        grads = gradients([outputs[k] for k in of], [args[i] for i in wrt], grad_ys=seeds, name="vjp")
        grads = [g if g is not None else _zeros(args[i]) for g, i in zip(grads, wrt)]
        # a subgraph gives each tensor once: a gradient shared by two arguments (a sum's) is given again as a copy
        grads = [_copy(g) if any(g is h for h in grads[:k]) else g for k, g in enumerate(grads)]
    return Function(graph, [*args, *seeds], grads, name=name)


def _grad_if(node, dys):
    """IF(cond, then's VJP, else's VJP, args..., dys...): the gradients of the float arguments through the branch
    the condition takes (the condition itself takes none)."""
    cond, *args = node.inputs
    wrt = [i for i, a in enumerate(args) if _is_float(a)]
    of = [k for k, t in enumerate(node.outputs) if _is_float(t)]
    if not wrt or not of:
        return [None] * len(node.inputs)
    arg_specs = [(a.shape, a.dtype) for a in args]
    grad_specs = [(node.outputs[k].shape, node.outputs[k].dtype) for k in of]
    then_vjp, else_vjp = (branch_vjp(node.attrs[b], arg_specs, grad_specs, wrt, of, f"{node.attrs[b].name}_grad")
                          for b in ("then_branch", "else_branch"))
    grads = if_(cond, then_vjp, else_vjp, *args, *[dys[k] for k in of], name="if_grad")
    grads = grads if isinstance(grads, list) else [grads]
    by_arg = dict(zip(wrt, grads))
    return [None, *(by_arg.get(i) for i in range(len(args)))]


def _grad_while(node, dys):
    """The loop run again keeping every iteration's values (each loop value the body changes stacked along a new
    first axis, a loop value that grows; one it passes on unchanged is the same at every iteration and is not
    kept), then a reverse loop from the last iteration to the first: each step the body's vector-Jacobian product
    (branch_vjp) at that iteration's values, read back from the stacks."""
    from . import ops

    cond, body = node.attrs["cond"], node.attrs["body"]
    values = list(node.inputs)
    refused = [v for v in values if v.dtype == "resource" or None in v.shape]
    if refused:
        raise NotImplementedError(
            f'gradient of WHILE "{node.name}": loop value "{refused[0].name}" is {list(refused[0].shape)} '
            f"{refused[0].dtype}; the reverse loop keeps every iteration's values, which needs static shapes")
    floats = [k for k, v in enumerate(values) if _is_float(v)]
    if not floats:
        return [None] * len(values)
    m = len(values)
    varying = [k for k in range(m) if body.outputs[k] is not body.inputs[k]]
    fixed = [k for k in range(m) if k not in varying]
    specs = [(v.shape, v.dtype) for v in values]
    stack_specs = [((None, *specs[k][0]), specs[k][1]) for k in varying]
    count_spec = ((), "int32")

    def kept_body(*a):
        new = replay(body, a[:m])
        stacks = [ops.concat([st, ops.expand_dims(new[k], 0)], 0) for st, k in zip(a[m:-1], varying)]
        return [*new, *stacks, ops.add(a[-1], np.int32(1))]

    kept_specs = [*specs, *stack_specs, count_spec]
    kept = ops.while_loop(function(lambda *a: replay(cond, a[:m])[0], kept_specs, f"{cond.name}_kept"),
                          function(kept_body, kept_specs, f"{body.name}_kept"),
                          [*values, *(ops.expand_dims(values[k], 0) for k in varying),
                           ops.constant(np.int32(0), graph=node.graph)], name="kept")
    stacks, count = kept[m:-1], kept[-1]
    step = branch_vjp(body, specs, [specs[k] for k in floats], floats, floats, f"{body.name}_grad")
    reverse_specs = [count_spec, *(specs[k] for k in floats), *stack_specs, *(specs[k] for k in fixed)]

    def reverse_body(i, *a):
        grads, held, same = a[:len(floats)], a[len(floats):len(floats) + len(varying)], a[len(floats) + len(varying):]
        at = ops.reshape(i, [1])
        iteration = {k: ops.reshape(ops.gather(st, at), list(specs[k][0])) for st, k in zip(held, varying)}
        iteration.update(zip(fixed, same))
        return [ops.sub(i, np.int32(1)), *replay(step, [*(iteration[k] for k in range(m)), *grads]), *held, *same]

    reverse = ops.while_loop(
        function(lambda i, *a: ops.greater_equal(i, np.int32(0)), reverse_specs, f"{cond.name}_reverse"),
        function(reverse_body, reverse_specs, f"{body.name}_reverse"),
        [ops.sub(count, np.int32(1)), *(dys[k] for k in floats), *stacks, *(values[k] for k in fixed)],
        name="reverse")
    by_value = dict(zip(floats, reverse[1:1 + len(floats)]))
    return [by_value.get(k) for k in range(m)]


GRADIENTS = {
    "IF": _grad_if,
    "WHILE": _grad_while,
}
"""This family's gradient rules by op name (CALL_ONCE, which gives no values, is in NO_GRADIENT); merged into
`rillet.graph.ops.GRADIENTS`."""


