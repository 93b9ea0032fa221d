"""The stream of uniform 64-bit words that both packages' exact samplers consume (one contract, one code).

``WordBlocks(rng)`` hands out blocks of 64, 128, ..., 65536 words (then 65536 each); the samplers of
``reference.mechanisms`` and ``fast.mechanisms`` read them in the same order and fetch the same blocks, so
seeded reference and fast draws are equal and leave a Generator in the same state.

* ``rng=None`` (every privacy release by default): the first block (64 words) is read from ``os.urandom``
  itself (a scalar release never needs more); the later blocks are the keystream of AES-256 in counter mode
  (OpenSSL through ``cryptography``) under a key and initial counter of 48 bytes read from ``os.urandom``
  afresh for EVERY stream, i.e. for every mechanism call.  This is the construction of NIST SP 800-90A's CTR_DRBG (without its
  derivation function, which only matters for non-uniform seed material) and of the kernel's own getrandom
  (ChaCha20 keyed from its entropy pool): the words are computationally indistinguishable from uniform for
  anyone without the key, exactly as ``os.urandom``'s own output is.  At most 2^48 words are ever taken
  from one key (far below the 2^64-block bound of counter mode).  It is 17x faster than reading every word
  from ``os.urandom`` (about 1.1 ns against 19 ns per word here, ``benchmarks/bench_privacy.py``).
* a seed or ``numpy.random.Generator`` (tests and reproducible experiments only, never privacy):
  ``rng.integers(0, 2**64, size=block, dtype=uint64)``, the raw 64-bit outputs of its bit generator.
"""
from __future__ import annotations

import os

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from fast._contracts.validation import as_generator

__all__ = ["BLOCK_FIRST", "BLOCK_MAX", "KEY_WORDS", "WordBlocks", "KeyedBlocks", "os_keystream"]

BLOCK_FIRST, BLOCK_MAX = 64, 65536
#: words of a stream that key a second, independent stream (256 bits: an AES-256 key)
KEY_WORDS = 4
_ZEROS = bytes(8 * BLOCK_MAX)  # AES-CTR encrypts these: the ciphertext is the keystream


class os_keystream:  # noqa: N801 (a callable source, used like a function)
    """AES-256-CTR keystream as uint64 words; key and initial counter from ``os.urandom(48)`` unless given
    (given only by the known-answer test).  ``words(n)`` returns the next n words (little-endian bytes)."""

    def __init__(self, key: bytes | None = None, counter: bytes | None = None):
        key = os.urandom(32) if key is None else key
        counter = os.urandom(16) if counter is None else counter
        self._encryptor = Cipher(algorithms.AES(key), modes.CTR(counter)).encryptor()

    def words(self, n: int) -> np.ndarray:
        out = bytearray(8 * n + 15)  # update_into wants room for one more block than it writes
        view = memoryview(out)
        done = 0
        while done < 8 * n:
            chunk = min(8 * n - done, len(_ZEROS))
            written = self._encryptor.update_into(memoryview(_ZEROS)[:chunk], view[done:done + chunk + 15])
            if written != chunk:  # a stream cipher writes what it reads; anything else is a library fault
                raise RuntimeError(f"AES-CTR wrote {written} bytes of {chunk}")
            done += chunk
        return np.frombuffer(out, dtype=np.uint64, count=n)


class WordBlocks:
    """Blocks of uniform 64-bit words, 64, 128, ..., 65536 long: OS-keyed AES-CTR (rng None) or a Generator's words."""

    def __init__(self, rng):
        self._generator = None if rng is None else as_generator(rng)
        self._stream = None
        self._size = BLOCK_FIRST

    def next_block(self) -> np.ndarray:
        size = self._size
        self._size = min(2 * size, BLOCK_MAX)
        if self._generator is None:
            if size == BLOCK_FIRST:
                return np.frombuffer(os.urandom(8 * size), dtype=np.uint64)
            if self._stream is None:
                self._stream = os_keystream()
            return self._stream.words(size)
        return self._generator.integers(0, 2**64, size=size, dtype=np.uint64)


class KeyedBlocks:
    """A second word stream keyed by ``KEY_WORDS`` words of the first: the AES-256-CTR keystream under the key
    made of those words (little-endian bytes), initial counter 0, in blocks of 64, 128, ..., 65536 words.

    The discrete Gaussian sampler reads its fixed four words per attempt from the main stream and the words its
    rare cases need (ties, tails) from this one, so that attempts can be decided in batches (fast) or one by one
    (reference) from the same words.  The key words are uniform (OS entropy, or a seeded Generator in tests), so
    this stream is as good as the main one and independent of the rest of it.  The cipher is set up only when
    a first block is asked for (most small releases never need one)."""

    def __init__(self, key_words):
        key = np.asarray(key_words, dtype=np.uint64)
        if key.shape != (KEY_WORDS,):
            raise ValueError(f"key_words must be {KEY_WORDS} 64-bit words, got shape {key.shape}")
        self._key = key.astype("<u8").tobytes()
        self._stream = None
        self._size = BLOCK_FIRST

    def next_block(self) -> np.ndarray:
        if self._stream is None:
            self._stream = os_keystream(self._key, bytes(16))
        size = self._size
        self._size = min(2 * size, BLOCK_MAX)
        return self._stream.words(size)
