"""A sampled RKHS Weighting: parameters, design matrix, Gram matrix, least-squares fit, STAR terms.

Every model here is written in the STAR form of equation 29 of Dubé & Marchand, "Shapley Values
of Structured Additive Regression Models and Application to RKHS Weightings of Functions"
(section 4.3),

    h(x) = sum_t a_t p(I_t) E_{w ~ p_W|I_t}[K_W(w_t, w) phi(<w, x_{I_t}>)],

with kernel K((w, I), (w', I')) = K_W(w, w') 1[I = I'] (Table 4).  The original (non-additive)
RWSign / RWRelu is the special case I_t = all features, p = 1; RWStumps is the case of single
features with p = 1/n.  Learning is the regularised least-squares fit of appendix E (equations
63-64): (Phi^T Phi + m lambda G + m eps I) a = Phi^T y.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import linalg

from .instantiations import _GaussianInstantiation
from .model import SUM_OF_TERMS, StarModel, StarTerm
from .subsets import SubsetDistribution, UniformSubsets

#: rows x parameters x subset size handled at once when building a design matrix
_CHUNK_ELEMS = 2**22


class RKHSWeighting:
    """Sampled parameters (I_t, w_t) of an instantiation, with or without a subset distribution.

    The building block of :class:`RKHSWeightingRegressor` and :class:`RKHSWeightingClassifier`;
    use it directly to fix the parameters or to read the design and Gram matrices.

    Parameters
    ----------
    instantiation : RWSign, RWRelu or RWStumps
        The base predictor, kernel and parameter distribution.
    n_features : int
        Number of features of the rows.
    subsets : SubsetDistribution or None
        None: the original instantiation over all features (stumps: uniform single features).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RKHSWeighting, RWRelu, UniformSubsets
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> w = RKHSWeighting(RWRelu(gamma=1.0), 3, UniformSubsets(3, 2)).sample(10, rng)
    >>> w.design_matrix(X).shape, w.gram().shape
    ((40, 10), (10, 10))
    >>> coef = w.fit_coefficients(X, X[:, 0] * X[:, 1], regularization=1e-6)
    >>> from kexplain.star.weighting import weighting_star_model
    >>> star = weighting_star_model(w, coef)
    >>> bool(np.allclose(star.predict(X), w.design_matrix(X) @ coef)), star.max_order
    (True, 2)
    """

    def __init__(
        self,
        instantiation: _GaussianInstantiation,
        n_features: int,
        subsets: SubsetDistribution | None = None,
    ) -> None:
        self.instantiation = instantiation
        self.n_features = int(n_features)
        if instantiation.single_feature:
            if subsets is not None and subsets.order != 1:
                raise ValueError(
                    "RWStumps is already additive (each stump reads one feature): interaction_order "
                    f"must be None or 1, got {subsets.order}."
                )
            subsets = subsets if subsets is not None else UniformSubsets(self.n_features, 1)
        self.subsets = subsets

    # -- sampling ----------------------------------------------------------------------------
    def sample(self, n_parameters: int, rng: np.random.Generator) -> RKHSWeighting:
        """Draw (I_t, w_t) ~ p_[n] x p_W|I, t = 1..n_parameters; returns self.

        Parameters
        ----------
        n_parameters : int
            Number T of parameters to draw.
        rng : numpy.random.Generator
            Source of the draws.

        Returns
        -------
        RKHSWeighting
            self, with the parameters set.
        """
        if self.subsets is None:
            subs = [tuple(range(self.n_features))] * n_parameters
        else:
            subs = self.subsets.sample(n_parameters, rng)
        # parameters of a size class are drawn together so results depend only on the seed
        W: list[Any] = [None] * n_parameters
        sizes = np.array([len(s) for s in subs])
        for s in np.unique(sizes):
            ts = np.nonzero(sizes == s)[0]
            draws = self.instantiation.sample(ts.size, int(s), rng)
            for i, t in enumerate(ts):
                W[t] = draws[i]
        self.set_parameters(subs, W)
        return self

    def set_parameters(self, subsets: Sequence[Sequence[int]], weights: Sequence[Any]) -> RKHSWeighting:
        """Use given subsets I_t (tuples) and parameters w_t (arrays of length ``|I_t|``); returns self.

        Parameters
        ----------
        subsets : sequence of sequence of int
            The subsets I_t.
        weights : sequence of array-like
            The parameters w_t, of length ``|I_t|`` each.

        Returns
        -------
        RKHSWeighting
            self, with the parameters set.
        """
        if len(subsets) != len(weights):
            raise ValueError("subsets and weights must have one entry per parameter.")
        self.subsets_ = [tuple(int(j) for j in s) for s in subsets]
        self.weights_ = [np.asarray(w, dtype=np.float64).reshape(-1) for w in weights]
        for s, w in zip(self.subsets_, self.weights_):
            if len(s) != w.size:
                raise ValueError(f"parameter for subset {s} has {w.size} entries, expected {len(s)}.")
            if max(s) >= self.n_features or min(s) < 0:
                raise ValueError(f"subset {s} names features outside 0..{self.n_features - 1}.")
        if self.subsets is None:
            self.probabilities_ = np.ones(len(self.subsets_))
        else:
            self.probabilities_ = np.array([self.subsets.probability(s) for s in self.subsets_])
        # groups of parameters sharing a subset size, for vectorised evaluation
        sizes = np.array([len(s) for s in self.subsets_])
        self._groups = []
        for s in np.unique(sizes):
            ts = np.nonzero(sizes == s)[0]
            idx = np.array([self.subsets_[t] for t in ts], dtype=np.int64)
            W = np.stack([self.weights_[t] for t in ts])
            self._groups.append((ts, idx, W))
        return self

    @property
    def n_parameters(self) -> int:
        """T, the number of sampled parameters."""
        return len(self.subsets_)

    # -- matrices ----------------------------------------------------------------------------
    def design_matrix(self, X: np.ndarray) -> np.ndarray:
        """Phi[i, t] = p(I_t) E_w[K_W(w_t, w) phi(<w, x_{i, I_t}>)], shape (m, T).

        Parameters
        ----------
        X : ndarray of shape (m, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (m, T)
            The design matrix Phi.
        """
        X = np.asarray(X, dtype=np.float64)
        m = X.shape[0]
        Phi = np.empty((m, self.n_parameters))
        inst = self.instantiation
        for ts, idx, W in self._groups:
            s = idx.shape[1]
            full = self.subsets is None
            step = max(1, _CHUNK_ELEMS // max(1, (1 if full else ts.size) * s))
            for r0 in range(0, m, step):
                rows = slice(r0, min(m, r0 + step))
                XI = X[rows][:, idx[0]] if full else X[rows][:, idx]  # (r, s) or (r, T_s, s)
                Phi[rows, ts] = inst.expectation(W, XI)
            Phi[:, ts] *= self.probabilities_[ts][None, :]
        return Phi

    def gram(self) -> np.ndarray:
        """G[t, u] = K_W(w_t, w_u) 1[I_t = I_u], shape (T, T).

        Returns
        -------
        ndarray of shape (T, T)
            The Gram matrix G of the parameters.
        """
        T = self.n_parameters
        G = np.zeros((T, T))
        ids: dict[tuple[int, ...], int] = {}
        labels = np.array([ids.setdefault(s, len(ids)) for s in self.subsets_])
        for lab in range(len(ids)):
            ts = np.nonzero(labels == lab)[0]
            W = np.stack([self.weights_[t] for t in ts])
            G[np.ix_(ts, ts)] = self.instantiation.kernel(W, W)
        return G

    # -- learning ----------------------------------------------------------------------------
    def fit_coefficients(self, X: Any, Y: Any, regularization: float, epsilon: float = 1e-10) -> np.ndarray:
        """Least squares of appendix E: (Phi^T Phi + m lambda G + m eps I) a = Phi^T Y.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
            Training rows.
        Y : array-like of shape (m,) or (m, k)
            Targets.
        regularization : float
            The ridge lambda.
        epsilon : float, default 1e-10
            The jitter eps that keeps the system positive definite.

        Returns
        -------
        ndarray of shape (T,) or (T, k)
            The coefficients a.
        """
        Phi = self.design_matrix(X)
        m = Phi.shape[0]
        A = Phi.T @ Phi + m * regularization * self.gram() + m * epsilon * np.eye(self.n_parameters)
        rhs = Phi.T @ Y
        try:
            a = linalg.solve(A, rhs, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            a = linalg.lstsq(A, rhs)[0]
        if not np.all(np.isfinite(a)):
            raise FloatingPointError(
                "the least-squares system of the RKHS Weighting is singular; increase regularization."
            )
        self.coef_ = a
        return a

    # -- STAR view ---------------------------------------------------------------------------
    def star_terms(self, coef: Any, x_mean: Any = None, x_scale: Any = None, out_scale: float = 1.0) -> list[StarTerm]:
        """One STAR term per distinct subset J of the fitted parameters.

        f_J(x_J) = out_scale sum_{t: I_t = J} a_t p(J) E[...], evaluated on
        ((x - x_mean) / x_scale)_J when a standardisation is given.

        Parameters
        ----------
        coef : array-like of shape (T,)
            The coefficients a_t.
        x_mean : array-like of shape (n_features,), optional
            Mean of the standardisation of the inputs.
        x_scale : array-like of shape (n_features,), optional
            Scale of the standardisation of the inputs.
        out_scale : float, default 1.0
            Factor of the outputs.

        Returns
        -------
        list of StarTerm
            One term per distinct subset.
        """
        coef = np.asarray(coef, dtype=np.float64)
        by_subset: dict[tuple[int, ...], list[int]] = {}
        for t, s in enumerate(self.subsets_):
            by_subset.setdefault(s, []).append(t)
        terms = []
        for J, ts in by_subset.items():
            W = np.stack([self.weights_[t] for t in ts])
            a = coef[ts] * self.probabilities_[ts].reshape((-1,) + (1,) * (coef.ndim - 1)) * out_scale
            mu = None if x_mean is None else np.asarray(x_mean)[list(J)]
            sc = None if x_scale is None else np.asarray(x_scale)[list(J)]
            terms.append(StarTerm(J, _WeightingTerm(self.instantiation, W, a, mu, sc)))
        return terms


class _WeightingTerm:
    """f_J(x_J) = sum_t a_t E[K_W(w_t, w) phi(<w, x_J>)] on (optionally standardised) columns."""

    def __init__(
        self, instantiation: _GaussianInstantiation, W: np.ndarray, a: np.ndarray, mean: Any, scale: Any
    ) -> None:
        self.instantiation, self.W, self.a = instantiation, W, a
        self.mean, self.scale = mean, scale

    def __call__(self, XJ: np.ndarray) -> np.ndarray:
        Xs = XJ if self.mean is None else (XJ - self.mean) / self.scale
        return self.instantiation.expectation(self.W, Xs) @ self.a


def weighting_star_model(
    weighting: RKHSWeighting,
    coef: Any,
    intercept: Any = 0.0,
    x_mean: Any = None,
    x_scale: Any = None,
    out_scale: float = 1.0,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    output: str = SUM_OF_TERMS,
) -> StarModel:
    """A fitted RKHS Weighting as a :class:`StarModel`, one term per distinct feature subset.

    Parameters
    ----------
    weighting : RKHSWeighting
        Sampled parameters.
    coef : array-like of shape (n_parameters,) or (n_parameters, n_outputs)
        The coefficients a_t.
    intercept : float or array-like of shape (n_outputs,)
        Added to the sum of the terms.
    x_mean, x_scale : array-like of shape (n_features,), optional
        Standardisation of the inputs: terms read ((x - x_mean) / x_scale).
    out_scale : float
        Factor on every term (the target's scale).
    feature_names, output_names : sequence of str, optional
        Passed to the StarModel.
    output : str
        Which model output the terms add up to, in words.

    Returns
    -------
    StarModel

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RKHSWeighting, RWSign, Sequences
    >>> from kexplain.star.weighting import weighting_star_model
    >>> w = RKHSWeighting(RWSign(gamma=1.0), 4, Sequences(4, 2)).sample(6, np.random.default_rng(0))
    >>> star = weighting_star_model(w, np.ones(6), intercept=1.0)
    >>> all(t.features[1] == t.features[0] + 1 for t in star.terms)
    True
    """
    return StarModel(
        weighting.star_terms(coef, x_mean, x_scale, out_scale),
        n_features=weighting.n_features,
        intercept=intercept,
        feature_names=feature_names,
        output_names=output_names,
        output=output,
    )
