"""Kernel expectations under independent inputs: the factor tables of the pair games.

For rows r = (kernel term t, support point y_r) of an expansion and an input X with independent
components X_j ~ P_j, the pair games of this package need, per feature j,

    m_rj  = E k_tj(X_j, y_rj)                         (mean factor, shape (R, d))
    A_rlj = E k_tj(X_j, y_rj) k_t'j(X_j, y_lj)         (pair factor, shape (R, R, d))
    e_tj  = E k_tj(X_j, X'_j),  X'_j an independent copy   (prior factor, shape (T, d))

Two measures are supported: the product of the (weighted) empirical marginals of a background
sample (any per-feature kernel: the expectations are weighted sums), and Gaussian or uniform
marginals for RBF factors, in closed form.  For RBF factors with lengthscales l1, l2 the product
exp(-(x - y1)^2 / (2 l1^2)) exp(-(x - y2)^2 / (2 l2^2)) equals
exp(-(y1 - y2)^2 / (2 (l1^2 + l2^2))) exp(-(x - c)^2 / (2 L^2)) with 1 / L^2 = 1 / l1^2 + 1 / l2^2
and c = L^2 (y1 / l1^2 + y2 / l2^2), so every expectation reduces to E exp(-(X - c)^2 / (2 L^2)):

- X ~ N(mu, s^2):        L / sqrt(L^2 + s^2) exp(-(mu - c)^2 / (2 (L^2 + s^2)));
- X ~ U[lo, hi]:         L sqrt(pi / 2) / (hi - lo) [erf((hi - c) / (L sqrt 2)) - erf((lo - c) / (L sqrt 2))];

and for the prior factor, X - X' ~ N(0, 2 s^2) gives l / sqrt(l^2 + 2 s^2), and for two uniforms on
an interval of width w, with u = w / l,
E exp(-(X - X')^2 / (2 l^2)) = 2 / u^2 [exp(-u^2 / 2) - 1 + u sqrt(pi / 2) erf(u / sqrt 2)].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np
from scipy import special

from ..kernels.base import RBF, Kernel, ProductKernel

#: bytes of one chunk of per-feature factors of background rows (background rows x rows x d)
_CHUNK_BYTES = 32 * 2**20


@dataclass
class RowGroup:
    """Rows k(., Y_i) of one kernel term (``term`` None: the constant function 1, one row)."""

    term: Kernel | None
    Y: np.ndarray

    @property
    def n_rows(self) -> int:
        return 1 if self.term is None else int(self.Y.shape[0])

    def factors(self, X: np.ndarray) -> np.ndarray:
        """k_tj(X_pj, Y_ij) without the amplitude, shape (len(X), n_rows, d)."""
        if self.term is None:
            return np.ones((X.shape[0], 1, X.shape[1]))
        return np.asarray(self.term.feature_values(X, self.Y), dtype=np.float64)


@dataclass
class Tables:
    """m (R, d), A (R, R, d) and the prior factors e (T, d) of the terms (None when not asked)."""

    m: np.ndarray
    A: np.ndarray
    e: np.ndarray | None = None


# ---------------------------------------------------------------- empirical marginals
def empirical_tables(groups: list[RowGroup], Z: np.ndarray, w: np.ndarray, *, prior: bool = False) -> Tables:
    """Tables under the product of the weighted empirical marginals of the rows of ``Z``."""
    R = sum(g.n_rows for g in groups)
    d = Z.shape[1]
    m = np.zeros((R, d))
    Ad = np.zeros((d, R, R))
    step = max(1, _CHUNK_BYTES // (8 * max(1, R) * d))
    for s in range(0, Z.shape[0], step):
        Zc, wc = Z[s : s + step], w[s : s + step]
        F = np.concatenate([g.factors(Zc) for g in groups], axis=1)  # (Bc, R, d)
        m += np.einsum("b,brj->rj", wc, F)
        Ft = np.ascontiguousarray(F.transpose(2, 0, 1))  # (d, Bc, R): one BLAS product per feature
        Ad += np.matmul(Ft.transpose(0, 2, 1), wc[None, :, None] * Ft)
    # exactly symmetric, as the expectation is; (R, R, d) so that a block of pairs is contiguous
    A = np.ascontiguousarray((0.5 * (Ad + Ad.transpose(0, 2, 1))).transpose(1, 2, 0))
    e = None
    if prior:
        e = np.ones((len(groups), d))
        for gi, g in enumerate(groups):
            if g.term is None:
                continue
            acc = np.zeros(d)
            step2 = max(1, _CHUNK_BYTES // (8 * Z.shape[0] * d))
            for s in range(0, Z.shape[0], step2):
                Fz = np.asarray(g.term.feature_values(Z[s : s + step2], Z), dtype=np.float64)
                acc += np.einsum("b,bcj,c->j", w[s : s + step2], Fz, w)
            e[gi] = acc
    return Tables(m, A, e)


# ---------------------------------------------------------------- closed forms
def _is_rbf(k: Any) -> TypeGuard[RBF]:
    return isinstance(k, RBF)  # Laplacian and Cauchy are classes of their own, not RBF variants


def rbf_lengthscale(term: Kernel | None, j: int, d: int) -> float | None:
    """The lengthscale of feature j's factor when it is an RBF (None: the constant 1); else raise."""
    if term is None:
        return None
    if _is_rbf(term):
        return float(np.broadcast_to(np.asarray(term.lengthscale, dtype=np.float64), (d,))[j])
    if isinstance(term, ProductKernel):
        for k, feats in term.parts:
            hit = np.flatnonzero(np.asarray(feats) == j)
            if hit.size:
                if _is_rbf(k):
                    ls = np.broadcast_to(np.asarray(k.lengthscale, dtype=np.float64), (len(feats),))
                    return float(ls[hit[0]])
                raise ValueError(
                    f"distributions: feature {j} has a {type(k).__name__} kernel factor; closed-form kernel "
                    "expectations exist for RBF factors only (Gaussian and uniform marginals). Pass a sample of "
                    "the inputs as background= instead (its empirical marginals work for every kernel)."
                )
    raise ValueError(
        f"distributions: the kernel {term!r} has no RBF factor for feature {j}; closed-form kernel expectations "
        "exist for RBF factors only (Gaussian and uniform marginals). Pass a sample of the inputs as background= "
        "instead (its empirical marginals work for every kernel)."
    )


