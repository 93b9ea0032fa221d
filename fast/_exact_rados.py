"""Exactly rounded rados from exact, mergeable partials, and the counter-based signature stream   [nock2015 Def. 1].

Why: a rado pi_sigma = sum_{i : sigma_i = y_i} y_i x_i computed in floating point depends on the order of the
additions, so a sum over row chunks (a distributed engine, :mod:`fast._dask`) would change with the chunking.  Here
every entry is the EXACTLY ROUNDED sum (``math.fsum`` of its terms, what :func:`reference.rados.rados` computes), from
partials that are exact and can be merged in any order:

1. **Error-free slicing** (Ozaki et al., "Error-free transformations of matrix multiplication by using fast routines
   of matrix multiplication and its applications", Numer. Algorithms 59, 2012): a block of at most
   ``BLOCK_ROWS`` = 2^16 rows is split, per column k, into slices E = E_1 + E_2 + ... (exactly), where every entry
   of slice s is an integer multiple of 2^(tau_s - BETA) of magnitude at most 2^tau_s (tau_s: the exponent of the
   column's largest remaining magnitude; ``E_s = (R + c) - c`` with c = 0.75 * 2^(tau_s + 53 - BETA), R the
   remainder, which ``R - E_s`` gives exactly).  With BETA = 36, any sum of at most 2^16 such entries is an integer
   multiple of the unit below 2^52 units, so it is computed EXACTLY in float64 whatever the order of the additions
   (the subset-sum table kernel, a GEMM with FMA, threads: all give the same exact value).
2. **Partials**: the per-slice rados of each block, an (S, n, d) stack of floats whose exact sum is the block's
   exact rado sum.  They are exact, so a chunk's partial is the concatenation of its blocks' (any chunking gives
   the same multiset of exact values per block boundary... and in any case the same exact total).
3. **Finish** (the driver): ``math.fsum`` per entry over all the partials' terms: the exactly rounded total.

The result is therefore bit for bit ``math.fsum`` of the entry's terms, whatever the chunking, the number of
workers, the order in which partials arrive, or a retried task.

:class:`SignatureStream` is the counter-based signature source the distributed path needs: bit (j, i) (signature
j, global row i) is read from the AES-256-CTR keystream (:class:`fast._contracts.words.os_keystream`) at a position
that depends only on (key, i, j), so any row block can be generated on its own, on any worker, any number of times.
Signature j reads the keystream from counter j * 2^64: bit (i mod 128) of its cipher block (j << 64) + (i >> 7)
(little-endian bytes, least significant bit first) is 1 for sigma_j(i) = +1.  Its draws differ from
:func:`fast.rados.sample_signatures` (a row-major Generator stream that cannot be sliced by example).
"""
from __future__ import annotations

import hashlib
import os

import numpy as np

from fast._contracts.words import os_keystream

__all__ = ["BLOCK_ROWS", "SignatureStream", "signature_stream", "exact_terms", "finish_terms", "rados_exact"]

#: rows per exactly summed block (2^16: with BETA bits per slice entry, a block's sums stay below 2^52 units)
BLOCK_ROWS = 1 << 16
#: bits per slice entry: 53 - log2(BLOCK_ROWS) - 1
BETA = 36
#: magnitudes at or above 2^BIG_EXP are sliced after an exact scaling by 2^-BIG_SHIFT (the slicing constant
#: 0.75 * 2^(tau + 53 - BETA) must stay finite)
BIG_EXP, BIG_SHIFT = 960, 512


