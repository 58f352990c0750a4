"""Reverse-mode autodiff: the gradient rules (a table keyed by op) and `gradients`, which adds the backward
graph as new nodes. Rules build from the runtime's builtins, so the backward graph lowers like the forward."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import ops
from .core import Node, Tensor, Variable
from .ops import (
    add,
    cast,
    constant,
    conv2d,
    conv_windows,
    depthwise_conv2d,
    expand_dims,
    greater,
    mul,
    neg,
    pack,
    pad,
    reduce_sum,
    reshape,
    slice_,
    strided_slice,
    transpose,
)

GradRule = Callable[[Node, list], list]

NO_GRADIENT = {"SHAPE", "GREATER", "RANDOM_UNIFORM", "CONST", "PLACEHOLDER", "VAR_HANDLE", "READ_VARIABLE",
               "ASSIGN_VARIABLE", "NO_OP"}
"""Ops through which no gradient flows (integer or boolean results, state, structure)."""


def _dims(shape: tuple) -> list[int]:
    """A shape for RESHAPE: the dynamic dimension becomes -1."""
    return [-1 if d is None else d for d in shape]


def _const_like(value, t: Tensor) -> Tensor:
    return constant(np.asarray(value, dtype=t.dtype), graph=t.graph)


def _float_mask(condition: Tensor, like: Tensor) -> Tensor:
    return cast(condition, like.dtype)


def unbroadcast(g: Tensor, x: Tensor) -> Tensor:
    """Sum g over the axes along which x was broadcast, giving x's shape."""
    lead = g.rank - x.rank
    axes = list(range(lead)) + [lead + i for i, d in enumerate(x.shape) if d == 1 and g.shape[lead + i] != 1]
    if axes:
        g = reduce_sum(g, axes)
    if g.shape != x.shape:
        g = reshape(g, _dims(x.shape))
    return g


# ------------------------------------------------------------------------------------- elementwise


def _grad_add(node, dys):
    a, b = node.inputs
    return [unbroadcast(dys[0], a), unbroadcast(dys[0], b)]


def _grad_sub(node, dys):
    a, b = node.inputs
    return [unbroadcast(dys[0], a), unbroadcast(neg(dys[0]), b)]


def _grad_mul(node, dys):
    a, b = node.inputs
    return [unbroadcast(mul(dys[0], b), a), unbroadcast(mul(dys[0], a), b)]


def _grad_div(node, dys):
    a, b = node.inputs
    y = node.outputs[0]
    return [unbroadcast(ops.div(dys[0], b), a), unbroadcast(neg(ops.div(mul(dys[0], y), b)), b)]


def _grad_squared_difference(node, dys):
    a, b = node.inputs
    da = mul(mul(dys[0], 2.0), ops.sub(a, b))
    return [unbroadcast(da, a), unbroadcast(neg(da), b)]


def _grad_rsqrt(node, dys):
    y = node.outputs[0]
    return [mul(mul(dys[0], -0.5), mul(mul(y, y), y))]


def _grad_sqrt(node, dys):
    return [ops.div(mul(dys[0], 0.5), node.outputs[0])]


def _grad_exp(node, dys):
    return [mul(dys[0], node.outputs[0])]


def _grad_log(node, dys):
    return [ops.div(dys[0], node.inputs[0])]


def _grad_neg(node, dys):
    return [neg(dys[0])]


def _grad_relu(node, dys):
    x = node.inputs[0]
    return [mul(dys[0], _float_mask(greater(x, 0.0), x))]


def _grad_relu6(node, dys):
    x = node.inputs[0]
    inside = mul(_float_mask(greater(x, 0.0), x), _float_mask(greater(6.0, x), x))
    return [mul(dys[0], inside)]


def _grad_leaky_relu(node, dys):
    x, alpha = node.inputs[0], node.attrs["alpha"]
    slope = add(mul(_float_mask(greater(x, 0.0), x), 1.0 - alpha), alpha)
    return [mul(dys[0], slope)]


