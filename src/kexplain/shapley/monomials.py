"""Exact Shapley values of a polynomial model in the interventional game, monomial by monomial.

A model that is a polynomial of degree p in x, f(x) = sum_alpha c_alpha x^alpha (the linear and
polynomial kernel models: sum_i coef_i P(gamma <x, X_i> + coef0) multiplied out), has the
interventional game over weighted background rows z

    v_x(S) = sum_alpha c_alpha E_z[prod_{j in S} x_j^alpha_j prod_{j in T \\ S} z_j^alpha_j],

T the support of alpha (at most p features).  Each monomial's game depends only on the players
in T, and the Shapley value and both pairwise indices (SII, STII) of a game carried by T are
those of the game on T alone: through the Moebius coefficients m(U) of the small game,
phi_j = sum_{U containing j} m(U) / |U|, SII_jk = sum_{U containing j, k} m(U) / (|U| - 1) and
STII_jk = sum_{U containing j, k} m(U) / C(|U|, 2) (Grabisch, 1997; Sundararajan, Dhamdhere &
Agarwal, 2020), none of which depends on d.  The background enters only through its moments
E_z prod_{j in U} z_j^alpha_j, computed once; each explained point then costs about
(number of monomials) x 2^p operations, independent of the number of background rows and
support vectors.  This is the cheap route for small degree and moderate d (the monomials number
C(d + p, p)); :mod:`kexplain.shapley.polynomial` is the route whose cost grows only linearly in d.

The baseline game is the same with one background row, the functional game of a dot-product
kernel with the row z = 0 (the kernel restricted to S is the kernel at x with the absent
features at zero).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np

from .._validation import check_interactions
from .interactions import interaction_layout
from .result import ShapleyValues


@dataclass
class MonomialGroup:
    """Monomials sharing one exponent pattern: c_g prod_t x_{support[g, t]}^exponents[t].

    Attributes
    ----------
    support : ndarray of int, shape (n_g, s)
        Distinct features of each monomial.
    exponents : tuple of int, length s
        Their exponents (each >= 1).
    coef : ndarray, shape (n_g, n_outputs)
        The monomials' coefficients.
    """

    support: np.ndarray
    exponents: tuple[int, ...]
    coef: np.ndarray


@cache
def _moebius(s: int) -> np.ndarray:
    """(2^s, 2^s): m(U) = sum_W mob[U, W] u(W), (-1)^{|U| - |W|} for W a subset of U."""
    n = 2**s
    mob = np.zeros((n, n))
    for U in range(n):
        for W in range(n):
            if W & ~U == 0:
                mob[U, W] = -1.0 if (bin(U).count("1") - bin(W).count("1")) % 2 else 1.0
    return mob


@cache
def _value_weights(s: int) -> np.ndarray:
    """(s, 2^s): phi_t = sum_W weights[t, W] u(W) = sum_{U containing t} m(U) / |U|."""
    n = 2**s
    share = np.zeros((s, n))
    for t in range(s):
        for U in range(1, n):
            if (U >> t) & 1:
                share[t, U] = 1.0 / bin(U).count("1")
    return share @ _moebius(s)


@cache
def _pair_weights(s: int, index: str) -> np.ndarray:
    """(pairs, 2^s), pairs (t1 < t2) in order: SII or STII of each pair as a combination of the u(W)."""
    n = 2**s
    rows = []
    for t1 in range(s):
        for t2 in range(t1 + 1, s):
            pair = (1 << t1) | (1 << t2)
            row = np.zeros(n)
            for U in range(n):
                if U & pair == pair:
                    size = bin(U).count("1")
                    row[U] = 1.0 / (size - 1) if index == "sii" else 1.0 / comb(size, 2)
            rows.append(row)
    return np.array(rows) @ _moebius(s)


def _masks(s: int) -> list[list[int]]:
    """The members of each subset (bit mask) of s positions."""
    return [[t for t in range(s) if (mask >> t) & 1] for mask in range(2**s)]


class MonomialGame:
    """The interventional game of a polynomial model, its background moments tabulated once.

    Parameters
    ----------
    groups : sequence of MonomialGroup
        The model's non-constant monomials.
    constant : array of shape (n_outputs,)
        The model's constant term (it adds to the value of every coalition).
    Z : array of shape (n_background, d)
        Background rows (one row for the baseline game; zeros for a functional game).
    weights : array of shape (n_background,)
        Their weights, summing to one.

    Examples
    --------
    f(x) = 2 x_0 x_1 against the background row z = (1, 1): v(S) = 2 prod over S of x, times 1.

    >>> import numpy as np
    >>> from kexplain.shapley.monomials import MonomialGame, MonomialGroup
    >>> g = MonomialGroup(np.array([[0, 1]]), (1, 1), np.array([[2.0]]))
    >>> game = MonomialGame([g], np.zeros(1), np.ones((1, 2)), np.ones(1))
    >>> game.solve(np.array([[3.0, 1.0]])).values[0, :, 0]
    array([4., 0.])
    """

    def __init__(
        self, groups: Sequence[MonomialGroup], constant: np.ndarray, Z: np.ndarray, weights: np.ndarray
    ) -> None:
        self.groups = [g for g in groups if len(g.support)]
        self.constant = np.asarray(constant, dtype=np.float64).reshape(-1)
        Z = np.asarray(Z, dtype=np.float64)
        w = np.asarray(weights, dtype=np.float64)
        self.n_features = Z.shape[1]
        self.n_outputs = self.constant.shape[0]
        #: per group, the background moment of every subset U of the support: (n_g, 2^s)
        self.moments: list[np.ndarray] = []
        for g in self.groups:
            s = len(g.exponents)
            Zp = [Z[:, g.support[:, t]] ** g.exponents[t] for t in range(s)]  # (nb, n_g) each
            M = np.empty((len(g.support), 2**s))
            for mask, members in enumerate(_masks(s)):
                prod = np.ones((Z.shape[0], len(g.support)))
                for t in members:
                    prod = prod * Zp[t]
                M[:, mask] = w @ prod
            self.moments.append(M)
        self._values_maps: dict[int, list[object]] = {}
        self._pair_maps: dict[int, list[object]] = {}
        self.v_empty = self.constant + sum(
            (M[:, -1] @ g.coef for g, M in zip(self.groups, self.moments)), np.zeros(self.n_outputs)
        )

    def _value_scatter(self, gi: int) -> list[object]:
        """Per output, the sparse (d, s * n_g) map from the members' shares to the values, built once."""
        if gi not in self._values_maps:
            from scipy import sparse

            g = self.groups[gi]
            n_g, s = g.support.shape
            cols = np.arange(n_g * s)
            rows = g.support.T.reshape(-1)  # position-major, as the shares are concatenated
            self._values_maps[gi] = [
                sparse.csr_matrix((np.tile(g.coef[:, o], s), (rows, cols)), shape=(self.n_features, n_g * s))
                for o in range(self.n_outputs)
            ]
        return self._values_maps[gi]

    def _pair_scatter(self, gi: int) -> list[object]:
        """Per output, the sparse (d * d, pairs * n_g) map from the pairs' indices to (j, k), built once."""
        if gi not in self._pair_maps:
            from scipy import sparse

            g = self.groups[gi]
            n_g, s = g.support.shape
            d = self.n_features
            flat = [g.support[:, t1] * d + g.support[:, t2] for t1 in range(s) for t2 in range(t1 + 1, s)]
            rows = np.concatenate(flat)
            cols = np.arange(len(rows))
            self._pair_maps[gi] = [
                sparse.csr_matrix((np.tile(g.coef[:, o], len(flat)), (rows, cols)), shape=(d * d, len(rows)))
                for o in range(self.n_outputs)
            ]
        return self._pair_maps[gi]

    @property
    def n_monomials(self) -> int:
        """Number of non-constant monomials."""
        return int(sum(len(g.support) for g in self.groups))

    def cost_per_point(self) -> float:
        """Operations per explained point, about (monomials x 2^s x s) summed over the groups."""
        return float(sum(len(g.support) * 2 ** len(g.exponents) * (len(g.exponents) + 2) for g in self.groups))

    def solve(
        self, X: np.ndarray, interactions: bool | str | None = False, *, max_block_bytes: int = 32 * 2**20
    ) -> ShapleyValues:
        """Exact values (and pairwise indices) at the rows of ``X`` (shape (N, d)).

        Points are taken in blocks whose work arrays (about 2^(s+1) arrays of shape (points,
        monomials of a group)) stay within ``max_block_bytes``.

        Returns
        -------
        ShapleyValues
            values (N, d, n_outputs), v_full, v_empty (N, n_outputs), interactions in shap's layout.
        """
        index = check_interactions(interactions)
        X = np.asarray(X, dtype=np.float64)
        widest = max((len(g.support) * 2 ** (len(g.exponents) + 1) for g in self.groups), default=1)
        step = max(1, int(max_block_bytes) // (8 * widest))
        if X.shape[0] > step:
            parts = [
                self.solve(X[s : s + step], index, max_block_bytes=max_block_bytes) for s in range(0, len(X), step)
            ]
            return ShapleyValues(
                values=np.concatenate([r.values for r in parts]),
                v_full=np.concatenate([r.v_full for r in parts]),
                v_empty=np.concatenate([r.v_empty for r in parts]),
                interactions=None if index is None else np.concatenate([r.interactions for r in parts]),
                interaction_index=index,
            )
        N, d, o = X.shape[0], self.n_features, self.n_outputs
        values = np.zeros((N, d, o))
        inter = np.zeros((N, d, d, o)) if index else None
        v_full = np.tile(self.constant, (N, 1))
        for gi, (g, M) in enumerate(zip(self.groups, self.moments)):
            s = len(g.exponents)
            n_g = M.shape[0]
            full = 2**s - 1
            # unit values of the small game, u(W) = prod_{t in W} x^e * E_z prod_{t not in W} z^e,
            # stacked over the subsets W: (2^s, N, n_g)
            P = np.empty((2**s, N, n_g))
            P[0] = 1.0
            for t in range(s):
                xt = X[:, g.support[:, t]] ** g.exponents[t]
                P[1 << t : 2 << t] = P[: 1 << t] * xt
            u = P * M[:, full ^ np.arange(2**s)].T[:, None, :]
            v_full += u[full] @ g.coef
            # values and pairwise indices are fixed linear combinations of the u(W) (Moebius, then
            # the index's weights): one matrix product per group
            share = np.einsum("tw,wnk->ntk", _value_weights(s), u).reshape(N, s * n_g)  # position-major
            for o, A in enumerate(self._value_scatter(gi)):
                values[:, :, o] += np.asarray(A @ share.T).T
            if index and inter is not None and s >= 2:
                K = _pair_weights(s, index)
                tot = np.einsum("qw,wnk->nqk", K, u).reshape(N, K.shape[0] * n_g)
                for o, A in enumerate(self._pair_scatter(gi)):
                    flat = np.asarray(A @ tot.T).T.reshape(-1, d, d)
                    inter[..., o] += flat + flat.transpose(0, 2, 1)
        v_empty = np.tile(self.v_empty, (N, 1))
        if index and inter is not None:
            inter = interaction_layout(values, inter, index)
        return ShapleyValues(values=values, v_full=v_full, v_empty=v_empty, interactions=inter, interaction_index=index)
