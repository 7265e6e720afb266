"""What one product kernel computes from its per-feature factors: the mix-in under :class:`Kernel`.

``k(x, y) = amplitude * prod_j k_j(x_j, y_j)``: given the factors (``feature_values``, which a
kernel implements), this is the Gram matrix (``gram``, by the fast path a subclass gives in
``_unit_gram``), the matched-pair values and pair-loop codes of the statistics (``pair_values``,
``pair_loop_params``), the diagonal, and the checks of the inputs' features.  :class:`Kernel`
(``kernels/kernel.py``) adds ``rescaled`` and the operators, which build the kernels of that
module; this part names none of them, so it lives apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._gram import _gram_inputs, _row_step
from ._kernel_params import PairParams


class _KernelContract:
    """The computations of a product kernel from its factors (see :class:`~kexplain.kernels.Kernel`)."""

    amplitude: float = 1.0

    #: number of features the kernel is defined on, or None when it adapts to any number
    @property
    def n_features(self) -> int | None:
        """Number of features the kernel is defined on, or None when it adapts to any number."""
        return None

    #: True when inputs must be numeric (False for kernels that compare labels)
    numeric: bool = True

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature kernel values, shape (len(X), len(Y), d), without the amplitude.

        Parameters
        ----------
        X : ndarray of shape (n, d)
            Rows (validated).
        Y : ndarray of shape (m, d)
            Rows to compare them with.
        """
        raise NotImplementedError

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """Gram matrix amplitude * prod_j k_j(X_pj, Y_rj), shape (len(X), len(Y)); see :meth:`gram`."""
        return self.gram(X, Y)

    def gram(
        self,
        X: ArrayLike,
        Y: ArrayLike | None = None,
        *,
        check_input: bool = True,
        feature_names: Sequence[str] | None = None,
    ) -> np.ndarray:
        """Gram matrix amplitude * prod_j k_j(X_pj, Y_rj), shape (len(X), len(Y)).

        Computed without the (len(X), len(Y), d) tensor of per-feature factors (see the notes
        of ``kexplain.kernels.base``); temporaries stay within ``GRAM_BLOCK_ELEMS`` elements per block.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows (a 1-D array is one column); DataFrames and scipy sparse matrices are accepted.
        Y : array-like of shape (m, d), optional
            Second set of rows; None means X (the diagonal is then exactly the amplitude).
        check_input : bool
            Validate X and Y (2-D, same number of features, finite numbers for numeric features,
            no missing labels); False skips this for arrays already validated.
        feature_names : sequence of str, optional
            Names of the d features, used in error messages; by default the columns of X (or of
            Y) when it is a DataFrame, else messages give 0-based column positions.

        Returns
        -------
        ndarray of shape (n, m)
            The Gram matrix amplitude * prod_j k_j(X_pj, Y_rj).

        Raises
        ------
        ValueError
            Naming X or Y (and the row, and the column by name when known) for NaN, infinite or
            non-numeric values, missing labels, ragged or complex input, or a wrong number of
            features.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import Laplacian
        >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
        >>> np.round(Laplacian(2.0).gram(X, X[:1]), 3)
        array([[1.   ],
               [0.368]])
        """
        if check_input:
            Xa, Ya, same = _gram_inputs(self, X, Y, feature_names)
        else:
            Xa = np.asarray(X)
            Ya, same = (Xa, True) if Y is None else (np.asarray(Y), False)
        K = self._unit_gram(Xa, Ya, same)
        amp = self.diag_value()
        if amp != 1.0:
            K *= amp
        return K

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """prod_j k_j(X_pj, Y_rj) on validated arrays (no amplitude): here, from ``feature_values`` in
        row blocks; the kernels of ``kexplain.kernels`` override it with distance-based formulas."""
        n, m, d = len(X), len(Y), X.shape[1]
        out = np.empty((n, m))
        step = _row_step(m, d)
        for s in range(0, n, step):
            out[s : s + step] = np.prod(self.feature_values(X[s : s + step], Y), axis=-1)
        return out

    def diag_value(self) -> float:
        """k(x, x), which is the amplitude for every kernel here.

        Returns
        -------
        float
            k(x, x), which is the amplitude for every kernel here.
        """
        return self.amplitude

    def check_n_features(self, d: int, name: str = "X") -> None:
        """Raise a ValueError naming ``name`` when the kernel is defined on another number of features.

        Parameters
        ----------
        d : int
            Number of features of the input.
        name : str, default 'X'
            Name of the input, for the error message.
        """
        nf = self.n_features
        if nf is not None and nf != d:
            raise ValueError(f"{name} has {d} features but the kernel {self!r} is defined on {nf} features.")

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features this kernel needs as numbers.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        ndarray of bool, shape (d,)
            True for the features the kernel needs as numbers.
        """
        return np.full(d, self.numeric, dtype=bool)

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Per-feature values k_j(P_rj, Q_rj) for matched rows, shape (r, d), without the amplitude.

        What the kernel statistics need for their sample pairs (the numpy pair path).  Here one
        call of :meth:`feature_values` per pair (slow but correct); the kernels of
        ``kexplain.kernels`` override it with direct formulas.

        Parameters
        ----------
        P : ndarray of shape (r, d)
            Rows of the first sample.
        Q : ndarray of shape (r, d)
            Rows of the second sample, matched to those of ``P`` row by row.

        Returns
        -------
        ndarray of shape (r, d)
            The per-feature values k_j(P_ij, Q_ij), without the amplitude.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import RBF
        >>> P, Q = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 3.0]])
        >>> np.round(RBF(1.0).pair_values(P, Q), 3)
        array([[0.607, 1.   ],
               [1.   , 0.135]])
        """
        r, d = np.shape(P)
        if r == 0:
            return np.zeros((0, d))
        return np.stack([self.feature_values(P[i : i + 1], Q[i : i + 1])[0, 0] for i in range(r)])

    def pair_loop_params(self, d: int) -> PairParams | None:
        """What the statistics' compiled pair loop needs for this kernel on ``d`` features, or None.

        (codes, inverse lengthscales, mismatches), one entry per feature, with the codes
        ``PAIR_RBF``, ``PAIR_LAPLACE``, ``PAIR_CAUCHY`` and ``PAIR_DELTA`` of ``kernels/_kernel_params.py``
        (re-exported by ``kernels/kernel.py``).  None (the default) sends the kernel to the numpy pair
        path (:meth:`pair_values`), which is correct for every kernel.

        Parameters
        ----------
        d : int
            Number of features.
        """
        return None
