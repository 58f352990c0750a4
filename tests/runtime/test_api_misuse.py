"""The Python API misused the ways people misuse it: wrong dtypes, strided and unaligned arrays, wrong shapes
and indices, absurd resizes, calls from several threads at once, checkpoints restored into another model or
from a damaged file. Every case must give its right answer or a clean exception of the expected type; none
may kill the process, so they run in a child process that must exit normally."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from support import model_path

CASES = """
import sys, threading, random
import numpy as np
from single_op import Input, op_model
from rillet.runtime import Interpreter, InvokeCancelledError

unexpected = []

def case(name, call, raises=None, expect=None):
    try:
        got = call()
    except Exception as e:
        if raises is None or not isinstance(e, raises):
            unexpected.append(f"{name}: {type(e).__name__}: {e}")
        return
    if raises is not None:
        unexpected.append(f"{name}: returned {got!r}, expected {raises.__name__}")
    elif expect is not None and not np.array_equal(got, expect):
        unexpected.append(f"{name}: {got!r} != {expect!r}")

model = op_model("ADD", [Input((2, 4)), np.array(1.0, np.float32)], [((2, 4), np.float32)],
                 {"fused_activation_function": 0})
it = Interpreter(model_content=model)
case("invoke before allocate", it.invoke, RuntimeError)
case("get_tensor before allocate", lambda: it.get_tensor(0), ValueError)
it.allocate_tensors()
x = np.arange(16, dtype=np.float32).reshape(4, 4)

def run(value):
    it.set_tensor(0, value)
    it.invoke()
    return it.get_tensor(2)

for name, value in [("every other row", x[::2]), ("fortran order", np.asfortranarray(x[:2])),
                    ("reversed columns", x[:2, ::-1]), ("broadcast, zero strides", np.broadcast_to(x[0], (2, 4))),
                    ("unaligned", np.frombuffer(b"\\0" + x[:2].tobytes(), np.float32, 8, 1).reshape(2, 4)),
                    ("read-only", np.require(x[:2], requirements="C").copy().view()),
                    ("a list", x[:2].tolist())]:
    if name == "a list":
        case(name, lambda v=value: run(v), ValueError)  # float64, as LiteRT refuses
    else:
        case(name, lambda v=value: run(v), expect=np.asarray(value) + 1)
for name, value in [("float64", np.zeros((2, 4))), ("int32", np.zeros((2, 4), np.int32)),
                    ("objects", np.array([[None] * 4] * 2)), ("strings", [["a"] * 4] * 2),
                    ("transposed shape", np.zeros((4, 2), np.float32)), ("flat", np.zeros(8, np.float32)),
                    ("scalar", np.float32(1)), ("too many dims", np.zeros((1, 2, 4), np.float32))]:
    case("set_tensor " + name, lambda v=value: it.set_tensor(0, v), ValueError)
case("set a constant", lambda: it.set_tensor(1, np.array(2.0, np.float32)), ValueError)
for index in (-1, 3, 2**40, 2**70):
    case(f"set_tensor index {index}", lambda i=index: it.set_tensor(i, x[:2]), ValueError)
    case(f"get_tensor index {index}", lambda i=index: it.get_tensor(i), ValueError)
case("get_tensor index 'a'", lambda: it.get_tensor("a"), ValueError)
case("get_tensor index None", lambda: it.get_tensor(None), TypeError)
for subgraph in (-1, 1, 2**40):
    case(f"get_tensor subgraph {subgraph}", lambda s=subgraph: it.get_tensor(0, s), ValueError)
    case(f"get_tensor_details subgraph {subgraph}", lambda s=subgraph: it.get_tensor_details(s), ValueError)
case("resize negative", lambda: it.resize_tensor_input(0, [-1, 4]), RuntimeError)
case("resize past int32", lambda: it.resize_tensor_input(0, [2**31, 4]), OverflowError)
case("resize rank 9", lambda: it.resize_tensor_input(0, [1] * 9), RuntimeError)
case("resize to text", lambda: it.resize_tensor_input(0, "ab"), ValueError)
for dims in ([2**31 - 1, 2**31 - 1], [2**30, 2**30, 2**30], [2**31 - 1] * 8):
    it.resize_tensor_input(0, dims)
    case(f"allocate {dims}", it.allocate_tensors, RuntimeError)  # past the size limit, named
    case(f"invoke after refused allocate {dims}", it.invoke, RuntimeError)
    case(f"set_tensor after refused allocate {dims}", lambda: it.set_tensor(0, x[:2]), ValueError)
