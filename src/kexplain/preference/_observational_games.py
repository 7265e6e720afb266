"""The observational games of PREF-SHAP: item or context features removed by conditioning on the
kept ones through the conditional mean embeddings of RKHS-SHAP (Chau, 2023, thesis Propositions
7.3.3 and 7.3.4).  The interventional product games are in ``_games``, which still imports every
name of this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


class ObservationalPreferenceGame:
    """The observational item or context game through conditional mean embeddings, built once.

    Item level (Chau, 2023, thesis Proposition 7.3.3, corrected): with G_S(u, x) the CME-weighted
    kernel of RKHS-SHAP (Chau, Hu, Gonzalez & Sejdinovic, 2022, Proposition 3) regressed on the
    item pool X,

        G_S(u, x) = k_S(u_S, x_S) k_Sc(u_Sc, X_Sc) (K_S(X, X) + n eta I)^-1 k_S(X, x_S),

    the value is v(S) = sum_i coef_i [G_S(L_i, x^l) G_S(R_i, x^r) - G_S(R_i, x^l) G_S(L_i, x^r)]
    (general kind; the utility kind is G_S(L_i, x^l) - G_S(R_i, x^l) - G_S(L_i, x^r) + G_S(R_i, x^r)),
    each term times k_U(u, C_i) for a context model.  The thesis prints the middle factor with
    the support items and the regularised Gram matrix without its ridge; here the embedding is
    regressed on the item pool, with the ridge n eta on a unit-amplitude kernel.

    Context level (Proposition 7.3.4): v(S') = sum_i coef_i k_E((x^l, x^r), (L_i, R_i)) G^U_S'(C_i, u)
    with the embedding regressed on the context pool.

    Parameters
    ----------
    pe : PreferenceExpansion
    level : {"item", "context"}
    pool : ndarray (n, d) or (n, p)
        Items (item level) or contexts (context level) the embeddings are regressed on.
    weights : ndarray (n,) or None
        Weights of the pool rows summing to one; None weighs them equally.
    eta : float
        CME regularisation (the ridge is n * eta).
    landmarks : ndarray of int, optional
        Nystroem landmarks among the pool rows.
    """

    def __init__(
        self,
        pe: Any,
        level: str,
        pool: np.ndarray,
        weights: np.ndarray | None,
        eta: float,
        *,
        landmarks: np.ndarray | None = None,
    ) -> None:
        from ..models.expansion import KernelExpansion
        from ..rkhs.cme import ProductCME

        self.pe, self.level = pe, level
        self.m = pe.n_support
        if level == "item":
            X_ref, kernel = np.vstack([pe.left, pe.right]), pe.item_kernel
        else:
            X_ref, kernel = pe.context, pe.context_kernel
        em = KernelExpansion(X_ref, np.ones(X_ref.shape[0]), kernel)
        self.cme = ProductCME(em, pool, eta, weights=weights, landmarks=landmarks)
        self.d = pool.shape[1]

    def bytes_per_duel(self) -> int:
        """Work memory of one explained duel: the per-feature kernel tables of its items (two at the
        item level, its context at the context level) against the model's and the pool's rows, and
        the handful of (rows, duels) matrices of one coalition."""
        q = 2 if self.level == "item" else 1
        pool = self.cme.R.shape[0] if self.cme.landmarks is None else self.cme.L.shape[0]
        return 8 * q * (self.cme.Xm.shape[0] + pool) * (self.d + 8) + 8 * 4 * self.m

    def value_function(
        self, Xl: np.ndarray, Xr: np.ndarray, C: np.ndarray | None
    ) -> Callable[[np.ndarray], np.ndarray]:
        """v(S) at a batch of duels: a callable from coalitions (n_coalitions, d) to values (n_coalitions, N)."""
        pe, m, N = self.pe, self.m, Xl.shape[0]
        coef = np.asarray(pe.coef, dtype=np.float64)
        W = np.broadcast_to(coef, (N, m)).copy()
        if self.level == "item":
            if C is not None and pe.context_kernel is not None:
                W *= pe.context_kernel.gram(C, pe.context, check_input=False)
            game = self.cme.game(np.vstack([Xl, Xr]))
            general = pe.kind == "general"

            def v_item(coalitions: np.ndarray) -> np.ndarray:
                out = np.empty((coalitions.shape[0], N))
                for q, S in enumerate(np.asarray(coalitions, dtype=bool)):
                    B = game.basis_values(S)  # (2m, 2N): rows L then R, columns x^l then x^r
                    GLl, GRl, GLr, GRr = B[:m, :N], B[m:, :N], B[:m, N:], B[m:, N:]
                    E = GLl * GRr - GRl * GLr if general else GLl - GRl - GLr + GRr
                    out[q] = np.einsum("in,ni->n", E, W)
                return out

            return v_item
        assert C is not None
        W *= _item_part(pe, Xl, Xr)
        cgame = self.cme.game(C)

        def v_context(coalitions: np.ndarray) -> np.ndarray:
            out = np.empty((coalitions.shape[0], N))
            for q, S in enumerate(np.asarray(coalitions, dtype=bool)):
                out[q] = np.einsum("in,ni->n", cgame.basis_values(S), W)
            return out

        return v_context


def _item_part(pe: Any, Xl: np.ndarray, Xr: np.ndarray) -> np.ndarray:
    """k_E((x^l, x^r), (L_i, R_i)) for every explained duel and support duel, shape (N, m)."""
    k = pe.item_kernel
    KlL = k.gram(Xl, pe.left, check_input=False)
    KrR = k.gram(Xr, pe.right, check_input=False)
    KlR = k.gram(Xl, pe.right, check_input=False)
    KrL = k.gram(Xr, pe.left, check_input=False)
    if pe.kind == "general":
        return KlL * KrR - KlR * KrL
    return KlL - KlR - KrL + KrR
