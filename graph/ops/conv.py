"""Convolutions: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, and the window geometry they share with pooling.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor, Variable
from ..registry import REQUIRED, OpDef, register
from . import _grad as grad
from .core import (
    _apply,
    _lax,
    _operands,
    _tfl,
    as_tensor,
    conv_geometry,
)

# -------------------------------------------------------------------------------------- convolutions

_CONV_ATTRS = {"padding": "VALID", "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1}
_CONV_OPTION_MAP = {"padding": "padding", "stride_h": "stride_h", "stride_w": "stride_w",
                    "dilation_h": "dilation_h_factor", "dilation_w": "dilation_w_factor"}


def conv_windows(attrs: dict, in_h: int | None, in_w: int | None, kh: int, kw: int):
    """((out_h, pad_top, pad_bottom), (out_w, pad_left, pad_right)) for a conv or pool node's attrs."""
    return (conv_geometry(in_h, kh, attrs["stride_h"], attrs.get("dilation_h", 1), attrs["padding"]),
            conv_geometry(in_w, kw, attrs["stride_w"], attrs.get("dilation_w", 1), attrs["padding"]))


def _conv_infer(attrs, specs, depthwise=False):
    (xs, xd), (fs, fd) = specs[:2]
    if len(xs) != 4 or len(fs) != 4:
        raise ValueError(f"input must be NHWC and filter rank 4, got {xs} and {fs}")
    if xd != fd:
        raise ValueError(f"input is {xd}, filter is {fd}")
    if depthwise:
        if fs[0] != 1:
            raise ValueError(f"depthwise filter must be [1, kh, kw, channels*multiplier], got {fs}")
        out_c = fs[3]
        if None not in (xs[3], out_c) and xs[3] * attrs["depth_multiplier"] != out_c:
            raise ValueError(f"input has {xs[3]} channels, filter has {out_c} = channels * "
                             f"depth_multiplier {attrs['depth_multiplier']} expected")
    else:
        out_c = fs[0]
        if None not in (xs[3], fs[3]) and xs[3] != fs[3]:
            raise ValueError(f"input has {xs[3]} channels, filter expects {fs[3]}")
    if len(specs) == 3 and specs[2][0] != (out_c,):
        raise ValueError(f"bias has shape {specs[2][0]}, expected ({out_c},)")
    (oh, _, _), (ow, _, _) = conv_windows(attrs, xs[1], xs[2], fs[1], fs[2])
    return [((xs[0], oh, ow, out_c), xd)]


def _windows_np(attrs, x, kh, kw, pad_value=0.0):
    """Yield (i, j, x window slice [N, OH, OW, C]) for every filter tap, over the padded input."""
    (oh, pt, pb), (ow, pl, pr) = conv_windows(attrs, x.shape[1], x.shape[2], kh, kw)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=pad_value)
    sh, sw = attrs["stride_h"], attrs["stride_w"]
    dh, dw = attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)
    for i in range(kh):
        for j in range(kw):
            yield i, j, xp[:, i * dh: i * dh + (oh - 1) * sh + 1: sh, j * dw: j * dw + (ow - 1) * sw + 1: sw, :]


def _conv_np(a, x, f, b=None):
    out = 0
    for i, j, xs in _windows_np(a, x, f.shape[1], f.shape[2]):
        out = out + xs @ f[:, i, j, :].T
    return out if b is None else out + b


def _depthwise_np(a, x, f, b=None):
    out = 0
    for i, j, xs in _windows_np(a, x, f.shape[1], f.shape[2]):
        out = out + np.repeat(xs, a["depth_multiplier"], axis=-1) * f[0, i, j, :]
    return out if b is None else out + b


def _conv_jax(a, x, f, b=None, depthwise=False):
    lax = _lax()
    (_, pt, pb), (_, pl, pr) = conv_windows(a, x.shape[1], x.shape[2], f.shape[1], f.shape[2])
    common = {"window_strides": (a["stride_h"], a["stride_w"]), "padding": [(pt, pb), (pl, pr)],
                  "rhs_dilation": (a["dilation_h"], a["dilation_w"]), "precision": lax.Precision.HIGHEST}
    if depthwise:
        y = lax.conv_general_dilated(x, f.reshape(f.shape[1], f.shape[2], 1, f.shape[3]),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                     feature_group_count=x.shape[3], **common)
    else:
        y = lax.conv_general_dilated(x, f, dimension_numbers=("NHWC", "OHWI", "NHWC"), **common)
    return y if b is None else y + b


register(OpDef("CONV_2D", attrs=dict(_CONV_ATTRS), infer=_conv_infer, numpy=_conv_np, jax=_conv_jax,
               tflite=_tfl("CONV_2D", "Conv2DOptions", _CONV_OPTION_MAP,
                           notes="filter OHWI; bias optional (-1); fused_activation_function NONE")))