@dataclass(frozen=True)
class Marginal:
    """One input's distribution: ``kind`` "normal" (a = mean, b = sd) or "uniform" (a = lo, b = hi)."""

    kind: str
    a: float
    b: float

    def gauss_mean(self, L: np.ndarray, c: np.ndarray) -> np.ndarray:
        """E exp(-(X - c)^2 / (2 L^2)), elementwise."""
        if self.kind == "normal":
            v = L * L + self.b * self.b
            return L / np.sqrt(v) * np.exp(-((self.a - c) ** 2) / (2.0 * v))
        hi = (self.b - c) / (L * np.sqrt(2.0))
        lo = (self.a - c) / (L * np.sqrt(2.0))
        # erf(hi) - erf(lo) without cancellation when both are far out on the same side
        diff = np.where(
            lo > 0,
            special.erfc(lo) - special.erfc(hi),
            np.where(hi < 0, special.erfc(-hi) - special.erfc(-lo), special.erf(hi) - special.erf(lo)),
        )
        return L * np.sqrt(np.pi / 2.0) / (self.b - self.a) * diff

    def prior_mean(self, l: float) -> float:
        """E exp(-(X - X')^2 / (2 l^2)) for independent copies X, X'."""
        if self.kind == "normal":
            return float(l / np.sqrt(l * l + 2.0 * self.b * self.b))
        u = (self.b - self.a) / l
        return float(2.0 / u**2 * (np.expm1(-0.5 * u * u) + u * np.sqrt(np.pi / 2.0) * special.erf(u / np.sqrt(2.0))))