class SignatureStream:
    """n signatures uniform on Sigma_m (each sigma_j(i) = +-1 with probability 1/2, independent), readable by row
    block: ``block(start, stop)`` is the (n, stop - start) int8 matrix of global rows [start, stop).

    Parameters
    ----------
    n : int
        Number of signatures (>= 1).
    key : bytes of length 32
        The AES-256 key (never shown by ``repr``).

    Examples
    --------
    >>> from fast._exact_rados import signature_stream
    >>> s = signature_stream(4, seed=7)
    >>> full = s.block(0, 10)
    >>> bool((full[:, 3:7] == s.block(3, 7)).all()), full.shape
    (True, (4, 10))
    """

    def __init__(self, n: int, key: bytes):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be an int >= 1, got {n!r}")
        if not isinstance(key, bytes) or len(key) != 32:
            raise ValueError("key must be 32 bytes (an AES-256 key)")
        self.n = int(n)
        self._key = key

    def __repr__(self):
        return f"SignatureStream(n={self.n})"

    @property
    def shape_rows(self) -> int:
        return self.n

    def block(self, start: int, stop: int) -> np.ndarray:
        """(n, stop - start) int8 in {-1, +1}: the signatures' entries for global rows [start, stop)."""
        start, stop = int(start), int(stop)
        if start < 0 or stop < start:
            raise ValueError(f"rows must satisfy 0 <= start <= stop, got [{start}, {stop})")
        if stop == start:
            return np.empty((self.n, 0), dtype=np.int8)
        q0, q1 = start >> 7, ((stop - 1) >> 7) + 1  # the cipher blocks (128 rows each) covering the rows
        raw = np.empty((self.n, 16 * (q1 - q0)), dtype=np.uint8)
        for j in range(self.n):  # signature j's bits for rows 128 q .. 128 q + 127: cipher block (j << 64) + q
            raw[j] = os_keystream(self._key, ((j << 64) + q0).to_bytes(16, "big")).words(2 * (q1 - q0)).view(np.uint8)
        bits = np.unpackbits(raw, axis=1, bitorder="little")[:, start - 128 * q0:stop - 128 * q0]
        out = np.ascontiguousarray(bits).view(np.int8)
        out *= 2
        out -= 1
        return out

    def __reduce__(self):  # shipped to workers as (n, key): the key is as sensitive as the seed it came from
        return (SignatureStream, (self.n, self._key))


def signature_stream(n, seed=None):
    """A counter-based stream of n uniform signatures, keyed by ``seed`` (None: a key from ``os.urandom``).

    Parameters
    ----------
    n : int
        Number of signatures (>= 1).
    seed : None, int >= 0 or bytes, optional
        The same seed gives the same signatures for every row, however the rows are blocked.

    Returns
    -------
    SignatureStream

    Examples
    --------
    >>> from fast._exact_rados import signature_stream
    >>> signature_stream(3, seed=0).block(0, 4).tolist() == signature_stream(3, seed=0).block(0, 4).tolist()
    True
    """
    if seed is None:
        key = os.urandom(32)
    elif isinstance(seed, bytes):
        key = hashlib.sha256(b"privlearn.signature_stream\x00" + seed).digest()
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        key = hashlib.sha256(b"privlearn.signature_stream\x00" + int(seed).to_bytes(32, "little")).digest()
    else:
        raise ValueError(f"seed must be None, an int >= 0 or bytes, got {seed!r}")
    return SignatureStream(n, key)


class _Workspace:
    """Buffers reused by the blocks of one :func:`exact_terms` call.

    Why: a block's temporaries (the slices, their stack, the table kernel's padded copy and tables: 5-10 MB each
    at 2^16 rows x 10 columns) allocated afresh for every block are, in a dask worker, fresh ``mmap`` s faulted in
    page by page: distributed's nanny sets ``MALLOC_TRIM_THRESHOLD_=65536``, which turns off glibc's dynamic mmap
    threshold (measured: 1.45 s against 1.22 s for the same 2^20-row rados partial, +18 %).  Reused, they are
    faulted once per call."""

    def __init__(self):
        self._bufs = {}

    def get(self, name: str, shape, dtype=np.float64) -> np.ndarray:
        size = int(np.prod(shape))
        buf = self._bufs.get(name)
        if buf is None or buf.size < size or buf.dtype != np.dtype(dtype):
            buf = np.empty(size, dtype=dtype)
            self._bufs[name] = buf
        return buf[:size].reshape(shape)


def _slices(E: np.ndarray, ws: _Workspace | None = None) -> list[tuple[int, np.ndarray]]:
    """[(scale exponent, slice)]: E = sum 2^scale * slice exactly, every slice's column sums exact (docstring 1).

    With a workspace the slices are views of its buffers (valid until its next use)."""
    ws = _Workspace() if ws is None else ws
    out = []
    a = np.abs(E, out=ws.get("abs", E.shape))
    big = a >= 2.0**BIG_EXP
    if big.any():  # rare (|x| >= 2^960): the scaled second part, fresh arrays
        parts = [(0, np.where(big, 0.0, E)),
                 (BIG_SHIFT, np.where(big, E, 0.0) * 2.0**-BIG_SHIFT)]  # exact: no entry comes near 2^-1022
    else:
        R = ws.get("rest", E.shape)
        np.copyto(R, E)
        parts = [(0, R)]
    tmp = ws.get("tmp", E.shape)
    for scale, R in parts:
        while True:
            mu = np.abs(R, out=a).max(axis=0) if R.shape[0] else np.zeros(R.shape[1])
            if not (mu > 0).any():
                break
            tau = np.frexp(mu)[1]  # mu < 2^tau
            c = np.where(mu > 0, np.ldexp(0.75, tau + 53 - BETA), 0.0)
            hi = ws.get(f"slice{len(out)}", E.shape)
            np.add(R, c, out=tmp)
            np.subtract(tmp, c, out=hi)  # (R + c) - c
            out.append((scale, hi))
            R -= hi  # exact
    return out


