r"""The LDP channel of Duchi, Jordan & Wainwright (Mechanism 3 of the BCDP paper), vectorised.

Input ``v ∈ R^m`` with ``‖v‖₂ ≤ r``, privacy level α > 0:

* ``K ~ Bern(e^α/(e^α+1))``, ``S ~ Bern(1/2 + ‖v‖/(2r))`` (independent),
* ``ṽ = (2S − 1) r v/‖v‖`` (a uniformly random direction when v = 0),
* ``Z`` uniform on the sphere of radius B in the half-space ``(2K − 1) zᵀṽ > 0``.

**The constant B.** The paper prints (and the authors' code uses)
``B = √π m r (e^α+1)/(e^α−1) Γ((m+1)/2)/Γ(m/2+1)``, which equals twice the value that makes
``E[Z] = v``. Since ``E[zᵀu | zᵀu > 0] = Γ(m/2)/(√π Γ((m+1)/2))`` for z uniform on the unit
sphere, unbiasedness needs

.. math:: B = r\,\frac{e^\alpha+1}{e^\alpha-1}\,\sqrt\pi\,\frac{\Gamma(\frac{m+1}{2})}{\Gamma(\frac m2)}.

``scale="unbiased"`` (default) uses this value; ``scale="paper"`` uses the printed one, only to
reproduce the published figures. With either, ``‖Z‖ = B`` and
``E[Z Zᵀ] = (B²/m) I``; with ``"paper"``, ``E[Z] = 2v``.

**Sampling.** A Gaussian vector g gives a uniform direction g/‖g‖; reflecting it across the
hyperplane orthogonal to ``u = v/‖v‖`` when it lies in the wrong half-space (replace its
u-component ``gᵀu`` by ``σ|gᵀu|``, σ = (2K−1)(2S−1)) leaves it uniform on the required
hemisphere, by symmetry. No rejection loop: every (trial, user) pair costs m normals and one
uniform — K and S enter only through σ, whose law P(σ = 1) = P(K = S) is drawn directly.
The summed channel (float32) makes its normals by the Box–Muller transform (Box & Muller, Ann.
Math. Statist. 29, 1958): ``R = √(−2 ln(1 − U₁))``, ``(R cos 2πU₂, R sin 2πU₂)`` are two independent
N(0, 1) for independent uniforms U₁, U₂ — two float32 uniforms and four vectorised float32
functions cost 2.9 ns per normal here against 7.4 ns for numpy's float32 ziggurat, whose per-draw
calls were nearly all of a simulation's time. Float32 uniforms lie on a grid of 2⁻²⁴, so the radius
stops at √(48 ln 2) = 5.77 (a pair beyond it has probability 6·10⁻⁸); the per-user channel (float64)
keeps numpy's ``standard_normal``.
Each work chunk draws from its own SFC64 stream (:func:`bulk_streams`), seeded from the caller's
generator: the chunking depends only on the inputs, so the numbers do not depend on the machine,
the thread count or the executor.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, check_choice, check_matrix
from ..framework.constraints import COUNT, LEVEL, POSITIVE, TRIALS, Interval
from ..noise.rr import rr_channel

__all__ = ["SCALES", "bulk_streams", "duchi_B", "duchi_channel", "duchi_channel_sum", "duchi_directions", "spawn"]

SCALES = ("unbiased", "paper")
#: Number of float32 cells per work chunk (bounds memory: 4M cells = 16 MB per array).
_CHUNK_CELLS = 4_000_000
_WORKERS = max(1, min(4, os.cpu_count() or 1))
#: Work (trials × users × dimensions) above which a single chunk is split in two halves, so that
#: small trial counts also use two cores. Fixed (not the machine's core count): the chunking fixes
#: the random streams, so results are the same on every machine.
_SPLIT_CELLS = 500_000
#: Normals per block of the summed channel (1 MB of float32): drawn and reduced while in the core's cache
_BLOCK_CELLS = 262_144


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_K = Interval(int, 0, 1_000_000)


def duchi_B(*, level: float, m: int, r: float = 1.0, scale: str = "unbiased") -> float:
    """Radius B of the output sphere (see the module docstring for both formulas)."""
    level = LEVEL.check("level", level, what=" (LDP level α of the channel)")
    m = COUNT.check("m", m, what=" (dimension)")
    r = POSITIVE.check("r", r, what=" (radius of the input ball)")
    scale = check_choice("scale", scale, SCALES)
    coth = 1.0 / np.tanh(level / 2.0)  # (e^α + 1)/(e^α − 1)
    if scale == "unbiased":
        return float(r * coth * np.sqrt(np.pi) * math.exp(math.lgamma((m + 1) / 2) - math.lgamma(m / 2)))
    # as printed: √π d r (e^α+1)/(e^α−1) Γ((d+1)/2) / Γ(d/2 + 1)
    return float(np.sqrt(np.pi) * m * r * coth * math.exp(math.lgamma((m + 1) / 2) - math.lgamma(m / 2 + 1)))


def coin_probability(level: float) -> float:
    """P(K = 1) = e^α/(e^α+1) of the channel's privacy coin: randomized response's truth probability at
    α (:func:`hetdp_core.noise.rr.rr_channel`, no overflow)."""
    return rr_channel(level)[0]


def _child_sequences(rng, k: int) -> tuple[np.random.Generator, list[np.random.SeedSequence], bool]:
    """``(rng, seeds, native)``: k SeedSequence children of ``rng`` — its own SeedSequence's children
    (``native``), or, for a bit generator without one, sequences seeded from its own stream."""
    rng = as_generator(rng)
    k = _K.check("k", k, what=" (number of child generators)")
    seq = getattr(rng.bit_generator, "seed_seq", None)
    if isinstance(seq, np.random.SeedSequence):
        return rng, seq.spawn(k), True
    return rng, [np.random.SeedSequence(int(s)) for s in rng.integers(0, 2**63, size=k)], False


def spawn(rng: np.random.Generator, k: int) -> list[np.random.Generator]:
    """k independent child generators of ``rng`` (deterministic given rng's state): ``rng.spawn(k)``,
    on rng's bit generator; PCG64 children when rng has no SeedSequence to spawn from."""
    rng, seqs, native = _child_sequences(rng, k)
    kind = type(rng.bit_generator) if native else np.random.PCG64
    return [np.random.Generator(kind(s)) for s in seqs]


def bulk_streams(rng: np.random.Generator, k: int) -> list[np.random.Generator]:
    """k independent generators for the channel's bulk draws, on numpy's SFC64 bit generator.

    Seeded from the same SeedSequence children as :func:`spawn`, so they are deterministic given
    ``rng``'s state and independent of each other and of ``rng``. SFC64 (Doty-Humphrey's Small Fast
    Chaotic generator, in numpy since 1.17) passes the standard statistical batteries (PractRand,
    TestU01 BigCrush) and draws float32 normals ≈ 12 % faster than PCG64 here: the channel's normals
    are nearly all of a simulation's cost."""
    _, seqs, _ = _child_sequences(rng, k)
    return [np.random.Generator(np.random.SFC64(s)) for s in seqs]


def _prepare(v: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit directions U (m, n) (zero columns for v = 0) and P(S = 1) per user."""
    norms = np.linalg.norm(v, axis=1)
    if np.any(norms > r * (1 + 1e-9)):
        i = int(np.argmax(norms))
        raise InputError(
            f"v rows must satisfy ||v||_2 <= r = {r:g}; row {i} has norm {norms[i]:.6g}. "
            "Rescale the data or increase r."
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        U = np.where(norms[:, None] > 0, v / norms[:, None], 0.0)
    pS = 0.5 + np.minimum(norms / r, 1.0) / 2.0
    return np.ascontiguousarray(U.T), pS


def _oriented_directions(rng, U, pS, pK, t, dtype, reduce, out=None):
    """Core sampler for one chunk of t trials.

    Returns the unit output directions either summed over users, shape (t, m), or per user,
    shape (t, m, n) (written into ``out`` when given: the chunk's slice of the whole result).
    Output Z = B × direction.
    """
    m, n = U.shape
    # The output depends on K and S only through σ = (2K − 1)(2S − 1), the sign of the half-space
    # w.r.t. u: σ = +1 iff K = S, which has probability pK·pS + (1 − pK)(1 − pS) for independent
    # K ~ Bern(e^α/(e^α+1)) and S ~ Bern(1/2 + ‖v‖/2r). One uniform per (trial, user) draws σ with
    # exactly that law (two were drawn before, for K and S separately).
    p_same = pK * pS + (1.0 - pK) * (1.0 - pS)
    sigma = (rng.random((t, n)) < p_same[None, :]).astype(dtype)  # σ = 2·1{K = S} − 1 (a tenth of np.where's time)
    sigma *= 2
    sigma -= 1
    if m == 1:
        # the "sphere" in R^1 is {−1, +1}: the direction is σ·sign(v), or a fair sign if v = 0
        one = dtype(1.0)
        fair = np.where(rng.random((t, n)) < 0.5, one, -one)
        unit = np.where(U[0][None, :] != 0, sigma * U[0][None, :].astype(dtype), fair)
        if reduce:
            return unit.sum(axis=1, dtype=np.float64)[:, None]
        if out is None:
            return unit[:, None, :]
        out[:, 0, :] = unit
        return out
    Uc = U.astype(dtype, copy=False)
    if not reduce:
        # uniform direction g/‖g‖, drawn straight into the result (a generator fills a slice with the
        # same numbers as a fresh array)
        g = rng.standard_normal((t, m, n), dtype=dtype, out=out)
        inv, a = _reflection(g, Uc, sigma)
        g *= inv[:, None, :]  # in place: the same sums as g·inv + a·u, one array of t·m·n fewer
        for i in range(m):  # + a·u, row by row: the same products and sums without a t·m·n temporary
            g[:, i, :] += a * Uc[i]
        return g
    # Summed over users: the normals are made and used in blocks of trials that stay in the core's
    # cache (buffers reused), instead of one array of t·m·n written to memory and read back by every
    # pass. Each block's uniforms are one draw, trial by trial, and a generator fills consecutive
    # blocks with the same numbers as one large draw; every per-trial operation is the same, so the
    # result does not depend on the block size.
    out = np.empty((t, m), dtype=np.float64)
    step = max(1, _BLOCK_CELLS // (m * n))
    buf = np.empty((min(step, t), m, n), dtype=dtype)
    uniforms = np.empty((min(step, t), 2 * ((m + 1) // 2), n), dtype=dtype)
    for s in range(0, t, step):
        e = min(s + step, t)
        g = buf[: e - s]
        _box_muller(rng, g, uniforms[: e - s])
        inv, a = _reflection(g, Uc, sigma[s:e])
        # einsum, not matmul: no BLAS call, so no BLAS threads spinning inside these threaded chunks and
        # the same float32 summation order on every machine (BLAS sums depend on its thread count)
        blk = np.einsum("tmn,tn->tm", g, inv).astype(np.float64)
        blk += np.einsum("tn,mn->tm", a, Uc).astype(np.float64)
        out[s:e] = blk
    return out


def _box_muller(rng, g, uniforms):
    """Fill ``g`` (t, m, n) with independent N(0, 1) by the Box–Muller transform: for each trial, one
    draw of ``uniforms`` (t, 2h, n), h = ⌈m/2⌉ pairs per user: rows :h give the radii
    ``R = √(−2 ln(1 − U₁))``, rows h: the angles ``θ = 2πU₂``; even rows of g get ``R cos θ``, odd rows
    ``R sin θ`` (for odd m the last pair's sine is not used). In place, in g's dtype."""
    m = g.shape[1]
    h = (m + 1) // 2
    rng.random(out=uniforms, dtype=uniforms.dtype)
    radius = uniforms[:, :h]
    np.subtract(1, radius, out=radius)  # (0, 1]: the log is finite
    np.log(radius, out=radius)
    radius *= -2
    np.sqrt(radius, out=radius)
    angle = uniforms[:, h:]
    angle *= uniforms.dtype.type(2 * math.pi)
    even, odd = g[:, 0::2], g[:, 1::2]
    np.cos(angle, out=even)
    even *= radius
    np.sin(angle[:, : m // 2], out=odd)
    odd *= radius[:, : m // 2]
    return g


def _reflection(g, Uc, sigma):
    """``1/‖g‖`` per (trial, user) and the coefficient ``a = (σ|gᵀu| − gᵀu)/‖g‖`` that reflects the
    direction g/‖g‖ into the half-space of sign σ along u: direction = g/‖g‖ + a·u. In place, without
    temporaries of the block's size."""
    inv = np.einsum("tmn,tmn->tn", g, g)
    np.maximum(inv, np.finfo(g.dtype).tiny, out=inv)
    np.sqrt(inv, out=inv)
    np.divide(1.0, inv, out=inv)
    dot = np.einsum("tmn,mn->tn", g, Uc)  # gᵀu
    a = np.abs(dot)
    a *= sigma
    a -= dot
    a *= inv
    return inv, a


_POOL: tuple[int, ThreadPoolExecutor] | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The process's pool of chunk threads, started once (a pool per call started 2 threads per call:
    ≈ 5 ms of wall time each on a busy machine, 30 times for a small sweep). A process made by fork
    gets its own pool (threads do not survive a fork). Chunk jobs never wait for other jobs, so
    callers on several threads can share it."""
    global _POOL
    pid = os.getpid()
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != pid:
            _POOL = (pid, ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="hetdp-duchi"))
        return _POOL[1]


def _chunks(trials: int, per: int, work: int) -> list[tuple[int, int]]:
    """Trial ranges of the work chunks: at most ``per`` trials each, an even number of chunks of equal
    size (±1), so two threads get equal shares (60 trials at 40 per chunk: 30 + 30, not 40 + 20);
    work above ``_SPLIT_CELLS`` in one chunk is split in two. Depends only on the inputs, never on
    the machine: the chunking fixes the random streams."""
    k = -(-trials // per)
    if k == 1 and trials >= 2 and work >= _SPLIT_CELLS:
        k = 2
    if k > 1 and k % 2:
        k = min(k + 1, trials)
    edges = [trials * i // k for i in range(k + 1)]
    return [(edges[i], edges[i + 1]) for i in range(k)]


def _run(v, level, r, trials, rng, scale, reduce, dtype):
    v = check_matrix("v", v, what=" (one row per user)")
    level = LEVEL.check("level", level, what=" (LDP level α)")
    r = POSITIVE.check("r", r, what=" (radius of the input ball)")
    trials = TRIALS.check("trials", trials, what=" (independent repetitions)")
    scale = check_choice("scale", scale, SCALES)
    rng = as_generator(rng)
    n, m = v.shape
    B = duchi_B(level=level, m=m, r=r, scale=scale)
    U, pS = _prepare(v, r)
    pK = coin_probability(level)
    # trials per chunk (per-user outputs are float64 and 3× larger in memory: smaller chunks, which
    # also lets moderate runs use both threads)
    cells = _CHUNK_CELLS if reduce else _CHUNK_CELLS // 4
    bounds = _chunks(trials, max(1, cells // (n * m)), trials * n * m)
    children = bulk_streams(rng, len(bounds))

    # per-user directions: every chunk writes its trials' slice of one array (no concatenation copy)
    whole = None if reduce else np.empty((trials, m, n), dtype=dtype)

    def job(i):
        s, e = bounds[i]
        part = None if whole is None else whole[s:e]
        return _oriented_directions(children[i], U, pS, pK, e - s, dtype, reduce, part)

    if len(bounds) == 1:
        parts = [job(0)]
    else:
        parts = list(_pool().map(job, range(len(bounds))))  # numpy releases the GIL
    return B, (whole if whole is not None else np.concatenate(parts, axis=0))


def duchi_channel(
    v, *, level: float, r: float, trials: int = 1, rng: np.random.Generator | int | None = None, scale: str = "unbiased"
) -> np.ndarray:
    """Privatise every row of ``v`` (shape (n, m)) ``trials`` times.

    Returns Z with shape (trials, n, m), float64, ``‖Z[t, j]‖ = B`` exactly.
    """
    B, unit = _run(v, level, r, trials, rng, scale, reduce=False, dtype=np.float64)
    return B * np.transpose(unit, (0, 2, 1))


def duchi_directions(
    v, *, level: float, r: float, trials: int = 1, rng: np.random.Generator | int | None = None, scale: str = "unbiased"
) -> tuple[float, np.ndarray]:
    """``(B, U)`` with the unit output directions U of shape (trials, m, n): ``duchi_channel`` is
    ``B · Uᵀ`` (same draws). For callers that scale the outputs further, without another copy."""
    return _run(v, level, r, trials, rng, scale, reduce=False, dtype=np.float64)


def duchi_channel_sum(
    v, *, level: float, r: float, trials: int = 1, rng: np.random.Generator | int | None = None, scale: str = "unbiased"
) -> np.ndarray:
    """Σ over users of the channel outputs, shape (trials, m): what a server needs for a mean.

    Same distribution as ``duchi_channel(...).sum(axis=1)`` but never materialises the
    per-user outputs; normals are drawn in float32 for speed and sums are returned in float64.
    """
    B, total = _run(v, level, r, trials, rng, scale, reduce=True, dtype=np.float32)
    return B * total


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
