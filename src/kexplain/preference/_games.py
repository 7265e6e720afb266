"""The games of PREF-SHAP as product games: item, context and joint levels.

A preference model of :mod:`kexplain.preference` is a logit over support duels (L_i, R_i, C_i),

    g(x^l, x^r, u) = sum_i coef_i k_E((x^l, x^r), (L_i, R_i)) k_U(u, C_i),

with product kernels k (items) and k_U (contexts) of amplitude one.  Both forms of k_E are sums of
products of item kernels, each product pairing one side of the explained duel with one side of
the support duel:

- ``"general"``: + k(l, L) k(r, R) - k(l, R) k(r, L)  (two pairs per term);
- ``"utility"``: + k(l, L) - k(l, R) - k(r, L) + k(r, R)  (one pair per term).

A *row* of the game is one (term, support duel) pair, with weight sign * coef_i.

Interventional item game (Chau, 2023, thesis Definition 7.3.1 with the marginal reference that
factorises over the two items): features outside S of the left item come from a background row
z, of the right item from an independent row z'.  Each pair of a row draws its own background
row, so the row's value for the absent set T is

    B_r(T) = prod_{pairs (side, support)} A_support,i(T),   A_L,i(T) = sum_z w_z prod_{j in T} k_j(z_j, L_ij),

and v_x(S) = sum_r W_r prod_{j in S} a_rj(x) B_r(complement of S): a product game whose rows are
(row, background row per pair), or, tabulating B once, the subset route.  v(empty) = 0 because
the two (or four) terms of k_E have the same absent table and cancel.

Context game (thesis Proposition 7.3.4, interventional): players are context features; the item
part k_E at the explained duel becomes a per-duel weight of each support duel.  Joint game: item
and context features together, the context background drawn independently of the items.

Per-duel row weights (a context at the item level, the item part at the context level) are
folded into the first player's present and absent factors alike: exactly one of them enters
every coalition's product, so the game is scaled row by row.

The interventional games live here; the observational ones (conditional mean embeddings) in
``_observational_games``, whose names are still imported from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..shapley.product import solve_product_game
from ..shapley.result import ShapleyValues
from ..shapley.routes import BACKGROUND_TABLE_BYTES, MAX_SUBSET_FEATURES, cheaper_route, subset_table_fits
from ..shapley.subsets import SubsetGame, absent_set_table, compiled_available
from ._observational_games import ObservationalPreferenceGame, _item_part  # noqa: F401  (names of this module before the split)

#: terms of k_E: (pairs (explained side, support side), sign); side 0 = left, 1 = right
TERMS: dict[str, list[tuple[tuple[tuple[int, int], ...], float]]] = {
    "general": [(((0, 0), (1, 1)), 1.0), (((0, 1), (1, 0)), -1.0)],
    "utility": [(((0, 0),), 1.0), (((0, 1),), -1.0), (((1, 0),), -1.0), (((1, 1),), 1.0)],
}

LEVELS = ("item", "context", "joint")

#: the subset route is taken up to this many players (when cheaper than the quadrature): the
#: engine's cost model, kexplain.shapley.routes
MAX_SUBSET_PLAYERS = MAX_SUBSET_FEATURES

#: bound on the absent-set table of the subset route (the engine's, kexplain.shapley.routes)
TABLE_BYTES = BACKGROUND_TABLE_BYTES

#: bound on the work arrays of one block
BLOCK_BYTES = 32 * 2**20


class PreferenceGame:
    """The background part of one interventional PREF-SHAP game, built once per explainer.

    Parameters
    ----------
    pe : PreferenceExpansion
        The model.
    level : {"item", "context", "joint"}
    items : ndarray (nb, d) or None
        Item background (needed for the item and joint levels).
    item_weights : ndarray (nb,) or None
    contexts : ndarray (nc, p) or None
        Context background (needed for the context and joint levels).
    context_weights : ndarray (nc,) or None
    route : {"auto", "subsets", "quadrature"}
    max_block_bytes : int
    """

    def __init__(
        self,
        pe: Any,
        level: str,
        items: np.ndarray | None,
        item_weights: np.ndarray | None,
        contexts: np.ndarray | None,
        context_weights: np.ndarray | None,
        *,
        route: str = "auto",
        max_block_bytes: int = BLOCK_BYTES,
    ) -> None:
        self.pe, self.level = pe, level
        self.terms = TERMS[pe.kind]
        self.n_terms = len(self.terms)
        self.n_pairs = len(self.terms[0][0])
        self.m = pe.n_support
        self.d = pe.n_features if level in ("item", "joint") else 0
        self.p = pe.n_context_features if level in ("context", "joint") else 0
        self.D = self.d + self.p
        self.max_block_bytes = int(max_block_bytes)
        self.support = (pe.left, pe.right)
        # rows: (term, support duel), term-major; the context level merges the terms
        self.n_rows = self.m if level == "context" else self.n_terms * self.m
        coef = np.asarray(pe.coef, dtype=np.float64)
        if level == "context":
            self.row_coef = coef
        else:
            self.row_coef = np.concatenate([s * coef for _, s in self.terms])
        self.row_support = np.tile(np.arange(self.m), self.n_rows // self.m)
        # background factors (nb, m, d) per support side, and of the contexts (nc, m, p)
        self.ZF: tuple[np.ndarray, np.ndarray] | None = None
        self.UF: np.ndarray | None = None
        self.n_item_combos = 1
        self.n_ctx_combos = 1
        if self.d:
            assert items is not None and item_weights is not None
            k = pe.item_kernel
            self.ZF = (k.feature_values(items, pe.left), k.feature_values(items, pe.right))
            self.wz = item_weights
            self.n_item_combos = items.shape[0] ** self.n_pairs
        if self.p:
            assert contexts is not None and context_weights is not None
            self.UF = pe.context_kernel.feature_values(contexts, pe.context)
            self.wu = context_weights
            self.n_ctx_combos = contexts.shape[0]
        self.n_combos = self.n_item_combos * self.n_ctx_combos
        self.route = self._choose_route(route)
        self.table: np.ndarray | None = None
        self._subset_game: SubsetGame | None = None
        if self.route == "subsets":
            self.table = self._absent_table()
            # the row weights W (row_coef, times k_E or k_U at the explained duel for the context
            # and item-with-context levels) come with the present factors, point by point
            self._subset_game = SubsetGame(self.table, np.ones(self.n_rows))

    # -- cost model ------------------------------------------------------------------------------
    def _choose_route(self, route: str) -> str:
        D, R = self.D, self.n_rows
        fits = subset_table_fits(D, R)
        if route == "subsets":
            if not fits:
                raise ValueError(
                    f"route='subsets' tabulates 2^{D} sets for {R} rows; it accepts at most "
                    f"{MAX_SUBSET_PLAYERS} players and a table of {TABLE_BYTES // 2**20} MiB."
                )
            return route
        if route == "quadrature" or not fits:
            return "quadrature"
        # the quadrature averages over every combination of background rows of the pairs
        return cheaper_route(D, self.n_combos, compiled=compiled_available())

    # -- subset route ----------------------------------------------------------------------------
    def _absent_table(self) -> np.ndarray:
        """B[r, T] for every row r and absent set T (bits: item features, then context features)."""
        parts = []
        if self.d:
            assert self.ZF is not None
            A = [absent_set_table(F, self.wz) for F in self.ZF]  # (m, 2^d) per support side
            if self.level == "context":  # pragma: no cover - the context level has no item players
                raise AssertionError
            item = np.concatenate([np.prod([A[s] for _, s in pairs], axis=0) for pairs, _ in self.terms])
            parts.append(item)
        if self.p:
            assert self.UF is not None
            ctx = absent_set_table(self.UF, self.wu)[self.row_support]  # (R, 2^p)
            parts.append(ctx)
        if len(parts) == 1:
            return np.ascontiguousarray(parts[0])
        item, ctx = parts
        # bit layout: set index = T_item + 2^d * T_ctx
        return (ctx[:, :, None] * item[:, None, :]).reshape(self.n_rows, -1)

    # -- the explained duels ---------------------------------------------------------------------
    def present(self, Xl: np.ndarray, Xr: np.ndarray, C: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Present factors a (N, R, D) and row weights W (N, R) of a block of explained duels."""
        pe = self.pe
        N = Xl.shape[0]
        X = (Xl, Xr)
        parts = []
        need_item = self.d > 0 or self.level == "context"
        item_terms: list[np.ndarray] = []
        if need_item:
            k = pe.item_kernel
            F = {(a, b): k.feature_values(X[a], self.support[b]) for a in (0, 1) for b in (0, 1)}
            for pairs, _ in self.terms:
                f = F[pairs[0]].copy()
                for pr in pairs[1:]:
                    f *= F[pr]
                item_terms.append(f)  # (N, m, d)
        if self.d:
            parts.append(np.concatenate(item_terms, axis=1))
        ctx_full = None
        if pe.context_kernel is not None and C is not None:
            U = pe.context_kernel.feature_values(C, pe.context)  # (N, m, p)
            if self.p:
                parts.append(np.tile(U, (1, self.n_rows // self.m, 1)))
            else:
                ctx_full = np.prod(U, axis=-1)  # k_U(u, C_i): a per-duel weight at the item level
        W = np.broadcast_to(self.row_coef, (N, self.n_rows)).copy()
        if self.level == "context":
            xi = sum(s * np.prod(t, axis=-1) for t, (_, s) in zip(item_terms, self.terms))
            W *= xi  # k_E at the explained duel: a per-duel weight of each support duel
        elif ctx_full is not None:
            W *= np.tile(ctx_full, (1, self.n_terms))
        a = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)
        return a, W

    @property
    def point_free(self) -> bool:
        """Whether the row weights are the same for every explained duel."""
        return self.level == "joint" or (self.level == "item" and self.pe.context_kernel is None)

    # -- solving ---------------------------------------------------------------------------------
    def solve(
        self,
        Xl: np.ndarray,
        Xr: np.ndarray,
        C: np.ndarray | None,
        *,
        interactions: str | None = None,
        progress: bool = False,
    ) -> ShapleyValues:
        """Exact Shapley values (and interaction values, "sii" or "stii", in shap's layout) at a batch of duels."""
        N = Xl.shape[0]

        def present(pts: slice) -> tuple[np.ndarray, np.ndarray]:
            return self.present(Xl[pts], Xr[pts], None if C is None else C[pts])

        if self._subset_game is not None:
            return self._subset_game.solve(
                present,
                n_points=N,
                interactions=interactions,
                max_block_bytes=self.max_block_bytes,
                progress=progress,
            )
        return solve_product_game(
            _QuadratureGame(self, present, N),
            interactions=interactions,
            max_block_bytes=self.max_block_bytes,
            progress=progress,
        )

    # -- quadrature route: the absent factors of (row, background combination) pairs ----------------
    def combo_factors(self, r0: int, r1: int) -> tuple[np.ndarray, np.ndarray]:
        """Absent factors (rows, n_combos, D) and combination weights (n_combos,) of rows r0..r1."""
        rows = np.arange(r0, r1)
        out = np.empty((rows.size, self.n_item_combos, self.n_ctx_combos, self.D))
        wt = np.ones((self.n_item_combos, self.n_ctx_combos))
        if self.d:
            assert self.ZF is not None
            nb = self.wz.shape[0]
            for q, r in enumerate(rows):
                pairs, _ = self.terms[r // self.m]
                i = r % self.m
                f = self.ZF[pairs[0][1]][:, i, :]  # (nb, d)
                for _, s in pairs[1:]:
                    f = (f[:, None, :] * self.ZF[s][None, :, i, :]).reshape(-1, self.d)
                out[q, :, :, : self.d] = f[:, None, :]
            w = self.wz
            for _ in range(self.n_pairs - 1):
                w = np.outer(w, self.wz).reshape(-1)
            wt *= w[:, None]
            assert w.shape[0] == nb**self.n_pairs
        if self.p:
            assert self.UF is not None
            Uf = self.UF.transpose(1, 0, 2)[self.row_support[rows]]  # (rows, nc, p)
            out[:, :, :, self.d :] = Uf[:, None, :, :]
            wt *= self.wu[None, :]
        return out.reshape(rows.size, self.n_combos, self.D), wt.reshape(-1)


class _QuadratureGame:
    """A ``ProductGame`` over (row, background combination) pairs of a :class:`PreferenceGame`."""

    def __init__(self, game: PreferenceGame, present: Callable[[slice], tuple[np.ndarray, np.ndarray]], N: int) -> None:
        self.game, self._present = game, present
        self.n_points, self.n_features, self.n_outputs = N, game.D, 1
        self.n_rows = game.n_rows * game.n_combos
        self.row_alignment = game.n_combos
        self._cache: tuple[tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = None

    def _points(self, points: slice) -> tuple[np.ndarray, np.ndarray]:
        key = (points.start, points.stop)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._present(points))
        return self._cache[1]

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        g = self.game
        nc = g.n_combos
        lo, hi = rows.start // nc, -(-rows.stop // nc)
        a_all, W_all = self._points(points)
        a_base, W = a_all[:, lo:hi], W_all[:, lo:hi]  # (p, rb, D), (p, rb)
        b_base, wt = g.combo_factors(lo, hi)  # (rb, nc, D), (nc,)
        p, rb, D = a_base.shape
        off = rows.start - lo * nc
        sl = slice(off, off + (rows.stop - rows.start))
        a = np.broadcast_to(a_base[:, :, None, :], (p, rb, nc, D)).reshape(p, rb * nc, D)[:, sl]
        b = b_base.reshape(1, rb * nc, D)[:, sl]
        if g.point_free:
            c = (W[0][:, None] * wt[None, :]).reshape(-1)[sl]
            return a, b, c[:, None]
        # per-duel weights folded into the first player's present and absent factors alike
        Wr = np.repeat(W, nc, axis=1)[:, sl]
        a = a.copy()
        a[:, :, 0] *= Wr
        b = np.broadcast_to(b, a.shape).copy()
        b[:, :, 0] *= Wr
        c = np.tile(wt, rb)[sl]
        return a, b, c[:, None]
