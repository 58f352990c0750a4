"""One script, run against LiteRT's interpreter module and rillet's (`rillet.interpreter`), and every result
compared: detail dictionaries field by field and type by type, outputs, signature lists, op details, what
each misuse raises. rillet may raise a subclass of LiteRT's exception, never another type."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import rillet.interpreter

from support import MODEL_NAMES, golden, model_path

litert = pytest.importorskip("ai_edge_litert.interpreter")

Record = tuple[str, str, Any]  # (label, "ok" | "raised", value or exception)


class Script:
    """Runs calls and records each result (or the exception it raised) under a label."""

    def __init__(self, module: Any) -> None:
        self.m = module
        self.records: list[Record] = []

    def call(self, label: str, fn: Callable[[], Any]) -> Any:
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001 - the exception is the result being compared
            self.records.append((label, "raised", e))
            return None
        self.records.append((label, "ok", value))
        return value


def drive_model(s: Script, name: str) -> None:
    """The tflite_runtime workflow on one reference model, then its signatures."""
    m, path = s.m, str(model_path(name))
    g = golden(name)
    it = m.Interpreter(model_path=path)
    s.call("num_subgraphs", it.num_subgraphs)
    s.call("signature list", it.get_signature_list)
    s.call("full signature list", it._get_full_signature_list)
    for k in range(it.num_subgraphs()):
        s.call(f"tensor details {k} before allocate", lambda k=k: it.get_tensor_details(k))
    s.call("input details", it.get_input_details)
    s.call("output details", it.get_output_details)
    s.call("get_tensor before allocate", lambda: it.get_tensor(it.get_input_details()[0]["index"]))
    builtin = m.Interpreter(model_path=path, experimental_op_resolver_type=m.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    s.call("ops details", builtin._get_ops_details)
    it.allocate_tensors()
    if name != "train_mlp":
        (inp,), outs = it.get_input_details(), it.get_output_details()
        it.set_tensor(inp["index"], g["x"])
        s.call("invoke", it.invoke)
        for o in outs:
            s.call(f"output {o['name']}", lambda o=o: it.get_tensor(o["index"]))
            s.call(f"output via tensor() of {o['name']}", lambda o=o: it.tensor(o["index"])().copy())
        for k in range(it.num_subgraphs()):
            s.call(f"tensor details {k} after invoke", lambda k=k: it.get_tensor_details(k))
        for key in it.get_signature_list():
            runner = it.get_signature_runner(key)
            s.call(f"runner {key} inputs", runner.get_input_details)
            s.call(f"runner {key} outputs", runner.get_output_details)
            s.call(f"runner {key} subgraph", lambda r=runner: r._subgraph_index)
            (arg,) = runner._inputs
            s.call(f"runner {key} output", lambda r=runner, a=arg: r(**{a: g["x"]}))
        return
    infer, train = it.get_signature_runner("infer"), it.get_signature_runner("train")
    s.call("train inputs", train.get_input_details)
    s.call("train outputs", train.get_output_details)
    s.call("infer before output", lambda: infer(x=g["xs"][0]))
    for step in range(5):
        s.call(f"train step {step} output", lambda step=step: train(x=g["xs"][step], y=g["ys"][step]))
    s.call("loss output through get_tensor(i, subgraph_index)", lambda: it.get_tensor(train._outputs.__iter__().__next__()[1],
                                                                                 train._subgraph_index))
    s.call("reset_all_variables", it.reset_all_variables)
    s.call("infer after reset_all_variables output", lambda: infer(x=g["xs"][0]))
    for k in range(it.num_subgraphs()):
        s.call(f"tensor details {k} after training", lambda k=k: it.get_tensor_details(k))


def drive_misuse(s: Script) -> None:
    """What tflite_runtime users get wrong, each the same exception type (or a subclass) in both."""
    m, path = s.m, str(model_path("mlp_f32"))
    make = m.Interpreter
    s.call("unknown keyword", lambda: make(model_path=path, num_thread=4))
    for bad in (0, -1, 2.0, np.int64(2), True):
        s.call(f"num_threads={bad!r}", lambda bad=bad: make(model_path=path, num_threads=bad).num_subgraphs())
    s.call("delegate entry that is a string", lambda: make(model_path=path, experimental_delegates=["x"]))
    s.call("delegates not a list", lambda: make(model_path=path, experimental_delegates=5))
    s.call("empty delegates", lambda: make(model_path=path, experimental_delegates=[]).num_subgraphs())
    s.call("load_delegate of a missing library", lambda: m.load_delegate("libedgetpu.so.1"))
    s.call("missing file", lambda: make(model_path="/nonexistent/model.tflite"))
    s.call("a directory", lambda: make(model_path="/tmp"))
    s.call("garbage content", lambda: make(model_content=b"hello world, not a flatbuffer"))
    s.call("empty content", lambda: make(model_content=b""))
    s.call("no model", lambda: make())
    s.call("both path and content", lambda: make(model_path=path, model_content=b"x"))
    s.call("content as str", lambda: make(model_content="not bytes"))
    s.call("content as an int", lambda: make(model_content=5))
    s.call("unknown op resolver", lambda: make(model_path=path, experimental_op_resolver_type=7))
    s.call("reference op resolver", lambda: make(model_path=path,
                                                 experimental_op_resolver_type=m.OpResolverType.BUILTIN_REF).num_subgraphs())
    s.call("custom op registerer", lambda: m.InterpreterWithCustomOps(model_path=path, custom_op_registerers=["Nope"]))
    s.call("no custom op registerer", lambda: m.InterpreterWithCustomOps(model_path=path).num_subgraphs())
    s.call("runner without interpreter", lambda: m.SignatureRunner(None, "x"))
    s.call("invoke before allocate", make(model_path=path).invoke)

    def fresh() -> Any:
        return make(model_path=path)

    s.call("strict resize of a fixed dimension", lambda: fresh().resize_tensor_input(0, [3, 5], strict=True))
    s.call("strict resize to another rank", lambda: fresh().resize_tensor_input(0, [3], strict=True))
    s.call("strict resize of the batch", lambda: fresh().resize_tensor_input(0, [3, 64], strict=True))
    s.call("resize a constant", lambda: fresh().resize_tensor_input(1, [3]))
    s.call("resize an index out of range", lambda: fresh().resize_tensor_input(999, [3]))
    s.call("resize to a negative size", lambda: fresh().resize_tensor_input(0, [-2, 64]))
    s.call("resize beyond int32", lambda: fresh().resize_tensor_input(0, [2**40, 64]))
    s.call("resize an output", lambda: fresh().resize_tensor_input(5, [3]))

    def empty_batch() -> Any:
        it = fresh()
        it.resize_tensor_input(0, [0, 64])
        it.allocate_tensors()
        it.invoke()
        return it.get_tensor(it.get_output_details()[0]["index"])

    s.call("an empty batch output", empty_batch)
    it = fresh()
    it.allocate_tensors()
    x = np.zeros((1, 64), np.float32)
    s.call("set_tensor out of range", lambda: it.set_tensor(999, x))
    s.call("set_tensor float64", lambda: it.set_tensor(0, x.astype(np.float64)))
    s.call("set_tensor wrong shape", lambda: it.set_tensor(0, np.zeros((7, 7), np.float32)))
    s.call("set_tensor wrong rank", lambda: it.set_tensor(0, np.zeros((64,), np.float32)))
    s.call("set_tensor a list", lambda: it.set_tensor(0, x.tolist()))
    s.call("get_tensor out of range", lambda: it.get_tensor(999))
    s.call("get_tensor negative", lambda: it.get_tensor(-1))
    s.call("get_tensor of a missing subgraph", lambda: it.get_tensor(0, 5))
    s.call("tensor() out of range", lambda: it.tensor(999)())
    s.call("tensor details of a missing subgraph", lambda: it.get_tensor_details(3))
    s.call("tensor details of a negative subgraph", lambda: it.get_tensor_details(-1))
    s.call("op details out of range", lambda: it._get_op_details(99))
    s.call("unknown signature", lambda: it.get_signature_runner("zz"))
    runner = it.get_signature_runner()
    s.call("runner input name", lambda: runner(nope=x))
    s.call("runner input count", lambda: runner())
    s.call("runner float64 input", lambda: runner(keras_tensor=x.astype(np.float64)))
    s.call("reset_all_variables", it.reset_all_variables)
    s.call("compress zero points flag", lambda: it.experimental_compress_quantization_zero_points)
    held = it.tensor(0)()
    s.call("allocate while a view is held", it.allocate_tensors)
    del held
    s.call("allocate once the view is gone", it.allocate_tensors)


def run_script(module: Any) -> list[Record]:
    s = Script(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in MODEL_NAMES:
            s.records.append((f"--- {name}", "ok", None))
            drive_model(s, name)
        drive_misuse(s)
    return s.records


def same(a: Any, b: Any, where: str, close: bool) -> None:
    """`b` (rillet's) equals `a` (LiteRT's) in type and value; outputs of float type within 1e-5."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{where}: keys {list(b)} != {list(a)}"
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]", close)
    elif isinstance(a, (list, tuple)):
        assert type(b) is type(a) and len(a) == len(b), f"{where}: {b!r} != {a!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]", close)
    elif isinstance(a, (np.ndarray, np.generic)):
        assert type(b) is type(a), f"{where}: {type(b)} != {type(a)}"
        assert a.dtype == b.dtype and np.shape(a) == np.shape(b), f"{where}: {b.dtype}{np.shape(b)} != {a.dtype}{np.shape(a)}"
        if close and a.dtype.kind == "f":
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=where)
        else:
            np.testing.assert_array_equal(b, a, err_msg=where)
    elif isinstance(a, type):
        assert b is a, f"{where}: {b} != {a}"
    elif a is None or isinstance(a, (bool, int, float, str)):
        assert type(b) is type(a) and b == a, f"{where}: {b!r} != {a!r}"
    else:  # an interpreter, a runner: both made, nothing more to compare
        assert type(b).__name__ == type(a).__name__, f"{where}: {type(b)} != {type(a)}"


