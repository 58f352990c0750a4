"""rillet: a small TensorFlow for the edge."""
