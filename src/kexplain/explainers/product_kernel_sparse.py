"""scipy sparse inputs of :class:`~kexplain.ProductKernelExplainer`: a sparse background or baseline
kept in CSR (``_init_sparse``) and the sparse route of ``explain`` (the games of ``sparse_games``),
whose work follows the non-zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_data, check_weights, is_sparse
from ..base import check_explain_options, explain_in_blocks
from ..explanation import Explanation
from ..shapley.array_api import is_foreign_array
from ..shapley.product import efficiency_error
from .product_kernel_base import ProductKernelBase
from .sparse_games import sparse_games, sparse_refusal


class SparsePaths(ProductKernelBase):
    """The scipy sparse path of :class:`~kexplain.ProductKernelExplainer` (a base class of it)."""

    def _init_sparse(self, background: Any, weights: Any, baseline: Any, summary: Any) -> None:
        """A scipy sparse background (or baseline): kept in CSR, every table and value sparse."""
        arg = "background" if background is not None else "baseline"
        self._sparse_argument = arg
        em = self.expansion
        self._covariance, self._mixture, self._Z = None, None, None
        self._background_factors, self._subset_game, self._monomial_game = None, None, None
        if summary is not None:
            raise sparse_refusal(arg, "background_summary (k-means centres) needs dense rows")
        Zs = check_data(background if background is not None else baseline, name=arg, sparse="keep")
        self.game, w = "interventional", None
        if background is None:
            if Zs.shape[0] != 1:
                raise ValueError(f"baseline must be one row of shape (d,) or (1, d), got shape {Zs.shape}.")
            self.game, w = "baseline", np.ones(1)
        elif weights is not None:
            w = check_weights(weights, Zs.shape[0])
        else:
            w = np.full(Zs.shape[0], 1.0 / Zs.shape[0])
        self._sparse_games = sparse_games(em, arg, Zs, w, max_block_bytes=self.max_block_bytes)
        self.route = "sparse"
        self._w = w
        base = w @ self._sparse_games.predict(Zs) + em.intercept
        self.expected_value = float(base[0]) if em.single_output else base

    def _explain_sparse(self, X: Any, interactions: Any, progress: Any, n_jobs: Any, *options: Any) -> Explanation:
        """``explain`` with a scipy sparse X or background: the sparse games (``sparse_games``), no densifying."""
        arg = "X" if is_sparse(X) else self._sparse_argument
        dtype, uncertainty, joint, noisy, target = options
        asked = [
            (interactions is not None and interactions is not False, f"interactions={interactions!r} needs dense rows"),
            (uncertainty or joint or noisy, "uncertainty=True (joint, noisy) needs dense rows"),
            (dtype not in (None, "float64") or is_foreign_array(X), "the array API path needs dense rows"),
            (target != "mean", f"target={target!r} needs dense rows"),
        ]
        for bad, reason in asked:
            if bad:
                raise sparse_refusal(arg, reason)
        _, progress, n_jobs = check_explain_options(False, progress, n_jobs)
        games = self._sparse_games
        if games is None:  # a dense (or no) background and a sparse X: the dense background as CSR
            Zs = None if self._Z is None else check_data(_csr(self._Z), name="background", sparse="keep")
            games = self._sparse_games = sparse_games(
                self.expansion, arg, Zs, self._w, max_block_bytes=self.max_block_bytes
            )
        em = self.expansion
        Xs: Any = check_data(
            X if is_sparse(X) else _csr(em.check_input(X)), name="X", n_features=em.n_features, sparse="keep"
        )
        names = self._names(X, em.n_features)

        def run(rows: slice) -> Explanation:
            Xr = Xs[rows]
            ex = self._to_explanation(games.solve(Xr), Xr.toarray(), names, None)
            ex.info["route"] = "sparse"
            return ex

        ex = explain_in_blocks(run, Xs.shape[0], n_jobs)
        values = np.asarray(ex.values).reshape(Xs.shape[0], em.n_features, -1)
        v_full = np.asarray(ex.v_full).reshape(values.shape[0], -1)
        ex.efficiency_error = efficiency_error(values, v_full, np.asarray(ex.base_values).reshape(v_full.shape))
        return ex


def _csr(arr: np.ndarray) -> Any:
    """Dense validated rows as a CSR matrix (for the sparse games)."""
    from scipy import sparse

    return sparse.csr_matrix(arr)
