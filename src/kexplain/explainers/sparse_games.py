"""The product games of a KernelExpansion on sparse rows: work that follows the non-zeros.

For a product kernel k(x, y) = prod_j k_j(x_j, y_j) (times an amplitude), feature j of the row
(support point i, background row z) of the interventional game has present factor
a_ij = k_j(x_j, X_ij) and absent factor b_ij = k_j(z_j, X_ij).  Where x_j = z_j the two are equal:
j is a null player of that row, gets nothing from it, and only multiplies every coalition's
value by a_ij.  So the row's players are D = {j : x_j != z_j}, a subset of the non-zeros of x and
z, shared by every support point; the other features' factors are one constant per (i, z),

    C_iz = prod_{j not in D} k_j(x_j, X_ij)
         = exp(L0_i - sum_{j in V} log k_j(0, X_ij) + sum_{j in V \\ D} log k_j(x_j, X_ij)),

with V the non-zeros of x or z and L0_i = sum_j log k_j(0, X_ij) computed once per support point
from its own non-zeros and kappa_j = k_j(0, 0) (1 for RBF, Laplacian and Cauchy).  Exact zeros
among the factors are counted rather than logged, so C_iz is exactly 0 where one factor is.  The
baseline game is one background row.  In the functional game (absent factor 1) the players of
row i are the non-zeros of x or X_i when every kappa_j = 1; features outside every row's players
get exactly 0.  The rows go to :func:`kexplain.shapley.sparse.solve_sparse_rows`.

Cost per explained row: sum_i |S_x u S_i| ceil(|S_x u S_i| / 2) for the functional game and
n_b * n * |D| ceil(|D| / 2) for the interventional one, against n * d ceil(d / 2) (times n_b) densely.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_sparse_data
from ..kernels.mixture import ScaleMixtureKernel
from ..kernels.restrict import restrict_features
from ..models.dot_product import PolynomialExpansion
from ..models.expansion import KernelExpansion
from ..shapley.product import DEFAULT_BLOCK_BYTES
from ..shapley.result import ShapleyValues
from ..shapley.sparse import solve_rows_near_base, solve_sparse_rows


def _logs(F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log |F| with zeros as 0, 1 where F == 0) elementwise: products with a count of exact zeros."""
    zero = F == 0.0
    with np.errstate(divide="ignore"):
        return np.where(zero, 0.0, np.log(np.where(zero, 1.0, F))), zero.astype(np.int64)


