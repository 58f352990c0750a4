"""`rillet.trainable` on the reference models and the real ones kept in tests/data: the training file's `infer`
gives the original model's outputs (in rillet and in LiteRT), its `train` gives the same losses in rillet and
LiteRT over 20 steps, the loss falls on a target the trained layers can reach, the frozen part is the
original's ops as they were, and `save`/`restore` move the trained weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.converter import ModelError, load
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

DATA = Path(__file__).resolve().parents[1] / "data"

# (model, options): float CNNs and an MLP of tests/data/models, a model with control flow in front of its dense
# layers (tests/data/control_flow), and real models of tests/data/real: a PRELU regressor, TFLM's sine, and
# BlazeFace (float16 weights, two outputs, a sigmoid head).
CASES = [
    ("models/cnn_small_f32.tflite", {"loss": "softmax_cross_entropy"}),
    ("models/cnn_small_f32.tflite", {"loss": "softmax_cross_entropy", "train_last": 3, "optimizer": "adam",
                                     "learning_rate": 0.001}),
    ("models/mobilenet_v2_035_96_f32.tflite", {"loss": "softmax_cross_entropy", "train_last": 2,
                                               "optimizer": "momentum"}),
    ("models/mlp_f32.tflite", {"loss": "mse", "train_last": 2}),
    # IF, WHILE and a CALL_ONCE-initialised state in the frozen part (make_control_flow.py)
    ("control_flow/control_flow_f32.tflite", {"loss": "softmax_cross_entropy", "train_last": 2}),
    ("real/sine_float.tflite", {"loss": "mse", "train_last": 3, "learning_rate": 0.001}),
    ("real/hand_recrop.tflite", {"loss": "mse", "train_last": 2, "learning_rate": 1e-7}),
    ("real/face_detection_short_range.tflite", {"loss": "sigmoid_cross_entropy", "train_last": 2,
                                                "output": "classificators"}),
]
IDS = [f"{Path(p).stem}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for p, o in CASES]


def original(path: Path, rs: np.random.Generator) -> tuple[dict, dict, list[str]]:
    """Random inputs, LiteRT's outputs of the original model for them, and its output names, keyed as the
    training file's `infer` keys them (the signature's names, or the tensors' without one)."""
    it = litert.Interpreter(model_path=str(path))
    if it.get_signature_list():
        runner = it.get_signature_runner(next(iter(it.get_signature_list())))
        feeds = {k: rs.uniform(-1, 1, d["shape"]).astype(d["dtype"]) for k, d in runner.get_input_details().items()}
        return feeds, runner(**feeds), list(runner.get_output_details())
    it.allocate_tensors()
    feeds = {}
    for d in it.get_input_details():
        feeds[d["name"]] = rs.uniform(-1, 1, d["shape"]).astype(d["dtype"])
        it.set_tensor(d["index"], feeds[d["name"]])
    it.invoke()
    want = {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}
    return feeds, want, list(want)


def rel(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max()) / max(float(np.abs(want).max()), 1e-30)


