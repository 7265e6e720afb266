"""Data-driven default lengthscales shared by every part of kexplain that needs one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validation import feature_names_of

#: rows used to compute the median heuristic; more only refine a median that is already stable
MEDIAN_MAX_ROWS = 1000


def _median_rows(data: np.ndarray, max_rows: int) -> np.ndarray:
    """At most ``max_rows`` evenly spaced rows of ``data`` (deterministic, no random_state)."""
    if len(data) <= max_rows:
        return data
    idx = np.linspace(0, len(data) - 1, max_rows).round().astype(np.int64)
    return data[idx]


def _safe_median(dist: np.ndarray) -> float:
    """Median of pairwise distances, falling back to the median of the nonzero ones.

    A feature with ties in over half of its pairs (a binary or mostly constant feature) has a
    zero median; the median of its nonzero distances is then a bandwidth on the scale at which
    its values do differ.  A constant feature has no nonzero distance: its factor is 1 for every
    pair whatever the bandwidth, so 1.0 is returned (it is a null player and gets exactly zero).
    """
    med = float(np.median(dist)) if dist.size else 0.0
    if med > 0:
        return med
    nz = dist[dist > 0]
    return float(np.median(nz)) if nz.size else 1.0


def _non_numeric_columns(arr: np.ndarray) -> list[int]:
    """0-based columns of a 2-D array that do not convert to float (all of them for complex data)."""
    if arr.dtype.kind == "c":
        return list(range(arr.shape[1]))
    bad = []
    for j in range(arr.shape[1]):
        try:
            arr[:, j].astype(np.float64)
        except (TypeError, ValueError):
            bad.append(j)
    return bad


def _check_arrays(arrays: tuple[ArrayLike, ...], feature_names: Sequence[str] | None = None) -> list[np.ndarray]:
    """The arrays as 2-D float arrays with finite values and one number of features, or a ValueError
    naming ``arrays[i]`` and the column (by name when ``feature_names`` are given or the array is a
    DataFrame, else by 0-based position)."""
    if not arrays:
        raise ValueError("median_heuristic needs at least one array of rows.")
    out: list[np.ndarray] = []
    for i, a in enumerate(arrays):
        name = f"arrays[{i}]"
        if hasattr(a, "toarray") and hasattr(a, "nnz"):
            a = a.toarray()
        try:
            arr = np.asarray(a)
        except ValueError:
            raise ValueError(f"median_heuristic: {name} has rows of different lengths.") from None
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"median_heuristic: {name} must be 2-D (n_samples, n_features), got shape {arr.shape}.")
        given = [str(n) for n in feature_names] if feature_names is not None else feature_names_of(a)
        names = given if given is not None and len(given) == arr.shape[1] else None

        def label(cols: list[int], names: list[str] | None = names) -> str:
            shown = [names[j] for j in cols] if names is not None else cols
            if len(cols) == 1:
                return f"column {shown[0]!r}" if names is not None else f"column {shown[0]}"
            return f"columns {shown}"

        if arr.dtype.kind not in "iuf":
            try:
                if arr.dtype.kind == "c":
                    raise TypeError
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"median_heuristic: {name} has non-numeric values in {label(_non_numeric_columns(arr))} "
                    f"(dtype {arr.dtype}); a lengthscale needs real numbers (label columns need none: give them "
                    "a Categorical kernel)."
                ) from None
        arr = arr.astype(np.float64, copy=False)
        bad = ~np.isfinite(arr)
        if bad.any():
            cols = sorted(set(np.nonzero(bad)[1].tolist()))
            raise ValueError(
                f"median_heuristic: {name} contains NaN or infinite values in {label(cols[:1])}"
                + (f" ({label(cols)})" if len(cols) > 1 else "")
                + "; a lengthscale needs finite numbers."
            )
        if out and arr.shape[1] != out[0].shape[1]:
            raise ValueError(
                f"median_heuristic: {name} has {arr.shape[1]} features but arrays[0] has {out[0].shape[1]}."
            )
        out.append(arr)
    return out


def median_heuristic(
    *arrays: ArrayLike,
    per_feature: bool = False,
    max_rows: int = MEDIAN_MAX_ROWS,
    feature_names: Sequence[str] | None = None,
) -> float | np.ndarray:
    """Median heuristic lengthscale from the pooled rows of ``arrays``.

    ``per_feature=False`` (the default in kexplain.stats, and the choice of Mohammadi, Chau &
    Muandet, 2025, sections 5.2 and 5.3, for MMD and HSIC):
    one lengthscale, the median Euclidean distance between pooled rows, so the RBF is the
    isotropic exp(-||x - x'||^2 / (2 l^2)).  ``per_feature=True``: one lengthscale per feature, the
    median absolute difference in that feature (each factor is then informative on its own, but
    their product over many features is close to zero for most pairs: prefer it for few features).

    Zero medians (ties in over half the pairs, or constant features) fall back to the median of the
    nonzero distances, and to 1.0 when there are none; see ``_safe_median``.

    Parameters
    ----------
    *arrays : array-like of shape (n_i, d)
        Rows pooled before the distances are taken (e.g. both samples of a two-sample test).
    per_feature : bool
        One lengthscale per feature instead of one for all.
    max_rows : int
        At most this many evenly spaced pooled rows are used (deterministic).
    feature_names : sequence of str, optional
        Names of the d features, used in error messages; by default the columns of a DataFrame,
        else messages give 0-based column positions.

    Returns
    -------
    float or ndarray of shape (d,)
        The median pairwise distance (pooled, or per feature).

    Raises
    ------
    ValueError
        When an array has NaN, infinite or non-numeric values (naming ``arrays[i]`` and the column,
        by name when known),
        or when the arrays disagree on the number of features.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import median_heuristic
    >>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> median_heuristic(X)
    4.0
    >>> median_heuristic(X, per_feature=True)
    array([3., 4.])
    """
    from scipy.spatial.distance import pdist

    pooled = np.concatenate(_check_arrays(arrays, feature_names), axis=0)
    rows = _median_rows(pooled, max_rows)
    if per_feature:
        return np.array([_safe_median(pdist(rows[:, j : j + 1], "cityblock")) for j in range(rows.shape[1])])
    return _safe_median(pdist(rows, "euclidean"))


def default_lengthscale(
    *arrays: ArrayLike,
    per_feature: bool = False,
    standardize: bool = True,
    feature_names: Sequence[str] | None = None,
) -> np.ndarray:
    """kexplain's one default lengthscale policy: the median heuristic on standardised features.

    Every ``kernel=None`` in kexplain resolves to ``RBF(default_lengthscale(data))`` (see
    :func:`kexplain.kernels.default_kernel`; the design notes, section "Default kernels", say why).
    Each feature is divided by the pooled rows' standard deviation s_j (1 for a constant feature),
    the median Euclidean distance ell between the scaled rows is taken (:func:`median_heuristic`),
    and the lengthscale of feature j is ``s_j * ell``: the product RBF on the raw data is then the
    isotropic RBF with lengthscale ell on the standardised data, so no feature dominates because of
    its units and a typical pair of rows has kernel value about exp(-1/2) whatever the number of
    features.

    Parameters
    ----------
    *arrays : array-like of shape (n_i, d)
        Rows pooled before the distances are taken.
    per_feature : bool
        The median absolute difference of each feature instead of one joint median (each factor
        informative on its own, but their product is close to zero for most pairs when there are
        many features).
    standardize : bool
        False takes the medians on the raw features (one number for all features when
        ``per_feature`` is False).
    feature_names : sequence of str, optional
        Names of the features for error messages.

    Returns
    -------
    ndarray of shape (d,), or float when ``standardize`` and ``per_feature`` are both False
        The lengthscale(s) kexplain's default kernels use for these rows.

    Raises
    ------
    ValueError
        When an array has NaN, infinite or non-numeric values, or the arrays disagree on the
        number of features (see :func:`median_heuristic`).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import default_lengthscale
    >>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> np.round(default_lengthscale(X), 3)
    array([3., 4.])
    """
    if not standardize:
        return median_heuristic(*arrays, per_feature=per_feature, feature_names=feature_names)  # type: ignore[return-value]
    checked = _check_arrays(arrays, feature_names)
    pooled = np.concatenate(checked, axis=0)
    if pooled.shape[1] == 0 or pooled.shape[0] == 0:
        return median_heuristic(*arrays, per_feature=per_feature)  # type: ignore[return-value]
    sd = pooled.std(axis=0)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    ell = median_heuristic(*(a / sd for a in checked), per_feature=per_feature)
    return np.asarray(ell, dtype=np.float64) * sd
