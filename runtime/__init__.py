"""The on-device Python API: a drop-in for tflite_runtime's Interpreter."""
