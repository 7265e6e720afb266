"""KernelExpansion: f(x) = sum_i coef_i k(x, X_ref_i) + intercept, the form every adapter yields."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_data, check_sparse_data, is_sparse, to_array
from ..exceptions import UnsupportedModelError
from ..kernels.base import Kernel, SumKernel, kernel_terms, term_amplitude


def _real_array(value: Any, name: str, accepted: str) -> np.ndarray:
    """``value`` as a float64 array, refusing strings, booleans, complex numbers and ragged lists.

    numpy would convert numeric strings and booleans silently and truncate complex numbers to
    their real part (with only a ComplexWarning); here each is a ValueError naming ``name``.
    """
    try:
        arr = np.asarray(value)
    except ValueError:
        raise ValueError(f"{name} must be {accepted}; got rows of different lengths.") from None
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; it must be {accepted}.")
    if arr.dtype.kind == "O":
        flat = arr.reshape(-1).tolist()
        if any(isinstance(v, (complex, np.complexfloating)) for v in flat):
            raise ValueError(f"{name} has complex values; it must be {accepted}.")
        if all(isinstance(v, Real) and not isinstance(v, (bool, np.bool_)) for v in flat):
            return arr.astype(np.float64)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be {accepted}, got {value!r}.")
    return arr.astype(np.float64)


def check_coef_intercept(coef: Any, intercept: Any, n_rows: int) -> tuple[np.ndarray, bool, np.ndarray]:
    """The coefficients as (n_rows, n_outputs), whether there is one output, and one intercept per output.

    One check for every expansion of this folder (kernel and polynomial expansions).

    Examples
    --------
    >>> from kexplain.models.expansion import check_coef_intercept
    >>> c, single, b = check_coef_intercept([1.0, 2.0], 0.5, 2)
    >>> c.shape, single, b
    ((2, 1), True, array([0.5]))
    """
    c = _real_array(coef, "coef", "real numbers (int or float)")
    if c.ndim not in (1, 2) or c.shape[0] != n_rows:
        raise ValueError(
            f"coef must have shape (n_reference_points,) or (n_reference_points, n_outputs), one row "
            f"per row of X_ref: X_ref has {n_rows} rows, coef has shape {c.shape}."
        )
    if not np.all(np.isfinite(c)):
        raise ValueError("coef contains NaN or infinite values.")
    coef2 = c[:, None] if c.ndim == 1 else c
    icpt = _real_array(intercept, "intercept", "a real number (int or float) or one per output")
    if icpt.ndim > 1 or (icpt.ndim == 1 and icpt.shape[0] not in (1, coef2.shape[1])):
        raise ValueError(
            f"intercept must be a number or have one entry per output ({coef2.shape[1]}), got shape {icpt.shape}."
        )
    if not np.all(np.isfinite(icpt)):
        raise ValueError("intercept contains NaN or infinite values.")
    return coef2, c.ndim == 1, np.broadcast_to(icpt, (coef2.shape[1],)).astype(np.float64)


class KernelExpansion:
    """A kernel model written as an expansion over support points.

    f(x) = sum_i coef_i k(x, X_ref_i) + intercept, with ``k`` a product kernel (or a sum of
    product kernels) from ``kexplain.kernels``.  Several outputs share the kernel; outputs with a
    kernel each (a one-vs-rest classifier whose classes learned their own kernels) are built with
    :meth:`stack`.

    Parameters
    ----------
    X_ref : array (n, d)
        Support points (support vectors, training rows).
    coef : array (n,) or (n, n_outputs)
        The weight of each support point in each output.
    kernel : kexplain kernel
        A product kernel or a sum of product kernels.
    intercept : float or array (n_outputs,)
        The constant of each output.
    feature_names, output_names : optional lists of names
        Names of the d features and of the outputs (default x0..x{d-1} and a default per output).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> em = kx.KernelExpansion(np.array([[0.0, 0.0], [1.0, 1.0]]), [1.0, -0.5], kx.kernels.RBF(1.0),
    ...                         intercept=0.25)
    >>> np.round(em.predict(np.array([[0.0, 0.0], [2.0, 0.0]])), 3)
    array([1.066, 0.201])
    >>> em.n_features, em.n_outputs, em.n_rows
    (2, 1, 2)
    """

    def __init__(
        self,
        X_ref: ArrayLike,
        coef: ArrayLike,
        kernel: Kernel | SumKernel,
        intercept: float | ArrayLike = 0.0,
        feature_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
    ) -> None:
        if not isinstance(kernel, (Kernel, SumKernel)):
            kernel_terms(kernel)  # raises a TypeError that says what is accepted
        self.kernel = kernel
        #: the support points as a CSR matrix when they were given sparse (a model fitted on sparse
        #: data); the sparse games read them without densifying, ``X_ref`` densifies on first use
        self.X_ref_sparse: Any = None
        self._X_ref: np.ndarray | None = None
        if is_sparse(X_ref):
            self.X_ref_sparse = check_sparse_data(X_ref, name="X_ref", min_rows=0)
            shape = self.X_ref_sparse.shape
        else:
            X_probe = to_array(X_ref, "X_ref")
            if X_probe.ndim != 2:
                raise ValueError(f"X_ref must be 2-D (n_reference_points, n_features), got shape {X_probe.shape}.")
            shape = X_probe.shape
        d = shape[1]
        if d == 0:
            raise ValueError(f"X_ref must have at least one feature (column), got shape {shape}.")
        kernel.check_n_features(d, name="X_ref")
        self.numeric_mask = kernel.numeric_mask(d)
        self._shape = (int(shape[0]), int(d))
        if self.X_ref_sparse is None:
            # no support points is a constant model (e.g. an SVR whose epsilon-tube holds every row)
            self._X_ref = check_data(X_probe, name="X_ref", numeric_mask=self.numeric_mask, min_rows=0)
        self.coef, self.single_output, self.intercept = check_coef_intercept(coef, intercept, self._shape[0])
        self.terms = kernel_terms(kernel)
        amps = np.array([term_amplitude(t) for t in self.terms])
        #: (n_terms, n_outputs): which outputs each kernel term feeds (all of them unless stacked)
        self.term_outputs = np.ones((len(self.terms), self.coef.shape[1]), dtype=bool)
        self._amplitudes = amps
        self.feature_names = list(feature_names) if feature_names is not None else None
        if self.feature_names is not None and len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        if output_names is None:
            output_names = [f"output {o}" for o in range(self.n_outputs)] if self.n_outputs > 1 else ["f(x)"]
        if len(output_names) != self.n_outputs:
            raise ValueError(f"output_names has {len(output_names)} names for {self.n_outputs} outputs.")
        self.output_names = [str(o) for o in output_names]

    @classmethod
    def stack(cls, expansions: Sequence[KernelExpansion], output_names: Sequence[str] | None = None) -> KernelExpansion:
        """One expansion whose output k is ``expansions[k]``, each output with its own kernel.

        f_k(x) = sum_i coef_ik k_k(x, X_ref_i) + intercept_k.  It is still one product game with
        a row per (kernel term, support point); a term feeds only its own output (the other
        outputs' weights in that row are zero).  Support points are shared when every
        expansion has the same ones, else concatenated.

        Parameters
        ----------
        expansions : sequence of KernelExpansion
            Single-output expansions over the same features.
        output_names : sequence of str, optional
            Default: each expansion's output name.

        Returns
        -------
        KernelExpansion
            With ``per_output_kernels`` True when the kernels differ.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
        >>> a = kx.KernelExpansion(X, [1.0, -1.0], kx.kernels.RBF(1.0), intercept=0.5)
        >>> b = kx.KernelExpansion(X, [2.0, 0.5], kx.kernels.Laplacian(2.0))
        >>> em = kx.KernelExpansion.stack([a, b], output_names=["class a", "class b"])
        >>> x = np.array([[0.5, 0.0]])
        >>> np.round(em.predict(x), 3), np.round([a.predict(x)[0], b.predict(x)[0]], 3)
        (array([[0.847, 1.794]]), array([0.847, 1.794]))
        """
        parts = list(expansions)
        if not parts or not all(isinstance(e, KernelExpansion) for e in parts):
            raise TypeError("expansions must be a non-empty sequence of KernelExpansion.")
        if not all(e.single_output for e in parts):
            raise ValueError("every stacked expansion must have a single output.")
        d = parts[0].n_features
        if any(e.n_features != d for e in parts):
            raise ValueError(f"stacked expansions must share their features; got {[e.n_features for e in parts]}.")
        shared = all(e.X_ref.shape == parts[0].X_ref.shape and np.array_equal(e.X_ref, parts[0].X_ref) for e in parts)
        K = len(parts)
        if shared:
            X_ref = parts[0].X_ref
            coef = np.stack([e.coef[:, 0] for e in parts], axis=1)
        else:
            X_ref = np.concatenate([e.X_ref for e in parts], axis=0)
            coef = np.zeros((X_ref.shape[0], K))
            start = 0
            for k, e in enumerate(parts):
                coef[start : start + e.X_ref.shape[0], k] = e.coef[:, 0]
                start += e.X_ref.shape[0]
        terms = [t for e in parts for t in e.terms]
        names = list(output_names) if output_names is not None else [e.output_names[0] for e in parts]
        out = cls(
            X_ref,
            coef,
            SumKernel(terms) if len(terms) > 1 else terms[0],
            np.array([e.intercept[0] for e in parts]),
            feature_names=parts[0].feature_names,
            output_names=names,
        )
        mask = np.zeros((len(terms), K), dtype=bool)
        row = 0
        for k, e in enumerate(parts):
            mask[row : row + len(e.terms), k] = True
            row += len(e.terms)
        if not all(repr(e.kernel) == repr(parts[0].kernel) for e in parts) or not shared:
            out.term_outputs = mask
        else:  # one kernel for every output: an ordinary multi-output expansion
            out.terms, out._amplitudes = list(parts[0].terms), np.asarray(parts[0]._amplitudes)
            out.kernel = parts[0].kernel
            out.term_outputs = np.ones((len(out.terms), K), dtype=bool)
        return out

    @property
    def X_ref(self) -> np.ndarray:
        """The support points (n, d) as a dense array (densified once from ``X_ref_sparse``)."""
        if self._X_ref is None:
            self._X_ref = np.asarray(self.X_ref_sparse.toarray(), dtype=np.float64)
        return self._X_ref

    @property
    def per_output_kernels(self) -> bool:
        """Whether some kernel term feeds only some outputs (outputs with their own kernels)."""
        return not bool(self.term_outputs.all())

    @property
    def term_weights(self) -> np.ndarray:
        """(n_terms, n_outputs): the amplitude of each kernel term in each output.

        Zero where the term does not feed the output.
        """
        return self._amplitudes[:, None] * self.term_outputs

    @property
    def amplitudes(self) -> np.ndarray:
        """(n_terms,): the amplitude of each kernel term, shared by every output.

        Raises UnsupportedModelError for an expansion whose outputs have their own kernels (see
        :meth:`stack`; use :attr:`term_weights`): a computation that needs one kernel for every
        output (the conditional mean embeddings of the observational game) cannot use it.
        """
        if self.per_output_kernels:
            raise UnsupportedModelError(
                "this model's outputs have a kernel each (e.g. a one-vs-rest GaussianProcessClassifier whose "
                "classes learned different kernels), and this computation needs one kernel shared by every "
                "output. kx.ProductKernelExplainer(model) and kx.ProductKernelExplainer(model, background=B) "
                "explain such models exactly (one output per class)."
            )
        return self._amplitudes

    @property
    def n_features(self) -> int:
        """Number of input features d."""
        return self._shape[1]

    @property
    def n_outputs(self) -> int:
        """Number of outputs (columns of ``coef``)."""
        return int(self.coef.shape[1])

    @property
    def n_rows(self) -> int:
        """Rows of the expanded product game: one per (kernel term, support point)."""
        return len(self.terms) * self._shape[0]

    def check_input(self, X: ArrayLike, name: str = "X", feature_names: Sequence[str] | None = None) -> np.ndarray:
        """Validated rows for this model.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows to validate.
        name : str, default "X"
            Name of the argument, for error messages.
        feature_names : sequence of str, optional
            The columns a DataFrame must have (default: the model's own feature names, when it
            has them).

        Returns
        -------
        ndarray of shape (N, d)
            The validated rows.
        """
        return check_data(
            X,
            name=name,
            n_features=self.n_features,
            numeric_mask=self.numeric_mask,
            feature_names=self.feature_names if feature_names is None else list(feature_names),
        )

    def row_factors(self, X: np.ndarray, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        """Per-feature kernel factors and weights for a block of expanded rows.

        Parameters
        ----------
        X : ndarray of shape (p, d)
            Validated rows.
        rows : slice
            The block of expanded rows r = (kernel term t, support point i), in ``range(n_rows)``.

        Returns
        -------
        a : ndarray of shape (p, r, d)
            a[p, r, j] = k_{t,j}(X_pj, X_ref_ij).
        c : ndarray of shape (r, o)
            c[r] = amplitude_t * coef_i.
        """
        n = self._shape[0]
        a_parts, c_parts = [], []
        start, stop = rows.start, rows.stop
        for t, term in enumerate(self.terms):
            lo, hi = max(start, t * n), min(stop, (t + 1) * n)
            if lo >= hi:
                continue
            ref = self.X_ref[lo - t * n : hi - t * n]
            a_parts.append(term.feature_values(X, ref))
            c_parts.append(self.term_weights[t] * self.coef[lo - t * n : hi - t * n])
        if not a_parts:  # an empty block (or a model without support points)
            return np.ones((len(X), 0, self.n_features)), np.zeros((0, self.n_outputs))
        a = a_parts[0] if len(a_parts) == 1 else np.concatenate(a_parts, axis=1)
        c = c_parts[0] if len(c_parts) == 1 else np.concatenate(c_parts, axis=0)
        return a, c

    def predict(self, X: ArrayLike, *, validate: bool = True, max_block_bytes: int = 32 * 2**20) -> np.ndarray:
        """f(X), shape (N,) for a single-output expansion, else (N, n_outputs).

        Each kernel term's Gram matrix against the support points is computed from distances
        (:meth:`kexplain.kernels.Kernel.gram`, no per-feature factor tensor) in blocks of points
        and support points whose Gram block holds at most ``max_block_bytes`` bytes, then
        multiplied by the coefficients.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Points (a DataFrame's columns must be the model's features; sparse input is densified).
        validate : bool
            Check X (False: X must already be a validated array, e.g. from :meth:`check_input`).
        max_block_bytes : int
            Bytes of one Gram block (points x support points).

        Returns
        -------
        ndarray of shape (N,) or (N, n_outputs)
            f(X) for every row (one column per output for several outputs).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> k = kx.kernels.SumKernel([kx.kernels.RBF(1.0), kx.kernels.Laplacian(2.0)])
        >>> em = kx.KernelExpansion(np.array([[0.0], [1.0]]), [[1.0, 0.0], [0.0, 2.0]], k, intercept=[0.5, -1.0])
        >>> np.round(em.predict(np.array([[0.0], [0.5]])), 3)
        array([[2.5  , 1.426],
               [2.161, 2.323]])
        """
        X = self.check_input(X) if validate else np.asarray(X)
        out = np.tile(self.intercept, (X.shape[0], 1))
        n = self._shape[0]
        # a Gram block and about three temporaries of its size (distances, error bounds, flags)
        per_pair = 8 * 4
        ref_chunk = int(max(1, min(n, max_block_bytes // (per_pair * 64))))
        pt_chunk = int(max(1, max_block_bytes // (per_pair * ref_chunk)))
        for t, term in enumerate(self.terms):
            mask = self.term_outputs[t]
            coef = self.coef if mask.all() else self.coef * mask
            for p0 in range(0, X.shape[0], pt_chunk):
                xs = X[p0 : p0 + pt_chunk]
                for lo in range(0, n, ref_chunk):
                    K = term.gram(xs, self.X_ref[lo : lo + ref_chunk], check_input=False)
                    out[p0 : p0 + pt_chunk] += K @ coef[lo : lo + ref_chunk]
        return out[:, 0] if self.single_output else out

    def __repr__(self) -> str:
        return (
            f"KernelExpansion(n_reference_points={self._shape[0]}, n_features={self.n_features}, "
            f"n_outputs={self.n_outputs}, kernel={self.kernel!r})"
        )
