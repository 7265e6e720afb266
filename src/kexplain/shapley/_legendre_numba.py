"""The three-term Legendre recurrence of ``quadrature._legendre_pair``, compiled (numba, optional).

``quadrature`` computes a Gauss-Legendre rule of n nodes by Newton's method on the angles of its
roots, each step running the recurrence P_2 .. P_n at every root: O(n^2) arithmetic, which numpy
runs as n Python-level steps of a dozen small array operations each.  For the rules the engine
builds per d (every count up to 64, then a 9/8 ladder up to ceil(d/2)), that loop overhead was
the whole cost of a first call at large d: 2.9 s of rules at d = 4,000 against about 0.3 s of
arithmetic.  This is the same recurrence, element by element, with the same operations in the
same order (no fastmath, so no fused multiply-adds or reordering): the same numbers bit for bit
(tests/test_quadrature_first_call.py compares them).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def legendre_pair_split(n, y, x):  # pragma: no cover - compiled; tested against the numpy path
    """(P_n, P_{n-1}) at y = 1 - cos(theta) by the difference recurrence and at x = cos(theta) by
    the plain one, as ``quadrature._legendre_pair``'s two halves (n >= 2).

    The step k outside and the angles inside, as numpy runs it: each angle's recurrence is a chain
    of dependent divisions, and the angles side by side fill the vector lanes and the pipeline
    (element by element it ran 5x slower)."""
    a_prev = np.ones_like(y)
    a = 1.0 - y
    diff = -y
    b_prev = np.ones_like(x)
    b = x.copy()
    for k in range(2, n + 1):
        c1 = float(k - 1)
        c2 = float(2 * k - 1)
        ck = float(k)
        for i in range(y.shape[0]):
            di = (c1 * diff[i] - c2 * y[i] * a[i]) / ck
            diff[i] = di
            a_prev[i] = a[i]
            a[i] = a[i] + di
        for i in range(x.shape[0]):
            bi = (c2 * x[i] * b[i] - c1 * b_prev[i]) / ck
            b_prev[i] = b[i]
            b[i] = bi
    return a, a_prev, b, b_prev
