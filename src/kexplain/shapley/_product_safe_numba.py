"""Optional compiled finish of the product-game engine's flagged (pair, node) entries.

Drop-in for ``product._weighted_loo_integrals_safe``: for every flagged entry (k, l) it adds
(a_kj - b_kj) w_l prod_{i != j} g_ki(t_l) to ``out[k, j]`` in log space, with exact zeros counted:
with two or more zero factors every leave-one-out product is zero (the entry adds nothing), with
one zero factor only the left-out zero's product is nonzero.

Narrow kernels (an RBF with a small length scale, the sharp terms of a discretised Matérn kernel)
flag most of their pairs, so each flagged pair is first screened without logarithms: since
|g_ki(t)| <= M_i = max(|a_ki|, |b_ki|) on [0, 1], no entry of the pair exceeds
max_j |a_kj - b_kj| prod_{i != j} M_i.  When that is below ``_NEGLIGIBLE`` (far below the smallest
normal double, 2.2e-308, times 1e18: under the rounding of any result that is not itself
subnormal) the pair is skipped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: pairs whose every entry is below this are left out (see the module notes)
_NEGLIGIBLE = 1e-290


@njit(cache=True, nogil=True)
def _negligible(a, k, b, kb):  # pragma: no cover - compiled
    """Whether every entry of the pair of rows a[k], b[kb] is below _NEGLIGIBLE (or exactly zero)."""
    d = a.shape[1]
    mant = 1.0
    ex = 0
    n_zero = 0
    min_m = np.inf
    max_diff = 0.0
    for i in range(d):
        m = max(abs(a[k, i]), abs(b[kb, i]))
        diff = abs(a[k, i] - b[kb, i])
        if diff > max_diff:
            max_diff = diff
        if m == 0.0:
            n_zero += 1
            continue
        if m < min_m:
            min_m = m
        # mantissa and binary exponent kept apart, so that no partial product under/overflows
        f, e = math.frexp(m)
        mant *= f
        ex += e
        f, e = math.frexp(mant)
        mant = f
        ex += e
    if n_zero >= 2 or max_diff == 0.0:
        return True
    # log10 of max_j |a_j - b_j| prod_{i != j} M_i, bounded by dividing by the smallest nonzero M
    bound = np.log10(mant) + ex * np.log10(2.0) + np.log10(max_diff)
    if n_zero == 0:
        bound -= np.log10(min_m)
    return bound < np.log10(_NEGLIGIBLE)


@njit(cache=True, nogil=True)
def weighted_loo_integrals_safe(a, b, t, w, out, bad):  # pragma: no cover - compiled; tested via product.py
    """Pair k of rows a[k] and b[k % len(b)]: ``weighted_loo_integrals_rows_safe`` with a's rows in order."""
    weighted_loo_integrals_rows_safe(a, np.arange(out.shape[0]), b, t, w, out, bad)


@njit(cache=True, nogil=True)
def weighted_loo_integrals_rows_safe(a, ia, b, t, w, out, bad):  # pragma: no cover - compiled; tested via product.py
    """Pair k of rows a[ia[k]] and b[k % len(b)] (the compiled engine's pairs)."""
    K = ia.shape[0]
    d = a.shape[1]
    nb = b.shape[0]
    m = t.shape[0]
    lg = np.empty(d)
    for k in range(K):
        ka = ia[k]
        kb = k % nb
        flagged = False
        for l in range(m):
            if bad[k, l]:
                flagged = True
                break
        if not flagged or _negligible(a, ka, b, kb):
            continue
        for l in range(m):
            if not bad[k, l]:
                continue
            tl = t[l]
            n_zero = 0
            j0 = -1
            n_neg = 0
            total = 0.0
            for i in range(d):
                g = b[kb, i] + tl * (a[ka, i] - b[kb, i])
                if g == 0.0:
                    n_zero += 1
                    j0 = i
                    lg[i] = 0.0
                else:
                    if g < 0.0:
                        n_neg += 1
                    lg[i] = np.log(abs(g))
                    total += lg[i]
            if n_zero >= 2:
                continue
            wl = w[l]
            for j in range(d):
                if n_zero == 1 and j != j0:
                    continue
                g = b[kb, j] + tl * (a[ka, j] - b[kb, j])
                neg = n_neg - (1 if g < 0.0 else 0)
                val = np.exp(total - lg[j])
                if neg % 2 == 1:
                    val = -val
                out[k, j] += (a[ka, j] - b[kb, j]) * wl * val