register(OpDef("DEPTHWISE_CONV_2D", attrs={**_CONV_ATTRS, "depth_multiplier": 1},
               infer=lambda a, s: _conv_infer(a, s, depthwise=True), numpy=_depthwise_np,
               jax=lambda a, *xs: _conv_jax(a, *xs, depthwise=True),
               tflite=_tfl("DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions",
                           {**_CONV_OPTION_MAP, "depth_multiplier": "depth_multiplier"},
                           notes="filter [1, kh, kw, channels*multiplier]; bias optional (-1)")))


def _conv_attrs(strides, padding, dilations):
    sh, sw = (strides, strides) if isinstance(strides, int) else strides
    dh, dw = (dilations, dilations) if isinstance(dilations, int) else dilations
    return {"padding": padding.upper(), "stride_h": sh, "stride_w": sw, "dilation_h": dh, "dilation_w": dw}


def conv2d(x, filters, bias=None, strides=1, padding: str = "VALID", dilations=1,
           name: str | None = None) -> Tensor:
    """NHWC convolution with an OHWI filter."""
    inputs = _operands(x, filters) + ([as_tensor(bias)] if bias is not None else [])
    return _apply("CONV_2D", inputs, _conv_attrs(strides, padding, dilations), name=name)


def depthwise_conv2d(x, filters, bias=None, strides=1, padding: str = "VALID", dilations=1,
                     depth_multiplier: int = 1, name: str | None = None) -> Tensor:
    """NHWC depthwise convolution with a [1, kh, kw, channels*multiplier] filter."""
    inputs = _operands(x, filters) + ([as_tensor(bias)] if bias is not None else [])
    attrs = {**_conv_attrs(strides, padding, dilations), "depth_multiplier": depth_multiplier}
    return _apply("DEPTHWISE_CONV_2D", inputs, attrs, name=name)


def _transpose_conv_infer(attrs, specs):
    (ss, sd), (fs, fd), (xs, xd) = specs[:3]
    if ss != (4,) or not np.issubdtype(np.dtype(sd), np.integer):
        raise ValueError(f"output_shape must be an int [4], got {sd} {ss}")
    if len(xs) != 4 or len(fs) != 4 or xd != fd:
        raise ValueError(f"input must be NHWC and the filter [out, kh, kw, in] of its dtype, got {xs} and {fs}")
    if None not in (xs[3], fs[3]) and xs[3] != fs[3]:
        raise ValueError(f"input has {xs[3]} channels, filter expects {fs[3]}")
    shape = tuple(attrs["shape"])
    if len(shape) != 4 or shape[3] != fs[0]:
        raise ValueError(f"output shape {shape} must be 4-D with the filter's {fs[0]} output channels")
    return [(shape, xd)]


