"""Layers, Model, losses and optimizers: values, whole-model gradients, hand-computed optimizer steps, and
tiny training runs whose loss must fall."""

import numpy as np
import pytest
from graphcheck import RUNTIME_FLOAT_OPS, central_differences, run_jax, x64

import rillet.graph as rg
from rillet.graph import layers as L
from rillet.graph import losses, ops, optimizers


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# --------------------------------------------------------------------------------------------- losses


def test_softmax_cross_entropy_integer_and_one_hot_labels_match_formula():
    rs = np.random.default_rng(0)
    z, y = rs.normal(size=(4, 3)), np.array([0, 2, 1, 2])
    g = rg.Graph()
    with g.as_default():
        logits = rg.placeholder([None, 3], "float64", name="logits")
        sparse = losses.softmax_cross_entropy(rg.placeholder([None], "int32", name="y"), logits)
        dense = losses.softmax_cross_entropy(rg.placeholder([None, 3], "float64", name="y1h"), logits)
        (dz,) = rg.gradients(sparse, [logits])
    expected = -np.mean(np.log(softmax(z))[np.arange(4), y])
    a, b, grad = g.run([sparse, dense, dz], {"logits": z, "y": y, "y1h": np.eye(3)[y]})
    np.testing.assert_allclose([a, b], [expected, expected], rtol=1e-12)
    np.testing.assert_allclose(grad, (softmax(z) - np.eye(3)[y]) / 4, rtol=1e-10)


def test_mean_squared_error_and_its_gradient():
    p, t = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    g = rg.Graph()
    with g.as_default():
        pred = rg.placeholder([None, 3], "float64", name="p")
        loss = losses.mean_squared_error(t, pred)
        (dp,) = rg.gradients(loss, [pred])
    value, grad = g.run([loss, dp], {"p": p})
    assert value == pytest.approx(np.mean((p - t) ** 2))
    np.testing.assert_allclose(grad, 2 * (p - t) / 6)


# ------------------------------------------------------------------------------------------ optimizers


def quadratic(opt, steps):
    """Run `steps` of opt on loss = sum(c * w^2); return the graph's w values and the gradients seen."""
    c = np.array([1.0, -0.5, 2.0])
    g = rg.Graph()
    with g.as_default():
        w = rg.Variable(np.array([0.3, -1.2, 0.7]), name="w")
        loss = ops.reduce_sum(ops.mul(ops.mul(w, w), c))
        train = opt.minimize(loss, [w])
    history = [w.numpy()]
    for _ in range(steps):
        g.run(train)
        history.append(w.numpy())
    return history, lambda v: 2 * c * v


def test_sgd_step_matches_hand_computation():
    history, grad = quadratic(optimizers.SGD(0.1), 2)
    w0 = history[0]
    w1 = w0 - 0.1 * grad(w0)
    np.testing.assert_allclose(history[1], w1, rtol=1e-12)
    np.testing.assert_allclose(history[2], w1 - 0.1 * grad(w1), rtol=1e-12)


def test_momentum_steps_match_hand_computation():
    history, grad = quadratic(optimizers.Momentum(0.1, momentum=0.9), 2)
    w0 = history[0]
    v1 = -0.1 * grad(w0)
    w1 = w0 + v1
    v2 = 0.9 * v1 - 0.1 * grad(w1)
    np.testing.assert_allclose(history[1], w1, rtol=1e-12)
    np.testing.assert_allclose(history[2], w1 + v2, rtol=1e-12)


def test_adam_steps_match_hand_computation():
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-7
    history, grad = quadratic(optimizers.Adam(lr, b1, b2, eps), 3)
    w, m, v = history[0], 0.0, 0.0
    for t in range(1, 4):
        gr = grad(w)
        m = b1 * m + (1 - b1) * gr
        v = b2 * v + (1 - b2) * gr * gr
        w = w - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
        np.testing.assert_allclose(history[t], w, rtol=1e-12)


