"""What the quantizer says of an op it keeps float for a reason outside rillet: LiteRT 2.3 has no int8
kernel for it (probed one op at a time; RFFT2D refuses an int8 input at prepare), or it is a CAST, which
converts raw integers."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.quant import QuantizationError, quantize
from rillet.quant.rewrite import no_int8_reason


def test_a_float_to_int_cast_is_kept_float_with_the_reason():
    content = op_model("CAST", [Input((1, 4))], [((1, 4), np.int32)])
    with pytest.raises(QuantizationError, match=r"CAST #0 \('out0'\): a CAST of int8 converts the raw integers, "
                                                r"not the values they stand for, so CAST stays float; keep it float "
                                                r"with keep_float=\['CAST'\]"):
        quantize(content, np.ones((4, 1, 4), np.float32), progress=False)


@pytest.mark.parametrize("name", ["RFFT2D", "POW", "SIN"])
def test_ops_litert_runs_on_float32_only_say_so(name):
    assert no_int8_reason(name) == f"LiteRT has no int8 kernel for {name} (LiteRT 2.3 runs {name} on float32 only)"
