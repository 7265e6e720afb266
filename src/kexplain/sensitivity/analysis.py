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

:class:`SensitivityAnalysis` reads the model and the input measure and builds the parts (here);
it inherits the indices read from the parts from ``_indices`` (:class:`SobolIndices`) and the
posterior's parts and draws from ``_posterior`` (:class:`PosteriorIndices`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_weights, feature_names_of
from ..attribution import GlobalAttribution
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior
from ..models.sklearn import as_kernel_expansion, describe_output
from ._games import PairPart, PriorPart
from ._indices import TARGET_GAMES, SobolIndices  # noqa: F401  (TARGET_GAMES: a name of the module before the split)
from ._posterior import PosteriorIndices
from ._tables import RowGroup, Tables, closed_form_tables, empirical_tables, parse_distributions

TARGETS = ("mean", "posterior_expectation")


class SensitivityAnalysis(SobolIndices, PosteriorIndices):
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
