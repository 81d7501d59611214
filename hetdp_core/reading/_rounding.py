"""Numbers shown rounded on the safe side: an upper bound or a probability of failure is rounded *up*, so a
sentence never overstates protection (the posterior sentences of :mod:`hetdp_core.reading.meaning`, the attack
sentences of :mod:`hetdp_core.reading.risk`)."""

from __future__ import annotations

import numpy as np


def round_up(x: float, digits: int = 3) -> float:
    """``x`` rounded *up* to ``digits`` significant digits: an upper bound shown rounded stays an
    upper bound (2.6724 % is shown as 2.68 %, never 2.67 %)."""
    x = float(x)
    if x <= 0 or not np.isfinite(x):
        return x
    e = int(np.floor(np.log10(x))) - digits + 1
    if not 0.0 < 10.0**e < np.inf:  # a subnormal x: its grid is below the smallest float; x itself is exact
        return x
    q = x / 10.0**e
    r = np.ceil(q - 1e-9 * q) * 10.0**e  # a value already on the grid stays
    return float(f"{r:.{digits}g}") if float(f"{r:.{digits}g}") >= x * (1 - 1e-12) else r


def percent(x: float, *, up: bool = False) -> str:
    """A probability as a per cent with 3 significant digits (4 near 100 %); ``up``: rounded up (:func:`round_up`)."""
    v = 100.0 * x
    if up:
        v = round_up(v, 3) if v < 99.95 else min(round_up(v, 4), 100.0)
    return f"{v:.3g} %" if v < 99.95 else ("100 %" if v >= 100.0 else f"{v:.4g} %")
