"""The nuclear dominant kernel of the RBF kernel, in closed form.

For a target kernel l, r(y, y') = int l(y, u) l(u, y') nu(du) is a *nuclear dominant* kernel over l:
a GP with covariance r has its sample paths in the RKHS of l almost surely (Lukic & Beder, 2001;
Flaxman, Sejdinovic, Cunningham & Filippi, 2016), which is what the Bayesian embeddings need to
take inner products <f, mu(x, .)> (Chau, 2023, thesis section 4.3.2 and appendix B.3.2).  For the
RBF l and a Gaussian measure nu the integral has the closed form of ``nuclear_dominant_rbf``; the
prior of :class:`~kexplain.embeddings.BayesianCME` (``bayesian.py``) and the landmark algebra of
:class:`~kexplain.causal.BayesIMP` are built on it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._params import check_positive
from .._validation import check_data
from .gram import as_2d


def nuclear_dominant_rbf(
    A: ArrayLike, B: ArrayLike, lengthscale: float | ArrayLike, measure_scale: float
) -> np.ndarray:
    """r(a, b) = int l(a, u) l(u, b) nu(du) for the RBF ``l = exp(-||(a - b) / lengthscale||^2 / 2)``.

    With ``nu(du) = exp(-||u||^2 / (2 s^2)) du`` (s = ``measure_scale``) and Sigma = diag(lengthscale^2)
    the integral is (Chau, 2023, thesis appendix B.3.2, eqs. B.14-B.16, with Sigma^-1 in B.13's
    exponent; Flaxman, Sejdinovic, Cunningham & Filippi, 2016, appendix A)::

        (2 pi)^(D/2) |2 Sigma^-1 + s^-2 I|^(-1/2) exp(-(a - b)^T (2 Sigma)^-1 (a - b) / 2)
        * exp(-m^T (Sigma / 2 + s^2 I)^-1 m / 2),        m = (a + b) / 2.

    Parameters
    ----------
    A : array-like of shape (n, q)
        Points.
    B : array-like of shape (m, q)
        Points.
    lengthscale : float or array-like of shape (q,)
        Lengthscale of the RBF kernel l.
    measure_scale : float
        Standard deviation of the Gaussian measure nu.

    Returns
    -------
    ndarray of shape (n, m)
        The nuclear dominant kernel r(A, B).

    Raises
    ------
    ValueError
        Naming ``A``, ``B``, ``lengthscale`` or ``measure_scale``: points not finite, or with
        different numbers of columns; lengthscales not positive finite numbers (one, or one per
        column); a measure scale not a positive finite number.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import nuclear_dominant_rbf
    >>> np.round(nuclear_dominant_rbf([[0.0]], [[0.0], [1.0]], 1.0, 1.0), 3)
    array([[1.447, 1.037]])
    """
    A2 = as_2d(check_data(A, name="A", estimator=True, min_features=1, ndims=(1, 2), huge=False))
    B2 = as_2d(check_data(B, name="B", estimator=True, min_features=1, ndims=(1, 2), huge=False))
    D = A2.shape[1]
    if B2.shape[1] != D:
        raise ValueError(f"B has {B2.shape[1]} column(s) but A has {D}; both are points of the same space.")
    ls = check_positive(lengthscale, "lengthscale", allow_array=True)
    if np.ndim(ls) == 1 and ls.shape[0] not in (1, D):
        raise ValueError(
            f"lengthscale must be one positive number or one per column of A ({D}), got {ls.shape[0]} numbers."
        )
    ls = np.broadcast_to(np.asarray(ls, dtype=np.float64), (D,))
    s2 = check_positive(measure_scale, "measure_scale") ** 2
    const = (2 * np.pi) ** (D / 2) * np.prod(2.0 / ls**2 + 1.0 / s2) ** -0.5
    diff = (A2[:, None, :] - B2[None, :, :]) / ls
    mid = (A2[:, None, :] + B2[None, :, :]) / 2
    quad = 0.25 * np.sum(diff**2, axis=-1) + 0.5 * np.sum(mid**2 / (ls**2 / 2 + s2), axis=-1)
    return np.asarray(const * np.exp(-quad))
