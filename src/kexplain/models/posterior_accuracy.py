"""The rounding bounds of uncertain explanations: recorded in the result, warned of beyond UNCERTAINTY_RTOL.

``GPPosterior.error_radius`` bounds the rounding error of every data term; the explainers put
the bounds of their values and predictions into ``Explanation.info`` (:func:`record_accuracy`)
and warn with an :class:`~kexplain.exceptions.AccuracyWarning` where a variance is resolved to
less than :data:`UNCERTAINTY_RTOL` (:func:`warn_accuracy`, :func:`check_accuracy`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .posterior_parts import GPPosterior

#: relative accuracy the uncertainty results are checked against (AccuracyWarning beyond it)
UNCERTAINTY_RTOL = 1e-8


def check_accuracy(
    variances: ArrayLike, radii_sq: ArrayLike, condition_number: float, what: str, *, stacklevel: int = 2
) -> None:
    """Warn (:class:`~kexplain.exceptions.AccuracyWarning`) where a rounding bound exceeds ``UNCERTAINTY_RTOL``.

    A variance v with a data-term rounding bound b (``GPPosterior.error_radius`` squared) is
    resolved when b <= UNCERTAINTY_RTOL * v; otherwise the warning names the condition number of
    the training system, the worst relative bound and what the caller records.

    Parameters
    ----------
    variances : array-like
        The computed variances (in any units).
    radii_sq : array-like
        Their rounding bounds, same shape and units.
    condition_number : float
        ``GPPosterior.condition_number``.
    what : str
        What the variances are, in words (with where the bound is recorded).
    stacklevel : int
        Passed to ``warnings.warn`` (2: the caller of this function).

    Examples
    --------
    >>> import warnings
    >>> from kexplain.models.posterior import check_accuracy
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_accuracy([1e-12, 1.0], [1e-13, 1e-17], 1e17, "prediction variances")
    >>> print(str(caught[0].message)[:58])
    prediction variances: 1 of 2 are resolved to only a relati
    """
    import warnings

    from ..exceptions import AccuracyWarning

    v = np.asarray(variances, dtype=np.float64)
    b = np.asarray(radii_sq, dtype=np.float64)
    bad = b > UNCERTAINTY_RTOL * np.clip(v, 0.0, None)
    if not np.any(bad):
        return
    rel = b[bad] / np.maximum(np.clip(v[bad], 0.0, None), np.finfo(np.float64).tiny)
    worst = float(rel.max())
    shown = f"a relative {worst:.2g}" if worst < 1 else "100% or worse"
    warnings.warn(
        f"{what}: {int(bad.sum())} of {v.size} are resolved to only {shown} (the requested relative accuracy is "
        f"{UNCERTAINTY_RTOL:g}): the training system of the Gaussian process (K + noise) has condition number "
        f"{condition_number:.3g}, so variances below about eps * condition number times the prior variance "
        "cannot be resolved in double precision.  The bounds are in the result; a larger noise level (alpha or "
        "a WhiteKernel) or shorter length-scale bounds give a better-conditioned fit.",
        AccuracyWarning,
        stacklevel=stacklevel + 1,
    )


def record_accuracy(ex: Any, posterior: GPPosterior, values_bound: ArrayLike, prediction_bound: ArrayLike) -> None:
    """Put the rounding bounds of an uncertain explanation into ``ex.info``.

    ``info["variance_error_bound"]`` (N, d): bound on the error of each value's variance (the
    diagonal of ``covariance``; a covariance entry (j, l) is within the geometric mean of the two
    bounds); ``info["prediction_variance_error_bound"]`` (N,); ``info["condition_number"]`` of the
    posterior's training system.

    Parameters
    ----------
    ex : Explanation
    posterior : GPPosterior
    values_bound : array-like of shape (N, d)
    prediction_bound : array-like of shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.models.posterior import record_accuracy
    >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
    >>> ex = kx.Explanation(np.zeros((1, 1)), 0.0)
    >>> record_accuracy(ex, post, np.zeros((1, 1)), np.zeros(1))
    >>> sorted(ex.info)
    ['condition_number', 'prediction_variance_error_bound', 'variance_error_bound']
    """
    ex.info["variance_error_bound"] = np.asarray(values_bound, dtype=np.float64)
    ex.info["prediction_variance_error_bound"] = np.asarray(prediction_bound, dtype=np.float64)
    ex.info["condition_number"] = posterior.condition_number


def warn_accuracy(ex: Any, *, stacklevel: int = 3) -> None:
    """:func:`check_accuracy` on an explanation filled by :func:`record_accuracy` (once per call).

    Parameters
    ----------
    ex : Explanation
    stacklevel : int
        Where the warning points (3: the caller of the function that calls this one).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.models.posterior import warn_accuracy
    >>> ex = kx.Explanation(np.zeros((1, 1)), 0.0, covariance=np.ones((1, 1, 1)), prediction_variance=[1.0])
    >>> ex.info.update(variance_error_bound=np.zeros((1, 1)), prediction_variance_error_bound=np.zeros(1),
    ...                condition_number=1.0)
    >>> warn_accuracy(ex)  # resolved: nothing to say
    """
    info = ex.info
    cond = float(info.get("condition_number", float("nan")))
    if ex.covariance is not None and "variance_error_bound" in info:
        C = np.asarray(ex.covariance)
        var = np.diagonal(C, axis1=-2, axis2=-1)
        check_accuracy(
            var,
            info["variance_error_bound"],
            cond,
            'variances of the Shapley values (info["variance_error_bound"])',
            stacklevel=stacklevel + 1,
        )
    if ex.prediction_variance is not None and "prediction_variance_error_bound" in info:
        check_accuracy(
            ex.prediction_variance,
            info["prediction_variance_error_bound"],
            cond,
            'prediction variances (info["prediction_variance_error_bound"])',
            stacklevel=stacklevel + 1,
        )
