r"""Private selection (MAT 4376, Example 29, Lemma 28): the exponential mechanism and report-noisy-max, their
selection probabilities and samples, and Lemma 28's tail bound (the overview: :mod:`hetdp_core.noise.mechanisms`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..framework._doc import document
from ..framework._validate import as_generator, check_vector
from ..framework.constraints import NONNEGATIVE

if TYPE_CHECKING:
    import pandas as pd

from .calibration import _SIZE, _SIZE_3, _eps, _sens

__all__ = [
    "exponential_probabilities",
    "report_noisy_max_probabilities",
    "report_noisy_max_sample",
    "lemma28_bound",
    "exponential_sample",
]

#: this part of mechanisms's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "mechanisms"


# ------------------------------------------------------------------ exponential mechanism / RNM
def _scores(scores) -> np.ndarray:
    return check_vector(
        "scores", scores, min_length=1, max_length=10_000, what=" (one score per candidate; at least one candidate)"
    )


def exponential_probabilities(scores, *, eps: float, sensitivity: float = 1.0) -> np.ndarray:
    """P(Q = q) ∝ exp(ε f(q) / (2Δ)) (exact, overflow-free)."""
    s = _scores(scores)
    w = _eps(eps) * s / (2 * _sens(sensitivity))
    w = np.exp(w - w.max())
    return w / w.sum()


def report_noisy_max_probabilities(scores, *, eps: float, sensitivity: float = 1.0) -> np.ndarray:
    """Exact win probabilities of argmax_i (f_i + Z_i), Z_i ~ Exp(rate λ = ε/(2Δ)), by quadrature:
    P(i wins) = ∫ λe^{−λz} Π_{j≠i} F(s_i + z − s_j) dz with F(t) = (1 − e^{−λt})⁺."""
    from scipy import integrate  # here, not with the module: 0.1 s of every server's first view

    s = _scores(scores)
    lam = _eps(eps) / (2 * _sens(sensitivity))
    out = np.zeros(s.size)
    for i in range(s.size):
        others = np.delete(s, i)

        def integrand(z, i=i, others=others):
            t = s[i] + z - others
            return lam * math.exp(-lam * z) * float(np.prod(np.where(t > 0, -np.expm1(-lam * np.maximum(t, 0)), 0.0)))

        start = max(0.0, float((others - s[i]).max()) if others.size else 0.0)
        out[i], _ = integrate.quad(integrand, start, np.inf, limit=200)
    return out / out.sum()


def report_noisy_max_sample(scores, *, eps: float, sensitivity: float = 1.0, size: int = 1, rng=None) -> np.ndarray:
    """Winners of ``size`` runs of report-noisy-max with Exp(ε/(2Δ)) noise."""
    s = _scores(scores)
    lam = _eps(eps) / (2 * _sens(sensitivity))
    size = _SIZE_3.check("size", size)
    z = as_generator(rng).exponential(1.0 / lam, (size, s.size))
    return np.argmax(s + z, axis=1)


def lemma28_bound(scores, *, eps: float, t, sensitivity: float = 1.0) -> pd.DataFrame:
    """Lemma 28: P(f(Q) < f* − 2Δ(ln d + t)/ε) ≤ e^{−t}; exact left side for the exponential mechanism."""
    import pandas as pd

    s = _scores(scores)
    t = NONNEGATIVE.check_vector("t", np.atleast_1d(t), max_length=1000)
    p = exponential_probabilities(s, eps=eps, sensitivity=sensitivity)
    psi = 2 * _sens(sensitivity) * (math.log(s.size) + t) / _eps(eps)
    exact = np.array([p[s < s.max() - ps].sum() for ps in psi])
    return pd.DataFrame({"t": t, "threshold": s.max() - psi, "exact": exact, "bound": np.exp(-t)})


def exponential_sample(scores, *, eps: float, sensitivity: float = 1.0, size: int = 1, rng=None) -> np.ndarray:
    """Indices selected by ``size`` runs of the exponential mechanism."""
    p = exponential_probabilities(scores, eps=eps, sensitivity=sensitivity)
    size = _SIZE.check("size", size)
    return as_generator(rng).choice(p.size, size=size, p=p)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
