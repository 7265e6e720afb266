"""The linear algebra of conditional mean embeddings, written once.

The CME of Y given X from rows (x_i, y_i), i = 1..n, with (normalised) row weights w has the weights

    beta(x) = D (D K D + n eta I)^-1 D k(X, x),        D = diag(sqrt(n w))

(kernel ridge regression of the feature map of Y on the feature map of X; D = I for equal
weights), so that E[g(Y) | X = x] ~ sum_i beta_i(x) g(y_i).  With the Nystroem approximation on m
landmark rows L the regression lives in the span of the landmarks' feature maps and

    beta(x) = D^2 K_XL (K_LX D^2 K_XL + n eta K_LL)^-1 k(L, x)

(the push-through form of the same ridge).  ``ExactRidge`` and ``NystroemRidge`` hold the
Cholesky factor of one such system; ``ConditionalMeanEmbedding`` and RKHS-SHAP's observational
games (``kexplain.rkhs.cme``) both solve through them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from .._params import Integer, check_param, check_positive
from .._typing import RandomStateLike
from .._validation import check_random_state, to_array
from ._checks import check_matrix

# relative jitter added to landmark Gram matrices before a Cholesky factorisation
_JITTER = 1e-9


def jittered_cholesky(
    M: np.ndarray, ridge: float = 0.0, *, jitters: tuple[float, ...] = (_JITTER, _JITTER + 1e-6)
) -> tuple[np.ndarray, bool]:
    """Cholesky factor of M + ridge I + jitter * mean(diag M) I, trying each relative jitter in
    turn until the factorisation succeeds (a LinAlgError when none does)."""
    n = M.shape[0]
    scale = max(float(np.trace(M)) / max(n, 1), 1e-300)
    for jitter in jitters[:-1]:
        try:
            return cho_factor(M + (ridge + jitter * scale) * np.eye(n), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            continue
    return cho_factor(M + (ridge + jitters[-1] * scale) * np.eye(n), lower=True, check_finite=False)


def nystroem_jitters(m: int) -> tuple[float, ...]:
    """Relative jitters tried for a landmark Gram matrix K_LL of m rows, smallest first.

    None first (the system is factorised through QR, so K_LL's own Cholesky factor is never
    inverted and needs no jitter while it exists); then 8 m eps, the rounding of the Gram matrix
    itself; the next ones only when landmarks coincide.  Scaled by mean(diag K_LL), and (in the CME system) by the
    ridge: the system gets lam * jitter * mean(diag K_LL) on its diagonal.

    Examples
    --------
    >>> from kexplain.embeddings.ridge import nystroem_jitters
    >>> nystroem_jitters(10)[:1], nystroem_jitters(10)[1] < 1e-13
    ((0.0,), True)
    """
    return (0.0, 8 * max(m, 1) * float(np.finfo(np.float64).eps), 1e-12, 1e-10, 1e-8, 1e-6)


def landmark_cholesky(K_LL: np.ndarray) -> tuple[np.ndarray, float]:
    """(lower L with L L^T = K_LL + jitter mean(diag) I, the relative jitter used): the smallest of
    :func:`nystroem_jitters` that factorises K_LL."""
    m = K_LL.shape[0]
    scale = max(float(np.trace(K_LL)) / max(m, 1), 1e-300)
    jitters = nystroem_jitters(m)
    for jitter in jitters:
        try:
            return np.linalg.cholesky(K_LL + jitter * scale * np.eye(m)), jitter
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError(
        f"the landmark Gram matrix is not positive definite even with a relative jitter of {jitters[-1]:g}."
    )


def gp_cholesky(M: np.ndarray) -> tuple[np.ndarray, bool]:
    """Cholesky factor of a GP covariance matrix with the smallest relative jitter that works
    (1e-10, then 1e-8, then 1e-6): marginal likelihoods and their optimisers see as little jitter as
    possible."""
    return jittered_cholesky(M, jitters=(1e-10, 1e-8, 1e-6))


def cholesky_logdet(factor: tuple[np.ndarray, bool]) -> float:
    """log det of the matrix whose Cholesky factor (as from :func:`jittered_cholesky`) is given."""
    return 2.0 * float(np.log(np.diag(factor[0])).sum())


def choose_landmarks(
    n_rows: int, n_landmarks: int, random_state: RandomStateLike, weights: np.ndarray | None = None
) -> np.ndarray:
    """Indices of ``n_landmarks`` distinct rows out of ``n_rows``, sorted (all rows if fewer).

    Rows of zero weight are never chosen.  ``random_state`` (None, an int, or a numpy
    Generator/RandomState) makes the choice reproducible, as in scikit-learn's ``Nystroem``.

    Parameters
    ----------
    n_rows : int
        Number of rows to choose from (>= 0).
    n_landmarks : int
        Number of landmarks wanted (>= 1).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed or generator of the random choice.
    weights : ndarray of shape (n_rows,), optional
        Row weights; rows of weight 0 are never chosen.

    Returns
    -------
    ndarray of int
        The sorted indices of the landmarks, ``min(n_landmarks, number of eligible rows)`` of them.

    Examples
    --------
    >>> from kexplain.embeddings import choose_landmarks
    >>> choose_landmarks(10, 3, 0).shape
    (3,)
    >>> choose_landmarks(4, 10, 0)
    array([0, 1, 2, 3])
    """
    for value, name, least in ((n_rows, "n_rows", 0), (n_landmarks, "n_landmarks", 1)):
        check_param(value, name, Integer(least), what=f"an integer >= {least}")
    rng = check_random_state(random_state)
    pool = np.arange(n_rows) if weights is None else np.flatnonzero(np.asarray(weights) > 0)
    if n_landmarks >= pool.size:
        return pool
    return np.sort(rng.choice(pool, size=n_landmarks, replace=False))


def _check_D(D: Any, n: int, per: str) -> np.ndarray:
    """sqrt(n w): n finite non-negative numbers, or an error naming ``D``."""
    arr = to_array(D, "D")
    if arr.shape != (n,) or arr.dtype.kind not in "biuf":
        raise ValueError(
            f"D must have one non-negative number per {per} ({n}), sqrt(n * w) for the row weights w; got "
            f"{'shape ' + str(arr.shape) if arr.shape != (n,) else 'dtype ' + str(arr.dtype)}."
        )
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("D must hold finite non-negative numbers, sqrt(n * w) for the row weights w.")
    return arr


class ExactRidge:
    """The exact CME system D K D + lam I (Cholesky factor), with D = diag(sqrt(n w)) or None.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the conditioning kernel on the training rows.
    lam : float
        The ridge (n * eta in kexplain's convention).
    D : ndarray of shape (n,), optional
        sqrt(n w) for row weights w summing to one; None for equal weights.
    overwrite_K : bool
        Factorise in the memory of ``K`` (which is then overwritten): one n x n array in all
        instead of two, for a caller that has no further use for ``K``.

    Raises
    ------
    ValueError
        Naming ``K``, ``lam`` or ``D``: K not a finite square matrix, lam not a positive finite
        number, D not n finite non-negative numbers; or, naming ``K``, when K + lam I is not
        positive definite (K is not a positive semi-definite kernel matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import ExactRidge
    >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> np.round(ExactRidge(K, 0.1).weights(K[:, :1]), 3)
    array([[0.885],
           [0.052]])
    """

    def __init__(self, K: np.ndarray, lam: float, D: np.ndarray | None = None, *, overwrite_K: bool = False) -> None:
        K = check_matrix(K, "K", square=True)
        n = K.shape[0]
        lam = check_positive(lam, "lam")
        if D is not None:
            D = _check_D(D, n, "row of K")
        self.D = D
        if overwrite_K and K.flags.writeable and (K.flags.f_contiguous or K.flags.c_contiguous):
            M = K
        else:
            M = K.copy()
        if D is not None:  # D K D in place, no n x n temporaries
            M *= D[:, None]
            M *= D[None, :]
        # the ridge on the diagonal in place: no n x n identity nor a second n x n sum
        M[np.diag_indices(n)] += lam
        try:
            if M.flags.c_contiguous and not M.flags.f_contiguous:
                # LAPACK works in Fortran order: the upper factor of M^T (a Fortran-ordered view of
                # the same memory, read from M's lower triangle) is computed in place, where
                # asking for the lower factor of M would copy it first
                U, _ = cho_factor(M.T, lower=False, overwrite_a=True, check_finite=False)
                self.factor = (U, False)
            else:
                self.factor = cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"K + lam I is not positive definite (lam={lam:g}): K must be a positive semi-definite kernel "
                "(Gram) matrix; a larger lam may help when K is one up to rounding."
            ) from None
        self.nbytes = int(self.factor[0].nbytes)

    def weights(self, K_x: np.ndarray) -> np.ndarray:
        """beta = D (D K D + lam I)^-1 D K_x, shape (n, N), for the (n, N) cross-kernel K_x.

        Parameters
        ----------
        K_x : ndarray of shape (n, N) or (n,)
            Kernel between the n conditioning rows and N query points.

        Returns
        -------
        ndarray of shape (n, N) or (n,)
            The CME weights of each query point, shaped as ``K_x``.
        """
        n = self.factor[0].shape[0]
        K_x = to_array(K_x, "K_x")
        one_d = K_x.ndim == 1
        K_x = check_matrix(np.reshape(K_x, (-1, 1)) if one_d else K_x, "K_x", shape=(n, None), what="one per row of K")
        if one_d:
            K_x = K_x[:, 0]
        if self.D is None:
            return cho_solve(self.factor, K_x, check_finite=False)
        return self.D[:, None] * cho_solve(self.factor, self.D[:, None] * K_x, check_finite=False)

    def transposed(self, F: np.ndarray) -> np.ndarray:
        """alpha = D (D K D + lam I)^-1 D F, shape (n, o): sum_i beta_i(x) F_i = k(x, X) alpha.

        Parameters
        ----------
        F : ndarray of shape (n, o) or (n,)
            Values at the n conditioning rows.

        Returns
        -------
        ndarray of shape (n, o) or (n,)
            The coefficients alpha on the conditioning rows.
        """
        return self.weights(F)


class NystroemRidge:
    """The Nystroem CME system K_LX D^2 K_XL + lam K_LL on m landmarks (Cholesky factor).

    The factor comes from the QR decomposition of [D K_XL; sqrt(lam) R] (R^T R = K_LL), never
    from the formed matrix: the weights then follow the formula beta = D^2 K_XL c,
    (K_LX D^2 K_XL + lam K_LL) c = K_Lx, to within rounding of the square root of its condition
    number.  The only jitter is K_LL's own (``jitter``, relative to mean(diag K_LL), the smallest
    of :func:`nystroem_jitters` that factorises it), so the system is K_LX D^2 K_XL +
    lam (K_LL + jitter mean(diag K_LL) I).

    Parameters
    ----------
    K_LX : ndarray of shape (m, n)
        Conditioning kernel between the landmarks and the training rows.
    K_LL : ndarray of shape (m, m)
        Conditioning kernel among the landmarks.
    lam : float
        The ridge (n * eta).
    D : ndarray of shape (n,), optional
        sqrt(n w) for row weights w summing to one; None for equal weights.

    Raises
    ------
    ValueError
        Naming ``K_LX``, ``K_LL``, ``lam`` or ``D`` when they are not finite, of matching shapes,
        lam positive and D non-negative.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import ExactRidge, NystroemRidge
    >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> bool(np.allclose(NystroemRidge(K, K, 0.1).weights(K[:, :1]), ExactRidge(K, 0.1).weights(K[:, :1])))
    True
    """

    def __init__(self, K_LX: np.ndarray, K_LL: np.ndarray, lam: float, D: np.ndarray | None = None) -> None:
        K_LX = check_matrix(K_LX, "K_LX")
        m, n = K_LX.shape
        K_LL = check_matrix(K_LL, "K_LL", shape=(m, m), what="K_LL must be a square (m, m) matrix, m the rows of K_LX")
        lam = check_positive(lam, "lam")
        if D is not None:
            D = _check_D(D, n, "column of K_LX")
        from scipy.linalg import qr

        K_LXd = K_LX if D is None else K_LX * D[None, :]
        # M = K_LX D^2 K_XL + lam K_LL = S^T S with S = [D K_XL; sqrt(lam) R], R^T R = K_LL: the QR factor
        # of S is a Cholesky factor of M computed without forming M, so the condition number is not
        # squared (forming M and adding a jitter of 1e-9 mean(diag M) moved the weights by 1e-3 to 1e-1
        # relative to the formula on landmark Grams of condition 1e12); the only jitter is the one
        # K_LL itself needs, the smallest of ``nystroem_jitters(m)`` that factorises it, scaled by lam
        try:
            R, self.jitter = landmark_cholesky(K_LL)
        except np.linalg.LinAlgError:
            raise ValueError(
                "K_LL is not positive semi-definite: it must be the kernel (Gram) matrix of the landmarks, and "
                "K_LX the same kernel between the landmarks and the rows."
            ) from None
        S = np.vstack([K_LXd.T, np.sqrt(float(lam)) * R.T])
        Rs = qr(S, mode="r", check_finite=False)[0][:m]
        self.factor = (np.ascontiguousarray(Rs.T), True)  # lower L with L L^T = M, for cho_solve
        self.K_LXw = K_LX if D is None else K_LX * D[None, :] ** 2  # K_LX D^2
        self.nbytes = int(self.factor[0].nbytes + self.K_LXw.nbytes)

    def coef(self, K_Lx: np.ndarray) -> np.ndarray:
        """c = (K_LX D^2 K_XL + lam K_LL)^-1 K_Lx, shape (m, N).

        Parameters
        ----------
        K_Lx : ndarray of shape (m, N) or (m,)
            Kernel between the m landmarks and N query points.

        Returns
        -------
        ndarray of shape (m, N) or (m,)
            The landmark coefficients c, shaped as ``K_Lx``.
        """
        m = self.factor[0].shape[0]
        K_Lx = to_array(K_Lx, "K_Lx")
        one_d = K_Lx.ndim == 1
        K_Lx = check_matrix(
            np.reshape(K_Lx, (-1, 1)) if one_d else K_Lx,
            "K_Lx",
            shape=(m, None),
            what="one per landmark, the rows of K_LX",
        )
        if one_d:
            K_Lx = K_Lx[:, 0]
        return cho_solve(self.factor, K_Lx, check_finite=False)

    def weights(self, K_Lx: np.ndarray) -> np.ndarray:
        """beta = D^2 K_XL c, shape (n, N), for the (m, N) landmark cross-kernel K_Lx.

        Parameters
        ----------
        K_Lx : ndarray of shape (m, N) or (m,)
            Kernel between the m landmarks and N query points.

        Returns
        -------
        ndarray of shape (n, N) or (n,)
            The CME weights of each query point on the n conditioning rows.
        """
        return self.K_LXw.T @ self.coef(K_Lx)

    def transposed(self, F: np.ndarray) -> np.ndarray:
        """alpha on the landmarks, shape (m, o): sum_i beta_i(x) F_i = k(x, L) alpha.

        Parameters
        ----------
        F : ndarray of shape (n, o) or (n,)
            Values at the n conditioning rows.

        Returns
        -------
        ndarray of shape (m, o) or (m,)
            The coefficients alpha on the landmarks.
        """
        return cho_solve(self.factor, self.K_LXw @ F, check_finite=False)