def _sum_block(E: np.ndarray, y: np.ndarray, sig: np.ndarray, ws: _Workspace | None = None) -> np.ndarray:
    """sum_{i : sig[j, i] == y[i]} E[i] for every j (any order: exact for slices).

    The numba subset-sum kernel is imported only when it is used (n >= 256): a worker that computes fewer rados
    never loads numba (about 130 MB of resident memory under a worker's ``memory_limit``)."""
    if E.shape[1] == 0 or E.shape[0] == 0:
        return np.zeros((sig.shape[0], E.shape[1]))
    if sig.shape[0] >= 256 and E.shape[0] >= 64:
        from fast._rados_kernels import rados_table

        out, ok = rados_table(np.ascontiguousarray(E), np.ascontiguousarray(sig, dtype=np.int8), y,
                              workspace=None if ws is None else ws.get)
        if not ok:
            raise ValueError("sigmas must hold only -1 and +1")
        return out
    return (sig == y[None, :]).astype(np.float64) @ E


def exact_terms(E: np.ndarray, y: np.ndarray, sig, offset: int = 0) -> np.ndarray:
    """(T, n, d) float64 exact terms whose per-entry exact sum is sum_{i : sig[j, i] == y[i]} E[i, k].

    E (r, d) float64 edge vectors y_i x_i of global rows [offset, offset + r), y (r,) int8 in {-1, +1}, ``sig`` the
    (n, r) int8 signature columns or a :class:`SignatureStream` (read one block of BLOCK_ROWS rows at a time).
    """
    stream = isinstance(sig, SignatureStream)
    n, d = (sig.n if stream else sig.shape[0]), E.shape[1]
    terms = []
    ws = _Workspace()  # the blocks' temporaries, allocated once per call (see _Workspace)
    for lo in range(0, E.shape[0], BLOCK_ROWS):
        hi = min(E.shape[0], lo + BLOCK_ROWS)
        pieces = _slices(E[lo:hi], ws)
        if not pieces:
            continue
        block = sig.block(offset + lo, offset + hi) if stream else sig[:, lo:hi]
        stacked = np.concatenate([p for _, p in pieces], axis=1,
                                 out=ws.get("stacked", (hi - lo, len(pieces) * d)))  # one kernel call, every slice
        sums = _sum_block(stacked, y[lo:hi], block, ws).reshape(n, len(pieces), d)
        for s, (scale, _) in enumerate(pieces):
            part = sums[:, s, :]
            terms.append(part * 2.0**scale if scale else part)  # a power of two: exact (or a true overflow)
    if not terms:
        return np.zeros((0, n, d))
    return np.stack(terms)


def finish_terms(parts, n: int, d: int) -> np.ndarray:
    """The exactly rounded sums (n, d): ``math.fsum`` per entry over the terms of every partial, in any order."""
    from fast._exact_sum import fsum_columns

    stacks = [p for p in parts if p.shape[0]]
    if not stacks:
        return np.zeros((n, d))
    # math.fsum of each entry's terms (zeros change nothing: fsum of an exact zero is +0.0), certified from one
    # compensated pass per entry (fast._exact_sum): 10x faster than fsum over Python lists
    return fsum_columns(np.concatenate(stacks).reshape(-1, n * d)).reshape(n, d)


def rados_exact(E: np.ndarray, y: np.ndarray, sigmas) -> np.ndarray:
    """The exactly rounded rados (n, d) of in-memory edge vectors E (m, d) (the one-block case of the partials)."""
    n = sigmas.n if isinstance(sigmas, SignatureStream) else sigmas.shape[0]
    return finish_terms([exact_terms(E, y, sigmas)], n, E.shape[1])
