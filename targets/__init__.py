"""Where graphs run besides the numpy reference: the desktop backend (`xla`) and device targets."""
