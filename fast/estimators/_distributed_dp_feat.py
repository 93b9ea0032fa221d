"""DP-Feat (nock2015 Algorithm 2) on a row-chunked dask array: the signatures chosen by keyed words, no global
pass over the data, the rados exact and independent of the partitioning.

The law (why this is Algorithm 2).  With e_i = y_i x_ij*, t_i = y_i if e_i = +1 else -y_i, a signature sigma
"agrees" with t on the set A(sigma) = {i : sigma_i = t_i}, and K_sigma = |A(sigma)| (module docstring of
:mod:`reference.dp_rados`).  sigma -> A(sigma) is a bijection from {-1, +1}^m onto the subsets of the m rows
(sigma_i = t_i on A, -t_i off it), so a sigma uniform on Sigma_m^{beta,j*} = {sigma : k_lo <= K_sigma <= k_hi} is
exactly: K with P(K = k) proportional to C(m, k) on the PUBLIC window [k_lo, k_hi] (a function of (m, epsilon)
alone: :meth:`fast.dp_rados.DPFeatSource.plan`), then A a uniform K-subset of the rows.  The in-memory sampler
(:func:`fast.dp_rados.dp_feat_signatures`, ``method="exact"``) draws the n K's by exact inversion
(:func:`fast.dp_rados._window_ks`) and takes A = the K smallest of m uniform doubles.  Here:

1. the driver draws the n K's with the SAME function (:func:`fast.dp_rados._window_ks`, from the OS-keyed word
   stream ``WordRandom(None)``, or the test-only seed): it needs m only, never a row;
2. row i of signature j gets the infinite key (W_0(j, i), W_1(j, i), ...) of 64-bit words, W_w(j, i) the AES-256
   block ``E_{k_w}((j << 64) + (i >> 1))`` (word i & 1, little-endian), k_w = SHA-256(salt, secret, w), the fit
   secret 32 bytes of ``os.urandom`` (or 4 words of the seeded generator, tests only).  A word is a function of
   (secret, j, global row id) alone, so any worker regenerates it for any row block, any number of times (a
   retried task reproduces its draws exactly: the model is :class:`fast._exact_rados.SignatureStream`);
3. A_j = the K_j rows with the lexicographically smallest keys, found by a distributed radix select on the keys'
   bytes: each pass is one task per row chunk returning, for every still-undecided signature, the int64 histogram
   (256 bins) of the next byte among its rows whose key has the prefix fixed so far, merged on the workers
   (:func:`fast._dask.tree_reduce`, exact sums); the driver fixes one more byte (the first bucket where the count
   reaches K_j) and stops a signature when its bucket is wholly inside A_j.  Later words are read only for the few
   rows tied on all earlier ones, so a tie is broken by a further independent word, never by the row id;
4. one last pass forms each chunk's signature columns (t on A_j, -t off it, from the chunk's own rows) and returns
   the exact rado terms (:func:`fast._exact_rados.exact_terms`) and the chunk's |A_j| counts; the driver merges the
   terms with :func:`fast._exact_rados.finish_terms` (exactly rounded, whatever the chunking) and checks that the
   counts add up to K_j.

For i.i.d. uniform words, the keys of the m rows are i.i.d. and a.s. distinct (ties at one word are broken by the
next), so the rank order is a uniform permutation and A_j is EXACTLY a uniform K_j-subset, independent across j
and of the K's: the law of step 2 of Algorithm 2 (the in-memory sampler's 53-bit doubles, ties to the lower index,
are uniform to within m^2 2^-54 in total variation; AES-CTR words are uniform for anyone without the key, the
standing assumption of :mod:`fast._contracts.words`).  The driver sees the K's (the mechanism's own draws), the
histograms of keyed words (a function of (secret, K, m) only: no row value enters them, the passes do not even
read X) and the exact rado partials; no row, and no signature, reaches it.  The secret lives in the job's tasks
and is never stored on an estimator or written to an output.
"""
from __future__ import annotations

import hashlib
import os

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from fast._contracts.words import os_keystream
from fast._exact_rados import SignatureStream

__all__ = ["KeyedRowWords", "DPFeatSelection", "fit_secret", "radix_select", "select_in_memory",
           "dp_feat_dask_rados"]

_SALT = b"privlearn.dp_feat.keyed_rows\x00"
#: key bytes after which the radix select gives up (16 words: a tie over all of them has probability < m^2 2^-1024)
MAX_LEVELS = 8 * 16
#: row words generated at once per signature (a bound on a task's memory: 8 MB)
_ROWS_AT_ONCE = 1 << 20


def fit_secret(noise_rng=None) -> bytes:
    """The fit secret: 32 bytes of ``os.urandom`` (``noise_rng`` None, every private fit) or, tests only, 4 words
    of a seeded ``numpy.random.Generator`` (the words after the K's: a seeded fit is reproducible)."""
    if noise_rng is None:
        return os.urandom(32)
    return noise_rng.integers(0, 2**64, size=4, dtype=np.uint64).astype("<u8").tobytes()


