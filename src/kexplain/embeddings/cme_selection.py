"""The two criteria ``ConditionalMeanEmbedding`` selects its regularisation by, on precomputed Gram
matrices: the held-out squared RKHS error of cross-validation (``cme_cv_loss_from_grams``) and the
log marginal likelihood of the Bayesian CME whose posterior mean is the ridge CME
(``cme_log_marginal_likelihood``).  The ridge is n * eta, as everywhere in ``kexplain.embeddings``;
both names are imported from ``kexplain.embeddings`` and ``kexplain.embeddings.cme``."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from .._params import check_positive
from ._checks import check_matrix
from .ridge import ExactRidge


def cme_log_marginal_likelihood(K: np.ndarray, L: np.ndarray, lam: float) -> float:
    """Log marginal likelihood of the Bayesian CME whose posterior mean is the ridge CME.

    With the prior mu ~ GP(0, k (x) l) and observations l(y_i, y_j) = mu(x_i, y_j) + noise of
    covariance lam I (x) L (Chau, 2023, thesis Proposition 4.3.2, eq. 4.13 with the nuclear kernel
    replaced by l itself), up to terms that do not depend on lam:
    -n/2 log|K + lam I| - 1/2 tr((K + lam I)^-1 L).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the conditioning inputs x.
    L : ndarray of shape (n, n)
        Gram matrix of the conditioned outputs y.
    lam : float
        The ridge regularisation (noise variance), positive.

    Returns
    -------
    float
        The log marginal likelihood, up to terms that do not depend on ``lam``.

    Raises
    ------
    ValueError
        Naming ``K``, ``L`` or ``lam``: K not a finite square matrix, L not a finite matrix of the
        same shape, lam not a positive finite number.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import cme_log_marginal_likelihood
    >>> K = np.eye(2); L = np.eye(2)
    >>> print(f"{cme_log_marginal_likelihood(K, L, 1.0):.3f}")
    -1.886
    """
    K = check_matrix(K, "K", square=True)
    n = K.shape[0]
    L = check_matrix(L, "L", shape=(n, n), what="L must be the (n, n) target Gram matrix on the rows of K")
    lam = check_positive(lam, "lam")
    e, U = np.linalg.eigh(K)
    e = np.maximum(e, 0.0) + lam
    Lt = np.einsum("ij,ik,kj->j", U, L, U)  # diag(U^T L U)
    return float(-0.5 * n * np.sum(np.log(e)) - 0.5 * np.sum(Lt / e))


def cme_cv_loss_from_grams(
    K: np.ndarray,
    L: np.ndarray,
    regularization: float | None = None,
    folds: Sequence[np.ndarray] | None = None,
    *,
    eta: float | None = None,
) -> float:
    """Held-out squared RKHS error sum ``||l(y, .) - mu_{Y|x}||^2`` over the folds, divided by n.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the conditioning kernel on all rows.
    L : ndarray of shape (n, n)
        Gram matrix of the target kernel on the same rows.
    regularization : float
        The ridge of the embedding, as ``ConditionalMeanEmbedding(regularization=...)``: each fold
        solves with ``K_train + n_train * regularization * I``.
    folds : sequence of 1-D int arrays
        The held-out row indices of each fold.
    eta : float, optional
        Deprecated spelling of ``regularization`` (a ``FutureWarning``).

    Returns
    -------
    float
        The summed held-out error divided by n.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import cme_cv_loss_from_grams
    >>> x = np.linspace(0, 1, 6)[:, None]
    >>> K = np.exp(-(x - x.T) ** 2); L = K.copy()
    >>> folds = [np.arange(0, 6, 2), np.arange(1, 6, 2)]
    >>> 0.0 <= cme_cv_loss_from_grams(K, L, 1e-3, folds) < 1.0
    True
    """
    K = check_matrix(K, "K", square=True)
    n = K.shape[0]
    L = check_matrix(L, "L", shape=(n, n), what="L must be the (n, n) target Gram matrix on the rows of K")
    if eta is not None:
        if regularization is not None:
            raise TypeError("give regularization, not both regularization and its deprecated spelling eta.")
        warnings.warn(
            "cme_cv_loss_from_grams(eta=...) is deprecated: write regularization=... (the keyword of the CME "
            "estimators).",
            FutureWarning,
            stacklevel=2,
        )
        regularization = eta
    if regularization is None or folds is None:
        raise TypeError("cme_cv_loss_from_grams needs regularization and folds.")
    eta = check_positive(regularization, "regularization")
    if isinstance(folds, (str, bytes)) or not hasattr(folds, "__iter__"):
        raise ValueError(f"folds must be a sequence of arrays of held-out row indices, got {folds!r:.80}.")
    checked = []
    for te in folds:
        idx = np.asarray(te)
        if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= n:
            raise ValueError(
                f"folds must be non-empty 1-D arrays of row indices in 0..{n - 1} (the held-out rows), got {te!r:.80}."
            )
        if np.unique(idx).size == n:
            raise ValueError("folds: a fold holds out every row, which leaves none to fit on.")
        checked.append(idx)
    total = 0.0
    for te in checked:
        tr = np.setdiff1d(np.arange(n), te)
        beta = ExactRidge(K[np.ix_(tr, tr)], len(tr) * eta).weights(K[np.ix_(tr, te)])
        cross = L[np.ix_(tr, te)]
        quad = np.sum(beta * (L[np.ix_(tr, tr)] @ beta), axis=0)
        total += float(np.sum(np.diag(L)[te] - 2 * np.sum(beta * cross, axis=0) + quad))
    return total / n
