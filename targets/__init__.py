"""Where graphs run besides the numpy reference: the desktop backend (`xla`) and device targets.

`devices` names the boards (rpi0 ... rpi5, host) with their compilers, flags, wheel platforms and kernel paths;
`bundle` writes what `rillet deploy` hands a device (its wheel, the model, run.py / train.py, install.sh).
"""