def test_optimizer_state_is_variables_and_steps_are_assign_ops():
    g = rg.Graph()
    with g.as_default():
        w = rg.Variable(np.ones(2), name="w")
        train = optimizers.Adam().minimize(ops.reduce_sum(ops.mul(w, w)), [w])
    state = sorted(n for n, v in g.variables.items() if not v.trainable)
    assert state == ["Adam/beta_1_power", "Adam/beta_2_power", "Adam/w/m", "Adam/w/v"]
    assigned = {n.inputs[0].node.attrs["shared_name"] for n in g.ancestors(train) if n.op == "ASSIGN_VARIABLE"}
    assert assigned == {"w", *state}


# ------------------------------------------------------------------------------------- graph semantics


def test_reads_see_the_value_before_the_run_and_assignments_persist():
    g = rg.Graph()
    with g.as_default():
        v = rg.Variable(np.float32(1.0), name="v")
        bump = v.assign(ops.add(v, 1.0))
    before, _ = g.run([v, bump])
    assert before == 1.0 and v.numpy() == 2.0
    assert g.run(v) == 2.0


def test_feeds_by_name_with_a_dynamic_batch_and_clear_errors():
    g = rg.Graph()
    with g.as_default():
        x = rg.placeholder([None, 2], name="x")
        y = ops.reduce_sum(x, 1)
    assert g.run(y, {"x": np.ones((5, 2))}).shape == (5,)
    with pytest.raises(KeyError, match='no input named "z"'):
        g.run(y, {"z": np.ones((1, 2))})
    with pytest.raises(ValueError, match=r'input "x": fed shape \(1, 3\)'):
        g.run(y, {"x": np.ones((1, 3))})
    with pytest.raises(RuntimeError, match='no value fed for input "x"'):
        g.run(y)


def test_shape_errors_name_the_node():
    g = rg.Graph()
    with g.as_default():
        x = rg.placeholder([1, 5, 5, 3], name="x")
        error = 'CONV_2D "block3/conv": input has 3 channels, filter expects 4'
        with pytest.raises(ValueError, match=error), g.name_scope("block3"):
            ops.conv2d(x, np.zeros((2, 3, 3, 4), np.float32), name="conv")
        with pytest.raises(ValueError, match='Dense "head": input must be'):
            L.Dense(2, name="head")(x)


# ---------------------------------------------------------------------------------------------- layers


def test_batch_normalization_training_and_inference_modes():
    rs = np.random.default_rng(1)
    data = rs.normal(2.0, 3.0, size=(8, 2, 2, 3))
    g = rg.Graph()
    with g.as_default():
        x = L.Input((2, 2, 3), name="x", dtype="float64")
        bn = L.BatchNormalization(momentum=0.9, epsilon=1e-3, dtype="float64")
        model = rg.Model(x, bn(x))
        trained = model(training=True)
        step = ops.group(*model.updates)
    mean, var = data.mean((0, 1, 2)), data.var((0, 1, 2))
    y, _ = g.run([trained, step], {"x": data})
    np.testing.assert_allclose(y, (data - mean) / np.sqrt(var + 1e-3), rtol=1e-10)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-10)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-10)
    inferred = model.predict({"x": data})
    expected = (data - 0.1 * mean) / np.sqrt(0.9 + 0.1 * var + 1e-3)
    np.testing.assert_allclose(inferred, expected, rtol=1e-10)
    # Layer names come from a process-wide counter (as in Keras), so other tests may have taken
    # "batch_normalization" already: compare against this layer's own name.
    assert [v.name for v in model.trainable_variables] == [f"{bn.name}/gamma", f"{bn.name}/beta"]
    assert bn.name.startswith("batch_normalization")
    assert len(model.variables) == 4