# LiteRT's own Delegate.__del__ complains about the delegate it failed to load; not rillet's concern.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_one_script_gives_the_same_results_in_litert_and_rillet():
    theirs, ours = run_script(litert), run_script(rillet.interpreter)
    assert [r[0] for r in ours] == [r[0] for r in theirs]
    differences = []
    for (label, kind, a), (_, our_kind, b) in zip(theirs, ours):
        try:
            if kind == "raised":
                assert our_kind == "raised", f"{label}: LiteRT raised {type(a).__name__}: {a}; rillet returned {b!r}"
                assert isinstance(b, type(a)), f"{label}: LiteRT raised {type(a).__name__}, rillet {type(b).__name__}: {b}"
            else:
                assert our_kind == "ok", f"{label}: LiteRT returned {a!r}; rillet raised {type(b).__name__}: {b}"
                same(a, b, label, close="output" in label)
        except AssertionError as e:
            differences.append(f"{label}: " + " | ".join(str(e).strip().splitlines()[:6])[:400])
    assert not differences, "\n".join(differences)


def test_the_module_offers_every_name_litert_offers():
    public = {n for n in dir(litert) if not n.startswith("_") and callable(getattr(litert, n))
              and getattr(getattr(litert, n), "__module__", "") == litert.__name__}
    assert public <= set(dir(rillet.interpreter)), public - set(dir(rillet.interpreter))
    for cls in ("Interpreter", "SignatureRunner"):
        theirs = {n for n in dir(getattr(litert, cls)) if not n.startswith("__")} - {"_native_handle"}
        assert theirs <= set(dir(getattr(rillet.interpreter, cls))), theirs - set(dir(getattr(rillet.interpreter, cls)))
    assert [e.name for e in litert.OpResolverType] == [e.name for e in rillet.interpreter.OpResolverType]
    assert [e.value for e in litert.OpResolverType] == [e.value for e in rillet.interpreter.OpResolverType]


def test_the_edgetpu_fallback_works():
    """The idiom LiteRT's docs give: a delegate that cannot load raises ValueError, and the app runs on the
    CPU. (LiteRT itself raises OSError when the library is missing; rillet's error is both.)"""
    try:
        delegate = rillet.interpreter.load_delegate("libedgetpu.so.1")
    except ValueError:
        delegate = None
    it = rillet.interpreter.Interpreter(model_path=str(model_path("mlp_f32")),
                                        experimental_delegates=[delegate] if delegate else None)
    it.allocate_tensors()
    with pytest.raises(OSError, match="libedgetpu"):
        rillet.interpreter.load_delegate("libedgetpu.so.1")


def test_a_runner_takes_a_new_batch_size_on_every_call():
    it = rillet.interpreter.Interpreter(model_path=str(model_path("cnn_small_f32")))
    runner = it.get_signature_runner()
    x = np.random.default_rng(2).uniform(-1, 1, (5, 28, 28, 1)).astype(np.float32)
    whole = runner(keras_tensor_3=x)["output_0"]
    for n in (1, 3, 5, 2):
        np.testing.assert_allclose(runner(keras_tensor_3=x[:n])["output_0"], whole[:n], rtol=1e-5, atol=1e-6)
