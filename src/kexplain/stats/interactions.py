"""Interactions of any order of the MMD^2 between two samples and of the HSIC (global interactions).

The game of :func:`kexplain.stats.mmd_shapley` (the MMD^2 with the kernel restricted to a
coalition of features) is a product game over pairs of rows: every pair contributes its weight
times the product of the per-feature kernel factors of the features present, 1 for the others.
Its interaction indices of any order (SII, k-SII, STII, FSII, BII, Möbius, ...) say which sets of
features differ *jointly* between the samples.  The game of :func:`kexplain.stats.hsic_shapley`
(the HSIC with one side's kernel restricted to the coalition) is the same kind of game over the
pairs of rows of one sample, with the doubly centred weights of the other side: its interactions
say which sets of variables depend on the other side *jointly*.  The pairs are held in memory,
about n^2 d / 2 numbers; :func:`kexplain.stats.mmd_shapley` and :func:`kexplain.stats.hsic_shapley`
give the Shapley values alone at any size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..explanation import Explanation
from ..interaction_explanation import InteractionExplanation, interaction_explanation
from ..shapley.higher_order import check_interaction_spec, solve_product_interactions
from ..shapley.product import solve_product_game
from ._common import check_estimator_name
from ._hsic_game import _CentredWeights
from ._hsic_inputs import _check_attribute, _sides
from ._hsic_inputs import _prepare as _prepare_hsic
from ._kernels import amplitude
from ._mmd_game import _weights
from ._mmd_inputs import _prepare
from ._pairs import factor_data, factors

#: the pairs of rows and their factors are held at once: refuse beyond this many bytes
MAX_PAIR_BYTES = 512 * 2**20


class _RowsGame:
    """A one-point product game given by its rows: present factors ``a`` (rows, d), absent b = 1,
    row weights ``c`` (rows, 1); the MMD^2 and HSIC games below only build their rows."""

    n_points = 1
    n_outputs = 1

    def __init__(self, a: np.ndarray, c: np.ndarray) -> None:
        self.a, self.c = a, c
        self.n_rows, self.n_features = a.shape

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, float, np.ndarray]:
        return self.a[None, rows], 1.0, self.c[rows]


class _PairGame(_RowsGame):
    """The MMD^2 game as a product game: rows are pairs of rows of the pooled sample, b = 1."""

    def __init__(self, kernel: Any, Xa: np.ndarray, Za: np.ndarray, estimator: str) -> None:
        n, m = len(Xa), len(Za)
        wxx, wzz, wxz, _ = _weights(n, m, estimator)
        amp = amplitude(kernel)
        parts, weights = [], []
        for A, w, diag in ((Xa, wxx, 1.0 / n**2), (Za, wzz, 1.0 / m**2)):
            F = kernel.feature_values(A, A)
            iu = np.triu_indices(len(A), 1)
            parts.append(F[iu])
            weights.append(np.full(len(iu[0]), w))
            if estimator == "biased":  # the diagonal pairs count once each
                parts.append(F[np.arange(len(A)), np.arange(len(A))])
                weights.append(np.full(len(A), diag))
        parts.append(kernel.feature_values(Xa, Za).reshape(n * m, -1))
        weights.append(np.full(n * m, wxz))
        super().__init__(np.concatenate(parts, axis=0), amp * np.concatenate(weights)[:, None])


def mmd_interactions(
    X: Any,
    Z: Any,
    *,
    interactions: Mapping[str, Any],
    kernel: Any = None,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
) -> Explanation:
    """Interactions of any order and index of the MMD^2 between two samples, exactly.

    The game is that of :func:`kexplain.stats.mmd_shapley` (Mohammadi, Chau & Muandet, 2025,
    section 4.1): the MMD^2 with the kernel restricted to the coalition, 0 for the empty one.

    Parameters
    ----------
    X, Z : array-like of shape (n, d) and (m, d)
        The two samples.
    interactions : mapping
        ``{"index": ..., "max_order": k, "top_k": ..., "threshold": ...}`` as for
        ``ProductKernelExplainer.explain`` (see the documentation page "Interactions").
    kernel : kexplain product kernel, optional
        None: the median-heuristic RBF (see ``bandwidth``), as for :func:`kexplain.stats.mmd_shapley`.
    estimator : {"unbiased", "biased"}, default "unbiased"
        As for :func:`kexplain.stats.mmd_shapley`.
    bandwidth : {"median", "median_per_feature"}, default "median"
        As for :func:`kexplain.stats.mmd_shapley`.
    standardize : bool, default True
        As for :func:`kexplain.stats.mmd_shapley`: the median heuristic on standardised features.

    Returns
    -------
    InteractionExplanation
        One row: ``values`` the Shapley values of the features (their sum is the MMD^2),
        ``base_values`` 0, the interactions in ``table``; ``game`` "MMD^2".

    Examples
    --------
    Two features shift together (their product differs, each alone does not): the pair carries it.

    >>> import numpy as np
    >>> from kexplain.stats.interactions import mmd_interactions
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> Z = rng.normal(size=(60, 3))
    >>> Z[:, 1] = np.abs(Z[:, 1]) * np.sign(Z[:, 0])          # x1 has x0's sign in Z only
    >>> X[:, 1] = np.abs(X[:, 1]) * np.sign(-X[:, 0])
    >>> ex = mmd_interactions(X, Z, interactions={"index": "Moebius", "max_order": 3})
    >>> ex.top(0, n=1)
    [(('x0', 'x1'), 0.0351)]
    """
    estimator = check_estimator_name(estimator)
    Xa, Za, names, kern, info = _prepare(X, Z, kernel, bandwidth, standardize)
    spec = check_interaction_spec(interactions, Xa.shape[1])
    n, m, d = len(Xa), len(Za), Xa.shape[1]
    need = 8 * d * ((n + m) ** 2 // 2 + n + m)
    if need > MAX_PAIR_BYTES:
        raise ValueError(
            f"mmd_interactions holds every pair of rows ({need / 2**20:.0f} MiB for n={n}, m={m}, d={d}); it accepts "
            f"up to {MAX_PAIR_BYTES // 2**20} MiB. Subsample the rows, or use kx.stats.mmd_shapley for the values."
        )
    game = _PairGame(kern, Xa, Za, estimator)
    phi = solve_product_game(game).values[:, :, 0]
    table = solve_product_interactions(game, spec)
    ex = Explanation(
        phi,
        np.zeros(1),
        None,
        names,
        game="MMD^2",
        info={"estimator": estimator, "kernel": kern, **info},
        v_full=table.v_full[:, 0],
        output=f"MMD^2 ({estimator})",
    )
    out: InteractionExplanation = interaction_explanation(ex, table, single_output=True)
    return out


class _HSICPairGame(_RowsGame):
    """The HSIC game on A's variables as a product game: rows are the pairs a < b of A's rows
    (weight 2 A c_ab, as (a, b) and (b, a) count alike) and one row for the diagonal pairs, whose
    factors are all 1 (weight A sum_a c_aa); b = 1.  The weights sum to zero: v(empty set) = 0."""

    def __init__(self, A_data: np.ndarray, kernel_a: Any, weights: _CentredWeights) -> None:
        n, d = A_data.shape
        i, j = np.triu_indices(n, 1)
        fd = factor_data(kernel_a, A_data)
        amp = amplitude(kernel_a)
        a = np.concatenate([factors(kernel_a, A_data, i, A_data, j, None if fd is None else (fd, fd)), np.ones((1, d))])
        super().__init__(a, amp * np.concatenate([2.0 * weights.offdiag(i, j), [weights.diagonal_constant()]])[:, None])


def hsic_interactions(
    X: Any,
    Y: Any,
    *,
    interactions: Mapping[str, Any],
    kernel_x: Any = None,
    kernel_y: Any = None,
    attribute: str = "x",
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
) -> InteractionExplanation | tuple[InteractionExplanation, InteractionExplanation]:
    """Interactions of any order and index of the HSIC between paired samples, exactly.

    The game is that of :func:`kexplain.stats.hsic_shapley` (Mohammadi, Chau & Muandet, 2025,
    section 4.2 and appendix G): the HSIC with the attributed side's kernel restricted to the
    coalition and the other side's kernel whole, 0 for the empty coalition.  Its interactions say
    which sets of variables carry the dependence *jointly* (an XOR-like target shows up in a pair,
    not in the single variables).

    Parameters
    ----------
    X : array-like of shape (n, d_x)
        Rows of the first set of variables.
    Y : array-like of shape (n, d_y) or (n,)
        Paired with X row for row.
    interactions : mapping
        ``{"index": ..., "max_order": k, "top_k": ..., "threshold": ...}`` as for
        ``ProductKernelExplainer.explain`` (see the documentation page "Interactions").
    kernel_x, kernel_y : kexplain product kernel, optional
        As for :func:`kexplain.stats.hsic_shapley`.
    attribute : {"x", "y", "both"}, default "x"
        Whose variables get the interactions; "both" gives a pair (x, y).
    estimator : {"biased", "unbiased"}, default "biased"
        As for :func:`kexplain.stats.hsic_shapley`.
    bandwidth : {"median", "median_per_feature"}, default "median"
        As for :func:`kexplain.stats.hsic_shapley`.
    standardize : bool, default True
        As for :func:`kexplain.stats.hsic_shapley`.

    Returns
    -------
    InteractionExplanation or tuple of two
        One row: ``values`` the Shapley values of the attributed side's variables (their sum is
        the HSIC; the Banzhaf values for index "BV"), ``base_values`` 0, the interactions in
        ``table``; ``game`` "HSIC".  For ``attribute="both"`` the pair (x, y).

    Examples
    --------
    y is the product of the signs of x0 and x1: neither variable alone says much about it, the
    pair does.

    >>> import numpy as np
    >>> from kexplain.stats import hsic_interactions
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sign(X[:, 0] * X[:, 1])
    >>> ex = hsic_interactions(X, y, interactions={"index": "Moebius", "max_order": 2})
    >>> ex.top(0, n=1)
    [(('x0', 'x1'), 0.0015)]
    >>> from kexplain.stats import hsic
    >>> bool(np.isclose(ex.values.sum(), hsic(X, y), rtol=1e-12))      # the values sum to the HSIC
    True
    """
    attribute = _check_attribute(attribute)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator, notes = _prepare_hsic(
        X, Y, kernel_x, kernel_y, estimator, bandwidth, standardize
    )
    n = len(Xa)
    sides = {"x": (Xa, kx_, Ya, ky_, xnames), "y": (Ya, ky_, Xa, kx_, ynames)}
    out: dict[str, InteractionExplanation] = {}
    for side in _sides(attribute):
        A_data, ka, B_data, kb, names = sides[side]
        d = A_data.shape[1]
        spec = check_interaction_spec(interactions, d)
        need = 8 * d * (n * n // 2 + n)
        if need > MAX_PAIR_BYTES:
            raise ValueError(
                f"hsic_interactions holds every pair of rows ({need / 2**20:.0f} MiB for n={n}, d={d}); it accepts "
                f"up to {MAX_PAIR_BYTES // 2**20} MiB. Subsample the rows, or use kx.stats.hsic_shapley for the values."
            )
        game = _HSICPairGame(A_data, ka, _CentredWeights(kb, B_data, estimator))
        phi = solve_product_game(game).values[:, :, 0]
        table = solve_product_interactions(game, spec)
        ex = Explanation(
            phi,
            np.zeros(1),
            None,
            names,
            game="HSIC",
            info={"estimator": estimator, "kernel": ka, "kernel_other": kb, "side": side, "notes": notes},
            v_full=table.v_full[:, 0],
            output=f"HSIC ({estimator})",
        )
        out[side] = interaction_explanation(ex, table, single_output=True)
    if attribute == "both":
        return out["x"], out["y"]
    return out[attribute]
