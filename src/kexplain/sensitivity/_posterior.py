"""The Gaussian-process posterior in :class:`~kexplain.sensitivity.SensitivityAnalysis` (a base class of it).

``target="posterior_expectation"`` adds the parts whose values are the posterior expectation of
every unnormalised index (``_add_posterior_parts``: a pair part with the posterior covariance's
weights and a prior part, module notes of :mod:`kexplain.sensitivity.analysis`), and
:meth:`~PosteriorIndices.posterior_draws` gives the indices of posterior function draws, each
exact, from one product game with one output per draw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._typing import RandomStateLike
from ..exceptions import UnsupportedModelError
from ..explainers.variance_games import covariance_rows
from ..kernels.base import kernel_terms, term_amplitude
from ..models.posterior import GPPosterior, gp_posterior
from ..shapley.product import solve_product_game
from ._games import PairGame, PairPart, PriorPart
from ._tables import RowGroup, Tables


class PosteriorIndices:
    """The Gaussian-process posterior of :class:`~kexplain.sensitivity.SensitivityAnalysis` (a base class of it)."""

    # set by SensitivityAnalysis.__init__
    model: Any
    _tables: Callable[..., Tables]
    _parts: list[PairPart | PriorPart]
    _d: int

    def _add_posterior_parts(self, model: Any, tables: Any) -> None:
        try:
            post = model if isinstance(model, GPPosterior) else gp_posterior(model)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(
                f"target='posterior_expectation' needs a Gaussian-process posterior: {exc}"
            ) from None
        raw, C = covariance_rows(post)
        groups = [RowGroup(t, Y) for t, Y in raw]
        terms = kernel_terms(post.kernel)
        amps = np.array([term_amplitude(t) for t in terms])
        s2 = post.scale**2
        tab = tables(groups, prior=True)
        self._parts.append(PairPart(tab, matrix=-s2 * C))
        assert tab.e is not None
        self._parts.append(PriorPart(tab.e[: len(terms)], s2 * amps))

    def posterior_draws(
        self, n_draws: int = 200, *, random_state: RandomStateLike = None, rtol: float = 1e-10
    ) -> dict[str, Any]:
        """Sobol indices and Shapley effects of posterior function draws of a Gaussian process.

        Each draw is f_k = mu + sum_i delta_ki k(., x_i) over the training inputs x_i, with
        delta_k = K^{-1} g_k and g_k ~ N(0, C_XX) the posterior at the training inputs (K^{-1} on
        the eigen-directions of the Gram matrix K with eigenvalues above ``rtol`` times the
        largest).  So the draws follow the posterior exactly at the training inputs and are its
        projection onto the span of the kernel functions there; every index of every draw is
        then exact (one product game with one output per draw).  Their spread is a Monte Carlo
        estimate of the posterior spread of the indices; the draws lack the posterior variation
        outside that span, so their average index is at most the exact posterior expectation
        (``target="posterior_expectation"``), which is what to report as the mean.

        Parameters
        ----------
        n_draws : int
            Number of posterior draws.
        random_state : None, int, numpy Generator, RandomState or SeedSequence
            Seeds the draws.
        rtol : float
            Relative eigenvalue cutoff of K.

        Returns
        -------
        dict
            ``variance`` (n_draws,), and ``shapley_effect``, ``first_order_sobol`` and
            ``total_sobol`` (n_draws, d), normalised by each draw's variance.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from sklearn.gaussian_process import GaussianProcessRegressor
        >>> X = np.random.default_rng(0).uniform(-1, 1, size=(20, 2))
        >>> gpr = GaussianProcessRegressor(alpha=0.01).fit(X, np.sin(3 * X[:, 0]))
        >>> draws = kx.sensitivity.SensitivityAnalysis(gpr, background=X).posterior_draws(50, random_state=0)
        >>> draws["shapley_effect"].shape, bool(np.allclose(draws["shapley_effect"].sum(axis=1), 1.0))
        ((50, 2), True)
        """
        check_param(n_draws, "n_draws", Integer(1))
        try:
            post = self.model if isinstance(self.model, GPPosterior) else gp_posterior(self.model)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(f"posterior_draws needs a Gaussian-process posterior: {exc}") from None
        rng = np.random.default_rng(random_state)
        X = post.X_train
        K = post.prior(X)
        lam, V = np.linalg.eigh(0.5 * (K + K.T))
        keep = lam > rtol * lam.max()
        Cxx = post.covariance(X)
        mu_c, U = np.linalg.eigh(0.5 * (Cxx + Cxx.T))
        g = U @ (np.sqrt(np.clip(mu_c, 0.0, None))[:, None] * rng.standard_normal((X.shape[0], n_draws)))
        delta = V[:, keep] @ ((V[:, keep].T @ g) / lam[keep][:, None])  # (n, D), output units
        coef = post.scale * post.coef[:, None] + delta
        terms = kernel_terms(post.kernel)
        groups = [RowGroup(t, X) for t in terms]
        amps = np.array([term_amplitude(t) for t in terms])
        part = PairPart(self._tables(groups), coef=np.concatenate([a * coef for a in amps], axis=0))
        full = np.ones(self._d, dtype=bool)
        w_empty = part.value(~full)
        var = part.value(full) - w_empty
        first = np.array([part.value(np.arange(self._d) == j) - w_empty for j in range(self._d)])  # (d, D)
        total = var[None, :] - (part.leave_one_out() - w_empty[None, :])
        phi = solve_product_game(PairGame(part)).values[0]  # (d, D)
        return {
            "variance": var,
            "shapley_effect": (phi / var).T,
            "first_order_sobol": (first / var).T,
            "total_sobol": (total / var).T,
        }
