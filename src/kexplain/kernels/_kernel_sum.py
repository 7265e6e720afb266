"""What a sum of kernels computes from its terms: the mix-in under :class:`SumKernel`.

The summed Gram matrix (in row blocks when many terms meet a large matrix), the diagonal, the
features' numeric mask and the checks of the inputs' features.  :class:`SumKernel`
(``kernels/kernel.py``) adds its construction, ``rescaled`` and the operators, which name
:class:`Kernel`; this part names neither, so it lives apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._gram import GRAM_BLOCK_ELEMS, _gram_inputs, _row_step


class _SumOfTerms:
    """The computations of a sum of kernels from its terms (see :class:`~kexplain.kernels.SumKernel`)."""

    #: the product kernels summed (set by SumKernel)
    terms: list[Any]

    @property
    def n_features(self) -> int | None:
        """The number of features the terms agree on, or None when they all adapt."""
        nfs = {t.n_features for t in self.terms if t.n_features is not None}
        if len(nfs) > 1:
            raise ValueError(f"the terms of a SumKernel disagree on the number of features: {nfs}.")
        return nfs.pop() if nfs else None

    def check_n_features(self, d: int, name: str = "X") -> None:
        """Raise a ValueError naming ``name`` when a term is defined on another number of features.

        Parameters
        ----------
        d : int
            Number of features of the input.
        name : str, default 'X'
            Name of the input, for the error message.
        """
        for t in self.terms:
            t.check_n_features(d, name)

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features some term needs as numbers.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        ndarray of bool, shape (d,)
            True for the features the kernel needs as numbers.
        """
        masks = [t.numeric_mask(d) for t in self.terms]
        return np.logical_or.reduce(masks)

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """The Gram matrix: the sum of the terms' Gram matrices; see :meth:`gram`."""
        return self.gram(X, Y)

    def gram(
        self,
        X: ArrayLike,
        Y: ArrayLike | None = None,
        *,
        check_input: bool = True,
        feature_names: Sequence[str] | None = None,
    ) -> np.ndarray:
        """Sum of the terms' Gram matrices (each computed as in :meth:`Kernel.gram`).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows (a 1-D array is one column).
        Y : array-like of shape (m, d), optional
            None means X.
        check_input : bool
            Validate X and Y once for all terms (see :meth:`Kernel.gram`).
        feature_names : sequence of str, optional
            Names of the features for error messages (see :meth:`Kernel.gram`).

        Returns
        -------
        ndarray of shape (n, m)
            The sum of the terms' Gram matrices.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import RBF, Cauchy, SumKernel
        >>> np.round(SumKernel([RBF(1.0), Cauchy(1.0)]).gram(np.array([[0.0], [1.0]])), 3)
        array([[2.   , 1.107],
               [1.107, 2.   ]])
        """
        if check_input:
            Xa, Ya, same = _gram_inputs(self, X, Y, feature_names)
        else:
            Xa = np.asarray(X)
            Ya, same = (Xa, True) if Y is None else (np.asarray(Y), False)
        n, m = Xa.shape[0], Ya.shape[0]
        if len(self.terms) == 1 or n * m <= GRAM_BLOCK_ELEMS:
            out = self.terms[0].gram(Xa, None if same else Ya, check_input=False)
            for t in self.terms[1:]:
                out += t.gram(Xa, None if same else Ya, check_input=False)
            return out
        # a large matrix of many terms (a scale mixture has dozens): row blocks summed into the
        # output, so the memory is the output plus blocks, not one full matrix per term
        out = np.empty((n, m))
        step = _row_step(m, 2)
        diag = 0.0
        for t in self.terms:
            diag += t.diag_value()
        for a in range(0, n, step):
            rows = slice(a, min(n, a + step))
            block = self.terms[0].gram(Xa[rows], Ya, check_input=False)
            for t in self.terms[1:]:
                block += t.gram(Xa[rows], Ya, check_input=False)
            if same:  # as term.gram(X) does: the diagonal is exactly the sum of the amplitudes
                r = np.arange(rows.start, rows.stop)
                block[r - a, r] = diag
            out[rows] = block
        return out

    def diag_value(self) -> float:
        """k(x, x): the sum of the terms' amplitudes.

        Returns
        -------
        float
            k(x, x): the sum of the terms' amplitudes.
        """
        return float(sum(t.diag_value() for t in self.terms))