def _transpose_conv_np(a, shape, f, x):
    """Each input pixel scattered through the filter: out[y*s - pad + i, x*s - pad + j] += x[y, x] @ f[:, i, j]^T."""
    n, h, w, c = (int(d) for d in shape)
    kh, kw = f.shape[1], f.shape[2]
    (_, pt, _), (_, pl, _) = conv_windows(a, h, w, kh, kw)
    sh, sw = a["stride_h"], a["stride_w"]
    span_h, span_w = (x.shape[1] - 1) * sh + 1, (x.shape[2] - 1) * sw + 1
    buf = np.zeros((n, max(span_h + kh - 1, pt + h), max(span_w + kw - 1, pl + w), c), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            buf[:, i:i + span_h:sh, j:j + span_w:sw, :] += x @ f[:, i, j, :].T
    return buf[:, pt:pt + h, pl:pl + w, :]


def _transpose_conv_jax(a, shape, f, x):
    lax = _lax()
    h, w = int(shape[1]), int(shape[2])
    kh, kw = f.shape[1], f.shape[2]
    (_, pt, _), (_, pl, _) = conv_windows(a, h, w, kh, kw)
    sh, sw = a["stride_h"], a["stride_w"]
    padding = [(kh - 1 - pt, h + pt - (x.shape[1] - 1) * sh - 1), (kw - 1 - pl, w + pl - (x.shape[2] - 1) * sw - 1)]
    return lax.conv_general_dilated(x, f[:, ::-1, ::-1, :], window_strides=(1, 1), padding=padding,
                                    lhs_dilation=(sh, sw), dimension_numbers=("NHWC", "OHWI", "NHWC"),
                                    precision=lax.Precision.HIGHEST)


register(OpDef("TRANSPOSE_CONV", attrs={"padding": "VALID", "stride_h": 1, "stride_w": 1, "shape": REQUIRED},
               infer=_transpose_conv_infer, numpy=_transpose_conv_np, jax=_transpose_conv_jax,
               tflite=_tfl("TRANSPOSE_CONV", "TransposeConvOptions",
                           {"padding": "padding", "stride_h": "stride_h", "stride_w": "stride_w"},
                           notes="inputs (output_shape, filter [out, kh, kw, in], x); `shape` attr is the "
                                 "static output shape; padding as the convolution it transposes")))


def transpose_conv2d(x, filters, output_shape, strides=1, padding: str = "VALID", name: str | None = None) -> Tensor:
    """The transposed (adjoint) NHWC convolution, filters [out_channels, kh, kw, in_channels]. `output_shape`
    is a 4-tuple, or a tensor whose shape the output takes (its SHAPE at run time when a dimension is dynamic,
    as for a convolution's input gradient over a dynamic batch)."""
    x = as_tensor(x)
    if isinstance(output_shape, (Tensor, Variable)):
        like = as_tensor(output_shape)
        static = like.shape
        shape_tensor = ops.shape(like) if None in static else ops.constant(np.array(static, np.int32), graph=x.graph)
    else:
        static = tuple(int(d) for d in output_shape)
        shape_tensor = ops.constant(np.array(static, np.int32), graph=x.graph)
    sh, sw = (strides, strides) if isinstance(strides, int) else strides
    attrs = {"padding": padding.upper(), "stride_h": sh, "stride_w": sw, "shape": static}
    return _apply("TRANSPOSE_CONV", [shape_tensor, as_tensor(filters), x], attrs, name=name)


# ----------------------------------------------------------------------------------- convolutions


def zero_insert(t: Tensor, axis: int, stride: int) -> Tensor:
    """[.., n, ..] -> [.., (n-1)*stride+1, ..] with stride-1 zeros between elements: the scatter that a
    strided window's gradient needs, as PACK + RESHAPE + SLICE."""
    if stride == 1:
        return t
    n = t.shape[axis]
    zeros = ops.zeros_like(t)
    packed = ops.pack([t] + [zeros] * (stride - 1), axis=axis + 1)
    merged = list(t.shape)
    merged[axis] = n * stride
    spread = ops.reshape(packed, grad._dims(tuple(merged)))
    size = [-1] * t.rank
    size[axis] = (n - 1) * stride + 1
    return ops.slice_(spread, [0] * t.rank, size)


def _flip_hw(f: Tensor) -> Tensor:
    """Reverse a [o, kh, kw, i] filter in both spatial dimensions (STRIDED_SLICE with stride -1)."""
    _, kh, kw, _ = f.shape
    if kh == 1 and kw == 1:
        return f
    return ops.strided_slice(f, [0, kh - 1, kw - 1, 0], [0, 0, 0, 0], [1, -1, -1, 1], begin_mask=0b1001,
                         end_mask=0b1111)


def _spread_to_input(dy: Tensor, attrs: dict, x_shape: tuple, kh: int, kw: int) -> Tensor:
    """Zero-insert dy by the strides and pad it so that a stride-1 VALID window pass of size kh x kw
    (dilated as the forward op) lands on the input's positions: the transposed convolution's input."""
    (oh, pt, _), (ow, pl, _) = ops.conv_windows(attrs, x_shape[1], x_shape[2], kh, kw)
    dh, dw = attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)
    sh, sw = attrs["stride_h"], attrs["stride_w"]
    t = zero_insert(zero_insert(dy, 1, sh), 2, sw)
    top, left = (kh - 1) * dh - pt, (kw - 1) * dw - pl
    bottom = x_shape[1] - 1 + pt - (oh - 1) * sh
    right = x_shape[2] - 1 + pl - (ow - 1) * sw
    return ops.pad(t, [(0, 0), (top, bottom), (left, right), (0, 0)])


def _conv_filter_grad(x: Tensor, dy: Tensor, attrs: dict, kh: int, kw: int) -> Tensor:
    """d filter [out, kh, kw, in] of ops.conv2d(x, filter) given dy: a convolution over the batch, channels moved
    to the batch position; the forward dilation becomes the stride and the forward stride the dilation."""
    (_, pt, pb), (_, pl, pr) = ops.conv_windows(attrs, x.shape[1], x.shape[2], kh, kw)
    dilation = (attrs.get("dilation_h", 1), attrs.get("dilation_w", 1))
    xt = ops.transpose(ops.pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)]), [3, 1, 2, 0])
    dyt = ops.transpose(dy, [3, 1, 2, 0])
    df = ops.conv2d(xt, dyt, strides=dilation, dilations=(attrs["stride_h"], attrs["stride_w"]), padding="VALID")
    if df.shape[1:3] != (kh, kw):
        df = ops.slice_(df, [0, 0, 0, 0], [-1, kh, kw, -1])
    return ops.transpose(df, [3, 1, 2, 0])