def test_dropout_only_in_training():
    g = rg.Graph()
    with g.as_default():
        x = L.Input((1000,), name="x")
        model = rg.Model(x, L.Dropout(0.25)(x))
        train_y = model(training=True)
    ones = np.ones((2, 1000), np.float32)
    np.testing.assert_array_equal(model.predict({"x": ones}), ones)
    y = g.run(train_y, {"x": ones})
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.2 < np.mean(y == 0) < 0.3


def test_layer_shapes_and_model_structure():
    g = rg.Graph()
    with g.as_default():
        image = L.Input((9, 9, 2), name="image")
        extra = L.Input((4,), name="extra")
        a = L.ZeroPadding2D(1)(image)
        a = L.Conv2D(4, 3, strides=2, activation="relu")(a)
        b = L.DepthwiseConv2D(3, padding="same", depth_multiplier=2)(a)
        b = L.Conv2D(4, 1)(b)
        c = L.Add()([a, b])
        c = L.AveragePool2D(2, padding="same")(c)
        c = L.Flatten()(c)
        c = L.Concatenate()([c, extra])
        out = L.Dense(3, activation="softmax")(c)
        aux = L.Activation("hard_swish")(L.Dense(2)(extra))
        model = rg.Model({"image": image, "extra": extra}, {"probs": out, "aux": aux})
    assert a.shape == (None, 5, 5, 4) and b.shape == (None, 5, 5, 4) and c.shape == (None, 40)
    assert model.input_names == ["image", "extra"] and model.output_names == ["probs", "aux"]
    result = model.predict({"image": np.ones((3, 9, 9, 2)), "extra": np.ones((3, 4))})
    assert result["probs"].shape == (3, 3) and result["aux"].shape == (3, 2)
    np.testing.assert_allclose(result["probs"].sum(1), 1, rtol=1e-6)
    # a training-mode rebuild shares the variables and gives the same values here (no BN, no dropout)
    again = g.run(model(training=True), {"image": np.ones((3, 9, 9, 2)), "extra": np.ones((3, 4))})
    np.testing.assert_allclose(again["probs"], result["probs"], rtol=1e-6)
    assert len(model.trainable_variables) == 10 and len(g.trainable_variables) == 10


def small_cnn(dtype):
    L.set_seed(3)
    g = rg.Graph()
    with g.as_default():
        x = L.Input((6, 6, 2), name="x", dtype=dtype)
        h = L.Conv2D(3, 3, padding="same", dtype=dtype)(x)
        h = L.BatchNormalization(dtype=dtype)(h)
        h = L.Activation("tanh")(h)
        h = L.MaxPool2D(2)(h)
        h = L.SeparableConv2D(4, 3, padding="same", activation="sigmoid", dtype=dtype)(h)
        h = L.AveragePool2D(3, strides=1, padding="same")(h)
        skip = L.GlobalAveragePool2D()(h)
        h = L.Flatten()(h)
        h = L.Concatenate()([h, skip])
        logits = L.Dense(3, dtype=dtype)(h)
        model = rg.Model({"x": x}, {"logits": logits})
        labels = rg.placeholder([None], "int32", name="labels")
        loss = losses.softmax_cross_entropy(labels, model(training=True)["logits"])
    return g, model, loss