it.resize_tensor_input(0, [0, 4])
it.allocate_tensors()
case("an empty input", lambda: run(np.zeros((0, 4), np.float32)), expect=np.zeros((0, 4), np.float32))
it.resize_tensor_input(0, [])
it.allocate_tensors()
case("a scalar input", lambda: run(np.float32(2)), expect=np.array([3.0], np.float32))  # [1], as LiteRT's
it.resize_tensor_input(0, [2, 4])
it.allocate_tensors()
case("back to its shape", lambda: run(x[:2]), expect=x[:2] + 1)
held = it.tensor(0)()
it.resize_tensor_input(0, [3, 4])
case("allocate while a view is held", it.allocate_tensors, RuntimeError)
held[...] = 5.0  # still the old arena, alive: harmless
del held
it.allocate_tensors()
case("after the view is dropped", lambda: run(x[:3]), expect=x[:3] + 1)

# several threads on one interpreter, each doing something else; every call either works or refuses
errors, failures = [], []

def worker(seed):
    rng = random.Random(seed)
    for _ in range(400):
        what = rng.randrange(8)
        try:
            if what == 0:
                it.resize_tensor_input(0, [rng.randrange(1, 6), 4])
                it.allocate_tensors()
            elif what == 1:
                shape = it.get_input_details()[0]["shape"]
                it.set_tensor(0, np.ones(shape, np.float32))
            elif what == 2:
                it.invoke()
            elif what == 3:
                y = it.get_tensor(2)
                assert y.shape[1:] == (4,), y.shape
            elif what == 4:
                it.tensor(2)().sum()
            elif what == 5:
                it.get_signature_runner()(x0=np.ones((rng.randrange(1, 6), 4), np.float32))
            elif what == 6:
                it.cancel()
            else:
                it.memory_report(), it.get_output_details(), it._get_ops_details()
        except (ValueError, RuntimeError) as e:
            errors.append(type(e).__name__)
        except Exception as e:
            failures.append(f"{type(e).__name__}: {e}")

threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
unexpected += failures
it.resize_tensor_input(0, [2, 4])
it.allocate_tensors()
case("after the threads", lambda: run(x[:2]), expect=x[:2] + 1)
print("refusals under threads", len(errors))

# checkpoints into another model, or from a damaged file
trained = Interpreter(model_path=sys.argv[1])
trained.allocate_tensors()
infer = trained.get_signature_runner("infer")
shape = infer.get_input_details()["x"]["shape"]
case("runner float64", lambda: infer(x=np.zeros(shape)), ValueError)
case("runner strided", lambda: infer(x=np.zeros((shape[0], shape[1] * 2), np.float32)[:, ::2]) and 0, expect=0)
case("runner wrong shape", lambda: infer(x=np.zeros((3, 3, 3), np.float32)), RuntimeError)
case("runner missing input", lambda: infer(), ValueError)
folder = sys.argv[2]
trained.save_checkpoint(f"{folder}/ck.npz")
variables = trained.get_variables()
other = Interpreter(model_content=model)
case("restore into a model without variables", lambda: other.restore_checkpoint(f"{folder}/ck.npz"), ValueError)
open(f"{folder}/garbage.npz", "wb").write(b"garbage")
data = open(f"{folder}/ck.npz", "rb").read()
open(f"{folder}/half.npz", "wb").write(data[: len(data) // 2])
np.save(f"{folder}/one.npy", np.zeros(3, np.float32))
np.savez(f"{folder}/objects.npz", **{k: np.array([None, None], dtype=object) for k in variables})
np.savez(f"{folder}/f64.npz", **{k: v.astype(np.float64) for k, v in variables.items()})
np.savez(f"{folder}/bigger.npz", **{k: np.zeros((3,) + v.shape, v.dtype) for k, v in variables.items()})
for name in ("garbage.npz", "half.npz", "one.npy", "objects.npz", "f64.npz", "bigger.npz"):
    case("restore " + name, lambda n=name: trained.restore_checkpoint(f"{folder}/{n}"), ValueError)
    fresh = Interpreter(model_path=sys.argv[1])  # nothing assigned yet: the file's shapes decide
    case("restore before any invoke " + name, lambda n=name, f=fresh: f.restore_checkpoint(f"{folder}/{n}"),
         ValueError)
case("restore a directory", lambda: trained.restore_checkpoint(folder), OSError)
fresh = Interpreter(model_path=sys.argv[1])
fresh.restore_checkpoint(f"{folder}/ck.npz")
fresh.allocate_tensors()
expected = infer(x=np.ones(shape, np.float32))
case("restored before allocate", lambda: list(fresh.get_signature_runner("infer")(x=np.ones(shape, np.float32))
                                              .values())[0], expect=list(expected.values())[0])
print("unexpected", len(unexpected))
for line in unexpected:
    print(line)
"""


def test_misuse_gives_clean_exceptions_never_a_signal(tmp_path):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CASES), str(model_path("train_mlp")), str(tmp_path)],
                          check=False, capture_output=True, text=True, timeout=300, cwd=os.path.dirname(__file__))
    assert done.returncode >= 0, f"killed by signal {-done.returncode}: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\nunexpected 0\n" in done.stdout, done.stdout
