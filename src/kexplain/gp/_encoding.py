"""Encoding of an OAK model's inputs: categorical levels and the Yeo-Johnson transform.

A categorical feature becomes integer codes 0..L-1 (an unseen label gets -1, which the
:class:`~kexplain.gp.ConstrainedCategorical` kernel treats as orthogonal to every level); a
continuous feature is optionally mapped by a standardised Yeo-Johnson power transform so that the
Gaussian input measure fits it (the role of the normalising flow in "Exact Shapley Value for Local
and Global Explanation of Additive Gaussian Processes", section 6, following Lu et al., 2022).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: a declared categorical feature with non-integer numbers may have at most this many levels
MAX_FLOAT_LEVELS = 50
#: continuous columns whose largest magnitude lies outside [2^-64, 2^64] are divided by an exact
#: power of two first, so that squares, variances and the power transform stay in float range
_SAFE_EXPONENT = 64
#: transformed inputs are kept within about +-this (see ``InputEncoder._clip_to_transform_range``)
_TRANSFORM_LIMIT = 1e250


def categorical_mask(X: Any, categorical_features: Any, names: list[str] | None, d: int) -> np.ndarray:
    """Boolean mask of the categorical features (None: the columns holding non-numeric labels)."""
    cf = categorical_features
    if cf is None:
        arr = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
        mask = np.zeros(d, dtype=bool)
        if arr.dtype == object or arr.dtype.kind in "USb":
            for j in range(d):
                try:
                    np.asarray(arr[:, j]).astype(np.float64)
                except (TypeError, ValueError):
                    mask[j] = True
        return mask
    cf_arr = np.asarray(cf)
    if cf_arr.dtype == bool:
        if cf_arr.shape != (d,):
            raise ValueError(
                f"categorical_features as a boolean mask needs one entry per feature ({d}), got shape {cf_arr.shape}."
            )
        return cf_arr.copy()
    mask = np.zeros(d, dtype=bool)
    for f in np.atleast_1d(cf_arr).tolist():
        if isinstance(f, str):
            if names is None or f not in names:
                raise ValueError(
                    f"categorical_features names {f!r}, which is not a column of X "
                    f"({names if names is not None else 'X has no column names'})."
                )
            mask[names.index(f)] = True
        elif isinstance(f, (int, np.integer)) and -d <= f < d:
            mask[f] = True
        else:
            raise ValueError(
                f"categorical_features accepts column indices in [0, {d}), column names or a boolean mask; got {f!r}."
            )
    return mask


def _levels_and_codes(col: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    vals = np.asarray(col, dtype=object)
    try:
        f = vals.astype(np.float64)
    except (TypeError, ValueError):
        levels, codes = np.unique(vals.astype(str), return_inverse=True)
        return levels, codes.astype(np.float64)
    levels = np.unique(f)
    # non-integer numbers are fine as a few levels (a scaled binary column), not as a continuum:
    # that is a continuous feature declared categorical by mistake
    limit = max(2, min(MAX_FLOAT_LEVELS, f.shape[0] // 2))
    if np.any(f != np.round(f)) and levels.shape[0] > limit:
        raise ValueError(
            f"categorical_features declares feature {name!r} categorical, but it holds continuous values "
            f"({levels.shape[0]} distinct non-integer numbers, e.g. {float(levels[1]):.6g}); categorical "
            f"features accept labels, integer codes or at most {limit} distinct numbers. Leave it out of "
            "categorical_features to model it as continuous."
        )
    return levels, np.searchsorted(levels, f).astype(np.float64)


def _codes(col: Any, levels: np.ndarray, name: str) -> np.ndarray:
    if levels.dtype.kind == "f":
        try:
            f = np.asarray(col, dtype=object).astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"feature {name!r} was numeric codes in training but X holds labels.") from None
    else:
        f = np.asarray(col, dtype=object).astype(str)
    pos = np.clip(np.searchsorted(levels, f), 0, len(levels) - 1)
    # an unseen category gets code -1: zero kernel against every training category
    return np.where(levels[pos] == f, pos, -1).astype(np.float64)


class InputEncoder:
    """Categorical codes and the per-feature power transform of an OAK model's inputs.

    A continuous column whose largest magnitude lies outside [2^-64, 2^64] (data scaled by 1e300
    or 1e-300) is first divided by an exact power of two (``prescale``), so that its variance and
    power transform stay in float range; other columns are left as they are.

    Parameters
    ----------
    mask : ndarray of bool, shape (d,)
        Which features are categorical.
    names : list of str
        Feature names (for messages).
    normalize : bool
        Fit a standardised Yeo-Johnson transform to the continuous features.
    """

    def __init__(self, mask: np.ndarray, names: list[str], normalize: bool) -> None:
        self.mask = np.asarray(mask, dtype=bool)
        self.names = list(names)
        self.normalize = bool(normalize)
        self.categories: list[np.ndarray | None] = [None] * self.mask.shape[0]
        self.transformer: Any = None
        #: exact power-of-two divisor of each feature (1 unless its values are extreme)
        self.prescale = np.ones(self.mask.shape[0])

    def fit_transform(self, Xv: np.ndarray) -> np.ndarray:
        """Learn the levels and the transform from validated rows; returns the encoded rows."""
        n, d = Xv.shape
        Z = np.empty((n, d))
        for j in range(d):
            if self.mask[j]:
                self.categories[j], Z[:, j] = _levels_and_codes(Xv[:, j], self.names[j])
            else:
                Z[:, j] = np.asarray(Xv[:, j], dtype=np.float64)
        cont = ~self.mask
        self.prescale = np.ones(d)
        for jc in np.nonzero(cont)[0]:
            big = float(np.max(np.abs(Z[:, jc])))
            if big > 0 and not (2.0**-_SAFE_EXPONENT <= big <= 2.0**_SAFE_EXPONENT):
                self.prescale[jc] = 2.0 ** np.frexp(big)[1]  # brings the column into [0.5, 1): exact
                Z[:, jc] = Z[:, jc] / self.prescale[jc]
            if np.ptp(Z[:, jc]) == 0:
                raise ValueError(f"X column {self.names[jc]!r} is constant; drop it (it cannot explain anything).")
        self.transformer = None
        if self.normalize and cont.any():
            from sklearn.preprocessing import PowerTransformer

            self.transformer = PowerTransformer(method="yeo-johnson", standardize=True).fit(Z[:, cont])
            Z[:, cont] = self.transformer.transform(Z[:, cont])
        return Z

    def transform(self, Xv: np.ndarray) -> np.ndarray:
        """Encode validated rows with the learnt levels and transform."""
        Z = np.empty(Xv.shape)
        for j in range(Xv.shape[1]):
            levels = self.categories[j]
            if levels is not None:
                Z[:, j] = _codes(Xv[:, j], levels, self.names[j])
            else:
                Z[:, j] = np.asarray(Xv[:, j], dtype=np.float64) / self.prescale[j]
        cont = ~self.mask
        if self.transformer is not None and cont.any():
            Z[:, cont] = self.transformer.transform(self._clip_to_transform_range(Z[:, cont]))
        return Z

    def _clip_to_transform_range(self, Zc: np.ndarray) -> np.ndarray:
        """Rows far outside the fitted data clipped to where the power transform stays finite.

        Yeo-Johnson with lambda > 1 (or < 1 on the negative side) overflows for finite inputs near
        the float range (rows scaled by 1e300).  The clipped value still maps to about
        +-_TRANSFORM_LIMIT, so far from every training row that each kernel factor is 0 in float64,
        as it is for the unclipped value: the model's output is the same.
        """
        lam = np.asarray(self.transformer.lambdas_, dtype=np.float64)
        upper = _TRANSFORM_LIMIT ** (1.0 / np.maximum(lam, 1.0))
        lower = -(_TRANSFORM_LIMIT ** (1.0 / np.maximum(2.0 - lam, 1.0)))
        return np.clip(Zc, lower, upper)


def feature_index(f: Any, names: list[str]) -> int:
    """Position of feature ``f`` (a name or an index, negative allowed) in ``names``."""
    if isinstance(f, str):
        if f not in names:
            raise ValueError(f"features names {f!r}, which is not one of {names}.")
        return names.index(f)
    if isinstance(f, (int, np.integer)) and not isinstance(f, bool) and -len(names) <= f < len(names):
        return int(f) % len(names)
    raise ValueError(f"features accepts feature indices in [0, {len(names)}) or names; got {f!r}.")