def test_whole_model_gradients_match_finite_differences_and_jax():
    g, model, loss = small_cnn("float64")
    rs = np.random.default_rng(5)
    feeds = {"x": rs.normal(size=(3, 6, 6, 2)), "labels": np.array([0, 2, 1])}
    variables = model.trainable_variables
    grads = g.run(rg.gradients(loss, variables), feeds)
    values = [v.numpy() for v in variables]

    def loss_at(arrays):
        for v, a in zip(variables, arrays):
            v.load(a)
        return g.run(loss, feeds)

    # finite differences on a few variables keep this fast; every layer kind is upstream of them
    for k in (0, 4, len(variables) - 2):
        rest = values[:k] + values[k + 1:]
        numeric = central_differences(lambda a, k=k, rest=rest: loss_at(rest[:k] + a + rest[k:]), [values[k]])[0]
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-5, atol=1e-8)
    jax = pytest.importorskip("jax")
    with x64():
        feed_tensors = {g.placeholders["x"]: feeds["x"], g.placeholders["labels"]: feeds["labels"]}

        def f(*arrays):
            return run_jax([loss], {**feed_tensors, **{v.value: a for v, a in zip(variables, arrays)}})[0]
        expected = jax.grad(f, argnums=tuple(range(len(values))))(*values)
    for ours, theirs in zip(grads, expected):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("make_optimizer", [
    lambda: optimizers.SGD(0.5), lambda: optimizers.Momentum(0.1, 0.9), lambda: optimizers.Adam(0.05),
], ids=["sgd", "momentum", "adam"])
def test_tiny_mlp_training_decreases_loss(make_optimizer):
    rs = np.random.default_rng(0)
    data = rs.normal(size=(64, 2)).astype(np.float32)
    target = (data[:, 0] * data[:, 1] > 0).astype(np.int32)
    L.set_seed(0)
    g = rg.Graph()
    with g.as_default():
        x = L.Input((2,), name="x")
        h = L.Dense(16, activation="relu")(x)
        h = L.Dropout(0.1)(h)
        model = rg.Model(x, L.Dense(2)(h))
        labels = rg.placeholder([None], "int32", name="labels")
        loss = losses.softmax_cross_entropy(labels, model(training=True))
        train = make_optimizer().minimize(loss, model.trainable_variables)
    losses_seen = [g.run([loss, train], {"x": data, "labels": target})[0] for _ in range(60)]
    assert np.mean(losses_seen[-5:]) < 0.75 * losses_seen[0]


def test_small_cnn_training_with_batch_norm_decreases_loss():
    g, model, loss = small_cnn("float32")
    with g.as_default():
        train = optimizers.Adam(0.02).minimize(loss, model.trainable_variables)
    bn = next(layer for layer in model.layers if isinstance(layer, L.BatchNormalization))
    assert set(bn.updates) <= g.ancestors(train)  # the moving statistics move with each step
    rs = np.random.default_rng(2)
    data = rs.normal(size=(24, 6, 6, 2)).astype(np.float32)
    target = (data[..., 0].mean((1, 2)) > 0).astype(np.int32) + (data[..., 1].mean((1, 2)) > 0)
    first = g.run(loss, {"x": data, "labels": target})
    for _ in range(25):
        g.run(train, {"x": data, "labels": target})
    assert g.run(loss, {"x": data, "labels": target}) < 0.75 * first
    assert not np.allclose(bn.moving_mean.numpy(), 0)



def test_training_step_uses_only_runtime_builtins():
    g, model, loss = small_cnn("float32")
    with g.as_default():
        train = optimizers.Adam().minimize(loss, model.trainable_variables)
    used = {n.op for n in g.ancestors(train)}
    assert used - set(RUNTIME_FLOAT_OPS) <= {"PLACEHOLDER", "CONST", "NO_OP", "IDENTITY"}


def test_jitted_jax_lowering_of_a_training_graph_agrees_with_numpy():
    jax = pytest.importorskip("jax")
    g, model, loss = small_cnn("float32")
    variables = model.trainable_variables
    grads = rg.gradients(loss, variables)
    rs = np.random.default_rng(4)
    x, y = rs.normal(size=(5, 6, 6, 2)).astype(np.float32), np.array([0, 1, 2, 1, 0], np.int32)
    expected = g.run([loss, *grads], {"x": x, "labels": y})

    @jax.jit
    def step(xv, yv, *values):
        feeds = {g.placeholders["x"]: xv, g.placeholders["labels"]: yv}
        return run_jax([loss, *grads], {**feeds, **{v.value: a for v, a in zip(variables, values)}})

    for ours, theirs in zip(expected, step(x, y, *[v.numpy() for v in variables])):
        np.testing.assert_allclose(np.asarray(theirs), ours, rtol=1e-5, atol=1e-6)
