"""``explain`` of dense rows by :class:`~kexplain.ProductKernelExplainer`: the blocks of rows, the
exact route chosen at construction (subsets, quadrature, polynomial, monomials), the array API path
(a torch or CuPy ``X``, or ``dtype="float32"``), the posterior covariance when asked and the
Matérn / rational quadratic error bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import check_bool, check_interactions, check_n_jobs, validate_n_jobs
from ..base import explain_in_blocks, row_index
from ..explanation import Explanation
from ..kernels.mixture import ScaleMixtureKernel
from ..models.dot_product import PolynomialExpansion
from ..models.expansion import KernelExpansion
from ..models.posterior import warn_accuracy
from ..shapley.array_api import array_namespace, device_of, is_foreign_array, resolve_dtype, to_numpy
from ..shapley.polynomial import solve_polynomial_game
from ..shapley.product import efficiency_error, solve_product_game
from ..shapley.result import ShapleyValues
from .mixture_range import value_error_bound
from .polynomial_games import PolynomialFunctionalGame, PolynomialInterventionalGame, centred
from .product_games import BackgroundFactors, FunctionalGame, InterventionalGame, present_factors
from .product_kernel_posterior import PosteriorPaths

#: block bound of the array API path (a torch or CuPy ``X``): devices want large blocks
DEVICE_BLOCK_BYTES = 512 * 2**20


class DensePath(PosteriorPaths):
    """The dense-rows path of :class:`~kexplain.ProductKernelExplainer` (a base class of it)."""

    def _explain_dense(
        self,
        X: Any,
        interactions: bool | str | Mapping[str, Any] | None,
        progress: bool,
        n_jobs: int | None,
        dtype: str | None,
        uncertainty: bool,
        joint: bool,
        noisy: bool,
    ) -> Explanation:
        """``explain`` of numpy (or array API) rows for the mean, pairwise interactions at most."""
        em = self.expansion
        xp, device = None, None
        if (
            type(X) is np.ndarray
            and interactions is False
            and progress is False
            and n_jobs is None
            and dtype is None
            and uncertainty is False
            and joint is False
            and noisy is False
        ):
            # the defaults with a numpy X (a loop of one-point calls): what the checks below
            # conclude for them (no interactions, no covariance, the numpy route), without
            # their calls, each of which costs a visible fraction of a one-point call
            interactions, n_jobs_given, array_path, cov_solver = None, None, False, None
        else:
            # n_jobs is checked here and resolved (a lookup of joblib's active backend, as long
            # as a small call's bookkeeping) only when there is more than one row to share out
            interactions = check_interactions(interactions)
            progress, n_jobs_given = check_bool(progress, "progress"), validate_n_jobs(n_jobs)
            resolve_dtype(np, dtype)
            if is_foreign_array(X):
                xp, device = array_namespace(X), device_of(X)
                X = to_numpy(X)
            array_path = xp is not None or dtype not in (None, "float64")
            if isinstance(em, PolynomialExpansion) and (array_path or uncertainty):
                raise ValueError(
                    "a linear, polynomial or chi-squared kernel model is explained in numpy float64 only (its "
                    "exact polynomial route has no array API path and no posterior covariance): pass a numpy X, "
                    "dtype=None and uncertainty=False."
                )
            cov_solver = self._covariance_solver(uncertainty, joint, noisy, array_path)
        Xv = self._check_X(X)
        if self._mixture is not None and self._mixture.grow(Xv):
            # explained points outside the box: a wider range needs the mixture refitted
            assert isinstance(em, KernelExpansion)
            self.expansion = em = self._mixture.refit_expansion(em)
            self._build_tables()
            cov_solver = self._covariance_solver(uncertainty, joint, noisy, array_path)
        n_jobs = check_n_jobs(n_jobs_given) if Xv.shape[0] > 1 or progress else 1
        names = self._label_names(X)
        index = None if type(X) is np.ndarray else row_index(X)
        route = "quadrature" if array_path else self.route
        made: list[Explanation] = []

        def run(rows: slice) -> Explanation:
            Xr = Xv if rows.start == 0 and rows.stop >= Xv.shape[0] else Xv[rows]
            res = self._solve(Xr, interactions, progress and n_jobs <= 1, xp=xp, device=device, dtype=dtype)
            ex = self._to_explanation(res, Xr, names, None if index is None else index[rows], route=route)
            if xp is not None:
                ex.info["device"] = str(device)
            if cov_solver is not None and not joint:
                self._add_uncertainty(ex, cov_solver, Xr, noisy, joint=False)
            made.append(ex)
            return ex

        ex = explain_in_blocks(run, Xv.shape[0], n_jobs)
        if cov_solver is not None and joint:
            self._add_uncertainty(ex, cov_solver, Xv, noisy, joint=True)
        if cov_solver is not None:
            warn_accuracy(ex)
        if len(made) != 1 or ex is not made[0]:
            # blocks stacked (threads or a block runner): the largest gap over all the rows
            values, v_full = np.asarray(ex.values), np.asarray(ex.v_full)
            if em.single_output:
                values, v_full = values[:, :, None], v_full
            v_full = v_full.reshape(values.shape[0], -1)
            ex.efficiency_error = efficiency_error(values, v_full, np.asarray(ex.base_values).reshape(v_full.shape))
        if self._mixture is not None:
            kernel = em.kernel
            assert isinstance(kernel, ScaleMixtureKernel) and isinstance(em, KernelExpansion)
            ex.kernel_error_bound = value_error_bound(em)
            ex.info["kernel_error"] = kernel.error
            ex.info["mixture_terms"] = kernel.n_mixture_terms
            if interactions:
                ex.info["interaction_error_bound"] = ex.kernel_error_bound
        return ex

    def _solve(
        self,
        Xv: np.ndarray,
        interactions: str | None,
        progress: bool,
        *,
        xp: Any = None,
        device: Any = None,
        dtype: str | None = None,
    ) -> ShapleyValues:
        em = self.expansion
        N, d, o = Xv.shape[0], em.n_features, em.n_outputs
        if em.n_rows == 0:
            # a constant model: every coalition has the intercept's value
            zeros = np.zeros((N, o))
            return ShapleyValues(
                values=np.zeros((N, d, o)),
                v_full=zeros,
                v_empty=zeros.copy(),
                interactions=np.zeros((N, d, d, o)) if interactions else None,
                interaction_index=interactions,
            )
        if self._monomial_game is not None:
            assert isinstance(em, PolynomialExpansion)
            return self._monomial_game.solve(centred(em, Xv), interactions, max_block_bytes=self.max_block_bytes)
        if isinstance(em, PolynomialExpansion):
            pgame: PolynomialFunctionalGame | PolynomialInterventionalGame = (
                PolynomialFunctionalGame(em, Xv)
                if self.game == "functional"
                else PolynomialInterventionalGame(em, Xv, _given(self._Z), _given(self._w))
            )
            return solve_polynomial_game(
                pgame, interactions=interactions, max_block_bytes=self.max_block_bytes, progress=progress
            )
        assert isinstance(em, KernelExpansion)
        array_path = xp is not None or dtype not in (None, "float64")
        if array_path:
            return self._solve_array(Xv, interactions, progress, xp=xp, device=device, dtype=dtype)
        if self._subset_game is not None:
            return self._subset_game.solve(
                lambda pts: present_factors(em, Xv[pts]),
                n_points=N,
                interactions=interactions,
                max_block_bytes=self.max_block_bytes,
                progress=progress,
            )
        if self._background_factors is not None:
            game: FunctionalGame | InterventionalGame = InterventionalGame(em, Xv, self._background_factors)
        else:
            game = FunctionalGame(em, Xv)
        return solve_product_game(
            game, interactions=interactions, max_block_bytes=self.max_block_bytes, progress=progress
        )

    def _solve_array(
        self, Xv: np.ndarray, interactions: str | None, progress: bool, *, xp: Any, device: Any, dtype: str | None
    ) -> ShapleyValues:
        """The quadrature route through the array API engine, results moved back to numpy."""
        em = self.expansion
        assert isinstance(em, KernelExpansion)
        game: FunctionalGame | InterventionalGame
        if self.game == "functional":
            game = FunctionalGame(em, Xv, xp=xp, device=device)
        else:
            if self._background_factors is None:  # the subset route was chosen for numpy: build once
                assert self._Z is not None and self._w is not None
                self._background_factors = BackgroundFactors(em, self._Z, self._w)
            game = InterventionalGame(em, Xv, self._background_factors, xp=xp, device=device)
        res = solve_product_game(
            game,
            interactions=interactions,
            max_block_bytes=max(self.max_block_bytes, DEVICE_BLOCK_BYTES if xp is not None else 0),
            progress=progress,
            dtype=dtype,
        )
        return ShapleyValues(
            values=to_numpy(res.values).astype(np.float64),
            v_full=to_numpy(res.v_full).astype(np.float64),
            v_empty=to_numpy(res.v_empty).astype(np.float64),
            interactions=None if res.interactions is None else to_numpy(res.interactions).astype(np.float64),
            interaction_index=res.interaction_index,
        )


def _given(arr: np.ndarray | None) -> np.ndarray:
    """``arr``, which the game's construction guarantees is set (for the type checker)."""
    assert arr is not None
    return arr
