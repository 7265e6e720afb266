"""Gauss-Legendre rules on [0, 1], cached.

The Shapley weight s!(d-s-1)!/d! equals the Beta integral of t^s (1-t)^(d-1-s) over [0, 1], so
every product-game Shapley value is the integral of a polynomial in t; an m-node Gauss-Legendre
rule integrates polynomials of degree 2m - 1 exactly.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


@lru_cache(maxsize=256)
def gauss_legendre_01(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the ``n_nodes``-point Gauss-Legendre rule on [0, 1] (read-only arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.quadrature import gauss_legendre_01
    >>> t, w = gauss_legendre_01(2)
    >>> print(f"{np.sum(w * t**3):.6f}")                 # integral of t^3 over [0, 1], exact
    0.250000
    """
    if n_nodes < 1:
        raise ValueError(f"n_nodes must be a positive integer, got {n_nodes!r}.")
    x, w = np.polynomial.legendre.leggauss(int(n_nodes))
    t = 0.5 * (x + 1.0)
    w = 0.5 * w
    t.setflags(write=False)
    w.setflags(write=False)
    return t, w


def nodes_for_degree(degree: int) -> int:
    """Smallest number of Gauss-Legendre nodes that integrates a polynomial of ``degree`` exactly.

    Examples
    --------
    >>> from kexplain.shapley.quadrature import nodes_for_degree
    >>> nodes_for_degree(9)                             # d = 10 players: degree d - 1
    5
    """
    return max(1, (int(degree) + 2) // 2)
