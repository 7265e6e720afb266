"""PolynomialExpansion: f(x) = sum_i coef_i P(u(x, X_ref_i)) + intercept, for kernels that are a
polynomial of a sum over features (linear, polynomial, ``DotProduct`` and its powers, additive
chi-squared), and the adapter from fitted scikit-learn models.

These kernels are not products over features, so they do not fit a :class:`KernelExpansion`;
their models are explained exactly by :mod:`kexplain.shapley.polynomial` (through
``kx.ProductKernelExplainer``, which routes them there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_data
from ..kernels.dot_product import PolynomialOfSum, has_dot_product
from .expansion import check_coef_intercept


class PolynomialExpansion:
    """A model f(x) = sum_i coef_i k(x, X_ref_i) + intercept whose kernel is a polynomial of a sum.

    Parameters
    ----------
    X_ref : array (n, d)
        Support points (support vectors, training rows).
    coef : array (n,) or (n, n_outputs)
        The weight of each support point in each output.
    kernel : kexplain.kernels.PolynomialOfSum
        A linear, polynomial or additive chi-squared kernel (or a sum/product of them).
    intercept : float or array (n_outputs,)
        The constant of each output.
    feature_names, output_names : optional lists of names
        Names of the d features and of the outputs.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> em = kx.models.PolynomialExpansion(np.array([[1.0, 0.0], [0.0, 1.0]]), [1.0, -1.0],
    ...                                    kx.kernels.Polynomial(degree=2, coef0=1.0), intercept=0.5)
    >>> em.predict(np.array([[2.0, 1.0]]))
    array([5.5])
    """

    def __init__(
        self,
        X_ref: ArrayLike,
        coef: ArrayLike,
        kernel: PolynomialOfSum,
        intercept: float | ArrayLike = 0.0,
        feature_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
    ) -> None:
        if not isinstance(kernel, PolynomialOfSum):
            raise TypeError(
                f"kernel must be a kexplain PolynomialOfSum (Linear, Polynomial, AdditiveChi2), got {kernel!r}."
            )
        self.kernel = kernel
        X = check_data(X_ref, name="X_ref", min_rows=0)
        d = X.shape[1]
        if d == 0:
            raise ValueError(f"X_ref must have at least one feature (column), got shape {X.shape}.")
        kernel.check_n_features(d, name="X_ref")
        if kernel.inner == "additive_chi2" and np.any(X < 0):
            raise ValueError("the additive chi-squared kernel needs non-negative X_ref.")
        self.X_ref = np.asarray(X, dtype=np.float64)
        self.coef, self.single_output, self.intercept = check_coef_intercept(coef, intercept, self.X_ref.shape[0])
        self.feature_names = list(feature_names) if feature_names is not None else None
        if self.feature_names is not None and len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        if output_names is None:
            output_names = [f"output {o}" for o in range(self.n_outputs)] if self.n_outputs > 1 else ["f(x)"]
        if len(output_names) != self.n_outputs:
            raise ValueError(f"output_names has {len(output_names)} names for {self.n_outputs} outputs.")
        self.output_names = [str(o) for o in output_names]

    @property
    def n_features(self) -> int:
        """Number of input features d."""
        return int(self.X_ref.shape[1])

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return int(self.coef.shape[1])

    @property
    def n_rows(self) -> int:
        """Number of support points."""
        return int(self.X_ref.shape[0])

    def check_input(self, X: ArrayLike, name: str = "X", feature_names: Sequence[str] | None = None) -> np.ndarray:
        """Validated rows for this model (finite numbers, d columns; non-negative for chi-squared).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows to validate.
        name : str, default "X"
            Name of the argument, for error messages.
        feature_names : sequence of str, optional
            The columns a DataFrame must have (default: the model's own feature names).

        Returns
        -------
        ndarray of shape (N, d)
            The validated rows, as floats.
        """
        Xv = check_data(
            X,
            name=name,
            n_features=self.n_features,
            feature_names=self.feature_names if feature_names is None else list(feature_names),
        )
        Xv = np.asarray(Xv, dtype=np.float64)
        if self.kernel.inner == "additive_chi2" and np.any(Xv < 0):
            raise ValueError(f"{name} has negative values; the additive chi-squared kernel needs non-negative input.")
        return Xv

    def functional_base(self) -> np.ndarray:
        """The value of the empty coalition of the functional game, sum_i coef_i P(0) + intercept.

        Returns
        -------
        ndarray of shape (n_outputs,)
            The base value of the functional game, per output.
        """
        return self.kernel.polynomial(np.zeros(1))[0] * self.coef.sum(axis=0) + self.intercept

    def predict(self, X: ArrayLike, *, validate: bool = True, max_block_bytes: int = 32 * 2**20) -> np.ndarray:
        """f(X), shape (N,) for a single output, else (N, n_outputs).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows.
        validate : bool, default True
            Validate X (False for rows already validated).
        max_block_bytes : int, default 32 MiB
            Bound on the memory of one block of the Gram matrix.

        Returns
        -------
        ndarray of shape (N,) or (N, n_outputs)
            f(X).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.models.PolynomialExpansion(np.eye(2), [[1.0, 0.0], [0.0, 2.0]], kx.kernels.Linear())
        >>> em.predict(np.array([[3.0, 4.0]]))
        array([[3., 8.]])
        """
        X = self.check_input(X) if validate else np.asarray(X, dtype=np.float64)
        out = np.tile(self.intercept, (X.shape[0], 1))
        n = max(1, self.n_rows)
        step = max(1, int(max_block_bytes) // (8 * 4 * n * (self.n_features if self.kernel.inner != "dot" else 1)))
        for s in range(0, X.shape[0], step):
            if self.n_rows:
                out[s : s + step] += self.kernel.gram(X[s : s + step], self.X_ref) @ self.coef
        return out[:, 0] if self.single_output else out

    def __repr__(self) -> str:
        return (
            f"PolynomialExpansion(n_reference_points={self.n_rows}, n_features={self.n_features}, "
            f"n_outputs={self.n_outputs}, kernel={self.kernel!r})"
        )


def as_polynomial_expansion(model: Any, feature_names: Sequence[str] | None = None) -> PolynomialExpansion | None:
    """A fitted model whose kernel is a polynomial of a sum, as a PolynomialExpansion; None for others.

    SVR, NuSVR, SVC, NuSVC (binary, or multiclass with ``decision_function_shape='ovo'``) and
    KernelRidge with ``kernel="linear"`` or ``"poly"``/``"polynomial"`` (gamma "scale"/"auto"/None
    resolved as scikit-learn resolves it), KernelRidge with ``"additive_chi2"``, and
    GaussianProcessRegressor (or KernelRidge with a GP kernel object) whose kernel is built from
    ``DotProduct``, ``ConstantKernel`` and ``WhiteKernel`` by sums, products and integer powers;
    also inside a Pipeline of per-feature affine scalers (folded into the kernel).

    Parameters
    ----------
    model : fitted estimator or Pipeline
        A fitted estimator or Pipeline.
    feature_names : sequence of str, optional
        Default: the model's ``feature_names_in_``.

    Returns
    -------
    PolynomialExpansion or None
        None when the model's kernel is of another kind (then see ``as_kernel_expansion``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> from kexplain.models import as_polynomial_expansion
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> model = SVC(kernel="poly", degree=2).fit(X, X[:, 0] * X[:, 1] > 0)
    >>> em = as_polynomial_expansion(model)
    >>> bool(np.allclose(em.predict(X[:5]), model.decision_function(X[:5])))
    True
    """
    from ._sklearn_pipeline import _scaler_affine
    from .sklearn import _model_parts
    from .sklearn_estimators import _unsupported

    if isinstance(model, PolynomialExpansion):
        return model
    from .gpytorch import is_torch_gp

    if is_torch_gp(model):  # GPyTorch / BoTorch with a LinearKernel or PolynomialKernel
        from .gpytorch import gpytorch_polynomial_parts

        found = gpytorch_polynomial_parts(model)
        return None if found is None else PolynomialExpansion(*found, feature_names=feature_names)
    if not _is_polynomial_model(model):
        return None
    steps, parts = _model_parts(model)
    if isinstance(parts, list):  # pragma: no cover - only GP classifiers give several parts
        return None
    X_ref, coef, kernel, intercept, output_names = parts
    if not isinstance(kernel, PolynomialOfSum):
        return None
    d = X_ref.shape[1]
    if steps:
        scale, shift = np.ones(d), np.zeros(d)
        for step in steps:
            s, t = _scaler_affine(step, d)
            scale, shift = s * scale, s * shift + t
        if np.any(scale == 0) or not np.all(np.isfinite(scale)):
            raise _unsupported("a scaler maps a feature to a constant; the kernel cannot be unfolded.")
        kernel = kernel.rescaled(scale, shift)
        X_ref = (X_ref - shift) / scale
    n_in = getattr(model, "n_features_in_", d)
    if n_in != d:
        raise _unsupported(f"the model takes {n_in} features but its kernel sees {d}.")
    if feature_names is None:
        names = getattr(model, "feature_names_in_", None)
        feature_names = None if names is None else [str(n) for n in names]
    return PolynomialExpansion(X_ref, coef, kernel, intercept, feature_names=feature_names, output_names=output_names)


def _is_polynomial_model(model: Any) -> bool:
    """Whether the final estimator's kernel is linear, polynomial, additive chi-squared or DotProduct-based."""
    from ._sklearn_pipeline import _flatten_pipeline

    steps = _flatten_pipeline(model)
    est = steps[-1] if steps else model
    name = type(est).__name__
    kernel = getattr(est, "kernel_", None) if name == "GaussianProcessRegressor" else getattr(est, "kernel", None)
    if name in ("SVR", "NuSVR", "SVC", "NuSVC"):
        return kernel in ("linear", "poly")
    if name == "KernelRidge":
        if isinstance(kernel, str):
            return kernel in ("linear", "poly", "polynomial", "additive_chi2")
        return has_dot_product(kernel)
    if name == "GaussianProcessRegressor":
        return has_dot_product(kernel)
    return False