def _grad_logistic(node, dys):
    y = node.outputs[0]
    return [mul(dys[0], mul(y, ops.sub(1.0, y)))]


def _grad_tanh(node, dys):
    y = node.outputs[0]
    return [mul(dys[0], ops.sub(1.0, mul(y, y)))]


def _grad_hard_swish(node, dys):
    # y = x * relu6(x + 3) / 6  =>  y' = relu6(x + 3) / 6 + x / 6 on (-3, 3)
    x = node.inputs[0]
    inside = mul(_float_mask(greater(x, -3.0), x), _float_mask(greater(3.0, x), x))
    slope = add(mul(ops.relu6(add(x, 3.0)), 1.0 / 6.0), mul(mul(x, 1.0 / 6.0), inside))
    return [mul(dys[0], slope)]


def _grad_softmax(node, dys):
    y, dy = node.outputs[0], dys[0]
    centered = ops.sub(dy, reduce_sum(mul(dy, y), -1, keepdims=True))
    return [mul(mul(y, centered), node.attrs["beta"])]


def _grad_log_softmax(node, dys):
    y, dy = node.outputs[0], dys[0]
    return [ops.sub(dy, mul(ops.exp(y), reduce_sum(dy, -1, keepdims=True)))]


def _grad_cast(node, dys):
    x = node.inputs[0]
    if not np.issubdtype(np.dtype(x.dtype), np.floating) or not np.issubdtype(np.dtype(node.attrs["to"]),
                                                                               np.floating):
        return [None]
    return [cast(dys[0], x.dtype)]


# ------------------------------------------------------------------------------------- reductions


def _broadcast_back(g: Tensor, x: Tensor, axes: tuple) -> Tensor:
    """g with keepdims shape, broadcast to x's shape along `axes`."""
    reps = [x.shape[a] if a in axes else 1 for a in range(x.rank)]
    if None in reps:
        return add(g, ops.zeros_like(x))
    if all(r == 1 for r in reps):
        return g
    return mul(g, constant(np.ones(reps, dtype=x.dtype), graph=x.graph))


def _count(x: Tensor, axes: tuple) -> Tensor:
    """The number of elements reduced over, as a float tensor (from SHAPE where it is dynamic)."""
    dims = [x.shape[a] for a in axes]
    if None not in dims:
        return _const_like(float(np.prod(dims)), x)
    size = ops.gather(ops.shape(x), np.array(axes, dtype=np.int32))
    return reduce_sum(cast(size, x.dtype), 0) if len(axes) == 1 else _product(cast(size, x.dtype), len(axes))


def _product(v: Tensor, n: int) -> Tensor:
    out = ops.gather(v, np.array(0, dtype=np.int32))
    for i in range(1, n):
        out = mul(out, ops.gather(v, np.array(i, dtype=np.int32)))
    return out


def _keepdims(g: Tensor, x: Tensor, node: Node) -> Tensor:
    if node.attrs["keepdims"]:
        return g
    keep = [1 if a in node.attrs["axes"] else d for a, d in enumerate(x.shape)]
    return reshape(g, _dims(tuple(keep)))


def _grad_sum(node, dys):
    x = node.inputs[0]
    return [_broadcast_back(_keepdims(dys[0], x, node), x, tuple(node.attrs["axes"]))]


def _grad_mean(node, dys):
    x = node.inputs[0]
    axes = tuple(node.attrs["axes"])
    g = ops.div(_keepdims(dys[0], x, node), _count(x, axes))
    return [_broadcast_back(g, x, axes)]


# ---------------------------------------------------------------------------------------- matmuls


def _grad_fully_connected(node, dys):
    x, w = node.inputs[:2]
    dy = dys[0]
    dx = ops.fully_connected(dy, transpose(w, [1, 0]))                  # dy @ w
    dw = ops.fully_connected(transpose(dy, [1, 0]), transpose(x, [1, 0]))  # dy^T @ x
    grads = [dx, dw]
    if len(node.inputs) == 3:
        grads.append(reduce_sum(dy, 0))
    return grads