class KeyedRowWords:
    """W_w(j, i): the 64-bit word w of the key of global row i in signature j (module docstring, step 2).

    ``rows(w, j, start, stop)`` gives the words of a contiguous row range (AES-CTR), ``points(w, j, rows)`` those
    of scattered rows (AES-ECB on the same counter blocks: the same values).  The secret is never shown by repr.

    Parameters
    ----------
    secret : bytes of length 32
    """

    def __init__(self, secret: bytes):
        if not isinstance(secret, bytes) or len(secret) != 32:
            raise ValueError("secret must be 32 bytes")
        self._secret = secret
        self._keys = {}

    def __repr__(self):
        return "KeyedRowWords(<secret>)"

    def _key(self, w: int) -> bytes:
        if w not in self._keys:
            self._keys[w] = hashlib.sha256(_SALT + self._secret + int(w).to_bytes(8, "little")).digest()
        return self._keys[w]

    def rows(self, w: int, j: int, start: int, stop: int) -> np.ndarray:
        """(stop - start,) uint64: W_w(j, i) for i in [start, stop)."""
        if stop <= start:
            return np.empty(0, dtype=np.uint64)
        q0, q1 = start >> 1, ((stop - 1) >> 1) + 1
        words = os_keystream(self._key(w), ((int(j) << 64) + q0).to_bytes(16, "big")).words(2 * (q1 - q0))
        return words[start - 2 * q0:stop - 2 * q0]

    def points(self, w: int, j, rows) -> np.ndarray:
        """(len(rows),) uint64: W_w(j, i) for the given global rows (j a scalar or one signature per row)."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0:
            return np.empty(0, dtype=np.uint64)
        counters = np.empty((rows.size, 2), dtype=">u8")
        counters[:, 0] = np.broadcast_to(np.asarray(j, dtype=np.int64), rows.shape)
        counters[:, 1] = rows >> 1
        enc = Cipher(algorithms.AES(self._key(w)), modes.ECB()).encryptor()
        raw = enc.update(counters.tobytes()) + enc.finalize()
        blocks = np.frombuffer(raw, dtype="<u8").reshape(rows.size, 2)
        return blocks[np.arange(rows.size), rows & 1].astype(np.uint64)


def _prefix_rows(words: KeyedRowWords, j: int, start: int, stop: int, level: int, prefix):
    """(local rows, their word level // 8, local rows whose key is below the prefix): the rows of [start, stop)
    whose key's first ``level`` bytes equal ``prefix`` (uint64 words, the bytes most significant first)."""
    idx = np.arange(stop - start, dtype=np.int64)
    below = []
    v = words.rows(0, j, start, stop)
    for w in range(level // 8 + 1):
        if w > 0:
            v = words.points(w, j, start + idx)
        bits = min(64, 8 * level - 64 * w)  # prefix bits inside word w
        if bits <= 0:
            break
        shift = np.uint64(64 - bits)
        a, p = v >> shift, np.uint64(prefix[w]) >> shift
        below.append(idx[a < p])
        keep = a == p
        idx, v = idx[keep], v[keep]
    return idx, v, (np.concatenate(below) if below else np.empty(0, dtype=np.int64))


def _histogram_partial(secret, level, active, prefixes, start, stop):
    """One task of a radix pass: (len(active), 256) int64, the byte ``level`` of the keys of the rows of [start,
    stop) that carry each active signature's prefix.  Reads no data: the rows are only the range's ids."""
    words = KeyedRowWords(secret)
    out = np.zeros((len(active), 256), dtype=np.int64)
    shift = np.uint64(56 - 8 * (level % 8))
    for a, j in enumerate(np.asarray(active).tolist()):
        for lo in range(start, stop, _ROWS_AT_ONCE):
            hi = min(stop, lo + _ROWS_AT_ONCE)
            _, v, _ = _prefix_rows(words, j, lo, hi, level, prefixes[a])
            out[a] += np.bincount(((v >> shift) & np.uint64(0xFF)).astype(np.int64), minlength=256)
    return out


def _add(*parts):
    return sum(parts[1:], parts[0].copy())


class DPFeatSelection:
    """The agreeing sets A_j of n signatures over m rows, as radix-select thresholds: A_j = the rows whose key's
    first ``levels[j]`` bytes are at most ``prefixes[j]`` (``levels[j] = -1``: the empty set).  Holds the secret
    (shipped to the tasks of one job; never stored on an estimator).

    ``members(start, stop)`` is the (n, stop - start) bool matrix of [i in A_j]; ``signatures(t, start)`` the
    int8 signature columns (t on A_j, -t off it) of the rows [start, start + len(t)).
    """

    def __init__(self, secret, K, levels, prefixes):
        self._words = KeyedRowWords(secret)
        self.K = np.asarray(K, dtype=np.int64)
        self.levels = np.asarray(levels, dtype=np.int64)
        self.prefixes = np.asarray(prefixes, dtype=np.uint64)
        self.n = int(self.K.shape[0])

    def __repr__(self):
        return f"DPFeatSelection(n={self.n})"

    def __reduce__(self):
        return (DPFeatSelection, (self._words._secret, self.K, self.levels, self.prefixes))

    def members(self, start: int, stop: int) -> np.ndarray:
        out = np.zeros((self.n, stop - start), dtype=bool)
        for j in range(self.n):
            level = int(self.levels[j])
            if level < 0:
                continue
            idx, _, below = _prefix_rows(self._words, j, start, stop, level, self.prefixes[j])
            out[j, idx] = True
            out[j, below] = True
        return out

    def signatures(self, t, start: int) -> np.ndarray:
        t = np.asarray(t, dtype=np.int8)
        M = self.members(start, start + t.shape[0])
        return np.where(M, t[None, :], -t[None, :]).astype(np.int8)


def radix_select(secret: bytes, K, m: int, run_pass) -> DPFeatSelection:
    """The thresholds of A_j = the K[j] smallest keys of rows [0, m) (module docstring, step 3).

    ``run_pass(level, active, prefixes)`` returns the merged (len(active), 256) int64 histograms of byte ``level``
    (the distributed passes, or :func:`select_in_memory`'s one block).  Every signature fixes one byte per pass and
    stops when its bucket lies wholly inside A_j; the expected number of passes is about log_256(m) + 1.

    Parameters
    ----------
    secret : bytes of length 32
        The fit secret (:func:`fit_secret`).
    K : array_like of int, shape (n,)
        The set sizes, each in [0, m].
    m : int
        Rows.
    run_pass : callable
        ``run_pass(level, active, prefixes) -> (len(active), 256) int64``.

    Returns
    -------
    DPFeatSelection

    Raises
    ------
    ValueError
        If a K lies outside [0, m].
    RuntimeError
        If a pass returns inconsistent histograms or no decision comes within ``MAX_LEVELS`` key bytes (a fault:
        both are functions of the secret and K alone, never of a record).
    """
    K = np.asarray(K, dtype=np.int64)
    n = K.shape[0]
    if ((K < 0) | (K > m)).any():
        raise ValueError(f"K must lie in [0, m = {m}]")
    levels = np.where(K == 0, -1, 0).astype(np.int64)
    prefixes = np.zeros((n, 0), dtype=np.uint64)
    need = K.copy()
    active = np.flatnonzero((K > 0) & (K < m))  # K = m: every row (level 0, the empty prefix)
    level = 0
    while active.size:
        if level >= MAX_LEVELS:  # a tie over 16 independent words: a fault, never a record
            raise RuntimeError(f"DP-Feat radix select: no decision after {MAX_LEVELS} key bytes")
        if level % 8 == 0:
            prefixes = np.hstack([prefixes, np.zeros((n, 1), dtype=np.uint64)])
        H = np.asarray(run_pass(level, active, prefixes[active]), dtype=np.int64)
        cum = np.cumsum(H, axis=1)
        r = need[active]
        if H.shape != (active.size, 256) or (cum[:, -1] < r).any():  # data-independent: a fault, never a record
            raise RuntimeError("DP-Feat radix select: a pass returned inconsistent histograms")
        b = np.argmax(cum >= r[:, None], axis=1)  # the first byte whose bucket reaches the rank r
        rows = np.arange(active.size)
        if (cum[rows, b] < r).any():
            raise RuntimeError("DP-Feat radix select: no bucket reaches the rank")
        r_next = r - (cum[rows, b] - H[rows, b])
        prefixes[active, level // 8] |= b.astype(np.uint64) << np.uint64(56 - 8 * (level % 8))
        levels[active] = level + 1
        need[active] = r_next
        active = active[r_next < H[rows, b]]  # the bucket wholly inside: this signature is done
        level += 1
    return DPFeatSelection(secret, K, levels, prefixes)


def select_in_memory(secret: bytes, K, m: int) -> DPFeatSelection:
    """:func:`radix_select` with every pass on the one block [0, m) in this process (tests, small m).

    Parameters
    ----------
    secret : bytes of length 32
    K : array_like of int, shape (n,)
        The set sizes, each in [0, m].
    m : int
        Rows.

    Returns
    -------
    DPFeatSelection

    Examples
    --------
    >>> import numpy as np
    >>> from fast.estimators._distributed_dp_feat import select_in_memory
    >>> sel = select_in_memory(bytes(32), np.array([2, 5, 0]), 8)
    >>> sel.members(0, 8).sum(axis=1).tolist(), bool((sel.members(0, 3) == sel.members(0, 8)[:, :3]).all())
    ([2, 5, 0], True)
    """
    return radix_select(secret, K, m, lambda level, active, prefixes:
                        _histogram_partial(secret, level, active, prefixes, 0, m))


def _final_partial(xb, yb, offset, selection, source):
    """One task of the last pass: the exact rado terms (T, n, d) of the chunk's rows [offset, offset + r) under the
    selected signatures (t on A_j, -t off it, t from the chunk's own rows), and the chunk's |A_j| (n,) int64."""
    from fast._dask import block_edges
    from fast._exact_rados import exact_terms

    xb = source.in_domain(np.asarray(xb))  # the protected column read as a sign, every value in the domain
    yb, E = block_edges(xb, yb)
    column = xb[:, source.feature]
    t = np.where(column > 0.0, 1, -1).astype(np.int8)  # t_i = x_ij* (= y_i if e_i = +1, -y_i if e_i = -1)
    sig = _Columns(selection, t, int(offset))
    terms = exact_terms(E, yb, sig, int(offset))
    return terms, sig.counts


class _Columns(SignatureStream):
    """The selected signatures' columns of one chunk, read by :func:`fast._exact_rados.exact_terms` one block of
    rows at a time (never the whole (n, r) matrix); counts |A_j| over the blocks read."""

    def __init__(self, selection, t, offset):  # no key of its own: the words are the selection's
        self.n = selection.n
        self._selection, self._t, self._offset = selection, t, offset
        self.counts = np.zeros(selection.n, dtype=np.int64)

    def block(self, start, stop):
        M = self._selection.members(start, stop)
        self.counts += M.sum(axis=1)
        t = self._t[start - self._offset:stop - self._offset]
        return np.where(M, t[None, :], -t[None, :]).astype(np.int8)

    def __reduce__(self):  # pragma: no cover - built inside a task, never shipped
        raise TypeError("_Columns is built inside a task")


def dp_feat_dask_rados(source, X, y, n, noise_rng, m):
    """DP-Feat rados (n, d) of a row-chunked dask array X (labels y in {-1, +1}, dask or numpy), the law of
    :meth:`fast.dp_rados.DPFeatSource` in memory (module docstring).

    Parameters
    ----------
    source : fast.dp_rados.DPFeatSource
        The budget (its :meth:`~fast.dp_rados.DPFeatSource.plan` for (m, n) gives the window).
    X : dask.array.Array of shape (m, d)
    y : dask.array.Array or array-like of shape (m,)
    n : int
        Number of rados.
    noise_rng : None or numpy.random.Generator
        None (private): the K's from the OS-keyed word stream and the secret from ``os.urandom``; a seeded
        Generator (tests only): the K's, then the secret, from it.
    m : int
        Rows of X.

    Returns
    -------
    (rados, selection) : (numpy.ndarray of shape (n, d), DPFeatSelection)
        The exactly rounded rados; the selection (holds the secret: for tests, never stored).
    """
    import dask

    from fast import _dask
    from fast._contracts.privacy_contract import WordRandom
    from fast._contracts.validation import check_int
    from fast._exact_rados import finish_terms
    from fast.dp_rados import _window_ks

    d = int(X.shape[1])
    check_int(source.feature, "feature", minimum=0, maximum=d - 1)
    plan = source.plan(m, n)
    rng = WordRandom(None) if noise_rng is None else noise_rng
    K = _window_ks(rng, n, m, plan.k_lo, plan.k_hi)  # the mechanism's draws, once, here (m and the window only)
    secret = fit_secret(noise_rng)
    blocks, offsets, rows = _dask.array_blocks(X)
    hist = dask.delayed(_histogram_partial, pure=True)
    shared = dask.delayed(secret, pure=True)

    def run_pass(level, active, prefixes):
        parts = [hist(shared, level, active, prefixes, int(offsets[c]), int(offsets[c + 1]))
                 for c in range(len(rows))]
        return _dask.compute(_dask.tree_reduce(parts, _add))[0]

    selection = radix_select(secret, K, m, run_pass)
    task = dask.delayed(_final_partial, pure=True, nout=2)
    shipped = dask.delayed((selection, source), pure=True)
    outs = [task(b, yb, int(offsets[c]), shipped[0], shipped[1])
            for c, (b, yb) in enumerate(zip(blocks, _dask.vector_blocks(y, rows)))]
    parts = _dask.compute(*[o[0] for o in outs], _dask.tree_reduce([o[1] for o in outs], _add))
    counts = parts[-1]
    if not np.array_equal(counts, K):  # data-independent: a fault, never a record
        raise RuntimeError("DP-Feat: the selected sets do not have the drawn sizes")
    return finish_terms(parts[:-1], n, d), selection
