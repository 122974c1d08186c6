"""The expert's leaf evaluation: the chance that the player about to move wins the round.

A logistic model on a few features of the two hands and the table, fitted by
``python tools/fit_leaf.py`` (a script of the repository, not part of the installed package) on
positions from lookahead-against-lookahead rounds (heads-up, default rules), at the start of a
turn (after its draw). With more opponents the chances against each are multiplied.
"""

from __future__ import annotations

import math

from ai.search.planning import Piles, open_mask
from kc_tui.engine import KINGS_MASK, QUEENS_MASK

#: Names of the features, in order (``x`` the player to move, ``y`` an opponent).
FEATURES = (
    "bias",
    "cards_x",
    "cards_y",
    "kings_x",
    "kings_y",
    "queens_x",
    "queens_y",
    "fit_x",
    "fit_y",
    "x_le2",
    "y_le2",
    "x_le4",
    "y_le4",
    "empty_sides",
    "empty_corners",
    "stock",
    "stock_0",
    "stock_le3",
    "diff_stock_le3",
    "kq_diff_stock_le3",
    "diff_stock_0",
)

#: Fitted weights (``python tools/fit_leaf.py``).
WEIGHTS: tuple[float, ...] = (
    0.2110,
    -0.0686,
    0.0625,
    -0.1259,
    0.0083,
    0.0648,
    -0.0917,
    0.1183,
    0.0043,
    -0.0338,
    0.7839,
    -0.1666,
    0.2117,
    0.0,
    -0.0302,
    -0.0206,
    -0.7182,
    0.1586,
    -0.0318,
    -0.1978,
    -0.0377,
)


def features(hx: int, hy: int, piles: Piles, stock: int) -> list[float]:
    """The features of a position where ``hx`` is to move and ``hy`` an opponent's hand."""
    fit, es, ec = open_mask(piles)
    cx = hx.bit_count()
    cy = hy.bit_count()
    kx = (hx & KINGS_MASK).bit_count()
    ky = (hy & KINGS_MASK).bit_count()
    qx = (hx & QUEENS_MASK).bit_count()
    qy = (hy & QUEENS_MASK).bit_count()
    fx = (hx & fit).bit_count() + (min(ec, kx) if ec else 0)
    fy = (hy & fit).bit_count() + (min(ec, ky) if ec else 0)
    low = float(stock <= 3)
    empty = float(stock == 0)
    return [
        1.0,
        float(cx),
        float(cy),
        float(kx),
        float(ky),
        float(qx),
        float(qy),
        float(min(fx, cx)),
        float(min(fy, cy)),
        float(cx <= 2),
        float(cy <= 2),
        float(cx <= 4),
        float(cy <= 4),
        float(es),
        float(ec),
        stock / 10.0,
        empty,
        low,
        low * (cy - cx),
        low * (kx + qx - ky - qy),
        empty * (cy - cx),
    ]


def logit(hx: int, hy: int, piles: Piles, stock: int, weights: tuple[float, ...] = WEIGHTS) -> float:
    """The model's log-odds that ``hx``, to move, wins against the hand ``hy``."""
    return sum(w * f for w, f in zip(weights, features(hx, hy, piles, stock), strict=True))


def win_chance(hx: int, others: list[int], piles: Piles, stock: int, weights: tuple[float, ...] = WEIGHTS) -> float:
    """The chance that ``hx``, to move, wins against the hands ``others``."""
    p = 1.0
    for hy in others:
        z = logit(hx, hy, piles, stock, weights)
        p *= 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    return p
