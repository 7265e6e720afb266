"""Sum-of-unanimity STAR models on {-1, +1}^n, for experiments and tests.

The synthetic models of Dubé & Marchand, "Shapley Values of Structured Additive Regression Models
and Application to RKHS Weightings of Functions", section 5.1, and the black-box interventional
game that model-agnostic estimators see, to compare them with STAR-SHAP (their section 5.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_legacy_random_state
from .model import StarModel, StarTerm


class _Unanimity:
    """a * 1[x_j = 1 for every j of the term]."""

    def __init__(self, a: float) -> None:
        self.a = float(a)

    def __call__(self, XI: np.ndarray) -> np.ndarray:
        return self.a * np.all(XI == 1.0, axis=1)


def unanimity_model(n_features: int, order: int, n_terms: int, random_state: RandomStateLike = None) -> StarModel:
    """A random k-STAR sum of unanimity games: f(x) = sum_t a_t 1[x_{I_t} = 1].

    The I_t are uniform subsets of size ``order`` and a_t ~ U[0, 1] (section 5.1).

    Parameters
    ----------
    n_features : int
        Number of features n.
    order : int
        Size k of every term, at most ``n_features``.
    n_terms : int
        Number of terms T.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the subsets and coefficients.

    Returns
    -------
    StarModel
        The k-STAR sum of unanimity games.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import unanimity_model
    >>> model = unanimity_model(6, 3, 4, random_state=0)
    >>> model.max_order, len(model.terms)
    (3, 4)
    >>> print(f"{model.predict(np.ones((1, 6)))[0]:.3f}")     # every term fires at x = 1
    1.601
    """
    if order > n_features:
        raise ValueError(f"order={order} exceeds n_features={n_features}.")
    rng = check_legacy_random_state(random_state)
    terms = []
    for _ in range(n_terms):
        I = tuple(sorted(rng.choice(n_features, order, replace=False).tolist()))
        terms.append(StarTerm(I, _Unanimity(rng.uniform())))
    return StarModel(terms, n_features=n_features)


def unanimity_data(n_samples: int, n_features: int, random_state: RandomStateLike = None) -> np.ndarray:
    """Rows with independent uniform +-1 entries.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of the data.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the draw.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        Independent uniform +-1 entries.

    Examples
    --------
    >>> from kexplain.star import unanimity_data
    >>> unanimity_data(2, 3, random_state=0)
    array([[-1.,  1.,  1.],
           [-1.,  1.,  1.]])
    """
    rng = check_legacy_random_state(random_state)
    return rng.choice([-1.0, 1.0], size=(n_samples, n_features))


def interventional_value_function(
    predict: Callable[[np.ndarray], Any], x: Any, background: Any, max_rows: int = 2**20
) -> Callable[[np.ndarray], np.ndarray]:
    """The black-box interventional game of one row: v(S) = mean_z predict(x_S, z_notS).

    The game that model-agnostic estimators (shap, shapiq) see; used by the examples and
    benchmarks to compare them with STAR-SHAP on the same value function.

    Parameters
    ----------
    predict : callable
        The model's prediction function on rows of shape (n, d).
    x : array-like of shape (d,)
        The explained row.
    background : array-like of shape (m, d)
        The rows z averaged over.
    max_rows : int
        Bound on the rows passed to ``predict`` in one call.

    Returns
    -------
    callable
        ``game(S)`` for coalitions S of shape (B, d) (booleans) returns shape (B,).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import interventional_value_function
    >>> game = interventional_value_function(lambda X: X[:, 0] * X[:, 1], [2.0, 3.0], [[0.0, 1.0], [1.0, 1.0]])
    >>> game(np.array([[False, False], [True, False], [True, True]]))
    array([0.5, 2. , 6. ])
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    Z = np.asarray(background, dtype=np.float64)
    m, d = Z.shape

    def game(S: np.ndarray) -> np.ndarray:
        S = np.asarray(S, dtype=bool)
        out = np.empty(S.shape[0])
        step = max(1, max_rows // (m * d))
        for b0 in range(0, S.shape[0], step):
            Sb = S[b0 : b0 + step]
            rows = np.where(Sb[:, None, :], x[None, None, :], Z[None, :, :]).reshape(-1, d)
            out[b0 : b0 + step] = np.asarray(predict(rows)).reshape(Sb.shape[0], m).mean(axis=1)
        return out

    return game
