"""Exact global sensitivity analysis of kernel models: Sobol indices and Shapley effects.

For a model f(x) = sum_r c_r prod_j k_rj(x_j) + b (one row r per kernel term and support point)
and independent inputs X_j ~ P_j, the closed Sobol index of a set S of features is
V_S = Var(E[f(X) | X_S]).  Since E[f | X_S] = sum_r c_r prod_{j in S} k_rj(X_j) prod_{j not in S} m_rj
with m_rj = E k_rj(X_j),

    V_S = W(S) - W(empty),   W(S) = sum_{r, l} c_r c_l prod_{j in S} A_rlj prod_{j not in S} m_rj m_lj,

A_rlj = E k_rj(X_j) k_lj(X_j): a product game over the pairs of rows (``_games``).  First-order
indices are V_{j} / V, total indices (V - V_{-j}) / V, second-order (interaction) indices
(V_{jk} - V_j - V_k) / V, and the Shapley effects (Owen, 2014; Song, Nelson & Staum, 2016) are the
Shapley values of S -> V_S, which sum to V = Var f(X): all exact, the Shapley effects from the
product-game engine in O(R^2 d^2) once for the whole model.

For a Gaussian process f ~ GP(mu, C) with C(x, x') = s^2 [k(x, x') - k(x, X) A k(X, x')],
V_S(f) is quadratic in f, so its posterior expectation is

    E_f V_S(f) = V_S(mu) + s^2 [K(S) - K(empty)] - s^2 [W_A(S) - W_A(empty)],

with K(S) = sum_t amp_t prod_{j not in S} E k_tj(X_j, X'_j) (X' an independent copy: the prior
covariance integrated with X_S shared and X_{-S} independent) and W_A the pair game with weights
A_il in place of c_r c_l: again product games, so the expected indices and Shapley effects are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import check_weights, feature_names_of
from ..attribution import GlobalAttribution
from ..exceptions import UnsupportedModelError
from ..explainers.variance_games import covariance_rows
from ..kernels.base import kernel_terms, term_amplitude
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior, gp_posterior
from ..models.sklearn import as_kernel_expansion, describe_output
from ..shapley.product import solve_product_game
from ._games import PairGame, PairPart, PriorGame, PriorPart
from ._tables import RowGroup, Tables, closed_form_tables, empirical_tables, parse_distributions

TARGETS = ("mean", "posterior_expectation")
#: the game (kexplain.games) whose Shapley values shapley_effects returns, per target
TARGET_GAMES = {"mean": "variance", "posterior_expectation": "expected variance"}


class SensitivityAnalysis:
    """Exact Sobol indices and Shapley effects of a kernel model under independent inputs.

    The model is read as a product-kernel expansion exactly as :class:`kx.ProductKernelExplainer`
    reads it (SVR/SVC decision functions, KernelRidge, Gaussian-process means, Pipelines of
    per-feature scalers, a ``kx.KernelExpansion`` or ``kx.models.GPPosterior``; sums of product
    kernels term by term).  The inputs are independent, with either

    - ``background=B``: the product of the (weighted) empirical marginals of the columns of B
      (every kernel; the dependence between B's columns is not used), or
    - ``distributions=[...]``: one frozen ``scipy.stats.norm`` or ``scipy.stats.uniform`` per
      feature (or a ``scipy.stats.multivariate_normal`` with diagonal covariance), with
      closed-form kernel expectations (RBF factors only).

    Every quantity is exact (module notes): no Monte Carlo.  Building the tables costs
    O(B R^2 d) for B background rows and R expansion rows (O(R^2 d) for closed forms) and
    R^2 d floats of memory; the Shapley effects then cost O(R^2 d^2).

    Parameters
    ----------
    model : fitted estimator, Pipeline, KernelExpansion or GPPosterior
        The model to analyse.
    background : array-like or DataFrame of shape (B, d), optional
        Rows whose per-column (weighted) empirical marginals are the input distribution.
    background_weights : array-like of shape (B,), optional
        Non-negative weights of the background rows (each marginal is the weighted one).
    distributions : list of d frozen scipy.stats distributions, optional
        Not together with ``background``.
    feature_names : sequence of str, optional
        Names of the d features.
    output : int, optional
        Which output of a multi-output model (required when it has several).
    target : {"mean", "posterior_expectation"}
        "mean": the indices of the model's output (a GP's posterior mean).  "posterior_expectation"
        (Gaussian processes): the posterior expectation E_f[V_S(f)] of every unnormalised index
        (exact, module notes); normalised indices are then ratios of expectations.

    Attributes
    ----------
    variance : float
        Var f(X) (for "posterior_expectation": E_f Var_X f(X)).
    feature_names : list of str
    output : str
        What is analysed, in words.
    measure : str
        The input distribution, in words.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(40, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, 2 * X[:, 0] + X[:, 1] * X[:, 2])
    >>> sa = kx.sensitivity.SensitivityAnalysis(model, background=X)
    >>> np.round(sa.first_order(), 3), np.round(sa.total_order(), 3)
    (array([0.911, 0.002, 0.02 ]), array([0.923, 0.068, 0.078]))
    >>> effects = sa.shapley_effects()
    >>> bool(np.isclose(effects.values.sum(), effects.total)), np.round(effects.shapley_effect, 3)
    (True, array([0.917, 0.035, 0.048]))
    """

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        distributions: Any = None,
        feature_names: Sequence[str] | None = None,
        output: int | None = None,
        target: str = "mean",
    ) -> None:
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}, got {target!r}.")
        em = model.expansion() if isinstance(model, GPPosterior) else as_kernel_expansion(model)
        self.model = model
        self.target = target
        self.expansion: KernelExpansion = em
        d = em.n_features
        if (background is None) == (distributions is None):
            raise ValueError(
                "give the input distribution either as background= (a sample; the product of its empirical "
                "marginals) or as distributions= (scipy.stats norm/uniform per feature), exactly one of them."
            )
        if background_weights is not None and background is None:
            raise ValueError("background_weights needs a background.")
        o = self._check_output(output, em)
        self.output_index = o
        what = model.output if isinstance(model, GPPosterior) else describe_output(model)
        if em.n_outputs > 1:
            what = f"{what}, output {em.output_names[o]}"
        names = list(feature_names) if feature_names is not None else None
        if names is None and em.feature_names is not None:
            names = [str(n) for n in em.feature_names]
        if names is None and background is not None:
            names = feature_names_of(background)
        if names is not None and len(names) != d:
            raise ValueError(f"feature_names has {len(names)} names for {d} features.")
        self.feature_names: list[str] = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(d)]
        if background is not None:
            Z = em.check_input(background, name="background")
            if Z.shape[0] == 0:
                raise ValueError("background must have at least one row.")
            w = (
                np.full(Z.shape[0], 1.0 / Z.shape[0])
                if background_weights is None
                else check_weights(background_weights, Z.shape[0])
            )

            def tables(groups: list[RowGroup], prior: bool = False) -> Tables:
                return empirical_tables(groups, Z, w, prior=prior)

            self.measure = f"product of the empirical marginals of {Z.shape[0]} background rows" + (
                " (weighted)" if background_weights is not None else ""
            )
        else:
            marginals = parse_distributions(distributions, d)

            def tables(groups: list[RowGroup], prior: bool = False) -> Tables:
                return closed_form_tables(groups, marginals, prior=prior)

            kinds = sorted({mg.kind for mg in marginals})
            self.measure = "independent " + " and ".join(kinds) + " marginals"
        self._tables = tables
        # the model (or posterior mean): rows with a nonzero weight only
        groups, coefs = [], []
        for t, term in enumerate(em.terms):
            c = em.term_weights[t, o] * em.coef[:, o]
            keep = c != 0
            if keep.any():
                groups.append(RowGroup(term, em.X_ref[keep]))
                coefs.append(c[keep])
        self._parts: list[PairPart | PriorPart] = []
        if groups:
            self._parts.append(PairPart(tables(groups), coef=np.concatenate(coefs)[:, None]))
        if target == "posterior_expectation":
            self._add_posterior_parts(model, tables)
            what = f"posterior expectation under the GP of the indices of {what}"
        self.output = what
        self._d = d
        full = np.ones(d, dtype=bool)
        self._w_empty = self._value(~full)
        self.variance = float(self._value(full) - self._w_empty)

    @staticmethod
    def _check_output(output: Any, em: KernelExpansion) -> int:
        if output is None:
            if em.n_outputs > 1:
                raise ValueError(
                    f"output: the model has {em.n_outputs} outputs ({em.output_names}); pass output=k for one of them."
                )
            return 0
        if isinstance(output, (bool, np.bool_)) or not isinstance(output, (int, np.integer)):
            raise TypeError(f"output must be an integer index of an output, got {output!r}.")
        if not 0 <= int(output) < em.n_outputs:
            raise ValueError(f"output must be in 0..{em.n_outputs - 1}, got {output}.")
        return int(output)

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

    # ------------------------------------------------------------------ posterior draws
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

    # ------------------------------------------------------------------ evaluation
    def _value(self, mask: np.ndarray) -> float:
        return float(sum(p.value(mask)[0] for p in self._parts))

    def _subset_mask(self, subset: Any) -> np.ndarray:
        mask = np.zeros(self._d, dtype=bool)
        items = [subset] if isinstance(subset, (str, int, np.integer)) else list(subset)
        for it in items:
            if isinstance(it, str):
                if it not in self.feature_names:
                    raise ValueError(f"subsets: unknown feature {it!r}; features are {self.feature_names}.")
                mask[self.feature_names.index(it)] = True
            elif isinstance(it, (int, np.integer)) and not isinstance(it, (bool, np.bool_)) and 0 <= it < self._d:
                mask[int(it)] = True
            else:
                raise ValueError(
                    f"subsets: {it!r} is not a feature; give indices in 0..{self._d - 1} or names {self.feature_names}."
                )
        return mask

    def _scale(self, normalized: bool) -> float:
        if not normalized:
            return 1.0
        if self.variance <= 0:
            raise ValueError(
                f"the model's variance over the inputs is {self.variance:.3g}, so normalised indices are undefined; "
                "use normalized=False."
            )
        return 1.0 / self.variance

    def closed_index(self, subsets: Any, *, normalized: bool = True) -> np.ndarray:
        """Closed Sobol indices V_S / V (or V_S with ``normalized=False``) of the given subsets.

        Parameters
        ----------
        subsets : list of lists of feature indices or names
            The subsets S.
        normalized : bool
            Divide by the variance V (False: V_S in units of variance).

        Returns
        -------
        ndarray of shape (len(subsets),)
            The closed index of each subset.

        Examples
        --------
        >>> import numpy as np, scipy.stats as st
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.array([[0.0, 0.0], [1.0, 1.0]]), [1.0, -1.0], kx.kernels.RBF(1.0))
        >>> sa = kx.sensitivity.SensitivityAnalysis(em, distributions=[st.norm(0, 1), st.uniform(-1, 2)])
        >>> np.round(sa.closed_index([[0], [1], [0, 1]]), 3)
        array([0.63, 0.28, 1.  ])
        """
        if isinstance(subsets, (str, int, np.integer)):
            raise TypeError("subsets must be a list of subsets (each a list of features), e.g. [[0, 1], [2]].")
        scale = self._scale(normalized)
        return np.array([(self._value(self._subset_mask(s)) - self._w_empty) * scale for s in subsets])

    def first_order(self, *, normalized: bool = True) -> np.ndarray:
        """First-order Sobol indices V_{j} / V, shape (d,) (see :meth:`closed_index`).

        Parameters
        ----------
        normalized : bool, default True
            Divide by the variance V (False: in units of variance).

        Returns
        -------
        ndarray of shape (d,)
            The first-order Sobol index of each feature.
        """
        return self.closed_index([[j] for j in range(self._d)], normalized=normalized)

    def total_order(self, *, normalized: bool = True) -> np.ndarray:
        """Total Sobol indices (V - V_{-j}) / V, shape (d,), from prefix and suffix products.

        Parameters
        ----------
        normalized : bool, default True
            Divide by the variance V (False: in units of variance).

        Returns
        -------
        ndarray of shape (d,)
            The total Sobol index of each feature.
        """
        loo = sum(p.leave_one_out()[:, 0] for p in self._parts)
        return (self.variance + self._w_empty - np.asarray(loo)) * self._scale(normalized)

    def second_order(self, pairs: Any = None, *, normalized: bool = True) -> np.ndarray:
        """Second-order (interaction) Sobol indices (V_{jk} - V_j - V_k) / V.

        Parameters
        ----------
        pairs : list of (j, k), optional
            Default: every pair, returned as a symmetric (d, d) matrix with zeros on the diagonal.
        normalized : bool
            Divide by the variance V (False: in units of variance).

        Returns
        -------
        ndarray of shape (len(pairs),), or (d, d) when ``pairs`` is None
            The second-order index of each pair.
        """
        first = self.first_order(normalized=normalized)
        if pairs is None:
            out = np.zeros((self._d, self._d))
            for j in range(self._d):
                for k in range(j + 1, self._d):
                    out[j, k] = out[k, j] = self.closed_index([[j, k]], normalized=normalized)[0] - first[j] - first[k]
            return out
        res = []
        for pair in pairs:
            mask = self._subset_mask(pair)
            if mask.sum() != 2:
                raise ValueError(f"pairs: {pair!r} is not a pair of two different features.")
            a, b = (int(i) for i in np.flatnonzero(mask))
            res.append(self.closed_index([[a, b]], normalized=normalized)[0] - first[a] - first[b])
        return np.array(res)

    def shapley_values(self, *, progress: bool = False) -> np.ndarray:
        """Shapley effects in units of variance (Shapley values of S -> V_S), shape (d,).

        Parameters
        ----------
        progress : bool, default False
            Show a progress bar.

        Returns
        -------
        ndarray of shape (d,)
            The Shapley effects in units of variance; they sum to the variance.
        """
        total = np.zeros(self._d)
        for p in self._parts:
            game: PairGame | PriorGame = PairGame(p) if isinstance(p, PairPart) else PriorGame(p)
            total += solve_product_game(game, progress=progress).values[0, :, 0]
        return total

    def shapley_effects(self, *, pairs: Any = None, subsets: Any = None, progress: bool = False) -> GlobalAttribution:
        """The Shapley effects as a :class:`kx.GlobalAttribution` of the variance, with the Sobol indices.

        ``values`` are the Shapley effects in units of variance and ``total`` is Var f(X); the
        columns ``shapley_effect`` (values / total), ``first_order_sobol`` and ``total_sobol`` are
        normalised.  ``info`` holds ``second_order`` ({(j, k): index} for the requested ``pairs``)
        and ``closed`` ({tuple(subset): index} for the requested ``subsets``), with ``measure``
        and ``output``.

        Parameters
        ----------
        pairs : list of (j, k), optional
            Pairs whose second-order indices go into ``info["second_order"]``.
        subsets : list of lists of features, optional
            Subsets whose closed indices go into ``info["closed"]``.
        progress : bool, default False
            Show a progress bar.

        Returns
        -------
        GlobalAttribution
            The Shapley effects of the variance, with the Sobol indices as columns.

        Examples
        --------
        >>> import numpy as np, scipy.stats as st
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.array([[0.0, 0.0], [1.0, 1.0]]), [1.0, -1.0], kx.kernels.RBF(1.0))
        >>> sa = kx.sensitivity.SensitivityAnalysis(em, distributions=[st.norm(0, 1)] * 2)
        >>> g = sa.shapley_effects(pairs=[(0, 1)])
        >>> np.round(g.shapley_effect, 3), round(g.info["second_order"][(0, 1)], 3)
        (array([0.5, 0.5]), 0.138)
        """
        values = self.shapley_values(progress=progress)
        scale = 1.0 / self.variance if self.variance > 0 else np.nan
        info: dict[str, Any] = {"measure": self.measure, "output": self.output, "target": self.target}
        if pairs is not None:
            idx = [tuple(int(i) for i in np.flatnonzero(self._subset_mask(p))) for p in pairs]
            info["second_order"] = dict(zip(idx, self.second_order(pairs).tolist()))
        if subsets is not None:
            keys = [tuple(int(i) for i in np.flatnonzero(self._subset_mask(s))) for s in subsets]
            info["closed"] = dict(zip(keys, self.closed_index(subsets).tolist()))
        return GlobalAttribution(
            values,
            total=self.variance,
            feature_names=self.feature_names,
            quantity=f"variance of {self.output}",
            columns={
                "shapley_effect": values * scale,
                "first_order_sobol": self.first_order(normalized=False) * scale,
                "total_sobol": self.total_order(normalized=False) * scale,
            },
            info=info,
            game=TARGET_GAMES[self.target],
        )


def sobol_indices(
    model: Any,
    background: Any = None,
    *,
    background_weights: Any = None,
    distributions: Any = None,
    feature_names: Sequence[str] | None = None,
    output: int | None = None,
    target: str = "mean",
    pairs: Any = None,
    subsets: Any = None,
) -> GlobalAttribution:
    """Exact Sobol indices and Shapley effects of a kernel model in one call.

    ``SensitivityAnalysis(model, ...).shapley_effects(pairs=pairs, subsets=subsets)``: a
    :class:`kx.GlobalAttribution` of Var f(X) whose ``values`` are the Shapley effects (units of
    variance), with the normalised columns ``shapley_effect``, ``first_order_sobol`` and
    ``total_sobol``, and the requested second-order and closed indices in ``info``.

    Parameters
    ----------
    model : fitted estimator, Pipeline, KernelExpansion or GPPosterior
        As in :class:`SensitivityAnalysis`.
    background : array-like or DataFrame of shape (B, d), optional
        As in :class:`SensitivityAnalysis`.
    background_weights : array-like of shape (B,), optional
        As in :class:`SensitivityAnalysis`.
    distributions : list of d frozen scipy.stats distributions, optional
        As in :class:`SensitivityAnalysis`.
    feature_names : sequence of str, optional
        As in :class:`SensitivityAnalysis`.
    output : int, optional
        As in :class:`SensitivityAnalysis`.
    target : str, default "mean"
        As in :class:`SensitivityAnalysis`.
    pairs : list of (j, k), optional
        As in :meth:`SensitivityAnalysis.shapley_effects`.
    subsets : list of lists of features, optional
        As in :meth:`SensitivityAnalysis.shapley_effects`.

    Returns
    -------
    GlobalAttribution
        The Shapley effects of the variance, with the Sobol indices as columns.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from sklearn.svm import SVR
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(50, 2))
    >>> g = kx.sensitivity.sobol_indices(SVR().fit(X, np.sin(2 * X[:, 0])), background=X)
    >>> g.ranking(), bool(np.all(g.total_sobol >= g.first_order_sobol))
    (['x0', 'x1'], True)
    """
    sa = SensitivityAnalysis(
        model,
        background,
        background_weights=background_weights,
        distributions=distributions,
        feature_names=feature_names,
        output=output,
        target=target,
    )
    return sa.shapley_effects(pairs=pairs, subsets=subsets)