def reachable_target(loss: str, prediction: np.ndarray, label: dict) -> np.ndarray:
    """A target the tail can move toward (its last layer is linear in the weights): another class, the other
    side of each sigmoid, the output mirrored around 1/2 (far enough that the losses are not differences of
    nearly equal numbers)."""
    shape, dtype = label["shape"], label["dtype"]
    if loss == "softmax_cross_entropy":
        return ((prediction.argmax(-1) + 1) % prediction.shape[-1]).reshape(shape).astype(dtype)
    if loss == "sigmoid_cross_entropy":
        return (prediction < 0.5).reshape(shape).astype(dtype)
    return (1.0 - prediction).reshape(shape).astype(dtype)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_infer_is_the_original_and_train_agrees_with_litert(case):
    relative, options = case
    path = DATA / relative
    rs = np.random.default_rng(0)
    content = rillet.trainable(path, **options)
    feeds, want, names = original(path, rs)
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    for it in (ours, theirs):
        got = it.get_signature_runner("infer")(**feeds)
        assert sorted(got) == sorted(names)
        for name in names:
            assert rel(got[name], want[name]) <= 1e-5, name
    output = options.get("output") or names[0]
    label = ours.get_signature_runner("train").get_input_details()["y"]
    y = reachable_target(options["loss"], want[output], label)
    losses = {}
    for key, it in (("rillet", ours), ("litert", theirs)):
        train = it.get_signature_runner("train")
        losses[key] = np.array([float(train(**feeds, y=y)["loss"]) for _ in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < losses["rillet"][0]


def test_the_frozen_part_is_copied_as_it_is():
    """BlazeFace keeps its float16 weights: the frozen convolutions read them through DEQUANTIZE, as in the
    original, and only the two trained layers' weights became float32 variables."""
    path = DATA / "real" / "face_detection_short_range.tflite"
    before = load(path)
    after = load(rillet.trainable(path, train_last=2, loss="sigmoid_cross_entropy", output="classificators"))
    infer = after.subgraphs[next(s.subgraph_index for s in after.signature_defs if s.signature_key == "infer")]
    kinds = [after.op_name(op) for op in infer.operators]
    original_kinds = [before.op_name(op) for op in before.subgraphs[0].operators]
    assert kinds.count("DEQUANTIZE") == original_kinds.count("DEQUANTIZE") - 4  # not the 2 layers' filters, biases
    save = Interpreter(model_content=rillet.trainable(path, train_last=2, loss="sigmoid_cross_entropy",
                                                      output="classificators")).get_signature_runner("save")
    assert len(save()) == 4  # two convolutions: filter and bias each


def test_metadata_is_kept():
    path = DATA / "models" / "mobilenet_v2_035_96_f32.tflite"
    before = {entry.name for entry in load(path).metadata or []}
    after = {entry.name for entry in load(rillet.trainable(path)).metadata or []}
    assert before and before <= after


def test_restore_puts_back_what_save_read():
    path = DATA / "models" / "cnn_small_f32.tflite"
    it = Interpreter(model_content=rillet.trainable(path, train_last=2, learning_rate=0.1))
    feeds, want, names = original(path, np.random.default_rng(3))
    saved = it.get_signature_runner("save")()
    train = it.get_signature_runner("train")
    for _ in range(3):
        train(**feeds, y=np.array([4], np.int32))
    infer = it.get_signature_runner("infer")
    assert rel(infer(**feeds)[names[0]], want[names[0]]) > 1e-3  # it trained
    it.get_signature_runner("restore")(**saved)
    assert rel(infer(**feeds)[names[0]], want[names[0]]) <= 1e-5


def test_a_shared_constant_trains_only_in_the_layer_asked_for():
    """TensorFlow's converter shares equal constants (cnn_small's first convolution and its depthwise one read
    one zero bias): training the first leaves the depthwise layer's bias as it was."""
    path = DATA / "models" / "cnn_small_f32.tflite"
    first = "functional_1_1/conv2d_1/Relu;functional_1_1/conv2d_1/convolution"
    it = Interpreter(model_content=rillet.trainable(path, train=[first]))
    assert sorted(it.get_signature_runner("save")()) == [f"{first}/arith.constant2",
                                                          "functional_1_1/conv2d_1/convolution"]


def test_refusals_name_the_problem():
    path = DATA / "real" / "face_detection_short_range.tflite"
    with pytest.raises(ValueError, match="name the one the loss reads"):
        rillet.trainable(path)
    with pytest.raises(ValueError, match="no weighted layer of that name"):
        rillet.trainable(path, train=["nope"], output="classificators")
    with pytest.raises(ValueError, match="train_last 999"):
        rillet.trainable(path, train_last=999, output="classificators")
    with pytest.raises(ValueError, match="loss 'hinge'"):
        rillet.trainable(path, loss="hinge", output="classificators")
    assert issubclass(ModelError, ValueError)


def test_the_command_writes_a_training_file(tmp_path, capsys):
    from rillet.cli import main

    out = tmp_path / "train.tflite"
    model = str(DATA / "models" / "cnn_small_f32.tflite")
    assert main(["trainable", model, "-o", str(out), "--train-last", "2", "--optimizer", "adam",
                 "--learning-rate", "0.001"]) == 0
    assert set(Interpreter(model_path=str(out)).get_signature_list()) == {"infer", "train", "save", "restore"}
    assert main(["trainable", model, "--list", "-o", str(out)]) == 0
    assert "FULLY_CONNECTED" in capsys.readouterr().out
    assert main(["trainable", model, "-o", str(out), "--train-last", "0"]) == 2
    assert main(["trainable", model, "-o", str(out), "--train", "nope"]) == 1
    assert "no weighted layer" in capsys.readouterr().err


INT8_CASES = [("cnn_small_int8.tflite", 1), ("cnn_small_int8.tflite", 3), ("cnn_small_int8_floatio.tflite", 2)]


@pytest.mark.parametrize("name, last", INT8_CASES, ids=[f"{n}-last{k}" for n, k in INT8_CASES])
def test_an_int8_model_trains_its_tail_in_float_and_infers_in_its_own_form(name, last):
    """`train` runs the frozen part's int8 ops, a DEQUANTIZE, and the trained layers in float (their int8 weights
    dequantized into float variables). `infer` is the original's int8 ops, the trained weights quantized from
    the variables with the original's scales: bit for bit the original before training, and after 20 steps
    the same int8 (or float) results in rillet and LiteRT, now the trained model's."""
    path = DATA / "models" / name
    content = rillet.trainable(path, train_last=last, learning_rate=0.01)  # losses stay O(1) over 20 steps
    rs = np.random.default_rng(1)
    it = litert.Interpreter(model_path=str(path))
    runner = it.get_signature_runner(next(iter(it.get_signature_list())))
    feeds = {k: (rs.integers(-128, 128, d["shape"]) if d["dtype"] == np.int8 else rs.uniform(-1, 1, d["shape"]))
             .astype(d["dtype"]) for k, d in runner.get_input_details().items()}
    want = next(iter(runner(**feeds).values()))
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    for interpreter in (ours, theirs):
        np.testing.assert_array_equal(next(iter(interpreter.get_signature_runner("infer")(**feeds).values())), want)
    model = load(content)
    infer = model.subgraphs[next(s.subgraph_index for s in model.signature_defs if s.signature_key == "infer")]
    assert [model.op_name(op) for op in infer.operators if model.op_name(op) in ("CONV_2D", "FULLY_CONNECTED")] \
        == [load(path).op_name(op) for op in load(path).subgraphs[0].operators
            if load(path).op_name(op) in ("CONV_2D", "FULLY_CONNECTED")]
    y = np.array([(int(np.argmax(want)) + 1) % want.shape[-1]], np.int32)
    losses = {}
    for key, interpreter in (("rillet", ours), ("litert", theirs)):
        train = interpreter.get_signature_runner("train")
        losses[key] = np.array([float(train(**feeds, y=y)["loss"]) for _ in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < losses["rillet"][0]
    trained = [next(iter(interpreter.get_signature_runner("infer")(**feeds).values())) for interpreter in (ours, theirs)]
    np.testing.assert_array_equal(trained[0], trained[1])
    assert not np.array_equal(trained[0], want)

def tiny_transformer() -> bytes:
    """A float inference file of one transformer block over an embedding table, built with the graph API as a
    converter would write it: EMBEDDING_LOOKUP, the layer-norm ops (MEAN, SQUARED_DIFFERENCE, RSQRT),
    attention (BATCH_MATMUL, SOFTMAX), a GELU MLP, PRELU, MAXIMUM/MINIMUM, SELECT_V2, REDUCE_MAX, a head."""
    from rillet.graph import Graph, Variable, ops

    rs = np.random.default_rng(5)

    def weight(*shape, scale=0.4):
        return Variable(rs.normal(0, scale, shape).astype(np.float32), name=f"w{len(graph.variables)}")

    graph = Graph()
    with graph.as_default():
        ids = ops.placeholder([6], "int32", name="ids")
        h = ops.reshape(ops.embedding_lookup(ids, weight(20, 8)), [1, 6, 8])
        mean = ops.reduce_mean(h, -1, keepdims=True)
        variance = ops.reduce_mean(ops.squared_difference(h, mean), -1, keepdims=True)
        h = ops.add(ops.mul(ops.mul(ops.sub(h, mean), ops.rsqrt(ops.add(variance, 1e-5))), weight(8)), weight(8))
        q, k, v = (ops.batch_matmul(h, weight(8, 8)) for _ in range(3))
        attention = ops.softmax(ops.mul(ops.batch_matmul(q, k, adj_y=True), 0.35))
        h = ops.add(h, ops.batch_matmul(attention, v))
        h = ops.prelu(ops.minimum(ops.maximum(h, -2.0), 2.0), weight(1, 1, 8, scale=0.1))
        h = ops.select(ops.less(h, -1.5), ops.mul(h, 0.5), h)
        flat = ops.reshape(h, [6, 8])
        mlp = ops.fully_connected(ops.gelu(ops.fully_connected(flat, weight(16, 8), weight(16))), weight(8, 16))
        pooled = ops.reshape(ops.add(ops.reduce_max(mlp, 0, keepdims=True), ops.reduce_mean(flat, 0, keepdims=True)),
                             [1, 8])
        probs = ops.softmax(ops.fully_connected(pooled, weight(3, 8), weight(3)))
    return rillet.convert(inputs={"ids": ids}, outputs={"probs": probs})


@pytest.mark.parametrize("last", [1, 4, 8])
def test_a_transformer_block_trains_through_its_new_ops_in_rillet_and_litert(last):
    """train_last 8 trains every weighted layer down to the embedding table: the gradients of GELU,
    BATCH_MATMUL, the layer norm, PRELU, MAXIMUM/MINIMUM, SELECT_V2, REDUCE_MAX and EMBEDDING_LOOKUP, lowered to
    builtins, run alike in rillet and LiteRT."""
    original = tiny_transformer()
    content = rillet.trainable(original, train_last=last, optimizer="adam", learning_rate=0.01)
    ids = np.array([3, 1, 4, 1, 5, 9], np.int32)
    (want,) = litert.Interpreter(model_content=original).get_signature_runner("infer")(ids=ids).values()
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    for it in (ours, theirs):
        assert rel(it.get_signature_runner("infer")(ids=ids)["probs"], want) <= 1e-5
    y = np.array([int(np.argmin(want))], np.int32)
    losses = {key: np.array([float(it.get_signature_runner("train")(ids=ids, y=y)["loss"]) for _ in range(20)])
              for key, it in (("rillet", ours), ("litert", theirs))}
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < 0.5 * losses["rillet"][0]
    assert len(ours.get_signature_runner("save")()) >= 2 * last  # each layer's weights, and Adam's slots


def test_train_takes_a_batch_where_the_model_has_a_dynamic_batch():
    """cnn_small's input is [-1, 28, 28, 1]: the frozen part and the tail keep the dynamic batch, so `train`
    takes 8 samples a step (the file says batch 1 until resized), in rillet and LiteRT alike."""
    path = DATA / "models" / "cnn_small_f32.tflite"
    content = rillet.trainable(path, train_last=2, optimizer="adam", learning_rate=0.001)
    rs = np.random.default_rng(4)
    x = rs.uniform(-1, 1, (8, 28, 28, 1)).astype(np.float32)
    y = rs.integers(0, 10, 8).astype(np.int32)
    name = next(iter(litert.Interpreter(model_path=str(path)).get_signature_list()["serving_default"]["inputs"]))
    losses = {key: np.array([float(it.get_signature_runner("train")(**{name: x}, y=y)["loss"]) for _ in range(20)])
              for key, it in (("rillet", Interpreter(model_content=content)),
                              ("litert", litert.Interpreter(model_content=content)))}
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < losses["rillet"][0]


def test_an_output_that_is_the_loss_is_minimised():
    """--loss output: the step lowers the output's mean (y is taken and ignored)."""
    path = DATA / "real" / "sine_float.tflite"
    content = rillet.trainable(path, loss="output", train_last=2, learning_rate=0.01)
    feeds, _, _ = original(path, np.random.default_rng(6))
    losses = {}
    for key, it in (("rillet", Interpreter(model_content=content)),
                    ("litert", litert.Interpreter(model_content=content))):
        train = it.get_signature_runner("train")
        y = np.zeros(train.get_input_details()["y"]["shape"], np.float32)
        losses[key] = np.array([float(train(**feeds, y=y)["loss"]) for _ in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < losses["rillet"][0]


# Fetched models left out, and why: custom ops neither runtime has.
NOT_TRAINABLE = {"face_landmark_with_attention.tflite"}
# The loss read from a tensor inside the model: hey_jarvis's output comes from an IF after its last dense
# layer (past 0.5 its score is swapped for a second network's), so the loss reads the score before it.
LOSS_TENSOR = {"hey_jarvis_v0.1.tflite": "onnx_tf_prefix_Sigmoid_28"}


@pytest.mark.real_models
def test_every_fetched_model_becomes_trainable(tmp_path):
    """bench/real_models.py's cache (pytest -m real_models): each model LiteRT runs, its last weighted layer
    trained (mse on its first output): a float model's `infer` gives its outputs (1e-5), an int8 model's
    `infer` gives the same in rillet and LiteRT, 3 train steps give the same losses in both, and the model
    export_model then writes runs alike in both (two invokes: a streaming model's state carries)."""
    import os

    cache = Path(os.environ.get("RILLET_REAL_MODELS", Path.home() / ".cache" / "rillet-real-models"))
    paths = {p.name: p for p in sorted(cache.rglob("*.tflite"))}
    if not paths:
        pytest.skip(f"no fetched models in {cache} (run bench/real_models.py)")
    done = 0
    for name, path in paths.items():
        if name in NOT_TRAINABLE:
            continue
        model = load(path)
        outputs = [t.name for t in model.signature_defs[0].outputs] if model.signature_defs else \
            [model.subgraphs[0].tensors[i].name for i in model.subgraphs[0].outputs]
        content = rillet.trainable(path, loss="mse", output=LOSS_TENSOR.get(name, outputs[0]),
                                   learning_rate=1e-4)
        rs = np.random.default_rng(0)
        ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
        details = ours.get_signature_runner("infer").get_input_details()
        feeds = {}
        for key, d in details.items():  # a dynamic batch of 1, other dynamic sizes 1280 (melspectrogram's samples)
            shape = [(1 if k == 0 else 1280) if n < 0 else n for k, n in enumerate(d["shape_signature"])]
            feeds[key] = (rs.integers(-128, 128, shape) if d["dtype"] == np.int8 else
                          rs.uniform(-1, 1, shape)).astype(d["dtype"])
        got = ours.get_signature_runner("infer")(**feeds)
        if not any(_is_int(v) for v in details.values()) and not model_is_quantized(model):
            want = original_outputs(path, model, feeds)
            for key in want:
                assert rel(got[key], want[key]) <= 1e-5, (name, key)
        else:
            for key, value in theirs.get_signature_runner("infer")(**feeds).items():
                np.testing.assert_array_equal(got[key], value, err_msg=name)
        # 2: out of a sigmoid's range, so no loss is a small difference of nearly equal numbers
        y = np.full(ours.get_signature_runner("train").get_input_details()["y"]["shape"], 2.0, np.float32)
        a = [float(ours.get_signature_runner("train")(**feeds, y=y)["loss"]) for _ in range(3)]
        b = [float(theirs.get_signature_runner("train")(**feeds, y=y)["loss"]) for _ in range(3)]
        np.testing.assert_allclose(a, b, rtol=1e-5, err_msg=name)
        exported = tmp_path / name
        ours.export_model(str(exported))  # a streaming model's state stays a variable (starting again at zero)
        fresh = [Interpreter(model_path=str(exported)), litert.Interpreter(model_path=str(exported))]
        for k in range(2):
            first, second = (dict(runner.get_signature_runner("infer")(**feeds)) for runner in fresh)
            for key, value in second.items():
                if _is_int({"dtype": value.dtype}):
                    np.testing.assert_array_equal(first[key], value, err_msg=f"{name} exported, invoke {k}")
                else:
                    assert rel(first[key], value) <= 1e-5, (name, key, k)
        done += 1
    assert done >= 29  # every fetched model of bench/real_models.py's TESTED packages but the one above


def _is_int(details: dict) -> bool:
    return np.dtype(details["dtype"]).kind in "iu"


def model_is_quantized(model) -> bool:
    return any(t.quantization is not None and t.quantization.scale is not None and len(t.quantization.scale)
               for sg in model.subgraphs for t in sg.tensors)


def original_outputs(path: Path, model, feeds: dict) -> dict:
    it = litert.Interpreter(model_path=str(path))
    if model.signature_defs and all(-1 not in list(t.shape_signature or []) for t in
                                    (model.subgraphs[0].tensors[i] for i in model.subgraphs[0].inputs)):
        return it.get_signature_runner(model.signature_defs[0].signature_key)(**feeds)
    sg = model.subgraphs[0]
    names = {t.tensor_index: t.name for t in model.signature_defs[0].inputs} if model.signature_defs else \
        {i: sg.tensors[i].name for i in sg.inputs}
    for i in sg.inputs:
        it.resize_tensor_input(i, feeds[names[i]].shape)
    it.allocate_tensors()
    for i in sg.inputs:
        it.set_tensor(i, feeds[names[i]])
    it.invoke()
    outputs = {t.tensor_index: t.name for t in model.signature_defs[0].outputs} if model.signature_defs else \
        {i: sg.tensors[i].name for i in sg.outputs}
    return {name: it.get_tensor(i) for i, name in outputs.items()}


def weighted_inputs(model) -> list:
    """Each weighted op's weight and bias tensors, in op order: (op name, input slot, tensor, its data)."""
    sg = model.subgraphs[0]
    return [(model.op_name(op), slot, sg.tensors[i], model.tensor_data(0, i))
            for op in sg.operators if model.op_name(op) in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
            for slot, i in enumerate(op.inputs) if slot > 0 and i >= 0]


def unfolded_export(it: Interpreter) -> bytes:
    """What export_model wrote before folding: the variables baked in, the ops that quantize them left as ops."""
    from rillet.converter import save
    from rillet.runtime.export import bake_variables

    infer = next(sd for sd in it.model.signature_defs if sd.signature_key == "infer")
    return save(bake_variables(it.model, infer, {("", k): v for k, v in it.get_variables().items()}))


def test_a_fine_tuned_int8_model_exports_as_int8_with_the_original_scales_and_ops(tmp_path):
    """Folded at export, the trained weights are int8 constants (biases int32) with the original's scales,
    zero points and channel axes, and the file's ops are the original's, none re-quantizing a weight. Before
    any step the exported weights are the original's bytes; after 10 steps they are what the unfolded ops
    computed: the folded file's outputs equal the unfolded one's bit for bit, in rillet and in LiteRT."""
    path = DATA / "models" / "cnn_small_int8.tflite"
    original = load(path)
    it = Interpreter(model_content=rillet.trainable(path, train_last=2, learning_rate=0.01))
    infer, train = it.get_signature_runner("infer"), it.get_signature_runner("train")
    name = next(iter(infer.get_input_details()))
    rs = np.random.default_rng(8)
    xs = [rs.integers(-128, 128, (1, 28, 28, 1)).astype(np.int8) for _ in range(6)]
    infer(**{name: xs[0]})  # the variables' initial values
    it.export_model(str(tmp_path / "untrained.tflite"))
    untrained = load(str(tmp_path / "untrained.tflite"))
    assert [untrained.op_name(op) for op in untrained.subgraphs[0].operators] \
        == [original.op_name(op) for op in original.subgraphs[0].operators]
    for (kind, slot, want, data), (_, _, got, got_data) in zip(weighted_inputs(original), weighted_inputs(untrained),
                                                              strict=True):
        assert got.dtype == want.dtype and got.name == want.name, (kind, slot)
        assert got.quantization.same_as(want.quantization), (kind, slot)
        np.testing.assert_array_equal(got_data, data)
    for _ in range(10):
        train(**{name: xs[0]}, y=np.array([3], np.int32))
    it.export_model(str(tmp_path / "fine_tuned.tflite"))
    folded = load(str(tmp_path / "fine_tuned.tflite"))
    assert [folded.op_name(op) for op in folded.subgraphs[0].operators] \
        == [original.op_name(op) for op in original.subgraphs[0].operators]
    changed = 0
    for (kind, slot, want, data), (_, _, got, got_data) in zip(weighted_inputs(original), weighted_inputs(folded),
                                                              strict=True):
        assert got.dtype == want.dtype and got.quantization.same_as(want.quantization), (kind, slot)
        changed += not np.array_equal(got_data, data)
    assert changed >= 3  # the last conv's weight and bias, the dense layer's weight (and bias)
    unfolded = unfolded_export(it)
    assert "DIV" in [load(unfolded).op_name(op) for op in load(unfolded).subgraphs[0].operators]
    runners = [interpreter.get_signature_runner("infer") for interpreter in (
        Interpreter(model_path=str(tmp_path / "fine_tuned.tflite")), Interpreter(model_content=unfolded),
        litert.Interpreter(model_path=str(tmp_path / "fine_tuned.tflite")), litert.Interpreter(model_content=unfolded))]
    for x in xs:
        (trained,) = infer(**{name: x}).values()
        for runner in runners:
            (got,) = runner(**{name: x}).values()
            assert got.dtype == np.int8
            np.testing.assert_array_equal(got, trained)


def test_a_fine_tuned_int8_model_exports_and_runs_in_litert(tmp_path):
    """export_model after training: the int8 model with its trained weights, which LiteRT runs with rillet's
    results bit for bit (its weights int8 constants again: test_a_fine_tuned_int8_model_exports_as_int8_...)."""
    path = DATA / "models" / "cnn_small_int8.tflite"
    it = Interpreter(model_content=rillet.trainable(path, train_last=2, learning_rate=0.01))
    infer, train = it.get_signature_runner("infer"), it.get_signature_runner("train")
    name = next(iter(infer.get_input_details()))
    x = np.random.default_rng(8).integers(-128, 128, (1, 28, 28, 1)).astype(np.int8)
    for _ in range(10):
        train(**{name: x}, y=np.array([3], np.int32))
    (trained,) = infer(**{name: x}).values()
    it.export_model(str(tmp_path / "fine_tuned.tflite"))
    exported = litert.Interpreter(model_path=str(tmp_path / "fine_tuned.tflite"))
    (got,) = exported.get_signature_runner(next(iter(exported.get_signature_list())))(**{name: x}).values()
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, trained)


def test_an_lstm_in_the_trained_tail_starts_each_step_from_zero():
    """A dense layer, an LSTM carrying its state (the fused op), a dense head: training the two dense layers puts
    the LSTM in the tail, where each step's samples start from a zero state (the unrolled steps' builtins, what
    backpropagation through time assumes): the first step's loss is the graph's from zero, and rillet's and
    LiteRT's losses agree and fall."""
    import rillet.graph as rg
    from rillet.converter.from_graph import convert
    from rillet.graph import ops

    rs = np.random.default_rng(1)
    weights = ([rs.normal(size=(4, 6)).astype(np.float32) * 0.5 for _ in range(4)],
               [rs.normal(size=(4, 4)).astype(np.float32) * 0.5 for _ in range(4)],
               [rs.normal(size=4).astype(np.float32) for _ in range(4)])
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder([2, 5, 3], name="x")
        h = ops.fully_connected(ops.reshape(x, [10, 3]), rg.Variable(rs.normal(size=(6, 3)).astype(np.float32)))
        y = ops.lstm(ops.reshape(h, [2, 5, 6]), *weights, carry_state=True)
        last = ops.strided_slice(y, [0, 4, 0], [0, 5, 0], begin_mask=5, end_mask=5, shrink_axis_mask=2)
        p = ops.softmax(ops.fully_connected(last, rg.Variable(rs.normal(size=(3, 4)).astype(np.float32)),
                                            rg.Variable(np.zeros(3, np.float32))))
    model = convert(inputs={"x": x}, outputs={"p": p})
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in {load(model).op_name(op) for op in load(model).subgraphs[0].operators}
    content = rillet.trainable(model, train_last=2, learning_rate=0.1)
    xv, label = rs.uniform(-1, 1, (2, 5, 3)).astype(np.float32), np.array([0, 2], np.int32)
    p0 = g.run(p, {x: xv})  # the graph's first run: from zero (later ones carry its LSTM's state)
    from_zero = float(-np.log(p0[[0, 1], label]).mean())
    losses = {}
    for key, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        train = cls(model_content=content).get_signature_runner("train")
        losses[key] = np.array([float(train(x=xv, y=label)["loss"]) for _ in range(20)])
    np.testing.assert_allclose(losses["rillet"][0], from_zero, rtol=1e-5)
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < losses["rillet"][0]
    for cls in (Interpreter, litert.Interpreter):  # no state left behind from one invoke to the next
        infer = cls(model_content=content).get_signature_runner("infer")
        first = infer(x=xv)["p"]
        np.testing.assert_array_equal(infer(x=xv)["p"], first)
        np.testing.assert_allclose(first, p0, rtol=1e-5)


def test_a_graph_built_model_with_control_flow_quantization_and_argmax_pooling_in_its_frozen_part_trains():
    """IF, WHILE, QUANTIZE -> DEQUANTIZE and MediaPipe's argmax pooling and unpooling, written by the graph API in
    front of a convolution and a dense head: the file round-trips through to_graph (LiteRT's outputs of the
    original), and `trainable` on it trains the head with the same losses in rillet and LiteRT, falling."""
    import rillet.graph as rg
    from rillet.converter.from_graph import convert
    from rillet.converter.to_graph import to_graph
    from rillet.graph import ops

    rs = np.random.default_rng(3)
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder([1, 8, 8, 2], name="x")
        h = ops.if_(ops.greater(ops.reduce_sum(x), np.float32(0)), lambda a: ops.tanh(a), lambda a: a * 0.5, x)
        _, h = ops.while_loop(lambda i, v: ops.less(i, np.int32(2)), lambda i, v: [i + np.int32(1), v * 0.8 + 0.1],
                              [ops.constant(np.int32(0)), h])
        h = ops.dequantize(ops.quantize(h, 1 / 64, -3), 1 / 64, -3)
        h = ops.max_unpool(*ops.max_pool_with_argmax(h, (2, 2)), (2, 2))
        h = ops.relu(ops.conv2d(h, rs.normal(size=(4, 3, 3, 2)).astype(np.float32) * 0.5, padding="SAME"))
        logits = ops.fully_connected(ops.reshape(h, [1, 256]), rs.normal(size=(3, 256)).astype(np.float32) * 0.1,
                                     np.zeros(3, np.float32))
        p = ops.softmax(logits)
    model = convert(inputs={"x": x}, outputs={"p": p})
    kinds = {load(model).op_name(op) for sg in load(model).subgraphs for op in sg.operators}
    assert {"IF", "WHILE", "QUANTIZE", "DEQUANTIZE", "MaxPoolingWithArgmax2D", "MaxUnpooling2D"} <= kinds
    xs = [rs.uniform(-1, 1, (1, 8, 8, 2)).astype(np.float32) * sign for sign in (1, -1)]  # both branches
    imported = to_graph(model)
    again = convert(inputs=imported.inputs, outputs=imported.outputs)
    for xv in xs:
        want = litert.Interpreter(model_content=model).get_signature_runner("infer")(x=xv)["p"]
        for cls in (Interpreter, litert.Interpreter):
            assert rel(cls(model_content=again).get_signature_runner("infer")(x=xv)["p"], want) <= 1e-5
    content = rillet.trainable(model, train_last=1, learning_rate=0.5)
    label = np.array([int(np.argmin(g.run(p, {x: xs[0]})))], np.int32)
    losses = {}
    for key, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        train = cls(model_content=content).get_signature_runner("train")
        losses[key] = np.array([float(train(x=xs[k % 2], y=label)["loss"]) for k in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-2:].mean() < losses["rillet"][:2].mean()


def test_a_model_with_control_flow_and_state_exports_after_training(tmp_path):
    """export_model keeps the subgraphs the inference signature calls (IF's branches, WHILE's condition and
    body, the CALL_ONCE initialising its state): it kept the signature's subgraph alone, so a frozen part with
    control flow (this fixture, openWakeWord's hey_jarvis) exported a file that called subgraphs it did not
    hold, and it refused a signature that assigns a variable, which a streaming model's does with its state
    (the fixture's [1,16] running sum, microWakeWord's past frames). The state stays a variable, the trained
    weights become constants: after 5 steps, three invokes of the file from its initial state in LiteRT and in
    rillet give what a fresh training file with the trained weights restored gives."""
    path = DATA / "control_flow" / "control_flow_f32.tflite"
    content = rillet.trainable(path, train_last=2, learning_rate=0.1)
    it = Interpreter(model_content=content)
    feeds, want, names = original(path, np.random.default_rng(9))
    train = it.get_signature_runner("train")
    for _ in range(5):
        train(**feeds, y=np.array([1], np.int32))
    trained = Interpreter(model_content=content)
    trained.get_signature_runner("restore")(**it.get_signature_runner("save")())
    expected = [trained.get_signature_runner("infer")(**feeds)[names[0]] for _ in range(3)]
    assert rel(expected[0], want[names[0]]) > 1e-3  # it trained
    assert rel(expected[2], expected[0]) > 1e-4  # the state carries from one invoke to the next
    it.export_model(str(tmp_path / "fine_tuned.tflite"))
    exported = load(str(tmp_path / "fine_tuned.tflite"))
    kinds = {exported.op_name(op) for op in exported.subgraphs[0].operators}
    assert {"IF", "WHILE", "CALL_ONCE", "ASSIGN_VARIABLE"} <= kinds
    assert len(exported.subgraphs) == 6  # infer, its state's initialiser, IF's branches, WHILE's cond and body
    for cls in (Interpreter, litert.Interpreter):
        runner = cls(model_path=str(tmp_path / "fine_tuned.tflite")).get_signature_runner("infer")
        for k in range(3):
            assert rel(runner(**feeds)[names[0]], expected[k]) <= 1e-5, (cls, k)
