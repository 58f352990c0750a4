"""The dataflow graph: tensors, variables, the op registry, autodiff, layers, losses, optimizers."""
