"""PreferenceExpansion: a fitted preference model written over support duels, the form PREF-SHAP reads.

A duel is a pair of items (x^l, x^r), optionally with a context c.  Every preference model of
:mod:`kexplain.preference` reduces to a logit

    g(x^l, x^r, c) = sum_i coef_i k_E((x^l, x^r), (L_i, R_i)) k_U(c, C_i)

over support duels (L_i, R_i, C_i), with no intercept, where k_E is either the generalised
preferential kernel of Chau's thesis (2023, Section 6.3; ``kind="general"``)

    k_E((l, r), (L, R)) = k(l, L) k(r, R) - k(l, R) k(r, L)

or the kernel of a rankable utility model g = f(x^l) - f(x^r) (``kind="utility"``)

    k_E((l, r), (L, R)) = k(l, L) - k(l, R) - k(r, L) + k(r, R).

Both are skew-symmetric in (l, r), so g(x, x) = 0 and g(r, l) = -g(l, r).  The item kernel k and
the context kernel k_U are kexplain product kernels with amplitude 1 (amplitudes are folded into
``coef`` at construction), so their per-feature factors (``feature_values``) are all a Shapley
solver needs.

The class and :func:`preference_expansion` live here; what the class accepts (kernels made
product kernels of amplitude one, arrays of items, column names, duels) in ``_expansion_inputs``,
whose names are all still imported from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import to_array
from ..kernels.base import Kernel, ProductKernel
from ._expansion_inputs import _columns, _item_array, as_unit_product_kernel, check_duel_arrays

KINDS = ("general", "utility")

#: estimator classes whose ``to_expansion()`` gives a PreferenceExpansion; each registers itself
#: where it is defined (so this module imports none of them)
MODEL_TYPES: list[type] = []


class PreferenceExpansion:
    """A preference model g(x^l, x^r, c) = sum_i coef_i k_E((x^l, x^r), (L_i, R_i)) k_U(c, C_i).

    The logit of "left wins"; no intercept (that keeps p(l > r) + p(r > l) = 1).  ``kind`` picks
    k_E: ``"general"`` is the generalised preferential kernel of Chau (2023, Section 6.3),
    k(l, L) k(r, R) - k(l, R) k(r, L); ``"utility"`` the rankable model g = f(x^l) - f(x^r),
    k(l, L) - k(l, R) - k(r, L) + k(r, R).  With a context, k_U(c, C_i) multiplies each term
    (the C-GPM of Section 6.4).

    Parameters
    ----------
    left, right : array (m, d)
        Items of the support duels.
    coef : array (m,)
        Weights of the support duels.
    item_kernel : kexplain kernel
        Product kernel on items; stored with amplitude 1, its amplitude folded into ``coef``
        (squared for ``kind="general"``, whose k_E is quadratic in k).
    kind : {"general", "utility"}
    context : array (m, p), optional
        Contexts of the support duels.
    context_kernel : kexplain kernel, optional
        Product kernel on contexts (required with ``context``); stored with amplitude 1.
    feature_names, context_names : list of str, optional
        Names of item features and context features (default: the columns of DataFrames
        ``left`` and ``context``, else ``x0, x1, ...`` and ``c0, c1, ...``).
    columns, context_columns : list of str, optional
        The DataFrame columns the model was fitted on (default: those of DataFrames ``left`` and
        ``context``; None for arrays).  DataFrames given to ``decision_function`` and PREF-SHAP
        must have exactly these columns in this order; arrays are taken as they are.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF
    >>> from kexplain.preference import PreferenceExpansion
    >>> L = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> R = np.array([[1.0, 1.0], [0.0, 0.0]])
    >>> pe = PreferenceExpansion(L, R, [1.0, -0.5], RBF(1.0))
    >>> g = pe.decision_function(L, R)
    >>> np.round(g, 3)
    array([ 0.748, -0.549])
    >>> np.round(pe.decision_function(R, L), 3)  # skew-symmetric
    array([-0.748,  0.549])
    """

    #: class defaults, so that expansions pickled before these were recorded load with "no names"
    columns: list[str] | None = None
    context_columns: list[str] | None = None

    def __init__(
        self,
        left: ArrayLike,
        right: ArrayLike,
        coef: ArrayLike,
        item_kernel: Kernel,
        kind: str = "general",
        context: ArrayLike | None = None,
        context_kernel: Kernel | None = None,
        feature_names: Sequence[str] | None = None,
        context_names: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        context_columns: Sequence[str] | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
        self.kind = kind
        la = _item_array(left, "left")
        ra = _item_array(right, "right")
        if la.shape != ra.shape:
            raise ValueError(f"left and right must have the same shape, got {la.shape} and {ra.shape}.")
        d = la.shape[1]
        self.item_kernel, amp = as_unit_product_kernel(item_kernel, d, "item_kernel")
        self.left = _item_array(la, "left", self.item_kernel)
        self.right = _item_array(ra, "right", self.item_kernel)
        craw = to_array(coef, "coef")
        if craw.dtype.kind not in "biuf":
            raise ValueError(f"coef must hold real numbers, one per support duel; got dtype {craw.dtype}.")
        c = craw.astype(np.float64).reshape(-1) if craw.ndim <= 1 else None
        if c is None or c.shape[0] != la.shape[0]:
            raise ValueError(f"coef must have shape ({la.shape[0]},), one entry per support duel.")
        if not np.all(np.isfinite(c)):
            raise ValueError("coef contains NaN or infinite values.")
        c = c * (amp * amp if kind == "general" else amp)
        if (context is None) != (context_kernel is None):
            raise ValueError("context and context_kernel must be given together (or neither).")
        self.context: np.ndarray | None = None
        self.context_kernel: ProductKernel | None = None
        if context is not None:
            ca = _item_array(context, "context")
            if ca.shape[0] != la.shape[0]:
                raise ValueError(f"context has {ca.shape[0]} rows for {la.shape[0]} support duels.")
            self.context_kernel, camp = as_unit_product_kernel(context_kernel, ca.shape[1], "context_kernel")
            self.context = _item_array(ca, "context", self.context_kernel)
            c = c * camp
        self.coef = c
        self.columns = _columns(left, columns, d, "columns")
        if self.columns is not None and feature_names is None:
            feature_names = self.columns
        self.context_columns = None
        if self.context is not None:
            self.context_columns = _columns(context, context_columns, self.context.shape[1], "context_columns")
            if self.context_columns is not None and context_names is None:
                context_names = self.context_columns
        elif context_columns is not None:
            raise ValueError("context_columns given without a context.")
        names = feature_names if feature_names is not None else [f"x{j}" for j in range(d)]
        self.feature_names = [str(f) for f in names]
        if len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} item features.")
        self.context_names: list[str] | None = None
        if self.context is not None:
            p = self.context.shape[1]
            names = context_names if context_names is not None else [f"c{j}" for j in range(p)]
            self.context_names = [str(f) for f in names]
            if len(self.context_names) != p:
                raise ValueError(f"context_names has {len(self.context_names)} names for {p} context features.")
        elif context_names is not None:
            raise ValueError("context_names given without a context.")

    @property
    def n_features(self) -> int:
        """Number of item features d."""
        return int(self.left.shape[1])

    @property
    def n_context_features(self) -> int:
        """Number of context features p (0 without a context)."""
        return 0 if self.context is None else int(self.context.shape[1])

    @property
    def n_support(self) -> int:
        """Number of support duels m."""
        return int(self.left.shape[0])

    def check_duels(
        self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Validated (X_left, X_right, context): same shapes, finite numbers, context exactly when fitted with one.

        Parameters
        ----------
        X_left : array-like of shape (n, d)
            Features of the left item of each duel.
        X_right : array-like of shape (n, d)
            Features of the right item of each duel.
        context : array-like of shape (n, p), optional
            Features of the context of each duel.

        Returns
        -------
        X_left, X_right : ndarray of shape (n, d)
            The validated item features.
        context : ndarray of shape (n, p) or None
            The validated context features.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import RBF
        >>> from kexplain.preference import PreferenceExpansion
        >>> pe = PreferenceExpansion(np.zeros((1, 2)), np.ones((1, 2)), [1.0], RBF(1.0))
        >>> try:
        ...     pe.check_duels(np.zeros((1, 2)), np.zeros((1, 3)))
        ... except ValueError as exc:
        ...     print(exc)
        X_left has 2 features but X_right has 3; both sides of a duel are items with the same features.
        """
        return check_duel_arrays(
            X_left,
            X_right,
            context,
            self.item_kernel,
            self.context_kernel,
            columns=self.columns,
            context_columns=self.context_columns,
        )

    def decision_function(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None) -> np.ndarray:
        """The logit g(x^l, x^r, c) of "left wins" for each duel, shape (n,).

        Parameters
        ----------
        X_left : array-like of shape (n, d)
            Features of the left item of each duel.
        X_right : array-like of shape (n, d)
            Features of the right item of each duel.
        context : array-like of shape (n, p), optional
            Features of the context of each duel.

        Returns
        -------
        ndarray of shape (n,)
            The logit of "left wins".

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import RBF
        >>> from kexplain.preference import PreferenceExpansion
        >>> pe = PreferenceExpansion([[0.0]], [[1.0]], [2.0], RBF(1.0), kind="utility")
        >>> np.round(pe.decision_function([[0.0], [1.0]], [[1.0], [1.0]]), 3)
        array([1.574, 0.   ])
        """
        Xl, Xr, C = self.check_duels(X_left, X_right, context)
        return self._logit(Xl, Xr, C)

    def _logit(self, Xl: np.ndarray, Xr: np.ndarray, C: np.ndarray | None) -> np.ndarray:
        """g on validated arrays, in row blocks bounding the (rows, m) temporaries."""
        n, m = len(Xl), self.n_support
        out = np.empty(n)
        step = max(1, 2**20 // max(1, m))
        for s in range(0, n, step):
            sl = slice(s, s + step)
            out[sl] = self._gram(Xl[sl], Xr[sl], None if C is None else C[sl]) @ self.coef
        return out

    def _gram(self, Xl: np.ndarray, Xr: np.ndarray, C: np.ndarray | None) -> np.ndarray:
        """k_E((x^l, x^r), (L_i, R_i)) k_U(c, C_i) between validated duels and the support duels, (n, m).

        The operation order makes g(r, l) = -g(l, r) and g(x, x) = 0 exactly in floating point.
        """
        k = self.item_kernel
        KlL = k.gram(Xl, self.left, check_input=False)
        KrR = k.gram(Xr, self.right, check_input=False)
        KlR = k.gram(Xl, self.right, check_input=False)
        KrL = k.gram(Xr, self.left, check_input=False)
        E = KlL * KrR - KlR * KrL if self.kind == "general" else (KlL - KlR) - (KrL - KrR)
        if C is not None and self.context_kernel is not None and self.context is not None:
            E *= self.context_kernel.gram(C, self.context, check_input=False)
        return E

    def __repr__(self) -> str:
        ctx = "" if self.context is None else f", n_context_features={self.n_context_features}"
        return (
            f"PreferenceExpansion(kind={self.kind!r}, n_support={self.n_support}, "
            f"n_features={self.n_features}{ctx}, item_kernel={self.item_kernel!r})"
        )


def preference_expansion(model: Any) -> PreferenceExpansion:
    """The PreferenceExpansion of a fitted preference model (the form PREF-SHAP reads).

    Accepts a :class:`PreferenceExpansion` (returned as is), a fitted
    :class:`~kexplain.preference.PreferenceClassifier` or a fitted
    :class:`~kexplain.preference.PreferenceGPClassifier`.

    Parameters
    ----------
    model : PreferenceExpansion or fitted preference model
        A PreferenceExpansion, or a fitted PreferenceClassifier or PreferenceGPClassifier.

    Returns
    -------
    PreferenceExpansion
        The model's expansion.

    Raises
    ------
    TypeError
        For any other object, naming what is accepted.
    sklearn.exceptions.NotFittedError
        For an estimator that has not been fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import PreferenceClassifier, preference_expansion
    >>> rng = np.random.default_rng(0)
    >>> L, R = rng.normal(size=(60, 2)), rng.normal(size=(60, 2))
    >>> y = (L[:, 0] > R[:, 0]).astype(int)
    >>> model = PreferenceClassifier(lengthscale=1.0, C=10.0, n_components=30, random_state=0).fit(L, R, y)
    >>> pe = preference_expansion(model)
    >>> bool(np.allclose(pe.decision_function(L, R), model.decision_function(L, R)))
    True
    """
    if isinstance(model, PreferenceExpansion):
        return model
    if isinstance(model, tuple(MODEL_TYPES)):
        out = model.to_expansion()  # type: ignore[attr-defined]
        assert isinstance(out, PreferenceExpansion)
        return out
    raise TypeError(
        f"preference_expansion accepts a PreferenceExpansion, a fitted PreferenceClassifier or a fitted "
        f"PreferenceGPClassifier (kexplain.preference), got {type(model).__name__}."
    )
