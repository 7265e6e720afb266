"""The Gaussian-process side of :class:`~kexplain.ProductKernelExplainer`: the exact posterior
covariance of the values (``explain(X, uncertainty=True)``, solver ``posterior_games.PosteriorCovariance``)
and the Shapley values of the posterior variance (``explain(X, target="variance")``, game
``variance_games.PosteriorVarianceGame``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool
from ..base import explain_in_blocks, row_index
from ..exceptions import UnsupportedModelError
from ..explanation import Explanation
from ..models.posterior import gp_posterior, record_accuracy
from ..shapley.array_api import is_foreign_array
from ..shapley.product import efficiency_error, solve_product_game
from .posterior_games import PosteriorCovariance
from .product_kernel_base import SUMMARISED_GAME, ProductKernelBase
from .variance_games import PosteriorVarianceGame

#: the game of explain(X, target="variance") for each game of the mean
VARIANCE_GAMES = {
    "interventional": "posterior variance (interventional)",
    "baseline": "posterior variance (baseline)",
    SUMMARISED_GAME: "posterior variance (summarised background)",
}


class PosteriorPaths(ProductKernelBase):
    """Posterior covariance and variance of :class:`~kexplain.ProductKernelExplainer` (a base class of it)."""

    def _explain_variance(
        self, X: Any, target: Any, interactions: Any, progress: bool, n_jobs: int, dtype: Any, *flags: Any
    ) -> Explanation:
        """``explain(X, target="variance")``: Shapley values of the posterior variance (module
        ``variance_games``)."""
        uncertainty, joint, noisy = flags
        if target != "variance":
            raise ValueError(f"target must be 'mean' or 'variance', got {target!r}.")
        check_bool(noisy, "noisy")
        if uncertainty or joint or dtype not in (None, "float64") or is_foreign_array(X):
            raise ValueError(
                "target='variance' runs in numpy float64 without uncertainty=True/joint=True (the variance is "
                "already a posterior quantity)."
            )
        try:
            post = gp_posterior(self.model)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(f"target='variance' on {type(self.model).__name__}: {exc}") from None
        if self.game == "functional":
            raise ValueError(
                "target='variance' needs the interventional game (background=B) or the baseline game (baseline=z): "
                "the functional game integrates absent features against the constant 1, which is no input point, "
                "so the posterior variance there is undefined."
            )
        Xv = self.expansion.check_input(X, name="X", feature_names=self._columns)
        names, index = self._names(X, self.expansion.n_features), row_index(X)
        extra = post.scale**2 * post.noise_variance if noisy else 0.0
        # the posterior variance is another game than the mean's: its base value is a mean variance
        variance_game = VARIANCE_GAMES[self.game]
        Z, w = self._Z, self._w
        assert Z is not None and w is not None  # not the functional game (refused above)

        def run(rows: slice) -> Explanation:
            game = PosteriorVarianceGame(post, Xv[rows], Z, w)
            res = solve_product_game(
                game, interactions=interactions, max_block_bytes=self.max_block_bytes, progress=progress and n_jobs <= 1
            )
            const = game.constant + extra
            inter = None if res.interactions is None else res.interactions[..., 0]
            return Explanation(
                values=res.values[:, :, 0],
                base_values=res.v_empty[:, 0] + const,
                data=Xv[rows],
                feature_names=names,
                interactions=inter,
                game=variance_game,
                info={"route": "quadrature", "target": "variance", "noisy": noisy},
                v_full=res.v_full[:, 0] + const,
                output=f"posterior {'predictive variance of y' if noisy else 'variance'} of {post.output}",
                index=None if index is None else index[rows],
            )

        ex = explain_in_blocks(run, Xv.shape[0], n_jobs)
        vals, v_full = np.asarray(ex.values)[:, :, None], np.asarray(ex.v_full)[:, None]
        ex.efficiency_error = efficiency_error(vals, v_full, np.asarray(ex.base_values)[:, None])
        return ex

    def _covariance_solver(
        self, uncertainty: Any, joint: Any, noisy: Any, array_path: bool
    ) -> PosteriorCovariance | None:
        """The posterior-covariance solver for ``explain(uncertainty=True)``, built once; None without."""
        for name, flag in (("uncertainty", uncertainty), ("joint", joint), ("noisy", noisy)):
            check_bool(flag, name)
        if not uncertainty:
            if joint or noisy:
                raise ValueError("joint=True and noisy=True apply to uncertainty=True.")
            return None
        if array_path:  # checked on every call, not only when the solver is first built
            raise ValueError("uncertainty=True runs in numpy float64 only: pass a numpy X and dtype=None.")
        if self._covariance is not None:
            self._covariance.posterior._check_noisy(noisy)
            return self._covariance
        try:
            post = gp_posterior(self.model)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(f"uncertainty=True on {type(self.model).__name__}: {exc}") from None
        if self.game == "functional":
            raise ValueError(
                "uncertainty=True needs the interventional game (background=B) or the baseline game (baseline=z): "
                "the functional game integrates absent features against the constant function 1, which is not in "
                "the RKHS of the RBF (Laplacian, Cauchy) kernel, so its plug-in covariance is not positive "
                "semi-definite and no stochastic version exists for these kernels."
            )
        post._check_noisy(noisy)
        if self._mixture is not None:
            post = self._mixture.refit_posterior(post)
        assert self._Z is not None and self._w is not None  # not the functional game
        self._covariance = PosteriorCovariance(post, self._Z, self._w, max_block_bytes=self.max_block_bytes)
        return self._covariance

    def _add_uncertainty(
        self, ex: Explanation, solver: PosteriorCovariance, Xv: np.ndarray, noisy: bool, *, joint: bool
    ) -> None:
        """Set the covariance fields of ``ex`` (explained rows ``Xv``) from the posterior."""
        cov, bound = solver.values_covariance_and_bound(Xv, noisy=noisy, joint=joint)
        N = Xv.shape[0]
        if joint:
            ex.joint_covariance = cov
            ex.covariance = cov[np.arange(N), :, np.arange(N), :]
        else:
            ex.covariance = cov
        ex.base_variance = np.full(N, solver.base_variance(noisy=noisy))
        pvar, pbound = solver.posterior.variance_and_bound(Xv, noisy=noisy)
        ex.prediction_variance = pvar
        ex.info["noisy"] = noisy
        record_accuracy(ex, solver.posterior, bound, pbound)