def _grad_conv2d(node, dys):
    x, f = node.inputs[:2]
    dy, a = dys[0], node.attrs
    _, kh, kw, _ = f.shape
    dilation = (a["dilation_h"], a["dilation_w"])
    if dilation == (1, 1):  # input gradient: the transposed convolution, one TRANSPOSE_CONV
        dx = ops.transpose_conv2d(dy, ops.transpose(f, [3, 1, 2, 0]), x, strides=(a["stride_h"], a["stride_w"]),
                                  padding=a["padding"])
    else:  # TRANSPOSE_CONV has no dilation: a convolution of the spread dy with the flipped filter
        spread = _spread_to_input(dy, a, x.shape, kh, kw)
        dx = ops.conv2d(spread, ops.transpose(_flip_hw(f), [3, 1, 2, 0]), padding="VALID", dilations=dilation)
    grads = [dx, _conv_filter_grad(x, dy, a, kh, kw)]
    if len(node.inputs) == 3:
        grads.append(ops.reduce_sum(dy, [0, 1, 2]))
    return grads


def _grad_transpose_conv(node, dys):
    # y = C^T x for the convolution C(z) = ops.conv2d(z, F), F = f transposed to [in, kh, kw, out]:
    # dx = C(dy), and dF is C's filter gradient with dy as its input and x as its output gradient
    _, f, x = node.inputs
    dy, a = dys[0], node.attrs
    _, kh, kw, _ = f.shape
    attrs = {**a, "dilation_h": 1, "dilation_w": 1}
    dx = ops.conv2d(dy, ops.transpose(f, [3, 1, 2, 0]), strides=(a["stride_h"], a["stride_w"]), padding=a["padding"])
    df = ops.transpose(_conv_filter_grad(dy, x, attrs, kh, kw), [3, 1, 2, 0])
    return [None, df, dx]


def _depthwise_input_grad(dy: Tensor, f: Tensor, attrs: dict, x_shape: tuple, multiplier: int) -> Tensor:
    _, kh, kw, _ = f.shape
    spread = _spread_to_input(dy, attrs, x_shape, kh, kw)
    per_output = ops.depthwise_conv2d(spread, _flip_hw(f), padding="VALID",
                                  dilations=(attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)))
    if multiplier == 1:
        return per_output
    channels = x_shape[3]
    split = ops.reshape(per_output, [-1, x_shape[1], x_shape[2], channels, multiplier])
    return ops.reduce_sum(split, 4)


def _window_slices(xp: Tensor, attrs: dict, kh: int, kw: int, oh: int, ow: int):
    """(i, j, xp[:, i*dh :: sh, j*dw :: sw, :] cut to [N, oh, ow, C]) for each tap, as STRIDED_SLICEs."""
    sh, sw = attrs["stride_h"], attrs["stride_w"]
    dh, dw = attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)
    for i in range(kh):
        for j in range(kw):
            begin = [0, i * dh, j * dw, 0]
            end = [0, i * dh + (oh - 1) * sh + 1, j * dw + (ow - 1) * sw + 1, 0]
            yield i, j, ops.strided_slice(xp, begin, end, [1, sh, sw, 1], begin_mask=0b1001, end_mask=0b1001)


def _grad_depthwise_conv2d(node, dys):
    x, f = node.inputs[:2]
    dy, a = dys[0], node.attrs
    m = a["depth_multiplier"]
    _, kh, kw, cm = f.shape
    (oh, pt, pb), (ow, pl, pr) = ops.conv_windows(a, x.shape[1], x.shape[2], kh, kw)
    dx = _depthwise_input_grad(dy, f, a, x.shape, m)
    # filter gradient: per tap, the product of dy with the input window, summed over batch and space
    xp = ops.pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    dy_split = ops.reshape(dy, [-1, oh, ow, x.shape[3], m]) if m > 1 else dy
    taps = []
    for _, _, window in _window_slices(xp, a, kh, kw, oh, ow):
        if m > 1:
            taps.append(ops.reshape(ops.reduce_sum(ops.mul(dy_split, ops.expand_dims(window, 4)), [0, 1, 2]), [cm]))
        else:
            taps.append(ops.reduce_sum(ops.mul(dy, window), [0, 1, 2]))
    df = ops.reshape(ops.pack(taps, axis=0), [1, kh, kw, cm])
    grads = [dx, df]
    if len(node.inputs) == 3:
        grads.append(ops.reduce_sum(dy, [0, 1, 2]))
    return grads


GRADIENTS = {
    "CONV_2D": _grad_conv2d,
    "TRANSPOSE_CONV": _grad_transpose_conv,
    "DEPTHWISE_CONV_2D": _grad_depthwise_conv2d,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