def _grad_batch_matmul(node, dys):
    x, y = node.inputs
    dy = dys[0]
    bmm = ops.batch_matmul
    adj_x, adj_y = node.attrs["adj_x"], node.attrs["adj_y"]
    if not adj_x and not adj_y:
        dx, dyy = bmm(dy, y, adj_y=True), bmm(x, dy, adj_x=True)
    elif not adj_x and adj_y:
        dx, dyy = bmm(dy, y), bmm(dy, x, adj_x=True)
    elif adj_x and not adj_y:
        dx, dyy = bmm(y, dy, adj_y=True), bmm(x, dy)
    else:
        dx, dyy = bmm(y, dy, adj_x=True, adj_y=True), bmm(dy, x, adj_x=True, adj_y=True)
    return [unbroadcast(dx, x), unbroadcast(dyy, y)]


# ----------------------------------------------------------------------------------- convolutions


def zero_insert(t: Tensor, axis: int, stride: int) -> Tensor:
    """[.., n, ..] -> [.., (n-1)*stride+1, ..] with stride-1 zeros between elements: the scatter that a
    strided window's gradient needs, as PACK + RESHAPE + SLICE."""
    if stride == 1:
        return t
    n = t.shape[axis]
    zeros = ops.zeros_like(t)
    packed = pack([t] + [zeros] * (stride - 1), axis=axis + 1)
    merged = list(t.shape)
    merged[axis] = n * stride
    spread = reshape(packed, _dims(tuple(merged)))
    size = [-1] * t.rank
    size[axis] = (n - 1) * stride + 1
    return slice_(spread, [0] * t.rank, size)


def _flip_hw(f: Tensor) -> Tensor:
    """Reverse a [o, kh, kw, i] filter in both spatial dimensions (STRIDED_SLICE with stride -1)."""
    _, kh, kw, _ = f.shape
    if kh == 1 and kw == 1:
        return f
    return strided_slice(f, [0, kh - 1, kw - 1, 0], [0, 0, 0, 0], [1, -1, -1, 1], begin_mask=0b1001,
                         end_mask=0b1111)


def _spread_to_input(dy: Tensor, attrs: dict, x_shape: tuple, kh: int, kw: int) -> Tensor:
    """Zero-insert dy by the strides and pad it so that a stride-1 VALID window pass of size kh x kw
    (dilated as the forward op) lands on the input's positions: the transposed convolution's input."""
    (oh, pt, _), (ow, pl, _) = conv_windows(attrs, x_shape[1], x_shape[2], kh, kw)
    dh, dw = attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)
    sh, sw = attrs["stride_h"], attrs["stride_w"]
    t = zero_insert(zero_insert(dy, 1, sh), 2, sw)
    top, left = (kh - 1) * dh - pt, (kw - 1) * dw - pl
    bottom = x_shape[1] - 1 + pt - (oh - 1) * sh
    right = x_shape[2] - 1 + pl - (ow - 1) * sw
    return pad(t, [(0, 0), (top, bottom), (left, right), (0, 0)])


def _conv_filter_grad(x: Tensor, dy: Tensor, attrs: dict, kh: int, kw: int) -> Tensor:
    """d filter [out, kh, kw, in] of conv2d(x, filter) given dy: a convolution over the batch, channels moved
    to the batch position; the forward dilation becomes the stride and the forward stride the dilation."""
    (_, pt, pb), (_, pl, pr) = conv_windows(attrs, x.shape[1], x.shape[2], kh, kw)
    dilation = (attrs.get("dilation_h", 1), attrs.get("dilation_w", 1))
    xt = transpose(pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)]), [3, 1, 2, 0])
    dyt = transpose(dy, [3, 1, 2, 0])
    df = conv2d(xt, dyt, strides=dilation, dilations=(attrs["stride_h"], attrs["stride_w"]), padding="VALID")
    if df.shape[1:3] != (kh, kw):
        df = slice_(df, [0, 0, 0, 0], [-1, kh, kw, -1])
    return transpose(df, [3, 1, 2, 0])


