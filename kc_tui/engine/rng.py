"""A tiny seeded generator whose whole state is one int, so clones are free.

SplitMix64 for a seed of 64 bits: the same seed gives the same numbers on every Python version,
and anyone who knows the seed can recompute them (a seeded match is meant to be reproducible).

A *keyed* state (:func:`keyed_state`) draws from BLAKE2b keyed with a secret of 128 bits or
more, one block per number: without the key no number is predictable from the others. It is
one int too (a flag bit, the 128-bit key, a 64-bit counter), so it clones as freely.
"""

from __future__ import annotations

import hashlib

_MASK = (1 << 64) - 1
#: Set in every keyed state (and in no SplitMix64 state, which fits in 64 bits).
_KEYED = 1 << 192
_KEY_MASK = (1 << 128) - 1


def keyed_state(secret: int) -> int:
    """The state of a keyed stream for ``secret`` (a number of 128 bits or more, kept secret)."""
    key = hashlib.blake2b(_bytes(secret), digest_size=16, person=b"kc-stream").digest()
    return _KEYED | int.from_bytes(key, "big") << 64


def state_of(seed: int) -> int:
    """The first state for ``seed``: SplitMix64 for a 64-bit seed, keyed for a larger one."""
    return seed_state(seed) if seed <= _MASK else keyed_state(seed)


def derive(secret: int, label: str) -> int:
    """A 64-bit number drawn from ``secret`` for ``label`` (one way: it tells nothing of the secret)."""
    digest = hashlib.blake2b(label.encode(), key=_bytes(secret)[-64:], digest_size=8, person=b"kc-derive").digest()
    return int.from_bytes(digest, "big")


def derive_wide(secret: int, label: str) -> int:
    """A 256-bit number drawn from ``secret`` for ``label``, with its top bit set (so it is wider
    than any 64-bit seed and :func:`state_of` keys on it)."""
    digest = hashlib.blake2b(label.encode(), key=_bytes(secret)[-64:], digest_size=32, person=b"kc-derive").digest()
    return 1 << 256 | int.from_bytes(digest, "big")


def _bytes(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")


def seed_state(seed: int) -> int:
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(new_state, value)``."""
    if state > _MASK:
        key = ((state >> 64) & _KEY_MASK).to_bytes(16, "big")
        counter = state & _MASK
        block = hashlib.blake2b(counter.to_bytes(8, "big"), key=key, digest_size=8).digest()
        return (state & ~_MASK) | ((counter + 1) & _MASK), int.from_bytes(block, "big")
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def shuffle(items: list[int], state: int) -> int:
    """Fisher-Yates shuffle of ``items`` in place; return the new state."""
    for i in range(len(items) - 1, 0, -1):
        state, value = next_u64(state)
        j = value % (i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def below(n: int, state: int) -> tuple[int, int]:
    """A number in ``range(n)``: ``(new_state, value)``."""
    state, value = next_u64(state)
    return state, value % n
