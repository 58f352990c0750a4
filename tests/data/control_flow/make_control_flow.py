"""Writes control_flow_f32.tflite (and its .npz of inputs and LiteRT's outputs): a small classifier whose front
has TensorFlow's control flow as TFLite keeps it, IF (tf.cond), WHILE (tf.while_loop) and CALL_ONCE (a
streaming state in a tf.Variable, set by the initialiser), before two dense layers. Run with /work/txenv's
python (TensorFlow); the tests read the committed files and need no TensorFlow."""

from pathlib import Path

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter

HERE = Path(__file__).resolve().parent


class ControlFlow(tf.Module):
    def __init__(self):
        rs = np.random.default_rng(7)
        self.state = tf.Variable(np.zeros((1, 16), np.float32))  # carried from one invoke to the next
        self.w0 = tf.constant(rs.normal(size=(16, 16)).astype(np.float32) * 0.3)
        self.w1 = tf.constant(rs.normal(size=(16, 12)).astype(np.float32) * 0.3)
        self.b1 = tf.constant(rs.normal(size=12).astype(np.float32) * 0.1)
        self.w2 = tf.constant(rs.normal(size=(12, 4)).astype(np.float32) * 0.3)
        self.b2 = tf.constant(rs.normal(size=4).astype(np.float32) * 0.1)

    @tf.function(input_signature=[tf.TensorSpec([1, 16], tf.float32)])
    def infer(self, x):
        h = tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.tanh(tf.matmul(x, self.w0)), lambda: x * 0.5 - 0.25)
        i = tf.constant(0)
        _, h = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.9 + tf.sin(v)), (i, h))
        h = h + 0.5 * self.state
        self.state.assign(h)
        h = tf.nn.relu(tf.matmul(h, self.w1) + self.b1)
        return {"probabilities": tf.nn.softmax(tf.matmul(h, self.w2) + self.b2)}


def main() -> None:
    module = ControlFlow()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([module.infer.get_concrete_function()], module)
    converter.experimental_enable_resource_variables = True
    data = converter.convert()
    (HERE / "control_flow_f32.tflite").write_bytes(data)
    it = Interpreter(model_content=data)
    runner = it.get_signature_runner()
    rs = np.random.default_rng(0)
    xs = rs.uniform(-1, 1, (3, 1, 16)).astype(np.float32)
    outs = np.stack([runner(x=x)["probabilities"] for x in xs])  # three invokes: the state carries
    np.savez(HERE / "control_flow_f32.npz", x=xs, probabilities=outs)


if __name__ == "__main__":
    main()