def _grad_conv2d(node, dys):
    x, f = node.inputs[:2]
    dy, a = dys[0], node.attrs
    _, kh, kw, _ = f.shape
    dilation = (a["dilation_h"], a["dilation_w"])
    if dilation == (1, 1):  # input gradient: the transposed convolution, one TRANSPOSE_CONV
        dx = ops.transpose_conv2d(dy, transpose(f, [3, 1, 2, 0]), x, strides=(a["stride_h"], a["stride_w"]),
                                  padding=a["padding"])
    else:  # TRANSPOSE_CONV has no dilation: a convolution of the spread dy with the flipped filter
        spread = _spread_to_input(dy, a, x.shape, kh, kw)
        dx = conv2d(spread, transpose(_flip_hw(f), [3, 1, 2, 0]), padding="VALID", dilations=dilation)
    grads = [dx, _conv_filter_grad(x, dy, a, kh, kw)]
    if len(node.inputs) == 3:
        grads.append(reduce_sum(dy, [0, 1, 2]))
    return grads


def _grad_transpose_conv(node, dys):
    # y = C^T x for the convolution C(z) = conv2d(z, F), F = f transposed to [in, kh, kw, out]:
    # dx = C(dy), and dF is C's filter gradient with dy as its input and x as its output gradient
    _, f, x = node.inputs
    dy, a = dys[0], node.attrs
    _, kh, kw, _ = f.shape
    attrs = {**a, "dilation_h": 1, "dilation_w": 1}
    dx = conv2d(dy, transpose(f, [3, 1, 2, 0]), strides=(a["stride_h"], a["stride_w"]), padding=a["padding"])
    df = transpose(_conv_filter_grad(dy, x, attrs, kh, kw), [3, 1, 2, 0])
    return [None, df, dx]


def _depthwise_input_grad(dy: Tensor, f: Tensor, attrs: dict, x_shape: tuple, multiplier: int) -> Tensor:
    _, kh, kw, _ = f.shape
    spread = _spread_to_input(dy, attrs, x_shape, kh, kw)
    per_output = depthwise_conv2d(spread, _flip_hw(f), padding="VALID",
                                  dilations=(attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)))
    if multiplier == 1:
        return per_output
    channels = x_shape[3]
    split = reshape(per_output, [-1, x_shape[1], x_shape[2], channels, multiplier])
    return reduce_sum(split, 4)


def _window_slices(xp: Tensor, attrs: dict, kh: int, kw: int, oh: int, ow: int):
    """(i, j, xp[:, i*dh :: sh, j*dw :: sw, :] cut to [N, oh, ow, C]) for each tap, as STRIDED_SLICEs."""
    sh, sw = attrs["stride_h"], attrs["stride_w"]
    dh, dw = attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)
    for i in range(kh):
        for j in range(kw):
            begin = [0, i * dh, j * dw, 0]
            end = [0, i * dh + (oh - 1) * sh + 1, j * dw + (ow - 1) * sw + 1, 0]
            yield i, j, strided_slice(xp, begin, end, [1, sh, sw, 1], begin_mask=0b1001, end_mask=0b1001)


def _grad_depthwise_conv2d(node, dys):
    x, f = node.inputs[:2]
    dy, a = dys[0], node.attrs
    m = a["depth_multiplier"]
    _, kh, kw, cm = f.shape
    (oh, pt, pb), (ow, pl, pr) = conv_windows(a, x.shape[1], x.shape[2], kh, kw)
    dx = _depthwise_input_grad(dy, f, a, x.shape, m)
    # filter gradient: per tap, the product of dy with the input window, summed over batch and space
    xp = pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    dy_split = reshape(dy, [-1, oh, ow, x.shape[3], m]) if m > 1 else dy
    taps = []
    for _, _, window in _window_slices(xp, a, kh, kw, oh, ow):
        if m > 1:
            taps.append(reshape(reduce_sum(mul(dy_split, expand_dims(window, 4)), [0, 1, 2]), [cm]))
        else:
            taps.append(reduce_sum(mul(dy, window), [0, 1, 2]))
    df = reshape(pack(taps, axis=0), [1, kh, kw, cm])
    grads = [dx, df]
    if len(node.inputs) == 3:
        grads.append(reduce_sum(dy, [0, 1, 2]))
    return grads


