"""The generalised preferential kernel as a scikit-learn kernel (so GaussianProcessClassifier learns it).

A duel (x^l, x^r), with an optional context c, is one row of the stacked array
``[X_left, X_right, context]``; ``n_item_features`` says where the split falls.  The kernel is

    k_E((l, r), (L, R)) = k(l, L) k(r, R) - k(l, R) k(r, L)            (general, Chau 2023, Sec. 6.3)
    k_E((l, r), (L, R)) = k(l, L) - k(l, R) - k(r, L) + k(r, R)         (utility: g = f(l) - f(r))

times ``context_kernel(c, C)`` when a context kernel is given (the C-GPM of Section 6.4).  Its
hyperparameters are those of the item kernel (prefixed ``base_kernel__``) and of the context kernel
(``context_kernel__``), with gradients, so marginal-likelihood optimisation works.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import Hyperparameter
from sklearn.gaussian_process.kernels import Kernel as SkKernel

from .._params import Integer, check_param
from .._validation import to_array

#: rows per block when the diagonal needs k(l_i, r_i)
_DIAG_BLOCK = 512


class PreferenceKernel(SkKernel):
    """Generalised preferential kernel on stacked duels ``[X_left, X_right(, context)]``.

    ``k_E((l, r), (L, R)) = k(l, L) k(r, R) - k(l, R) k(r, L)`` (Chau, 2023, Section 6.3), or with
    ``utility=True`` the kernel of a rankable utility model g = f(l) - f(r),
    ``k(l, L) - k(l, R) - k(r, L) + k(r, R)``; both are skew-symmetric in (l, r).  With a
    ``context_kernel`` the product ``k_E * k_U(c, C)`` on the columns after the items (Chau, 2023,
    Section 6.4).

    Parameters
    ----------
    base_kernel : scikit-learn kernel, optional
        Kernel k on items (default ``RBF(1.0)``); for PREF-SHAP it must be a product kernel (RBF
        times a constant).
    n_item_features : int, optional
        Number of features d of one item.  None: the input holds items only and is split in
        halves (2d columns); required with a context kernel.
    utility : bool
        The rankable utility kernel instead of the generalised one.
    context_kernel : scikit-learn kernel, optional
        Kernel on the context columns (columns 2d onwards).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import PreferenceKernel
    >>> k = PreferenceKernel(n_item_features=1)
    >>> Z = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])  # duels (left, right)
    >>> np.round(k(Z), 3)
    array([[ 0.632, -0.632,  0.   ],
           [-0.632,  0.632,  0.   ],
           [ 0.   ,  0.   ,  0.   ]])
    >>> k.hyperparameters[0].name
    'base_kernel__length_scale'
    """

    def __init__(
        self,
        base_kernel: SkKernel | None = None,
        n_item_features: int | None = None,
        utility: bool = False,
        context_kernel: SkKernel | None = None,
    ) -> None:
        self.base_kernel = base_kernel
        self.n_item_features = n_item_features
        self.utility = utility
        self.context_kernel = context_kernel

    # -- parameters and hyperparameters -------------------------------------------------------
    def _base(self) -> SkKernel:
        """The item kernel (``RBF(1.0)`` when none was given; created once and kept)."""
        if self.base_kernel is None:
            self.base_kernel = SkRBF(1.0)
        return self.base_kernel

    def _parts(self) -> list[tuple[str, SkKernel]]:
        """(prefix, kernel) of the kernels whose hyperparameters this kernel exposes."""
        parts = [("base_kernel", self._base())]
        if self.context_kernel is not None:
            parts.append(("context_kernel", self.context_kernel))
        return parts

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this kernel, and with ``deep`` those of its item and context kernels.

        Parameters
        ----------
        deep : bool, default True
            Also return the parameters of the item and context kernels.

        Returns
        -------
        dict
            Parameter names mapped to their values.

        Examples
        --------
        >>> from kexplain.preference import PreferenceKernel
        >>> sorted(PreferenceKernel().get_params())[:2]
        ['base_kernel', 'base_kernel__length_scale']
        """
        params: dict[str, Any] = {
            "base_kernel": self._base(),
            "n_item_features": self.n_item_features,
            "utility": self.utility,
            "context_kernel": self.context_kernel,
        }
        if deep:
            for prefix, k in self._parts():
                params.update({f"{prefix}__{key}": v for key, v in k.get_params().items()})
        return params

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        """Hyperparameters of the item kernel then the context kernel, names prefixed."""
        out = []
        for prefix, k in self._parts():
            for h in k.hyperparameters:
                out.append(Hyperparameter(f"{prefix}__{h.name}", h.value_type, h.bounds, h.n_elements, h.fixed))
        return out

    @property
    def theta(self) -> np.ndarray:
        """Log-transformed free hyperparameters, item kernel first."""
        return np.concatenate([k.theta for _, k in self._parts()]) if self._parts() else np.empty(0)

    @theta.setter
    def theta(self, theta: np.ndarray) -> None:
        pos = 0
        for _, k in self._parts():
            n = k.n_dims
            k.theta = theta[pos : pos + n]
            pos += n

    @property
    def bounds(self) -> np.ndarray:
        """Log-transformed bounds of the free hyperparameters, shape (n_dims, 2)."""
        blocks = [k.bounds for _, k in self._parts() if k.n_dims]
        return np.vstack(blocks) if blocks else np.empty((0, 2))

    def is_stationary(self) -> bool:
        """False: k_E is not a function of differences of duels.

        Returns
        -------
        bool
            False.

        Examples
        --------
        >>> from kexplain.preference import PreferenceKernel
        >>> PreferenceKernel().is_stationary()
        False
        """
        return False

    @property
    def requires_vector_input(self) -> bool:
        """True: duels are rows of numbers."""
        return True

    # -- evaluation ---------------------------------------------------------------------------
    def _split(self, X: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Left items, right items and context columns of stacked duels."""
        raw = to_array(X, name)
        if raw.dtype.kind not in "biuf":
            kind = "complex values" if raw.dtype.kind == "c" else f"values of dtype {raw.dtype} (text or labels)"
            raise ValueError(f"{name} has {kind}; stacked duels [X_left, X_right(, context)] are real numbers.")
        X = raw.astype(np.float64)
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (n_duels, 2 * n_item_features [+ n_context]), got shape {X.shape}.")
        if not np.all(np.isfinite(X)):
            r, c = (int(v) for v in np.argwhere(~np.isfinite(X))[0])
            raise ValueError(
                f"{name} contains NaN or infinite values (row {r}, column {c}); duels need finite numbers."
            )
        total = X.shape[1]
        d = self.n_item_features
        what = "a positive integer (the number of features of one item) or None (the columns split in halves)"
        check_param(d, "n_item_features", Integer(1), None, what=what)
        if d is None:
            if self.context_kernel is not None:
                raise ValueError("n_item_features is required with a context_kernel (where the context columns start).")
            if total % 2:
                raise ValueError(f"{name} has {total} columns; stacked duels [X_left, X_right] need an even number.")
            d = total // 2
        if 2 * d > total or (self.context_kernel is None and 2 * d != total):
            raise ValueError(
                f"{name} has {total} columns but n_item_features={d} needs {2 * d}"
                + (" plus the context columns." if self.context_kernel is not None else ".")
            )
        if self.context_kernel is not None and 2 * d == total:
            raise ValueError(f"{name} has no context columns (after the {2 * d} item columns) for the context_kernel.")
        return X[:, :d], X[:, d : 2 * d], (X[:, 2 * d :] if self.context_kernel is not None else None)

    def _combine(self, Kll: np.ndarray, Krr: np.ndarray, Klr: np.ndarray, Krl: np.ndarray) -> np.ndarray:
        """k_E from the four item Gram blocks (same operation order as the PreferenceExpansion)."""
        if self.utility:
            return (Kll - Klr) - (Krl - Krr)
        return Kll * Krr - Klr * Krl

    def __call__(
        self, X: np.ndarray, Y: np.ndarray | None = None, eval_gradient: bool = False
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Gram matrix k(X, Y), and with ``eval_gradient`` its gradient in the log-hyperparameters."""
        base = self._base()
        Xl, Xr, Xc = self._split(X, "X")
        n = len(Xl)
        if Y is None:
            Z = np.vstack([Xl, Xr])
            if eval_gradient:
                K, dK = base(Z, eval_gradient=True)
            else:
                K = base(Z)
            Kll, Klr, Krl, Krr = K[:n, :n], K[:n, n:], K[n:, :n], K[n:, n:]
            E = self._combine(Kll, Krr, Klr, Krl)
            if eval_gradient:
                dll, dlr, drl, drr = dK[:n, :n], dK[:n, n:], dK[n:, :n], dK[n:, n:]
                if self.utility:
                    dE = (dll - dlr) - (drl - drr)
                else:
                    dE = dll * Krr[..., None] + Kll[..., None] * drr - dlr * Krl[..., None] - Klr[..., None] * drl
        else:
            if eval_gradient:
                raise ValueError("Gradient can only be evaluated when Y is None.")
            Yl, Yr, Yc = self._split(Y, "Y")
            if Yl.shape[1] != Xl.shape[1]:
                raise ValueError(f"X and Y have items with {Xl.shape[1]} and {Yl.shape[1]} features.")
            m = len(Yl)
            K = base(np.vstack([Xl, Xr]), np.vstack([Yl, Yr]))
            E = self._combine(K[:n, :m], K[n:, m:], K[:n, m:], K[n:, :m])
        if self.context_kernel is not None and Xc is not None:
            if Y is None:
                if eval_gradient:
                    Kc, dKc = self.context_kernel(Xc, eval_gradient=True)
                    grad = np.concatenate([dE * Kc[..., None], E[..., None] * dKc], axis=2)
                    return E * Kc, grad
                return E * self.context_kernel(Xc)
            return E * self.context_kernel(Xc, Yc)
        if eval_gradient:
            return E, dE
        return E

    def diag(self, X: np.ndarray) -> np.ndarray:
        """k(x, x) for each duel x, shape (n,), without the full Gram matrix.

        Parameters
        ----------
        X : ndarray of shape (n, n_columns)
            Duels stacked as ``[X_left, X_right(, context)]``.

        Returns
        -------
        ndarray of shape (n,)
            k(x, x) for each duel.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.preference import PreferenceKernel
        >>> np.round(PreferenceKernel().diag(np.array([[0.0, 1.0], [2.0, 2.0]])), 3)
        array([0.632, 0.   ])
        """
        base = self._base()
        Xl, Xr, Xc = self._split(X, "X")
        n = len(Xl)
        klr = np.empty(n)
        krl = np.empty(n)
        for s in range(0, n, _DIAG_BLOCK):
            sl = slice(s, s + _DIAG_BLOCK)
            blk = base(Xl[sl], Xr[sl])
            klr[sl] = np.diag(blk)
            krl[sl] = np.diag(blk.T)
        out = self._combine(base.diag(Xl), base.diag(Xr), klr, krl)
        if self.context_kernel is not None and Xc is not None:
            out = out * self.context_kernel.diag(Xc)
        return out

    def __repr__(self) -> str:
        ctx = "" if self.context_kernel is None else f" * context[{self.context_kernel}]"
        kind = "utility" if self.utility else "general"
        return f"PreferenceKernel({kind}: {self._base()}{ctx})"

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return False
        assert isinstance(other, PreferenceKernel)
        return (
            self._base() == other._base()
            and self.n_item_features == other.n_item_features
            and bool(self.utility) == bool(other.utility)
            and self.context_kernel == other.context_kernel
        )

    __hash__ = None  # type: ignore[assignment]
