"""What a fitted ``ConditionalMeanEmbedding`` gives besides expectations: its weights beta(x) over the
training rows, the embedding mu_{Y|x}(y) and the inner products of embeddings in the target RKHS,
all through the checked Gram matrices of the fitted kernels.  A mix-in of the class, which
``kexplain.embeddings.cme`` assembles (its expectations and ``predict``, blocked by ``BLOCK_BYTES``,
live there)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_data, match_columns
from ._checks import check_gram_output
from .gram import as_2d
from .ridge import ExactRidge, NystroemRidge


class EmbeddingQueries:
    """The queries of a fitted conditional mean embedding (a mix-in of ``ConditionalMeanEmbedding``)."""

    # set by ConditionalMeanEmbedding.fit
    kernel_: Any
    target_kernel_: Any
    X_fit_: np.ndarray
    Y_fit_: np.ndarray
    landmarks_: np.ndarray | None
    solver_: ExactRidge | NystroemRidge
    n_features_in_: int

    def _gram(self, A: np.ndarray, B: np.ndarray, rows: str, which: str) -> np.ndarray:
        """k(A, B) of the fitted ``kernel`` (``which="kernel"``) or ``target_kernel``, checked: a
        callable that returns NaN or a wrong shape is named instead of spreading NaN."""
        k = self.kernel_ if which == "kernel" else self.target_kernel_
        return check_gram_output(k(A, B), which, (len(A), len(B)), rows)

    def _check_X(self, X: Any, name: str = "X") -> np.ndarray:
        check_is_fitted(self, "solver_")
        match_columns(X, getattr(self, "feature_names_in_", None), name)
        arr = check_data(X, name=name, estimator=True, min_features=1, huge=False)
        if arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{name} has {arr.shape[1]} features, but ConditionalMeanEmbedding is expecting {self.n_features_in_} "
                "features as input."
            )
        return np.asarray(validate_data(self, X, reset=False, dtype=np.float64))

    def weights(self, X: Any) -> np.ndarray:
        """beta(x) over the training rows, shape (n, N): E[g(Y) | X = x] ~ sum_i beta_i(x) g(y_i).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Query rows of the conditioning variable.

        Returns
        -------
        ndarray of shape (n, N)
            The weights beta(x) over the training rows, one column per query row.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import ConditionalMeanEmbedding
        >>> X = np.linspace(0, 1, 10)[:, None]
        >>> ConditionalMeanEmbedding().fit(X, X[:, 0]).weights(X[:3]).shape
        (10, 3)
        """
        return self._beta(self._check_X(X))

    def _beta(self, Xv: np.ndarray) -> np.ndarray:
        """beta(x) for validated rows, shape (n, N)."""
        if self.landmarks_ is None:
            return self.solver_.weights(self._gram(self.X_fit_, Xv, "X", "kernel"))
        return self.solver_.weights(self._gram(self.X_fit_[self.landmarks_], Xv, "X", "kernel"))

    def embedding(self, X: Any, Y: Any) -> np.ndarray:
        """mu_{Y|x}(y) = sum_i beta_i(x) l(y_i, y), shape (N, M), for the rows of ``X`` and ``Y``.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Query rows of the conditioning variable.
        Y : array-like of shape (M, q)
            Points of the target variable.

        Returns
        -------
        ndarray of shape (N, M)
            The embedding mu_{Y|x}(y) at every pair of rows.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import ConditionalMeanEmbedding
        >>> X = np.linspace(0, 1, 10)[:, None]
        >>> ConditionalMeanEmbedding().fit(X, X[:, 0]).embedding(X[:2], np.zeros((5, 1))).shape
        (2, 5)
        """
        beta = self.weights(X)
        Yv = as_2d(check_data(Y, name="Y", estimator=True, min_features=1, ndims=(1, 2), huge=False))
        if Yv.shape[1] != self.Y_fit_.shape[1]:
            raise ValueError(
                f"Y has {Yv.shape[1]} column(s), but the y given to fit had {self.Y_fit_.shape[1]}; Y holds points of "
                "y's space."
            )
        return np.asarray((self._gram(self.Y_fit_, Yv, "Y", "target_kernel").T @ beta).T)

    def inner_product(self, X1: Any, X2: Any = None) -> np.ndarray:
        """<mu_{Y|x}, mu_{Y|x'}> in the target RKHS, beta(x)^T L beta(x'), shape (N1, N2).

        Parameters
        ----------
        X1 : array-like of shape (N1, d)
            Query rows.
        X2 : array-like of shape (N2, d), optional
            Second set of query rows; None means X1.

        Returns
        -------
        ndarray of shape (N1, N2)
            The inner products of the embeddings in the target RKHS.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import ConditionalMeanEmbedding
        >>> X = np.linspace(0, 1, 10)[:, None]
        >>> G = ConditionalMeanEmbedding().fit(X, X[:, 0]).inner_product(X[:3])
        >>> G.shape, bool(np.allclose(G, G.T))
        ((3, 3), True)
        """
        b1 = self._beta(self._check_X(X1, "X1"))
        b2 = b1 if X2 is None else self._beta(self._check_X(X2, "X2"))
        return np.asarray(b1.T @ self._gram(self.Y_fit_, self.Y_fit_, "y", "target_kernel") @ b2)
