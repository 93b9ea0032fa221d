"""Laplace and Gaussian mechanisms that are safe against floating-point attacks   [CKS20; Mironov 2012]

M(x) = Lambda * (round(x / Lambda) + Z),   Z ~ DLap(t) or N_Z(0, s2),   Lambda = 2^k   (exact integer noise)

Privacy guarantee (the "proof beside the code"):

* ``laplace_mechanism``: the input is rounded to the grid Lambda*Z (round-half-even, exact on the rational
  value of the double).  Two inputs at L1 distance <= sensitivity land on grid points whose integer
  coordinates differ by at most D = floor(sensitivity / Lambda) + d in L1 (each of the d roundings moves by
  <= Lambda/2).  The noise is drawn EXACTLY from the discrete Laplace P(z) ∝ exp(-|z| / t), independently per
  coordinate, with an integer scale t >= D / epsilon, so the integer output is (D / t)-DP <= epsilon-DP
  (geometric mechanism).  The float returned is a deterministic function of the integer (post-processing), so every float reachable from one input is
  reachable from its neighbour: there are no floating-point "holes" (Mironov 2012, Haney et al. 2022).
  The only inexactness is a truncation: a geometric part V > v_max is redrawn.  This changes the output
  law by at most ``truncation_delta`` = 2 exp(-v_max) in total variation (< 2^-2900 for every accepted
  epsilon), so the exact statement is (epsilon_effective, n * truncation_delta)-DP for n draws.
* ``gaussian_mechanism``: the same rounding; a grid Lambda = 2^k about 2^-10 of the noise scale; the L2
  sensitivity inflated to Delta' = Lambda * D (scalar) or Delta + Lambda sqrt(d) (vector); sigma calibrated
  for Delta' (zCDP with the tight conversion by default, a proof for N_Z; analytic Balle-Wang 2018 or classic on
  request); noise drawn
  EXACTLY from the discrete Gaussian N_Z(0, s2) with the integer s2 = ceil((sigma / Lambda)^2) >= (sigma/Lambda)^2.
  The discrete Gaussian is rho-zCDP with rho = Delta'^2 / (2 sigma^2) (CKS20 Thm 4; coordinates independent
  so the rhos add).  Its (epsilon, delta) profile for a scalar is that of CKS20 Thm 7, summed exactly in
  proofs_checks/check_audit_mechanisms.py: the analytic (continuous) calibration gives delta' up to 1.4e-6
  relative ABOVE the delta asked for (so (epsilon, 1.000002 delta)-DP); calibration="zcdp" gives exactly
  delta (a proof, below), and is therefore the default (calibration="auto") for scalars and vectors alike.
  Where that grid would leave s2 > 2^24 (sigma / sensitivity above about 2^12: the grid would be coarser than the
  sensitivity, and Delta' several times Delta), the grid follows the sensitivity instead, 2^k sqrt(d) <= Delta
  2^-10, and s2 (then above 2^38) is drawn by the big-integer sampler of ``sample_discrete_gaussian``; the choice
  depends on (sensitivity, epsilon, delta, d, calibration) alone, all public.  The tight zCDP -> (epsilon, delta)
  conversion holds for any rho-zCDP mechanism.

Randomness.  The samplers consume streams of 64-bit words (``spec.words``).  ``rng=None`` (the default):
the first 64 words come from ``os.urandom`` itself and the rest from AES-256-CTR keyed afresh by
``os.urandom`` for every call (the CTR_DRBG construction; 1 ns a word against 19 for os.urandom); a seed or
Generator (tests and experiments only) gives ``rng.integers(0, 2**64, dtype=uint64)``, its raw 64-bit outputs.
Words are fetched in blocks of 64, 128, ..., 65536 and the rest of the last block is discarded;
``fast.mechanisms`` consumes the very same words in the same order and fetches the same blocks, so seeded
reference and fast draws are equal and leave the Generator in the same state.  The discrete Gaussian reads a
second stream, ``extra``: AES-256-CTR keyed by the first four words of the main stream (``_gaussian_streams``).

How the words are spent (every step an exact comparison of integers; no float enters the sampling path):

* a Bernoulli [W < a/b] of a uniform real W = sum_i w_i 2^(-64 i) is decided by reading W's words lazily
  (``_less``, ``_compare``): almost always one word, or one 16-bit digit of a word;
* CKS20 Algorithm 1 (Bernoulli(exp(-gamma)), gamma <= 1) draws A_k ~ Bernoulli(gamma/k) as [W_k < num/(k den)];
  W_1..W_4 start from the four 16-bit digits of ONE word read up front (``_bernoulli_exp_fraction``);
* Bernoulli(e^-1) is [K odd] with K = min{k : W >= 1/k!} for ONE uniform W (the nested form of Algorithm 1,
  ``_bernoulli_exp_one``), decided from a word, or from 32 bits of one;
* discrete Laplace: its V's first three trials read their words up front (``_geometric_e``); the sign and U
  come from one uniform on [0, 2t);
* discrete Gaussian: Algorithm 3 with Algorithm 2 written in (one Bernoulli(exp(-gamma)) per attempt), each
  attempt reading four main words up front whose bit fields serve S, five Bernoulli(e^-1) trials and the four
  digits; anything further comes from ``extra`` (``_discrete_gaussian``).
Reading a word up front that a draw then does not need discards it, which leaves every law unchanged (the
words are independent); the up-front reads let ``fast.mechanisms`` decide the common cases without branching.
Cost: about 6.3 words per discrete Laplace draw at t ~ 2^40; per discrete Gaussian draw about 2.1 attempts,
8.3 main words and 0.14 extra words (s2 ~ 1.1e6).

Not protected: timing (the number of loop iterations depends on |Z|, Jin et al. 2022), and the
``unsafe_*`` samplers, which exist only to be attacked by the audit (proofs_checks/audit.py).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from spec.budget_ledger import calibration_float, charge_release
from spec.links import implements
from spec.words import KEY_WORDS, KeyedBlocks, WordBlocks
from spec.validation import (as_float_matrix, as_generator, check_int, check_open_unit, check_positive,
                             check_real, scalar_of)

__all__ = [
    "LaplaceGrid",
    "GaussianGrid",
    "laplace_grid",
    "gaussian_grid",
    "laplace_mechanism",
    "gaussian_mechanism",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "zcdp_gaussian_sigma",
    "gaussian_delta",
    "unsafe_float_laplace",
    "unsafe_float_gaussian",
]

#: the Laplace grid is about scale / 2^LAPLACE_GRID_BITS (Google's choice, Secure_Noise_Generation.pdf)
LAPLACE_GRID_BITS = 40
#: the Gaussian grid is about sigma / 2^GAUSSIAN_GRID_BITS (keeps every integer of the sampler < 2^63)
GAUSSIAN_GRID_BITS = 10
#: the discrete Laplace scale in grid units must stay below this (so t * v fits in 63 bits)
MAX_SCALE = 2**51
#: |Y| * t of the discrete Gaussian's Laplace proposal is kept below this (so c^2 fits in 63 bits)
GAUSSIAN_PROPOSAL_LIMIT = 2**31
#: the discrete Gaussian's grid variance s2 must stay below this (2 s2 t^2 < 2^50; v_max >= 126: cut at |Y| >= 127 t)
MAX_SIGMA2 = 2**24
#: the grid variance s2 keeps at most this many significant bits (rounded up: a no-op up to 2^25, so on every grid
#: of the 10-bit rule; above it a ~1e-13 difference in sigma cannot move s2 but with probability ~2^25 1e-13)
GAUSSIAN_S2_BITS = 25
#: A_k of CKS20 Algorithm 1 is drawn from one word for k below this (k * den < 2^63 for den <= 2^51)
ONE_WORD_K = 4096
#: A_1..A_4 of CKS20 Algorithm 1 start from the 16-bit digits of one word
DIGIT_BITS = 16
MASK64 = 2**64 - 1
MASK32 = 2**32 - 1
CALIBRATIONS = ("auto", "analytic", "classic", "zcdp")


# ---------------------------------------------------------------------------------------------------------
# the word stream
# ---------------------------------------------------------------------------------------------------------
class _Words:
    """The 64-bit words of ``spec.words.WordBlocks`` (os.urandom / OS-keyed AES-CTR for rng None, a Generator's
    raw words otherwise), one at a time, in blocks of 64, 128, ... 65536."""

    def __init__(self, rng, blocks=None):
        self.blocks = WordBlocks(rng) if blocks is None else blocks
        self.buffer: list[int] = []
        self.pos = 0

    def next(self) -> int:
        if self.pos == len(self.buffer):
            self.buffer = [int(w) for w in self.blocks.next_block()]
            self.pos = 0
        word = self.buffer[self.pos]
        self.pos += 1
        return word


def _below(words: _Words, n: int) -> int:
    """Uniform on {0, ..., n-1} by Lemire's multiply-and-reject (n == 1: no word): w * n = hi 2^64 + lo;
    redraw while lo < (2^64 - n) mod n; return hi.  Exact, and almost always one word."""
    if n == 1:
        return 0
    product = words.next() * n
    low = product & MASK64
    if low < n:
        threshold = (2**64 - n) % n
        while low < threshold:
            product = words.next() * n
            low = product & MASK64
    return product >> 64


def _below32(words: _Words, x: int, n: int) -> int:
    """Uniform on {0, ..., n-1} (n < 2^31) from 32 uniform bits x by Lemire's method: x n = hi 2^32 + lo; hi
    unless lo < (2^32 - n) mod n (probability < n / 2^32), in which case a fresh ``_below(words, n)`` decides
    (every hi keeps exactly floor(2^32 / n) values of x, so hi is uniform given acceptance)."""
    product = x * n
    low = product & MASK32
    if low < n and low < (2**32 - n) % n:
        return _below(words, n)
    return product >> 32


def _less(words: _Words, a: int, b: int) -> int:
    """[W < a/b] for a fresh uniform real W = sum_i w_i 2^(-64 i) read word by word (0 <= a, 0 < b < 2^63).

    With the next word w, W < a/b iff W' b < c = a 2^64 - w b (W' the uniform rest): false if c <= 0, true if
    c >= b, else the same question for c/b.  Exact; a second word is needed with probability < b / 2^64."""
    while True:
        if a <= 0:
            return 0
        if a >= b:
            return 1
        a = a * 2**64 - words.next() * b


def _compare(words: _Words, w: int, a: int, b: int, bits: int = 64) -> int:
    """[W < a/b] for a uniform W whose first ``bits`` bits w are already read: c = a 2^bits - w b; false if c <= 0,
    true if c >= b, else [W' < c/b] for the uniform rest W' (``_less``)."""
    c = a * 2**bits - w * b
    if c <= 0:
        return 0
    if c >= b:
        return 1
    return _less(words, c, b)


def _bernoulli_exp_one(words: _Words, w: int | None = None, bits: int = 64) -> int:
    """Bernoulli(e^-1) from (almost always) the first ``bits`` bits w of one uniform (a fresh word unless given)
    [CKS20 Algorithm 1, gamma = 1]

    Algorithm 1 returns [K odd], K the first k with A_k = 0, A_k ~ Bernoulli(1/k) independent, so
    P(K > k) = 1/k!.  K = min{k >= 1 : W >= 1/k!} for ONE uniform W has the same law (nested events), and
    P(K odd) = sum_{k odd} (1/(k-1)! - 1/k!) = e^-1.  W < 1/k! is read off w (W in [w, w + 1) / 2^bits) while
    k! < 2^bits (k <= 20 for 64 bits, k <= 12 for 32) unless w = floor(2^bits/k!) (then W' < (2^bits - w k!)/k!
    decides for the uniform rest W', and W >= 1/(k+1)! surely).  Past that k (k! > 2^bits), W's own bits decide
    W < 1/k! once more (false unless w = 0: W >= 2^-bits > 1/k!; for w = 0, [W' < 2^bits/k!]); only given
    W < 1/k! is W uniform on [0, 1/k!), so that the further A_j ~ Bernoulli(1/j), j > k, are drawn independently.
    (Drawing A_k itself independently would give P(K > k | w) = 1/k for every w of the last region, where the
    true value is 0 for w >= 1: P(success) 1.6e-11 too high from 32 bits.)"""
    if w is None:
        w, bits = words.next(), 64
    top = 2**bits
    k = 2
    while math.factorial(k) < top:
        f = math.factorial(k)
        if w * f >= top:  # W >= w / 2^bits >= 1/k!
            return k & 1
        if (w + 1) * f <= top:  # W < (w + 1) / 2^bits <= 1/k!
            k += 1
            continue
        return (k + _less(words, top - w * f, f)) & 1
    if not _compare(words, w, 1, math.factorial(k), bits):  # W >= 1/k! (surely when w >= 1)
        return k & 1
    k += 1
    while _less(words, 1, k):
        k += 1
    return k & 1


def _bernoulli_exp_fraction(words: _Words, num: int, den: int, word: int | None = None) -> int:
    """Bernoulli(exp(-num/den)) for 0 <= num/den <= 1   [CKS20 Algorithm 1, gamma in [0, 1]]

    A_k ~ Bernoulli(gamma / k) is [W_k < num / (k den)] for a uniform W_k.  The first DIGIT_BITS = 16 bits of
    W_1, ..., W_4 are the four 16-bit digits of one word (W_1 from the top; disjoint bits, so independent), read
    up front so that fast.mechanisms decides A_1..A_4 without branching (digits of A's not reached are discarded,
    which leaves the law unchanged); A_1..A_4 are decided in order (a tie, probability 2^-16, reads further words
    for the rest of that W_k), then A_5, A_6, ... from one word each.  For k >= ONE_WORD_K (k den < 2^63 below
    it, as den <= 2^51: t <= MAX_SCALE, or 2 s2 t^2 < 2^50; probability < 1/4095!) A_k is drawn as [W < 1/k]
    and [W' < num/den].  ``word``: the word of the four digits, when the caller has read it (else the next word)."""
    if word is None:
        word = words.next()
    for k in range(1, 5):
        digit = (word >> (64 - DIGIT_BITS * k)) & (2**DIGIT_BITS - 1)
        if not _compare(words, digit, num, k * den, DIGIT_BITS):
            return k & 1
    k = 5
    while True:
        if k < ONE_WORD_K:
            a = _less(words, num, k * den)
        else:
            a = _less(words, 1, k) and _less(words, num, den)
        if not a:
            return k & 1
        k += 1


def _geometric_e(words: _Words) -> int:
    """V with P(V >= v) = e^-v: the number of Bernoulli(e^-1) successes before the first failure [CKS20 Alg. 2,
    step V].  The first words of the first three trials are read up front (as in _bernoulli_exp_fraction)."""
    first = [words.next() for _ in range(3)]
    for v, w in enumerate(first):
        if not _bernoulli_exp_one(words, w):
            return v
    v = 3
    while _bernoulli_exp_one(words):
        v += 1
    return v


def _discrete_laplace(words: _Words, t: int, v_max: int) -> int:
    """Z ~ DLap(t): P(z) ∝ exp(-|z|/t), z in Z   [CKS20 Algorithm 2 with s = 1]; V > v_max is redrawn.

    U uniform on [0, t) and the sign B come from one uniform S on [0, 2t) (U = S // 2, B = S mod 2, independent)."""
    while True:
        s = _below(words, 2 * t)
        u, b = s >> 1, s & 1
        if not _bernoulli_exp_fraction(words, u, t):
            continue
        v = _geometric_e(words)
        if v > v_max:
            continue
        x = u + t * v
        if b == 1 and x == 0:
            continue
        return (1 - 2 * b) * x


def _leading_successes(words: _Words, queue: list[int], limit: int | None) -> int:
    """How many Bernoulli(e^-1) trials succeed before the first failure (at most ``limit``; None: no limit): each
    trial takes the 32 uniform bits at the front of ``queue`` (removed; ``_bernoulli_exp_one(.., bits=32)``), or a
    fresh word once the queue is empty.  With no limit this is V of CKS20 Algorithm 2 (P(V >= v) = e^-v)."""
    count = 0
    while limit is None or count < limit:
        if queue:
            success = _bernoulli_exp_one(words, queue.pop(0), 32)
        else:
            success = _bernoulli_exp_one(words)
        if not success:
            break
        count += 1
    return count


def _discrete_gaussian(main: _Words, extra: _Words, s2: int, t: int, v_max: int) -> int:
    """Y ~ N_Z(0, s2): P(y) ∝ exp(-y^2 / (2 s2))   [CKS20 Algorithm 3 (sigma^2 = s2 integer, t = floor(sigma)+1)
    with its proposal, Algorithm 2, written in]

    Algorithm 3 proposes Y ~ DLap(t) and keeps it with probability exp(-(|Y| - s2/t)^2 / (2 s2)); Algorithm 2
    makes Y from U uniform on {0..t-1} kept with probability exp(-U/t), V geometric (P(V >= v) = e^-v), a sign
    B, X = U + t V, Y = (1 - 2B) X, with B = 1, X = 0 refused.  Given (U, V, B) the two Bernoulli tests are
    independent, so keeping the proposal iff both pass is ONE test of the product,
        keep with probability exp(-gamma),  gamma = U/t + c^2/(2 s2 t^2) = (2 s2 t U + c^2) / (2 s2 t^2),
    c = X t - s2, and the kept Y has exactly the law of Algorithm 3 (a rejection sampler's output law depends only
    on proposal x acceptance probability).  Bernoulli(exp(-gamma)) is floor(gamma) Bernoulli(e^-1) trials and
    Bernoulli(exp(-frac(gamma))) (CKS20 Alg. 1).  V > v_max (X t > 2^31) is refused: the documented truncation.

    Words: every attempt reads FOUR words of ``main`` up front, w0..w3 (disjoint bit fields of uniform words are
    independent uniforms):
      w0 high 32 bits: S = (U, B) uniform on [0, 2t) (``_below32``);
      w2: the four 16-bit digits of A_1..A_4 of the fraction test (``_bernoulli_exp_fraction``);
      w0 low, w1 high, w1 low, w3 high, w3 low (32 bits each): a queue of five uniforms that the Bernoulli(e^-1)
      trials of V, and then those of the whole part, take in order (``_leading_successes``).
    Everything else (a refused Lemire draw, a tied digit or half, trials past the queue, the fraction test's
    A_5...) is read from ``extra`` in the order of the steps.  So each
    attempt is a function of its four main words and its own extra words: attempts are independent, and
    ``fast.mechanisms`` decides them in batches from the same words (extra read in attempt order)."""
    while True:
        y = _gaussian_attempt(main, extra, s2, t, v_max)
        if y is not None:
            return y


def _gaussian_attempt(main: _Words, extra: _Words, s2: int, t: int, v_max: int) -> int | None:
    """One attempt of ``_discrete_gaussian``: the kept Y, or None when the proposal is refused."""
    w0, w1, w2, w3 = main.next(), main.next(), main.next(), main.next()
    s = _below32(extra, w0 >> 32, 2 * t)
    u, b = s >> 1, s & 1
    queue = [w0 & MASK32, w1 >> 32, w1 & MASK32, w3 >> 32, w3 & MASK32]
    v = _leading_successes(extra, queue, None)
    if v > v_max:
        return None
    x = u + t * v
    if b == 1 and x == 0:
        return None
    c = x * t - s2
    den = 2 * s2 * t * t
    whole, frac = divmod(2 * s2 * t * u + c * c, den)
    if _leading_successes(extra, queue, whole) < whole:
        return None
    if not _bernoulli_exp_fraction(extra, frac, den, w2):
        return None
    return (1 - 2 * b) * x


def _gaussian_streams(rng) -> tuple[_Words, _Words]:
    """(main, extra): the main words of ``rng``, and the stream keyed by the first KEY_WORDS of them."""
    main = _Words(rng)
    key = [main.next() for _ in range(KEY_WORDS)]
    return main, _Words(None, KeyedBlocks(key))


# ---------------------------------------------------------------------------------------------------------
# the exact discrete Gaussian at any rational variance (big integers)
# ---------------------------------------------------------------------------------------------------------
#: at most this variance the draws are int64 (|Y| >= 2^62 is redrawn: total variation < 2 exp(-2^23)); above it they
#: are Python ints (object arrays), with no truncation at all
INT64_SIGMA2 = 2**100
#: |Y| of an int64 draw stays below this (so the release kernel's noise bound |n| < 2^62 holds)
INT64_NOISE_BOUND = 2**62


def _big_below(words, n: int) -> int:
    """Uniform on {0, ..., n-1} for any n >= 1 by Lemire's multiply-and-reject on L = 64 ceil(bits(n) / 64) bits
    (L / 64 words, the most significant first): x n = hi 2^L + lo, redrawn while lo < (2^L - n) mod n; for n < 2^64
    this is ``_below`` word for word."""
    if n == 1:
        return 0
    count = (n.bit_length() + 63) // 64
    bits = 64 * count
    mask = (1 << bits) - 1
    threshold = None
    while True:
        x = 0
        for _ in range(count):
            x = (x << 64) | words.next()
        product = x * n
        low = product & mask
        if low >= n:
            return product >> bits
        if threshold is None:
            threshold = ((1 << bits) - n) % n
        if low >= threshold:
            return product >> bits


def _big_less(words, a: int, b: int) -> int:
    """[W < a/b] for a fresh uniform W read word by word, any integers a >= 0, b > 0 (``_less`` without its size
    bound): with the next word w, W < a/b iff W' < (a 2^64 - w b)/b for the uniform rest W'; a further word is
    needed only when 0 < a 2^64 - w b < b, which one value of w at most allows (probability <= 2^-64)."""
    while True:
        if a <= 0:
            return 0
        if a >= b:
            return 1
        a = (a << 64) - words.next() * b


def _big_bernoulli_exp_fraction(words, num: int, den: int) -> int:
    """Bernoulli(exp(-num/den)), 0 <= num <= den   [CKS20 Algorithm 1]: K = the first k with A_k = 0, A_k ~
    Bernoulli(gamma / k) = [W_k < num / (k den)]; returns [K odd]."""
    k = 1
    while _big_less(words, num, k * den):
        k += 1
    return k & 1


def _big_bernoulli_exp(words, num: int, den: int) -> int:
    """Bernoulli(exp(-num/den)) for any num >= 0, den > 0   [CKS20 Algorithm 1, gamma > 1]: floor(gamma) trials of
    Bernoulli(e^-1), then Bernoulli(exp(-(gamma - floor(gamma))))."""
    while num > den:
        if not _big_bernoulli_exp_fraction(words, 1, 1):
            return 0
        num -= den
    return _big_bernoulli_exp_fraction(words, num, den)


def _big_discrete_laplace(words, t: int) -> int:
    """Z ~ DLap(t), any integer t >= 1   [CKS20 Algorithm 2, s = 1]: S uniform on [0, 2t) gives U = S // 2 and the
    sign B = S mod 2; U kept with probability exp(-U/t); V = the Bernoulli(e^-1) successes before the first failure;
    X = U + t V; B = 1, X = 0 refused."""
    while True:
        s = _big_below(words, 2 * t)
        u, b = s >> 1, s & 1
        if not _big_bernoulli_exp_fraction(words, u, t):
            continue
        v = 0
        while _big_bernoulli_exp_fraction(words, 1, 1):
            v += 1
        x = u + t * v
        if b == 1 and x == 0:
            continue
        return x if b == 0 else -x


def _big_discrete_gaussian(words, p: int, q: int, t: int, bound) -> int:
    """Y ~ N_Z(0, p/q)   [CKS20 Algorithm 3, sigma^2 = p/q rational, t = floor(sigma) + 1]: Y ~ DLap(t) kept with
    probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| q t - p)^2 / (2 p q t^2)); every step an exact
    comparison of integers.  ``bound`` (int64 draws): |Y| >= bound is redrawn."""
    den = 2 * p * q * t * t
    while True:
        y = _big_discrete_laplace(words, t)
        c = abs(y) * q * t - p
        if _big_bernoulli_exp(words, c * c, den) and (bound is None or abs(y) < bound):
            return y


def _exact_gaussian_draws(p: int, q: int, n: int, rng) -> list:
    """n draws of N_Z(0, p/q) by the big-integer sampler from the word stream of ``rng`` (``spec.words``; OS entropy
    for None): int64-bounded (|Y| < 2^62) when p/q <= INT64_SIGMA2."""
    words = _Words(rng)
    t = math.isqrt(p // q) + 1
    bound = INT64_NOISE_BOUND if p <= INT64_SIGMA2 * q else None
    return [_big_discrete_gaussian(words, p, q, t, bound) for _ in range(n)]


def _check_sigma2(sigma2) -> tuple[int, int]:
    """sigma2 as (p, q) in lowest terms: an integer >= 1 (the integer rule of ``check_int``, floats refused) or a
    positive Fraction."""
    number = scalar_of(sigma2)
    if isinstance(number, Fraction):
        if not number > 0:
            raise ValueError(f"sigma2 must be a positive rational, got {number}")
        return number.numerator, number.denominator
    return check_int(sigma2, "sigma2", minimum=1), 1


def _fast_path(p: int, q: int) -> bool:
    """The word-batched sampler of integer variances up to MAX_SIGMA2 (a function of sigma2 alone: public)."""
    return q == 1 and p <= MAX_SIGMA2


def _laplace_v_max(t: int) -> int:
    return (2**62) // t - 1


def _gaussian_t_vmax(s2: int) -> tuple[int, int]:
    t = math.isqrt(s2) + 1
    return t, GAUSSIAN_PROPOSAL_LIMIT // (t * t) - 1


def _check_scale(value, name: str, maximum: int) -> int:
    return check_int(value, name, minimum=1, maximum=maximum)


def _size(size):
    return None if size is None else check_int(size, "size", minimum=0)


def sample_discrete_laplace(scale, size=None, rng=None):
    """Z ~ DLap(scale): P(z) = (e^{1/t} - 1)/(e^{1/t} + 1) * exp(-|z|/t), integer t = scale   [CKS20 Alg. 2]

    ``scale`` is an integer in [1, 2^51].  Returns a Python int (size None) or an int64 array.  Exact up to
    the documented truncation of V > 2^62 // scale - 1 (total variation < 2 exp(-2047)).

    Parameters
    ----------
    scale : int
        The scale t, an integer in [1, 2**51].
    size : int, optional
        Number of draws; None returns one Python int.
    rng : None or numpy.random.Generator, optional
        Source of random words (None: OS entropy).

    Returns
    -------
    int or numpy.ndarray
        One draw, or an int64 array of ``size`` draws.

    Raises
    ------
    ValueError
        If ``scale`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.mechanisms import sample_discrete_laplace
    >>> z = sample_discrete_laplace(3, size=4, rng=np.random.default_rng(0))
    >>> z.shape, z.dtype
    ((4,), dtype('int64'))
    """
    t = _check_scale(scale, "scale", MAX_SCALE)
    n = _size(size)
    words = _Words(rng)
    v_max = _laplace_v_max(t)
    draws = [_discrete_laplace(words, t, v_max) for _ in range(1 if n is None else n)]
    return draws[0] if n is None else np.array(draws, dtype=np.int64)


def sample_discrete_gaussian(sigma2, size=None, rng=None):
    """Y ~ N_Z(0, sigma2): P(y) ∝ exp(-y^2 / (2 sigma2)), any rational sigma2 > 0   [CKS20 Algorithm 3]

    Two exact samplers; which one runs depends on sigma2 alone (public), never on data:

    * an integer sigma2 <= MAX_SIGMA2 = 2^24: the word-batched sampler (``_discrete_gaussian``; ``fast.mechanisms``
      decides its attempts without branching), exact up to the truncation of the proposal at |Y| t > 2^31 (total
      variation < exp(-510));
    * any other sigma2 (an integer above 2^24, or a Fraction): CKS20 Algorithms 1-3 on Python integers
      (``_big_discrete_gaussian``), every step an integer comparison, from the same word stream (``spec.words``: OS
      entropy for rng None).  Up to INT64_SIGMA2 = 2^100 the draws are int64 and |Y| >= 2^62 is redrawn (total
      variation < 2 exp(-2^23)); above it they are exact Python ints (an object array).

    Parameters
    ----------
    sigma2 : int or fractions.Fraction
        The variance parameter: an integer >= 1 or a positive Fraction.
    size : int, optional
        Number of draws; None returns one Python int.
    rng : None or numpy.random.Generator, optional
        Source of random words (None: OS entropy).

    Returns
    -------
    int or numpy.ndarray
        One draw, or an array of ``size`` draws (int64; object for sigma2 > 2^100).

    Raises
    ------
    ValueError
        If ``sigma2`` is not positive.
    TypeError
        If ``sigma2`` is neither an integer nor a Fraction.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from reference.mechanisms import sample_discrete_gaussian
    >>> sample_discrete_gaussian(4, size=5, rng=np.random.default_rng(0)).shape
    (5,)
    >>> sample_discrete_gaussian(2**80 + Fraction(1, 3), size=2, rng=np.random.default_rng(0)).dtype
    dtype('int64')
    """
    p, q = _check_sigma2(sigma2)
    n = _size(size)
    count = 1 if n is None else n
    if _fast_path(p, q):
        main, extra = _gaussian_streams(rng)
        t, v_max = _gaussian_t_vmax(p)
        draws = [_discrete_gaussian(main, extra, p, t, v_max) for _ in range(count)]
    else:
        draws = _exact_gaussian_draws(p, q, count, rng)
    if n is None:
        return draws[0]
    return np.array(draws, dtype=np.int64 if p <= INT64_SIGMA2 * q else object)


# ---------------------------------------------------------------------------------------------------------
# grids and calibration
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LaplaceGrid:
    """The discretisation of ``laplace_mechanism`` and its exact guarantee.

    Calibration of the discrete Laplace mechanism (returned by :func:`laplace_grid`).

    Parameters
    ----------
    k : int
        Grid exponent: outputs are multiples of ``2**k``.
    granularity : float
        The grid step ``2**k``.
    integer_sensitivity : int
        Sensitivity in grid units, ``floor(sensitivity / 2**k) + dimension``.
    scale : int
        Discrete Laplace scale ``t = ceil(integer_sensitivity / epsilon)``.
    epsilon_effective : float
        The delivered epsilon ``integer_sensitivity / scale`` (at most the requested one).
    truncation_delta : float
        Probability mass lost to the bounded sampler (a delta, about 1e-323).
    """

    k: int  # grid Lambda = 2^k
    granularity: float  # 2^k (0.0 / inf only when 2^k is outside the float range)
    integer_sensitivity: int  # D = floor(sensitivity / 2^k) + d: L1 shift on the grid of d rounded coordinates
    scale: int  # t = ceil(D / epsilon), noise scale in grid units
    epsilon_effective: float  # D / t rounded up; <= epsilon
    truncation_delta: float  # 2 exp(-v_max) bound on the total variation of the truncation


@dataclass(frozen=True)
class GaussianGrid:
    """The discretisation of ``gaussian_mechanism`` and its guarantee.

    Calibration of the discrete Gaussian mechanism (returned by :func:`gaussian_grid`).

    Parameters
    ----------
    k : int
        Grid exponent: outputs are multiples of ``2**k``.
    granularity : float
        The grid step ``2**k``.
    sensitivity_inflated : float
        L2 sensitivity inflated by the rounding to the grid.
    sigma : float
        Standard deviation calibrated for ``sensitivity_inflated``.
    sigma2_grid : int
        Variance in grid units, ``ceil((sigma / 2**k)**2)``.
    rho : float
        zCDP parameter of the delivered noise.
    calibration : str
        The calibration used: ``"zcdp"``, ``"analytic"`` or ``"classic"``.
    """

    k: int  # grid Lambda = 2^k
    granularity: float
    sensitivity_inflated: float  # Delta' (L2, in value units)
    sigma: float  # continuous-calibrated sigma for Delta'
    sigma2_grid: int  # s2 = ceil((sigma / 2^k)^2), variance in grid units
    rho: float  # zCDP: Delta'^2 / (2 s2 4^k), rounded up
    calibration: str


def _ceil_log2(q: Fraction) -> int:
    """Smallest k with 2^k >= q > 0 (exact)."""
    k = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** k < q:
        k += 1
    while Fraction(2) ** (k - 1) >= q:
        k -= 1
    return k


def _float_up(q: Fraction) -> float:
    """The smallest double >= q."""
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)

def _sensitivity_grid_exponent(delta_s: float, d: int) -> int:
    """The largest k with 2^k sqrt(d) <= Delta 2^-GAUSSIAN_GRID_BITS, exactly: 4^k d <= Delta^2 2^-20, i.e.
    k = floor(log2(Delta^2 / (d 2^20))) // 2 (2k <= log2 q iff 2k <= floor(log2 q))."""
    q = Fraction(delta_s) ** 2 / (d * 2 ** (2 * GAUSSIAN_GRID_BITS))
    floor_log2 = _ceil_log2(q) - (0 if Fraction(2) ** _ceil_log2(q) == q else 1)
    return floor_log2 // 2


def _s2_up(s2: int) -> int:
    """s2 rounded UP to GAUSSIAN_S2_BITS significant bits (more noise, never less; s2 < 2^25 unchanged).  sigma is
    a bisection's result, known to ~1e-13 (fast's analytic sigma differs from this one by that much), so the low
    bits of a large s2 = ceil((sigma / 2^k)^2) would carry no information and make seeded reference and fast draws
    differ."""
    shift = s2.bit_length() - GAUSSIAN_S2_BITS
    return s2 if shift <= 0 else -(-s2 >> shift) << shift


def _grid_on(k: int, delta_s: float, d: int, calibrate, eps: float, dl: float) -> tuple[float, float, int]:
    """(Delta', sigma(Delta'), s2) on the grid 2^k: Delta' = 2^k (floor(Delta / 2^k) + 1) for d = 1, else
    Delta + 2^k sqrt(d) (rounded up); s2 = ceil((sigma / 2^k)^2) rounded up to 25 significant bits."""
    lam = Fraction(2) ** k
    if d == 1:
        inflated = _float_up((math.floor(Fraction(delta_s) / lam) + 1) * lam)
    else:
        inflated = math.nextafter(delta_s + float(lam) * math.sqrt(d) * (1 + 2**-50), math.inf)
    sigma = calibrate(inflated, eps, dl)
    return inflated, sigma, _s2_up(math.ceil((Fraction(sigma) / lam) ** 2))

def _finite_sigma(sigma: float) -> float:
    """sigma itself, or a ValueError from 2^1020 on (2 sigma and the profile's arguments would overflow)."""
    if not sigma < 2.0**1020:
        raise ValueError("sigma overflows the float range: sensitivity / epsilon too large for a Gaussian mechanism")
    return sigma


def _pow2(k: int) -> float:
    try:
        return math.ldexp(1.0, k)
    except OverflowError:
        return math.inf


@implements("nock2015.eq15")
def laplace_grid(sensitivity, epsilon, *, dimension=1) -> LaplaceGrid:
    """Lambda = 2^ceil(log2(b / 2^40)), b = sensitivity/epsilon; D = floor(sensitivity/Lambda) + d; t = ceil(D/epsilon)
    [Google Secure_Noise_Generation; CKS20 Sec. 2 (geometric mechanism is (D/t)-DP for integer sensitivity D)]

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity (> 0) of the released value.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    dimension : int, default=1
        Number of released coordinates (each rounding may add one grid unit).

    Returns
    -------
    LaplaceGrid
        The grid exponent, integer sensitivity and discrete Laplace scale.

    Raises
    ------
    ValueError
        If ``sensitivity`` or ``epsilon`` is not positive and finite, or the scale exceeds ``2**51``.

    Examples
    --------
    >>> from reference.mechanisms import laplace_grid
    >>> g = laplace_grid(1.0, 1.0)
    >>> g.granularity == 2.0 ** g.k, g.scale == g.integer_sensitivity
    (True, True)
    """
    delta_q = Fraction(check_positive(sensitivity, "sensitivity"))
    eps_q = Fraction(check_positive(epsilon, "epsilon"))
    if eps_q < Fraction(1, 2**50):
        raise ValueError(f"epsilon must be >= 2^-50 for the discrete Laplace sampler, got {float(eps_q)}")
    k = _ceil_log2(delta_q / eps_q / 2**LAPLACE_GRID_BITS)
    lam = Fraction(2) ** k
    d = check_int(dimension, "dimension", minimum=1)
    d_int = math.floor(delta_q / lam) + d  # sum_i |round(x_i) - round(x'_i)| <= ||x - x'||_1 / Lambda + d
    t = math.ceil(Fraction(d_int) / eps_q)
    if t > MAX_SCALE:
        raise ValueError(f"epsilon too small for dimension {d}: noise scale {t} grid units exceeds 2^51")
    v_max = _laplace_v_max(t)
    return LaplaceGrid(k=k, granularity=_pow2(k), integer_sensitivity=d_int, scale=t,
                       epsilon_effective=_float_up(Fraction(d_int, t)),
                       truncation_delta=2.0 * math.exp(-min(v_max, 745)))


def _check_calibration(calibration):
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    return str(calibration)  # a plain str (numpy strings compare equal): the grid's field has one type


@implements("bun2020.lemma16")
def gaussian_grid(sensitivity, epsilon, delta, *, dimension=1, calibration="auto") -> GaussianGrid:
    """Lambda = 2^(floor(log2 sigma0) - 10); Delta' = Lambda*D (d = 1) or Delta + Lambda sqrt(d); s2 = ceil((sigma(Delta')/Lambda)^2)
    [CKS20 Thm 4 (rho = Delta'^2/(2 sigma^2)); Balle-Wang 2018 Thm 8 (analytic sigma)]

    Where that s2 exceeds 2^24 (sigma0 sqrt(d) / Delta above about 2^12, e.g. epsilon 1e-4 at delta 1e-5: Lambda
    would be coarser than Delta and Delta' more than 2 Delta; this used to be a ValueError), Lambda is the largest
    power of two with Lambda sqrt(d) <= Delta 2^-10 instead (Delta' <= Delta (1 + 2^-10)), and s2 (above 2^38) is
    drawn by the big-integer sampler; which rule applies depends on the public arguments alone.  Below that
    threshold the 10-bit rule is kept as it was, including its inflation (Delta' / Delta up to ~4 for d = 1, e.g.
    x2 at epsilon 1e-3, delta 1e-5; x3.5 at d = 1e5, epsilon 0.5, delta 1e-6).

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0) of the released value.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    delta : float or Fraction
        Privacy parameter in (0, 1).
    dimension : int, default=1
        Number of released coordinates (the rounding inflates the L2 sensitivity).
    calibration : {"auto", "zcdp", "analytic", "classic"}, default="auto"
        How sigma is calibrated (``"auto"``: the smallest safe sigma).

    Returns
    -------
    GaussianGrid
        The grid exponent, inflated sensitivity, sigma, integer variance and rho.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Examples
    --------
    >>> from reference.mechanisms import gaussian_grid
    >>> g = gaussian_grid(1.0, 1.0, 1e-5)
    >>> g.sensitivity_inflated > 1.0, round(g.sigma, 2)
    (True, 4.06)
    """
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    d = check_int(dimension, "dimension", minimum=1)
    method = _check_calibration(calibration)
    if method == "auto":
        # zCDP + tight conversion is a proof for the discrete Gaussian (CKS20 Thm 4, Prop. 12); the analytic
        # (continuous) calibration exceeds delta by up to 1.4e-6 relative on N_Z (exact profile check)
        method = "zcdp"
    calibrate = {"analytic": analytic_gaussian_sigma, "classic": classic_gaussian_sigma,
                 "zcdp": zcdp_gaussian_sigma}[method]
    sigma0 = calibrate(delta_s, eps, dl)
    k = math.frexp(sigma0)[1] - 1 - GAUSSIAN_GRID_BITS
    inflated, sigma, s2 = _grid_on(k, delta_s, d, calibrate, eps, dl)
    if s2 > MAX_SIGMA2:
        # sigma / Delta above ~2^12: 2^k ~ sigma 2^-10 is coarser than Delta and would inflate it up to x2^k sqrt(d)
        # / Delta; the grid follows Delta instead (inflation <= 2^-10) and s2 > 2^38 takes the big-integer sampler
        k = _sensitivity_grid_exponent(delta_s, d)
        inflated, sigma, s2 = _grid_on(k, delta_s, d, calibrate, eps, dl)
    lam = Fraction(2) ** k
    rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))
    return GaussianGrid(k=k, granularity=_pow2(k), sensitivity_inflated=inflated, sigma=sigma,
                        sigma2_grid=s2, rho=rho, calibration=method)


@implements("nock2015.eq15")
def classic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon, valid for epsilon < 1   [Dwork-Roth 2014, Thm A.1]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter in (0, 1).
    delta : float
        Privacy parameter in (0, 1).

    Returns
    -------
    float
        The classic sigma.

    Raises
    ------
    ValueError
        If ``epsilon`` >= 1 (Dwork-Roth Thm A.1 holds for epsilon < 1 only), or an input is out of
        range.

    Examples
    --------
    >>> from reference.mechanisms import classic_gaussian_sigma
    >>> round(classic_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    9.6896
    """
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    if eps >= 1.0:
        raise ValueError(f"epsilon must be < 1 for the classic Gaussian calibration (Dwork-Roth Thm A.1), got {eps}")
    return _finite_sigma(delta_s * math.sqrt(2.0 * math.log(1.25 / dl)) / eps)


def _log_gaussian_delta(sigma: float, delta_s: float, eps: float) -> float:
    """An upper bound of log delta(eps) of N(0, sigma^2) at L2 sensitivity Delta: the profile in 60-digit arithmetic
    (mpmath), raised by 1e-40 relative (far above the 60-digit error), its log rounded UP to a double (the nearest
    double, used before, could be below it: exp of it was up to ~1e-14 relative below the exact delta); -inf when the
    value is <= 0 in 60 digits."""
    with mpmath.workdps(60):
        a = mpmath.mpf(delta_s) / (2 * mpmath.mpf(sigma))
        b = eps * mpmath.mpf(sigma) / delta_s
        value = mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)
        if not value > 0:
            return -math.inf
        log_value = mpmath.log(value * (1 + mpmath.mpf(10) ** -40))
        f = float(log_value)
        return f if mpmath.mpf(f) >= log_value else math.nextafter(f, math.inf)


@implements("bun2020.lemma15")
def gaussian_delta(sigma, sensitivity, epsilon) -> float:
    """delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)
    [Balle-Wang 2018, Thm 8: the exact privacy profile of the Gaussian mechanism]

    Parameters
    ----------
    sigma : float
        Noise standard deviation (> 0).
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (>= 0).

    Returns
    -------
    float
        The exact delta of the Gaussian mechanism at ``epsilon``, rounded UP (never below it; within ~1e-13
        relative where delta > 1e-300).

    Examples
    --------
    >>> from reference.mechanisms import analytic_gaussian_sigma, gaussian_delta
    >>> gaussian_delta(analytic_gaussian_sigma(1.0, 0.5, 1e-5), 1.0, 0.5) <= 1e-5
    True
    """
    s = check_positive(sigma, "sigma")
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_real(epsilon, "epsilon", low=0.0)
    # exp of the rounded-up log, one ulp up (libm's exp is within one ulp): never below the exact delta
    return min(1.0, math.nextafter(math.exp(_log_gaussian_delta(s, delta_s, eps)), math.inf))


def _bisect_sigma(log_delta_of_sigma, log_target: float, lo: float, hi: float) -> float:
    """Smallest sigma (to 1e-12 relative) with log_delta(sigma) <= log_target; returns the upper end (conservative)."""
    hi = _finite_sigma(hi)
    while log_delta_of_sigma(hi) > log_target:
        lo, hi = hi, _finite_sigma(2.0 * hi)
    while log_delta_of_sigma(lo) <= log_target and lo > 1e-300:
        lo, hi = lo / 2.0, lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi) or hi - lo <= 1e-13 * hi:
            break
        if log_delta_of_sigma(mid) <= log_target:
            hi = mid
        else:
            lo = mid
    return hi


@implements("nock2015.eq15")
def analytic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """smallest sigma with Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta) <= delta
    [Balle-Wang 2018, Thm 8 / Alg. 1 (bisection; the returned sigma is on the safe side)]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).

    Returns
    -------
    float
        The analytic sigma (never smaller than the exact one).

    Examples
    --------
    >>> from reference.mechanisms import analytic_gaussian_sigma
    >>> round(analytic_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    7.0318
    """
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    return _bisect_sigma(lambda s: _log_gaussian_delta(s, delta_s, eps), math.log(dl), delta_s, delta_s)


def zcdp_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """sigma = Delta / sqrt(2 rho*), rho* the largest rho whose tight zCDP conversion gives (eps, delta)
    [Bun-Steinke 2016 Prop. 1.6 (Gaussian is Delta^2/(2 sigma^2)-zCDP); CKS20 Prop. 12]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).

    Returns
    -------
    float
        sigma calibrated through zCDP.

    Examples
    --------
    >>> from reference.mechanisms import zcdp_gaussian_sigma
    >>> round(zcdp_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    7.6672
    """
    from reference.accounting import zcdp_to_dp_rho

    delta_s = check_positive(sensitivity, "sensitivity")
    rho = zcdp_to_dp_rho(epsilon, delta)
    try:
        sigma = _float_up(Fraction(delta_s) / Fraction(math.sqrt(2.0 * rho)))
    except OverflowError:
        sigma = math.inf
    return _finite_sigma(sigma)


# ---------------------------------------------------------------------------------------------------------
# the mechanisms
# ---------------------------------------------------------------------------------------------------------
def _as_value(value):
    """A finite real number or numeric array: (flat list of floats, shape; None for a scalar)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"value must be a real number or a numeric array, got {type(value).__name__}")
    if isinstance(value, numbers.Real):
        return [check_real(value, "value")], None
    if isinstance(value, np.ndarray) and value.ndim == 0:  # a 0-d array is a scalar (returns a float)
        if value.dtype == bool:
            raise TypeError(f"value must be a real number or a numeric array, got dtype {value.dtype}")
        return [check_real(value.item(), "value")], None
    x = as_float_matrix(value, "value", ndim=max(1, np.ndim(value)))
    return [float(v) for v in x.ravel()], x.shape


def _round_to_grid(x: float, k: int) -> int:
    """round-half-even(x / 2^k), exact."""
    return round(Fraction(x) / (Fraction(2) ** k))


def _from_grid(z: int, k: int) -> float:
    """z * 2^k correctly rounded (one rounding, subnormals included), +-inf beyond the float range."""
    try:
        return float(Fraction(z) * Fraction(2) ** k)
    except OverflowError:
        return math.copysign(math.inf, z)


def _release(xs, shape, k, noises):
    out = [_from_grid(_round_to_grid(x, k) + z, k) for x, z in zip(xs, noises)]
    return out[0] if shape is None else np.array(out, dtype=np.float64).reshape(shape)


@implements("nock2015.eq15")
def laplace_mechanism(value, *, sensitivity, epsilon, rng=None, accountant=None):
    """M(x) = 2^k (round(x / 2^k) + Z), Z ~ DLap(t)^d exact: epsilon-DP for ||x - x'||_1 <= sensitivity
    [CKS20 Alg. 2; grid as in Google's secure noise; guarantee in the module docstring]

    ``value``: a real number or a 0-d array (returns a float), or a numeric array of ANY shape, 1-d, 2-d or more
    (returns float64 of that shape; each entry gets independent noise; ``sensitivity`` bounds the L1 norm of the
    difference over ALL entries of neighbouring values; D = floor(sensitivity/2^k) + d pays for rounding all d
    entries, so the L1 integer shift is <= D and the release is (D/t)-DP).  ``epsilon`` may be a Fraction (e.g. a part of
    ``accounting.split``): it is rounded DOWN to a double.  ``accountant`` (a BudgetAccountant or ZCDPAccountant)
    is charged the DELIVERED epsilon D/t exactly (a ZCDPAccountant: (D/t)^2/2) before any noise is drawn
    (BudgetExceeded, nothing drawn, if it does not fit).

    Parameters
    ----------
    value : float or array_like
        The exact value to release (any shape).
    sensitivity : float
        L1 sensitivity (> 0) over all entries.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    rng : None or numpy.random.Generator, optional
        Source of the noise words; None (the default) uses OS entropy, which a private release must use.
    accountant : BudgetAccountant or ZCDPAccountant, optional
        Charged the delivered epsilon before any noise is drawn.

    Returns
    -------
    float or numpy.ndarray
        The noisy value: a float for a scalar input, else float64 of the input's shape.

    Raises
    ------
    ValueError
        If ``sensitivity`` or ``epsilon`` is invalid, or the value is not finite.
    BudgetExceeded
        If ``accountant`` cannot afford the release (nothing is drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from reference.mechanisms import laplace_mechanism
    >>> noisy = laplace_mechanism(np.zeros((2, 3)), sensitivity=1.0, epsilon=1.0)
    >>> noisy.shape, noisy.dtype
    ((2, 3), dtype('float64'))
    >>> type(laplace_mechanism(3.0, sensitivity=1.0, epsilon=1.0))
    <class 'float'>
    """
    epsilon = calibration_float(epsilon)  # a Fraction (a part of split) rounds DOWN: never overspends
    xs, shape = _as_value(value)
    grid = laplace_grid(sensitivity, epsilon, dimension=len(xs))
    # the DELIVERED epsilon D/t, exactly (an integer ratio <= epsilon); refuses before any word is drawn; no
    # accountant: recorded in the default ledger (unless inside a private fit, whose charge covers this call)
    charge_release(accountant, Fraction(grid.integer_sensitivity, grid.scale), 0, label="laplace_mechanism")
    words = _Words(rng)
    v_max = _laplace_v_max(grid.scale)
    noises = [_discrete_laplace(words, grid.scale, v_max) for _ in xs]
    return _release(xs, shape, grid.k, noises)


@implements("nock2015.eq15", "bun2020.lemma16")
def gaussian_mechanism(value, *, sensitivity, epsilon, delta, rng=None, calibration="auto",
                       sensitivity_dimension=None, accountant=None):
    """M(x) = 2^k (round(x / 2^k) + Y), Y ~ N_Z(0, s2)^d exact: (epsilon, delta)-DP and rho-zCDP at L2 sensitivity
    [CKS20 Alg. 3; Balle-Wang 2018; guarantee in the module docstring and ``gaussian_grid``]

    ``sensitivity_dimension``: how many coordinates of ``value`` two neighbours may differ in (default: all);
    only those coordinates' rounding inflates the sensitivity (e.g. d for an (m, d) matrix of edge vectors
    whose neighbours differ in one row).

    ``value``: as :func:`laplace_mechanism` (any shape; a 0-d array is a scalar); ``sensitivity`` bounds the L2
    norm of the difference over ALL entries.  ``epsilon``/``delta`` may be Fractions (rounded DOWN).
    ``accountant`` is charged the calibrated (epsilon, delta) and the grid's rho before any noise is drawn.

    Parameters
    ----------
    value : float or array_like
        The exact value to release (any shape).
    sensitivity : float
        L2 sensitivity (> 0) over all entries.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    delta : float or Fraction
        Privacy parameter in (0, 1).
    rng : None or numpy.random.Generator, optional
        Source of the noise words; None (the default) uses OS entropy, which a private release must use.
    calibration : {"auto", "zcdp", "analytic", "classic"}, default="auto"
        How sigma is calibrated (see :func:`gaussian_grid`).
    sensitivity_dimension : int, optional
        Number of coordinates the rounding inflation is computed for (default: all entries).
    accountant : BudgetAccountant or ZCDPAccountant, optional
        Charged (epsilon, delta) and rho before any noise is drawn.

    Returns
    -------
    float or numpy.ndarray
        The noisy value: a float for a scalar input, else float64 of the input's shape.

    Raises
    ------
    ValueError
        If an argument is out of range or the value is not finite.
    BudgetExceeded
        If ``accountant`` cannot afford the release (nothing is drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from reference.mechanisms import gaussian_mechanism
    >>> gaussian_mechanism(np.zeros(4), sensitivity=1.0, epsilon=1.0, delta=1e-5).shape
    (4,)
    """
    epsilon = calibration_float(epsilon)  # a Fraction (a part of split) rounds DOWN: never overspends
    delta = calibration_float(delta)
    xs, shape = _as_value(value)
    dims = len(xs) if sensitivity_dimension is None else check_int(sensitivity_dimension, "sensitivity_dimension",
                                                                    minimum=1, maximum=max(1, len(xs)))
    grid = gaussian_grid(sensitivity, epsilon, delta, dimension=max(1, dims), calibration=calibration)
    # the (epsilon, delta) the grid is calibrated for, and its rho; refuses before any word is drawn; no accountant:
    # recorded in the default ledger (unless inside a private fit, whose charge covers this call)
    charge_release(accountant, Fraction(float(epsilon)), Fraction(float(delta)), rho=grid.rho,
                   label="gaussian_mechanism")
    if _fast_path(grid.sigma2_grid, 1):
        main, extra = _gaussian_streams(rng)
        t, v_max = _gaussian_t_vmax(grid.sigma2_grid)
        noises = [_discrete_gaussian(main, extra, grid.sigma2_grid, t, v_max) for _ in xs]
    else:  # s2 > 2^24 (public: a function of the grid alone): the exact big-integer sampler
        noises = _exact_gaussian_draws(grid.sigma2_grid, 1, len(xs), rng)
    return _release(xs, shape, grid.k, noises)


def unsafe_float_laplace(value, *, sensitivity, epsilon, rng=None):
    """UNSAFE (floating-point attackable, Mironov 2012): x + Laplace(sensitivity/epsilon) with numpy floats.

    Exists only for comparison and to be caught by the audit; never use it to release data.

    Parameters
    ----------
    value : float or array_like
        The exact value.
    sensitivity : float
        L1 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    rng : None, int or numpy.random.Generator, optional
        Seed or generator of the floating-point noise.

    Returns
    -------
    float or numpy.ndarray
        The noisy value (NOT private: floating-point noise leaks, Mironov 2012).

    Examples
    --------
    >>> import numpy as np
    >>> from reference.mechanisms import unsafe_float_laplace
    >>> unsafe_float_laplace(np.zeros(3), sensitivity=1.0, epsilon=1.0, rng=0).shape
    (3,)
    """
    b = check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")
    xs, shape = _as_value(value)
    gen = as_generator(rng)
    out = [x + float(gen.laplace(0.0, b)) for x in xs]
    return out[0] if shape is None else np.array(out, dtype=np.float64).reshape(shape)


def unsafe_float_gaussian(value, *, sensitivity, epsilon, delta, rng=None):
    """UNSAFE (floating-point attackable, Jin et al. 2022): x + N(0, sigma^2), sigma analytic, numpy floats.

    Exists only for comparison and to be caught by the audit; never use it to release data.

    Parameters
    ----------
    value : float or array_like
        The exact value.
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).
    rng : None, int or numpy.random.Generator, optional
        Seed or generator of the floating-point noise.

    Returns
    -------
    float or numpy.ndarray
        The noisy value (NOT private: floating-point noise leaks, Jin et al. 2022).

    Examples
    --------
    >>> import numpy as np
    >>> from reference.mechanisms import unsafe_float_gaussian
    >>> unsafe_float_gaussian(np.zeros(2), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0).shape
    (2,)
    """
    sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    xs, shape = _as_value(value)
    gen = as_generator(rng)
    out = [x + float(gen.normal(0.0, sigma)) for x in xs]
    return out[0] if shape is None else np.array(out, dtype=np.float64).reshape(shape)
