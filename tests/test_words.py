"""The word stream of the exact samplers (spec/words.py): the AES-256-CTR keystream, its keys, the block schedule."""
import numpy as np
import pytest

import reference.mechanisms as R
import spec.words as W

# NIST SP 800-38A, F.5.5 CTR-AES256.Encrypt: key, initial counter block, plaintext blocks 1-4, ciphertext blocks 1-4
NIST_KEY = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
NIST_COUNTER = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
NIST_PLAIN = ("6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
              "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710")
NIST_CIPHER = ("601ec313775789a5b7a7f504bbf3d228" "f443e3ca4d62b59aca84e990cacaf5c5"
               "2b0930daa23de94ce87017ba2d84988d" "dfc9c58db67aada613c2dd08457941a6")


def test_keystream_matches_nist_known_answer():
    """The words are the AES-256-CTR keystream: XORed with the NIST plaintext they give the NIST ciphertext."""
    words = W.os_keystream(bytes.fromhex(NIST_KEY), bytes.fromhex(NIST_COUNTER)).words(8)
    stream = words.astype("<u8").tobytes()
    got = bytes(a ^ b for a, b in zip(stream, bytes.fromhex(NIST_PLAIN)))
    assert got == bytes.fromhex(NIST_CIPHER)


def test_unseeded_blocks_come_from_the_os(monkeypatch):
    """rng=None: the first block is os.urandom's bytes themselves; later blocks are AES-256-CTR under a key and
    counter read from os.urandom (48 bytes) for this stream only; block sizes 64, 128, ..., 65536."""
    calls = []

    def fake_urandom(n):
        calls.append(n)
        return bytes((len(calls) * 31 + i) % 256 for i in range(n))

    monkeypatch.setattr(W.os, "urandom", fake_urandom)
    blocks = W.WordBlocks(None)
    first = blocks.next_block()
    assert calls == [8 * W.BLOCK_FIRST]
    expected_first = bytes((1 * 31 + i) % 256 for i in range(8 * W.BLOCK_FIRST))
    assert first.astype("<u8").tobytes() == expected_first
    second = blocks.next_block()
    assert calls[1:] == [32, 16] and second.shape == (128,)
    key, counter = (bytes((k * 31 + i) % 256 for i in range(n)) for k, n in ((2, 32), (3, 16)))
    assert np.array_equal(second, W.os_keystream(key, counter).words(128))
    sizes = [blocks.next_block().shape[0] for _ in range(12)]
    assert sizes == [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 65536, 65536, 65536]
    assert len(calls) == 3  # one key per stream


def test_seeded_blocks_are_the_generators_raw_words():
    g = np.random.default_rng(5)
    blocks = W.WordBlocks(5)
    assert np.array_equal(blocks.next_block(), g.integers(0, 2**64, size=64, dtype=np.uint64))
    assert np.array_equal(blocks.next_block(), g.integers(0, 2**64, size=128, dtype=np.uint64))


def test_keyed_blocks_are_deterministic_and_checked():
    key = np.array([1, 2, 3, 2**64 - 1], dtype=np.uint64)
    a, b = W.KeyedBlocks(key), W.KeyedBlocks(key.copy())
    assert np.array_equal(a.next_block(), b.next_block())
    assert np.array_equal(a.next_block(), b.next_block())
    other = W.KeyedBlocks(np.array([1, 2, 3, 4], dtype=np.uint64))
    assert not np.array_equal(W.KeyedBlocks(key).next_block(), other.next_block())
    raw = key.astype("<u8").tobytes()
    assert np.array_equal(W.KeyedBlocks(key).next_block(), W.os_keystream(raw, bytes(16)).words(64))
    with pytest.raises(ValueError, match="key_words must be 4 64-bit words"):
        W.KeyedBlocks([1, 2, 3])


def test_keystream_bits_are_balanced():
    """A sanity check of the plumbing (not of AES): 2^20 words have each of the 64 bit positions set about half
    the time (within 6 standard errors), so no byte order or buffer slip leaves fixed bits."""
    words = W.os_keystream().words(2**20)
    bits = np.unpackbits(words.view(np.uint8)).reshape(-1, 64).mean(axis=0)
    assert np.all(np.abs(bits - 0.5) < 6 * 0.5 / np.sqrt(2**20))


def test_keystream_longer_than_a_block_is_the_plain_keystream():
    """words(n) for n > BLOCK_MAX (several update_into chunks) is the AES-CTR keystream itself: equal to the
    keystream of one big encryption, continuous across calls, every byte written (no stale buffer bytes)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key, ctr = bytes(range(32)), bytes(range(100, 116))
    n = 2 * W.BLOCK_MAX + 5
    got = W.os_keystream(key, ctr).words(n)
    enc = Cipher(algorithms.AES(key), modes.CTR(ctr)).encryptor()
    expected = np.frombuffer(enc.update(bytes(8 * n)) + enc.finalize(), dtype="<u8")
    assert got.shape == (n,) and np.array_equal(got, expected)
    split = W.os_keystream(key, ctr)
    assert np.array_equal(np.concatenate([split.words(W.BLOCK_MAX + 1), split.words(0), split.words(W.BLOCK_MAX + 4)]),
                          expected)


def test_every_unseeded_stream_has_its_own_key():
    """Two unseeded WordBlocks (and the keyed extra streams of two unseeded Gaussian calls) never share words:
    each AES stream is keyed afresh from os.urandom."""
    a, b = W.WordBlocks(None), W.WordBlocks(None)
    first_a, first_b = a.next_block(), b.next_block()
    second_a, second_b = a.next_block(), b.next_block()
    assert first_a.shape == (64,) and second_a.shape == (128,)
    assert not np.intersect1d(np.concatenate([first_a, second_a]), np.concatenate([first_b, second_b])).size
    assert a._stream._encryptor is not b._stream._encryptor
    ka, kb = W.KeyedBlocks(first_a[:4]), W.KeyedBlocks(first_b[:4])
    assert not np.intersect1d(ka.next_block(), kb.next_block()).size
    # the key words of the extra stream are not reused as main words: the main stream starts after them
    main, extra = R._gaussian_streams(3)
    assert main.pos == W.KEY_WORDS