def closed_form_tables(groups: list[RowGroup], marginals: list[Marginal], *, prior: bool = False) -> Tables:
    """Tables under independent Gaussian or uniform marginals (RBF factors only)."""
    d = len(marginals)
    R = sum(g.n_rows for g in groups)
    m = np.empty((R, d))
    A = np.empty((R, R, d))
    starts = np.cumsum([0] + [g.n_rows for g in groups])
    for j, mj in enumerate(marginals):
        ls = [rbf_lengthscale(g.term, j, d) for g in groups]
        ys = [np.zeros(1) if g.term is None else np.asarray(g.Y[:, j], dtype=np.float64) for g in groups]
        for gi, (l1, y1) in enumerate(zip(ls, ys)):
            s1 = slice(starts[gi], starts[gi + 1])
            m[s1, j] = 1.0 if l1 is None else mj.gauss_mean(np.asarray(l1), y1)
            for gk, (l2, y2) in enumerate(zip(ls, ys)):
                if gk < gi:
                    continue
                s2 = slice(starts[gk], starts[gk + 1])
                if l1 is None and l2 is None:
                    block = np.ones((1, 1))
                elif l1 is None or l2 is None:
                    lo, yo = (l2, y2) if l1 is None else (l1, y1)
                    col = mj.gauss_mean(np.asarray(lo), yo)
                    block = col[None, :] if l1 is None else col[:, None]
                else:
                    p = 1.0 / l1**2 + 1.0 / l2**2
                    L = 1.0 / np.sqrt(p)
                    c = (y1[:, None] / l1**2 + y2[None, :] / l2**2) / p
                    pref = np.exp(-((y1[:, None] - y2[None, :]) ** 2) / (2.0 * (l1**2 + l2**2)))
                    block = pref * mj.gauss_mean(np.asarray(L), c)
                A[s1, s2, j] = block
                A[s2, s1, j] = block.T
    e = None
    if prior:
        e = np.ones((len(groups), d))
        for gi, g in enumerate(groups):
            for j, mj in enumerate(marginals):
                lj = rbf_lengthscale(g.term, j, d)
                e[gi, j] = 1.0 if lj is None else mj.prior_mean(lj)
    return Tables(m, A, e)


def parse_distributions(distributions: Any, d: int) -> list[Marginal]:
    """Per-feature marginals from scipy.stats frozen distributions (norm, uniform, or a
    multivariate_normal with diagonal covariance); dependent inputs are refused."""
    if hasattr(distributions, "cov") and hasattr(distributions, "mean") and hasattr(distributions, "rvs"):
        cov = np.atleast_2d(np.asarray(distributions.cov, dtype=np.float64))
        mean = np.atleast_1d(np.asarray(distributions.mean, dtype=np.float64))
        if cov.shape != (d, d) or mean.shape != (d,):
            raise ValueError(f"distributions: a multivariate normal must have {d} dimensions, got mean {mean.shape}.")
        off = cov - np.diag(np.diag(cov))
        if np.any(off != 0):
            raise ValueError(
                "distributions: the inputs are dependent (the multivariate normal has nonzero off-diagonal "
                "covariance), but Sobol indices and Shapley effects here assume independent inputs (the product "
                "of the marginals). Pass independent marginals, or use a sample of the inputs with "
                "kx.RKHSExplainer for observational (dependence-aware) attributions."
            )
        return [Marginal("normal", float(mean[j]), float(np.sqrt(cov[j, j]))) for j in range(d)]
    if isinstance(distributions, (str, bytes)) or not hasattr(distributions, "__len__"):
        raise TypeError(
            "distributions must be a list of d frozen scipy.stats distributions (scipy.stats.norm(loc, scale) or "
            f"scipy.stats.uniform(loc, scale)), or a scipy.stats.multivariate_normal; got {distributions!r}."
        )
    if len(distributions) != d:
        raise ValueError(f"distributions has {len(distributions)} entries for {d} features.")
    out = []
    for j, dist in enumerate(distributions):
        name = getattr(getattr(dist, "dist", None), "name", None)
        if name not in ("norm", "uniform"):
            raise ValueError(
                f"distributions[{j}]: {dist!r} is not supported; closed-form kernel expectations exist for "
                "scipy.stats.norm and scipy.stats.uniform marginals (RBF factors). Pass a sample of the inputs as "
                "background= for any other distribution."
            )
        lo, hi = dist.support()
        if name == "norm":
            mu, sd = float(dist.mean()), float(dist.std())
            if not (np.isfinite(mu) and np.isfinite(sd) and sd > 0):
                raise ValueError(f"distributions[{j}]: a normal needs a finite mean and a positive sd.")
            out.append(Marginal("normal", mu, sd))
        else:
            if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
                raise ValueError(f"distributions[{j}]: a uniform needs a finite interval of positive width.")
            out.append(Marginal("uniform", float(lo), float(hi)))
    return out