# ---------------------------------------------------------------------------------------- pooling


def _grad_average_pool(node, dys):
    x, a = node.inputs[0], node.attrs
    kh, kw = a["filter_h"], a["filter_w"]
    counts = ops.pool_counts(a, x.shape[1], x.shape[2])
    scaled = mul(dys[0], constant((1.0 / counts).astype(x.dtype), graph=x.graph))
    ones = constant(np.ones((1, kh, kw, x.shape[3]), dtype=x.dtype), graph=x.graph)
    return [_depthwise_input_grad(scaled, ones, a, x.shape, 1)]


def _first_max_hits(y: Tensor, windows) -> list:
    """Per tap, where its window holds the first maximum: a tap holds the maximum where not (y > x_tap);
    `unclaimed` keeps later ties from taking it again."""
    hits, unclaimed = [], None
    for window in windows:
        is_max = ops.sub(1.0, _float_mask(greater(y, window), y))
        if unclaimed is None:
            hit, unclaimed = is_max, ops.sub(1.0, is_max)
        else:
            hit = mul(is_max, unclaimed)
            unclaimed = ops.sub(unclaimed, hit)
        hits.append(hit)
    return hits


def _grad_max_pool(node, dys):
    # dy goes to the first maximum of each window (TensorFlow's and XLA's choice), found tap by tap.
    x, y, a = node.inputs[0], node.outputs[0], node.attrs
    dy = dys[0]
    kh, kw = a["filter_h"], a["filter_w"]
    sh, sw = a["stride_h"], a["stride_w"]
    (oh, pt, pb), (ow, pl, pr) = conv_windows(a, x.shape[1], x.shape[2], kh, kw)
    if kh == kw == sh == sw and (oh * kh, ow * kw) == x.shape[1:3]:
        # windows that tile the input: the taps' pieces side by side in channels are DEPTH_TO_SPACE's input
        windows = [w for _, _, w in _window_slices(x, a, kh, kw, oh, ow)]
        pieces = [mul(hit, dy) for hit in _first_max_hits(y, windows)]
        return [ops.depth_to_space(ops.concat(pieces, axis=3), kh)]
    hp, wp = x.shape[1] + pt + pb, x.shape[2] + pl + pr
    xp = x
    if pt or pb or pl or pr:
        border = np.full((1, hp, wp, 1), -np.inf, dtype=x.dtype)
        border[:, pt:pt + x.shape[1], pl:pl + x.shape[2], :] = 0
        xp = add(pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)]), constant(border, graph=x.graph))
    taps = list(_window_slices(xp, a, kh, kw, oh, ow))
    pieces = {(i, j): mul(hit, dy) for (i, j, _), hit in zip(taps, _first_max_hits(y, [w for _, _, w in taps]))}
    total = _scatter_taps(pieces, (sh, sw), (oh, ow), (hp, wp))
    if total.shape[1:3] != x.shape[1:3]:
        total = slice_(total, [0, pt, pl, 0], [-1, x.shape[1], x.shape[2], -1])
    return [total]