class SparseProductGames:
    """Functional, baseline and interventional games of a kernel expansion on sparse rows.

    Built once per explainer: the support points in CSR and CSC form and, per kernel term, the
    factors k_j(0, X_ij) of their non-zeros and each support point's log product L0_i (module
    docstring).  :meth:`solve` gives the exact Shapley values of explained CSR rows, equal to the
    dense games' up to rounding.

    Parameters
    ----------
    model : KernelExpansion
        A product-kernel expansion whose kernel terms :func:`kexplain.kernels.restrict.restrict_features`
        supports (RBF, Laplacian, Cauchy, Chi2, Categorical and their products).
    background : scipy sparse matrix of shape (n_background, d), optional
        Validated background rows (CSR); None for the functional game.
    weights : ndarray of shape (n_background,), optional
        Weights of the background rows, summing to one.
    max_block_bytes : int
        Bound on one block of the solver.

    Raises
    ------
    TypeError
        For a kernel that cannot be restricted to some features, or (functional game) one whose
        factor at equal zero inputs is not 1; the message says to densify.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> import kexplain as kx
    >>> from kexplain.explainers.sparse_games import SparseProductGames
    >>> em = kx.KernelExpansion(sparse.csr_matrix([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), [1.0, -1.0], kx.kernels.RBF(1.0))
    >>> res = SparseProductGames(em).solve(sparse.csr_matrix([[0.0, 0.0, 3.0]]))
    >>> np.round(res.values[0, :, 0], 4)  # the dense functional game's values
    array([ 0.4371, -0.1989, -0.233 ])
    """

    def __init__(
        self,
        model: KernelExpansion,
        background: Any = None,
        weights: np.ndarray | None = None,
        *,
        max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    ) -> None:
        self.model = model
        self.max_block_bytes = int(max_block_bytes)
        ref = model.X_ref_sparse if model.X_ref_sparse is not None else model.X_ref
        X = check_sparse_data(ref if hasattr(ref, "tocsr") else _csr(ref), name="X_ref", min_rows=0)
        self.X_ref, self._csc = X, X.tocsc()
        n, d = X.shape
        self.n_features = d
        self._entry_rows = np.repeat(np.arange(n), np.diff(X.indptr))
        self.Z, self.w = background, weights
        self._terms: list[tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.unit_at_zero = True
        zeros = np.zeros((1, d))
        for t, term in enumerate(model.terms):
            try:
                restrict_features(term, [0])
            except (TypeError, ValueError):
                raise TypeError(
                    f"the kernel {term!r} has no sparse path (supported: RBF, Laplacian, Cauchy, Chi2, Categorical "
                    "and their products)"
                ) from None
            kappa = np.asarray(term.feature_values(zeros, zeros)[0, 0], dtype=np.float64)
            if not np.all(np.isfinite(kappa) & (kappa > 0)):
                raise TypeError(f"the kernel {term!r} has factors k_j(0, 0) <= 0; the sparse games need them positive")
            self.unit_at_zero &= bool(np.all(kappa == 1.0))
            lam = np.log(kappa)
            if X.nnz:
                ent0 = restrict_features(term, X.indices).pair_values(np.zeros((1, X.nnz)), X.data[None, :])[0]
            else:
                ent0 = np.zeros(0)
            lg, zc = _logs(ent0)
            L0 = float(lam.sum()) + np.bincount(self._entry_rows, weights=lg - lam[X.indices], minlength=n)
            Z0 = np.bincount(self._entry_rows, weights=zc, minlength=n).astype(np.int64)
            c = model.term_weights[t][None, :] * model.coef
            self._terms.append((term, ent0, L0, Z0, c))
        if background is None and not self.unit_at_zero:
            raise TypeError(
                "the functional game's sparse path needs kernel factors k_j(0, 0) = 1 (a feature absent from a row "
                "and a support point is then a null player)"
            )

    def _row_constants(self, t: int, V: np.ndarray, K0: np.ndarray, A_eq: np.ndarray) -> np.ndarray:
        """C_i = prod of the null players' factors (module docstring): 0 where one of them is 0."""
        _, _, L0, Z0, _ = self._terms[t]
        lk0, zk0 = _logs(K0)
        la, za = _logs(A_eq)
        lc = L0 - lk0.sum(axis=1) + la.sum(axis=1)
        nz = Z0 - zk0.sum(axis=1) + za.sum(axis=1)
        with np.errstate(over="ignore", under="ignore"):
            return np.where(nz > 0, 0.0, np.exp(lc))

    def predict(self, X: Any) -> np.ndarray:
        """f(X) minus the intercept for validated CSR rows, shape (N, n_outputs), without densifying.

        Parameters
        ----------
        X : scipy.sparse.csr_matrix of shape (N, d)
            Validated rows (:func:`kexplain._validation.check_sparse_data`).

        Returns
        -------
        ndarray of shape (N, n_outputs)
        """
        out = np.zeros((X.shape[0], self.model.n_outputs))
        for p in range(X.shape[0]):
            idx, val = _row(X, p)
            XS = self._csc[:, idx].toarray()
            for t, (term, _, _, _, c) in enumerate(self._terms):
                k = restrict_features(term, idx) if idx.size else None
                A = k.feature_values(val[None, :], XS)[0] if k is not None else np.ones((XS.shape[0], 0))
                K0 = k.feature_values(np.zeros((1, idx.size)), XS)[0] if k is not None else A
                out[p] += self._row_constants(t, idx, K0, A) @ c
        return out

    def solve(self, X: Any) -> ShapleyValues:
        """Exact Shapley values of the rows of CSR ``X`` for this game (functional without a background).

        Parameters
        ----------
        X : scipy.sparse.csr_matrix of shape (N, d)
            Validated rows.

        Returns
        -------
        ShapleyValues
            ``values`` (N, d, o), ``v_full`` and ``v_empty`` (N, o), without the intercept.
        """
        N, d, o = X.shape[0], self.n_features, self.model.n_outputs
        values = np.zeros((N, d, o))
        v_full = np.zeros((N, o))
        v_empty = np.zeros((N, o))
        for p in range(N):
            idx, val = _row(X, p)
            if self.Z is not None:
                self._interventional(idx, val, values[p], v_full[p], v_empty[p])
                continue
            for indptr, columns, a, b, c in self._functional(idx, val):
                phi, vf, ve = solve_sparse_rows(indptr, columns, a, b, c, d, max_block_bytes=self.max_block_bytes)
                values[p] += phi
                v_full[p] += vf
                v_empty[p] += ve
        for name, arr in (("Shapley values", values), ("game values", v_full)):
            if not np.all(np.isfinite(arr)):
                raise FloatingPointError(f"non-finite {name} in the sparse product game: check the model.")
        return ShapleyValues(values=values, v_full=v_full, v_empty=v_empty)

    def _functional(self, idx: np.ndarray, val: np.ndarray) -> list[tuple[Any, ...]]:
        """The rows of the functional game at one explained row: players S_x u S_i per support point."""
        X, d = self.X_ref, self.n_features
        n, s = X.shape[0], idx.size
        in_x = np.zeros(d, dtype=bool)
        in_x[idx] = True
        keep = ~in_x[X.indices]
        rows_e, cols_e = self._entry_rows[keep], X.indices[keep]
        cnt = np.bincount(rows_e, minlength=n)
        indptr = np.concatenate([[0], np.cumsum(s + cnt)])
        columns = np.empty(indptr[-1], dtype=np.int64)
        parts = []
        for term, ent0, _, _, c in self._terms:
            a = np.empty(indptr[-1])
            if s:
                XS = self._csc[:, idx].toarray()
                A = restrict_features(term, idx).feature_values(val[None, :], XS)[0]  # (n, s)
                pos = (indptr[:-1, None] + np.arange(s)[None, :]).ravel()
                columns[pos] = np.tile(idx, n)
                a[pos] = A.ravel()
            rank = np.arange(rows_e.size) - (np.cumsum(cnt) - cnt)[rows_e]
            pos = indptr[rows_e] + s + rank
            columns[pos] = cols_e
            a[pos] = ent0[keep]
            parts.append((indptr, columns, a, None, c))
        return parts

    def _interventional(
        self, idx: np.ndarray, val: np.ndarray, phi: np.ndarray, v_full: np.ndarray, v_empty: np.ndarray
    ) -> None:
        """Add the interventional game of one explained row to ``phi``, ``v_full``, ``v_empty``.

        Per background row z: the players D = {j : x_j != z_j} are shared by every support point,
        whose factors differ from the base row's (X_ij = 0) only at its own non-zeros in V (the
        non-zeros of x or z): :func:`kexplain.shapley.sparse.solve_rows_near_base`, or the rows
        densified over D when that route declines.
        """
        assert self.Z is not None and self.w is not None
        n = self.X_ref.shape[0]
        for zi in range(self.Z.shape[0]):
            zidx, zval = _row(self.Z, zi)
            V = np.union1d(idx, zidx)
            xV, zV = np.zeros(V.size), np.zeros(V.size)
            xV[np.searchsorted(V, idx)] = val
            zV[np.searchsorted(V, zidx)] = zval
            D = xV != zV
            Dpos = np.cumsum(D) - 1
            sub = self._csc[:, V]  # the support points' non-zeros in the columns V
            e_rows = sub.indices.astype(np.int64)
            e_col = np.repeat(np.arange(V.size), np.diff(sub.indptr))
            sel = D[e_col]
            for term, _, L0, Z0, c in self._terms:
                if V.size:
                    zeros = np.zeros((1, V.size))
                    kV = restrict_features(term, V)
                    a0V = kV.feature_values(xV[None, :], zeros)[0, 0]
                    b0V = kV.feature_values(zV[None, :], zeros)[0, 0]
                    kapV = kV.feature_values(zeros, zeros)[0, 0]
                else:
                    a0V = b0V = kapV = np.zeros(0)
                if e_rows.size:
                    ke = restrict_features(term, V[e_col])
                    vals = sub.data[None, :]
                    A_e = ke.pair_values(xV[e_col][None, :], vals)[0]
                    B_e = ke.pair_values(zV[e_col][None, :], vals)[0]
                    K0_e = ke.pair_values(np.zeros_like(vals), vals)[0]
                else:
                    A_e = B_e = K0_e = np.zeros(0)
                # the null players' factors: C_i = prod_{j not in D} k_j(x_j, X_ij), from L0_i
                l_kap = np.log(kapV)
                l_a0, z_a0 = _logs(np.where(D, 1.0, a0V))
                lK0, zK0 = _logs(K0_e)
                lA, zA = _logs(np.where(sel, 1.0, A_e))
                ent_l = lA - l_a0[e_col] - (lK0 - l_kap[e_col])
                ent_z = zA - z_a0[e_col] - zK0
                lc = L0 + (l_a0.sum() - l_kap.sum()) + np.bincount(e_rows, weights=ent_l, minlength=n)
                nz = Z0 + z_a0.sum() + np.bincount(e_rows, weights=ent_z, minlength=n).astype(np.int64)
                with np.errstate(over="ignore", under="ignore"):
                    C = np.where(nz > 0, 0.0, np.exp(lc))
                W = c * (self.w[zi] * C)[:, None]
                a0, b0 = a0V[D], b0V[D]
                rows_e, pos, a_e, b_e = e_rows[sel], Dpos[e_col[sel]], A_e[sel], B_e[sel]
                res = solve_rows_near_base(a0, b0, rows_e, pos, a_e, b_e, W)
                if res is None:  # factors near the limits of float64: the rows densified over D
                    k = a0.size
                    A, B = np.tile(a0, (n, 1)), np.tile(b0, (n, 1))
                    A[rows_e, pos], B[rows_e, pos] = a_e, b_e
                    cols = np.tile(np.arange(k), n)
                    res = solve_sparse_rows(
                        np.arange(n + 1) * k, cols, A.ravel(), B.ravel(), W, k, max_block_bytes=self.max_block_bytes
                    )
                phi[V[D]] += res[0]
                v_full += res[1]
                v_empty += res[2]


def sparse_refusal(argument: str, reason: str) -> TypeError:
    """The refusal of a scipy sparse ``argument`` where ``reason`` has no sparse path: densify it.

    Parameters
    ----------
    argument : str
        The argument that is sparse ("X", "background", "baseline").
    reason : str
        What needs dense rows.

    Returns
    -------
    TypeError

    Examples
    --------
    >>> from kexplain.explainers.sparse_games import sparse_refusal
    >>> print(sparse_refusal("X", "interactions=True needs dense rows"))
    X is a scipy sparse matrix and interactions=True needs dense rows (the sparse path gives Shapley values of \
the functional, baseline and interventional games of product kernels): densify it, pass X.toarray().
    """
    return TypeError(
        f"{argument} is a scipy sparse matrix and {reason} (the sparse path gives Shapley values of the functional, "
        f"baseline and interventional games of product kernels): densify it, pass {argument}.toarray()."
    )


def sparse_games(
    model: Any, argument: str, background: Any = None, weights: np.ndarray | None = None, *, max_block_bytes: int
) -> SparseProductGames:
    """:class:`SparseProductGames` of ``model``, or a :func:`sparse_refusal` naming ``argument``.

    Parameters
    ----------
    model : KernelExpansion or PolynomialExpansion
        The explainer's expansion.
    argument : str
        The sparse argument, for the refusal.
    background : scipy.sparse.csr_matrix, optional
        Validated background rows; None for the functional game.
    weights : ndarray, optional
        Their weights.
    max_block_bytes : int
        Bound on one block of the solver.

    Returns
    -------
    SparseProductGames

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.sparse_games import sparse_games
    >>> em = kx.KernelExpansion(np.eye(2), [1.0, 1.0], kx.kernels.RBF(1.0))
    >>> sparse_games(em, "X", max_block_bytes=2**20).n_features
    2
    """
    if isinstance(model, PolynomialExpansion):
        raise sparse_refusal(argument, "a linear or polynomial kernel model is explained by its polynomial route")
    if isinstance(model.kernel, ScaleMixtureKernel):
        raise sparse_refusal(argument, "a Matérn or rational quadratic kernel is discretised on the dense data's range")
    try:
        return SparseProductGames(model, background, weights, max_block_bytes=max_block_bytes)
    except TypeError as exc:
        raise sparse_refusal(argument, str(exc)) from None


def _row(X: Any, p: int) -> tuple[np.ndarray, np.ndarray]:
    """The sorted non-zero columns of CSR row p and their values."""
    lo, hi = X.indptr[p], X.indptr[p + 1]
    return X.indices[lo:hi].astype(np.int64), X.data[lo:hi]


def _csr(arr: np.ndarray) -> Any:
    from scipy import sparse

    return sparse.csr_matrix(arr)
