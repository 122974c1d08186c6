"""A tiny seeded generator whose whole state is one int, so clones are free.

SplitMix64: the same seed gives the same numbers on every Python version.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(new_state, value)``."""
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