def _scatter_taps(pieces: dict, strides: tuple, out_hw: tuple, padded_hw: tuple) -> Tensor:
    """The sum over taps (i, j) of pieces[i, j] ([N, oh, ow, C]) placed at rows i + sh*y, columns j + sw*x of
    a [N, >= hp, >= wp, C] grid (overlapping windows' gradient), without zero insertion: a tap lands on
    the phase (i % sh, j % sw) of the grid, shifted by (i // sh, j // sw) whole strides, so each phase is a
    sum of PADs at the windows' own (coarse) size, and the phases interleave once (PACK + RESHAPE)."""
    (sh, sw), (oh, ow), (hp, wp) = strides, out_hw, padded_hw
    kh, kw = max(i for i, _ in pieces) + 1, max(j for _, j in pieces) + 1
    hc = max(-(-hp // sh), oh + (kh - 1) // sh)  # the coarse grid: every phase's rows, and at least hp in all
    wc = max(-(-wp // sw), ow + (kw - 1) // sw)
    first = next(iter(pieces.values()))
    rows = []
    for ri in range(sh):
        phases = []
        for rj in range(sw):
            total = None
            for (i, j), piece in pieces.items():
                if i % sh == ri and j % sw == rj:
                    qi, qj = i // sh, j // sw
                    placed = pad(piece, [(0, 0), (qi, hc - oh - qi), (qj, wc - ow - qj), (0, 0)])
                    total = placed if total is None else add(total, placed)
            if total is None:  # windows smaller than the stride leave this phase untouched
                total = ops.zeros_like(pad(first, [(0, 0), (0, hc - oh), (0, wc - ow), (0, 0)]))
            phases.append(total)
        rows.append(_interleave(phases, axis=2))
    return _interleave(rows, axis=1)


def _interleave(parts: list, axis: int) -> Tensor:
    """[.., n, ..] tensors -> [.., n * len(parts), ..], element k of part r at k * len(parts) + r."""
    if len(parts) == 1:
        return parts[0]
    shape = list(parts[0].shape)
    shape[axis] *= len(parts)
    return reshape(pack(parts, axis=axis + 1), _dims(tuple(shape)))


# ----------------------------------------------------------------------------------------- shapes


def _grad_depth_to_space(node, dys):
    return [ops.space_to_depth(dys[0], node.attrs["block_size"])]


def _grad_space_to_depth(node, dys):
    return [ops.depth_to_space(dys[0], node.attrs["block_size"])]


def _grad_reshape(node, dys):
    return [reshape(dys[0], _dims(node.inputs[0].shape))] + [None] * (len(node.inputs) - 1)


def _grad_identity(node, dys):
    return [dys[0]]


def _grad_transpose(node, dys):
    inverse = np.argsort(node.attrs["perm"])
    return [transpose(dys[0], inverse)]


def _grad_concat(node, dys):
    axis = node.attrs["axis"]
    grads, offset = [], 0
    for x in node.inputs:
        n = x.shape[axis]
        if n is None:
            raise ValueError(f'gradient of CONCATENATION "{node.name}": dynamic size along the axis')
        begin = [0] * x.rank
        size = [-1] * x.rank
        begin[axis], size[axis] = offset, n
        grads.append(slice_(dys[0], begin, size))
        offset += n
    return grads


def _grad_pad(node, dys):
    x = node.inputs[0]
    begin = [b for b, _ in node.attrs["paddings"]]
    return [slice_(dys[0], begin, [-1 if d is None else d for d in x.shape])]


def _grad_slice(node, dys):
    x = node.inputs[0]
    y = node.outputs[0]
    pads = []
    for d, b, s in zip(x.shape, node.attrs["begin"], y.shape):
        if d is None:
            if b != 0 or s is not None:
                raise ValueError(f'gradient of SLICE "{node.name}": slicing a dynamic dimension')
            pads.append((0, 0))
        else:
            pads.append((b, d - b - s))
    return [pad(dys[0], pads)]


def _grad_strided_slice(node, dys):
    x, a = node.inputs[0], node.attrs
    g = dys[0]
    index = ops.strided_slice_index(a, x.rank)
    for axis, idx in enumerate(index):
        if isinstance(idx, int):
            g = expand_dims(g, axis)
    pads = []
    for axis, (d, idx) in enumerate(zip(x.shape, index)):
        if d is None:
            if idx != slice(None, None, 1):
                raise ValueError(f'gradient of STRIDED_SLICE "{node.name}": slicing a dynamic dimension')
            pads.append((0, 0))
            continue
        if isinstance(idx, int):
            start, step, count = idx % d, 1, 1
        else:
            start, stop, step = idx.indices(d)
            count = len(range(start, stop, step))
            if step < 0:
                raise ValueError(f'gradient of STRIDED_SLICE "{node.name}": negative strides')
        if count == 0:
            return [ops.zeros_like(x)]
        g = zero_insert(g, axis, step)
        span = (count - 1) * step + 1
        pads.append((start, d - start - span))
    return [pad(g, pads)]


def _grad_pack(node, dys):
    axis = node.attrs["axis"]
    out = node.outputs[0]
    grads = []
    for k in range(len(node.inputs)):
        begin = [0] * out.rank
        end = [0] * out.rank
        begin[axis], end[axis] = k, k + 1
        mask = ((1 << out.rank) - 1) & ~(1 << axis)
        grads.append(strided_slice(dys[0], begin, end, begin_mask=mask, end_mask=mask,
                                   shrink_axis_mask=1 << axis))
    return grads


def _grad_gather(node, dys):
    # d params = one_hot(indices)^T @ dy: a scatter-add as a matmul of builtins
    params, indices = node.inputs
    if node.attrs["axis"] != 0 or None in params.shape:
        raise ValueError(f'gradient of GATHER "{node.name}": only axis 0 of a static tensor')
    n = params.shape[0]
    rest = int(np.prod(params.shape[1:]))
    flat_indices = reshape(indices, [-1])
    hot = ops.one_hot(flat_indices, n, dtype=params.dtype)               # [k, n]
    flat_dy = reshape(dys[0], [-1, rest])                                # [k, rest]
    dparams = ops.batch_matmul(hot, flat_dy, adj_x=True)                 # [n, rest]
    return [reshape(dparams, list(params.shape)), None]


def _grad_resize(node, dys):
    # both resizes are separable linear maps y = Mh x Mw^T per image and channel, so
    # dx = Mh^T dy Mw, two BATCH_MATMULs on [N, C, H, W]
    x = node.inputs[0]
    mh, mw = ops.resize_matrices(node.attrs, x.shape[1], x.shape[2], node.op == "RESIZE_NEAREST_NEIGHBOR")
    g = transpose(dys[0], [0, 3, 1, 2])
    g = ops.batch_matmul(g, constant(mw.astype(x.dtype), graph=x.graph))
    g = ops.batch_matmul(constant(mh.T.astype(x.dtype), graph=x.graph), g)
    return [transpose(g, [0, 2, 3, 1])]


GRADIENTS: dict[str, GradRule] = {
    "ADD": _grad_add, "SUB": _grad_sub, "MUL": _grad_mul, "DIV": _grad_div,
    "SQUARED_DIFFERENCE": _grad_squared_difference,
    "RSQRT": _grad_rsqrt, "SQRT": _grad_sqrt, "EXP": _grad_exp, "LOG": _grad_log, "NEG": _grad_neg,
    "RELU": _grad_relu, "RELU6": _grad_relu6, "LEAKY_RELU": _grad_leaky_relu, "LOGISTIC": _grad_logistic,
    "TANH": _grad_tanh, "HARD_SWISH": _grad_hard_swish, "SOFTMAX": _grad_softmax,
    "LOG_SOFTMAX": _grad_log_softmax, "CAST": _grad_cast,
    "SUM": _grad_sum, "MEAN": _grad_mean,
    "FULLY_CONNECTED": _grad_fully_connected, "BATCH_MATMUL": _grad_batch_matmul,
    "CONV_2D": _grad_conv2d, "TRANSPOSE_CONV": _grad_transpose_conv, "DEPTHWISE_CONV_2D": _grad_depthwise_conv2d,
    "AVERAGE_POOL_2D": _grad_average_pool, "MAX_POOL_2D": _grad_max_pool,
    "IDENTITY": _grad_identity, "RESHAPE": _grad_reshape, "SQUEEZE": _grad_reshape, "EXPAND_DIMS": _grad_reshape,
    "TRANSPOSE": _grad_transpose, "DEPTH_TO_SPACE": _grad_depth_to_space, "SPACE_TO_DEPTH": _grad_space_to_depth,
    "CONCATENATION": _grad_concat, "PAD": _grad_pad, "SLICE": _grad_slice,
    "STRIDED_SLICE": _grad_strided_slice, "PACK": _grad_pack, "GATHER": _grad_gather,
    "RESIZE_BILINEAR": _grad_resize, "RESIZE_NEAREST_NEIGHBOR": _grad_resize,
}
"""The gradient rules, by op name: `rule(node, output_grads) -> input_grads` (None for an input with no
gradient). `gradients` looks an op up here; an op in neither this table nor NO_GRADIENT cannot be
differentiated (NotImplementedError naming it)."""


def _is_float(t: Tensor) -> bool:
    return t.dtype != "resource" and np.issubdtype(np.dtype(t.dtype), np.floating)


def gradients(ys, xs: Sequence, grad_ys=None, name: str = "gradients") -> list[Tensor | None]:
    """d(sum of ys)/d(each of xs), as new nodes of the graph; None where an x does not affect ys.

    xs may be Variables (the gradient is with respect to their value) or Tensors. grad_ys, if given,
    are the seeds for ys (default: ones).
    """
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    ys = [ops.as_tensor(y) for y in ys]
    targets = [x.value if isinstance(x, Variable) else ops.as_tensor(x) for x in xs]
    graph = ys[0].graph
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]

    # nodes on a path from some x to some y
    downstream: set[Node] = set()
    target_set = set(targets)
    for node in graph.nodes:
        if any(t in target_set or t.node in downstream for t in node.inputs):
            downstream.add(node)
    upstream = graph._ancestors([y.node for y in ys])
    on_path = downstream & upstream

    pending: dict[Tensor, list[Tensor]] = {}
    with graph.name_scope(graph.unique_name(name)):
        for y, seed in zip(ys, grad_ys):
            if seed is None:
                if None in y.shape:
                    seed = add(ops.zeros_like(y), 1.0)
                else:
                    seed = constant(np.ones(y.shape, dtype=y.dtype), graph=graph)
            pending.setdefault(y, []).append(ops.as_tensor(seed, dtype=y.dtype, graph=graph))
        summed: dict[Tensor, Tensor] = {}

        def total(t: Tensor) -> Tensor | None:
            if t not in summed and t in pending:
                parts = pending.pop(t)
                acc = parts[0]
                for p in parts[1:]:
                    acc = add(acc, p)
                summed[t] = acc
            return summed.get(t)

        for node in reversed(graph.nodes):
            if node not in on_path or node.op in NO_GRADIENT:
                continue
            dys = [total(t) if _is_float(t) else None for t in node.outputs]
            if all(d is None for d in dys):
                continue
            rule = GRADIENTS.get(node.op)
            if rule is None:
                raise NotImplementedError(f'no gradient rule for {node.op} (node "{node.name}")')
            for i, d in enumerate(dys):
                if d is None and _is_float(node.outputs[i]):
                    dys[i] = ops.zeros_like(node.outputs[i])
            with graph.name_scope(node.name.split("/")[-1] + "_grad"):
                grads = rule(node, dys)
            for x, g in zip(node.inputs, grads):
                if g is None or not _is_float(x):
                    continue
                if g.shape != x.shape and None not in x.shape:
                    raise RuntimeError(f'gradient rule for {node.op} "{node.name}" gave shape {g.shape} '
                                       f"for input of shape {x.shape}")
                pending.setdefault(x, []).append(g)
        return [total(t) for t in targets]
