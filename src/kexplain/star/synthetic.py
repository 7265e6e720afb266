"""Sum-of-unanimity STAR models on {-1, +1}^n (seed 004 section 5.1), for experiments and tests."""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .model import StarModel, StarTerm


class _Unanimity:
    """a * 1[x_j = 1 for every j of the term]."""

    def __init__(self, a):
        self.a = float(a)

    def __call__(self, XI):
        return self.a * np.all(XI == 1.0, axis=1)


def unanimity_model(n_features: int, order: int, n_terms: int, random_state=None) -> StarModel:
    """f(x) = sum_t a_t 1[x_{I_t} = 1], I_t uniform subsets of size ``order``, a_t ~ U[0, 1]."""
    if order > n_features:
        raise ValueError(f"order={order} exceeds n_features={n_features}.")
    rng = check_random_state(random_state)
    terms = []
    for _ in range(n_terms):
        I = tuple(sorted(rng.choice(n_features, order, replace=False).tolist()))
        terms.append(StarTerm(I, _Unanimity(rng.uniform())))
    return StarModel(terms, n_features=n_features)


def unanimity_data(n_samples: int, n_features: int, random_state=None) -> np.ndarray:
    """Rows with independent uniform +-1 entries."""
    rng = check_random_state(random_state)
    return rng.choice([-1.0, 1.0], size=(n_samples, n_features))


def interventional_value_function(predict, x, background, max_rows: int = 2**20):
    """v(S) = mean_z predict(x_S, z_notS) for coalitions S of shape (B, d) -> (B,).

    The black-box game that model-agnostic estimators (shap, shapiq) see; used by the examples and
    benchmarks to compare them with STAR-SHAP on the same value function.
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    Z = np.asarray(background, dtype=np.float64)
    m, d = Z.shape

    def game(S):
        S = np.asarray(S, dtype=bool)
        out = np.empty(S.shape[0])
        step = max(1, max_rows // (m * d))
        for b0 in range(0, S.shape[0], step):
            Sb = S[b0:b0 + step]
            rows = np.where(Sb[:, None, :], x[None, None, :], Z[None, :, :]).reshape(-1, d)
            out[b0:b0 + step] = np.asarray(predict(rows)).reshape(Sb.shape[0], m).mean(axis=1)
        return out

    return game
