"""RKHS Weighting instantiations with closed-form expectations.

After Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and Application
to RKHS Weightings of Functions", section 2.3, section 4.1 and Table 3.

An RKHS Weighting predicts Lambda alpha(x) = sum_t a_t E_{w ~ p}[K(w_t, w) phi(w, x)].  With the
Gaussian kernel K(u, w) = exp(-||u - w||^2 / (2 gamma^2)) and p = N(0, sigma^2 I_n), the
Gaussian-product identity (their Lemma B.1)

    K(u, w) N(w; 0, sigma^2 I) = (1 + sigma^2/gamma^2)^(-n/2) exp(-||u||^2 / (2 (sigma^2 + gamma^2)))
                                 * N(w; u', zeta^2 I),
    u' = u sigma^2 / (sigma^2 + gamma^2),   zeta^2 = sigma^2 gamma^2 / (sigma^2 + gamma^2),

turns every expectation into E_{w ~ N(u', zeta^2 I)} phi(w, x): a one-dimensional Gaussian
expectation of <w, x> ~ N(mu, s^2) with mu = <u', x>, s = zeta ||x||.  Hence

- RWSign  (phi = sign <w, x>):       E = C(u) erf(mu / (sqrt(2) s))
- RWRelu  (phi = max(0, <w, x>)):    E = C(u) (mu Phi(mu / s) + s varphi(mu / s))   (Theorem 4.1)
- RWStumps (w = (j, theta), phi = sign(x_j - theta), p = U{1..n} x N(0, sigma^2), kernel
  1[j = j'] exp(-(theta - theta')^2 / (2 gamma^2))): the same identity in one dimension,
  E = (1/n) C(theta) erf((x_j - theta') / (sqrt(2) zeta)),

with C(u) = (1 + sigma^2/gamma^2)^(-n/2) exp(-||u||^2 / (2 (sigma^2 + gamma^2))).  At x = 0 the
sign and ReLU expectations are 0 (phi(w, 0) = 0 for every w).

Each instantiation works on parameters W of shape (T, s) and inputs of shape (m, s) or, for the
STAR versions where every parameter reads its own columns, (m, T, s).

The kernel width gamma is given directly or derived from c in (0, 1) by appendix E, equation 65,
whose printed form has a slip: solving c^2 = (1 + 2 sigma^2 / gamma^2)^(-n/2) for gamma gives
gamma^2 = 2 sigma^2 / (c^(-4/n) - 1), while the paper prints 2 / (sigma^2 (c^(-4/n) - 1)); the two
agree only at sigma = 1.  kexplain uses the solved form (:func:`gamma_from_c`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import erf, ndtr

from ..kernels import RBF

_SQRT2 = np.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def gamma_from_c(c: float, sigma: float, dim: int) -> float:
    """Width gamma of the Gaussian (RBF) kernel for which (1 + 2 sigma^2 / gamma^2)^(-dim/2) = c^2.

    Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and Application to
    RKHS Weightings of Functions", appendix E, equation 65: c^2 bounds theta^2, so holding c fixed
    keeps the model's output scale the same whatever the dimension.  Solved for gamma this is
    gamma^2 = 2 sigma^2 / (c^(-4/dim) - 1).  Note the slip in the paper's printed equation 65,
    gamma^2 = 2 / (sigma^2 (c^(-4/n) - 1)), which agrees with the solved form only at sigma = 1;
    kexplain uses the solved form.

    Parameters
    ----------
    c : float in (0, 1)
        The target bound.
    sigma : float
        Standard deviation of the parameter distribution p = N(0, sigma^2 I).
    dim : int
        Dimension of the parameters (the number of features a parameter reads).

    Returns
    -------
    float
        gamma.

    Examples
    --------
    >>> from kexplain.star import gamma_from_c
    >>> g = gamma_from_c(0.5, sigma=2.0, dim=3)
    >>> print(f"{g:.4f}")
    2.2943
    >>> print(f"{(1 + 2 * 2.0**2 / g**2) ** (-3 / 2):.4f}")     # c^2
    0.2500
    """
    c = float(c)
    if not 0.0 < c < 1.0:
        raise ValueError(f"c must lie strictly between 0 and 1, got {c!r}.")
    if not sigma > 0:
        raise ValueError(f"sigma must be positive, got {sigma!r}.")
    if dim < 1:
        raise ValueError(f"dim must be a positive integer, got {dim!r}.")
    return float(np.sqrt(2.0 * sigma**2 / np.expm1(-4.0 / dim * np.log(c))))


class _GaussianInstantiation:
    """Common parts: N(0, sigma^2 I) parameters, Gaussian kernel of width gamma (or from c)."""

    name = ""
    #: stumps read a single feature per parameter
    single_feature = False

    def __init__(self, sigma: float = 1.0, gamma: float | None = None, c: float | None = None) -> None:
        self.sigma = sigma
        self.gamma = gamma
        self.c = c
        if not (np.isfinite(sigma) and sigma > 0):
            raise ValueError(f"sigma must be a positive number, got {sigma!r}.")
        if gamma is not None and not (np.isfinite(gamma) and gamma > 0):
            raise ValueError(f"gamma must be a positive number, got {gamma!r}.")
        if gamma is None:
            if c is None:
                raise ValueError(
                    "give the kernel width gamma, or c in (0, 1) from which gamma is derived (equation 65)."
                )
            gamma_from_c(c, sigma, 1)  # validates c

    def gamma_for(self, dim: int) -> float:
        """gamma for parameters of dimension ``dim``: the given gamma, or equation 65 from c."""
        if self.gamma is not None:
            return float(self.gamma)
        assert self.c is not None  # checked at construction
        return gamma_from_c(self.c, self.sigma, dim)

    def sample(self, n_parameters: int, dim: int, rng: np.random.Generator) -> np.ndarray:
        """Parameters w_t ~ N(0, sigma^2 I_dim), shape (n_parameters, dim)."""
        return rng.normal(scale=self.sigma, size=(n_parameters, dim))

    def kernel(self, U: np.ndarray, V: np.ndarray, dim: int | None = None) -> np.ndarray:
        """K(u_t, v_s) = exp(-||u_t - v_s||^2 / (2 gamma^2)), shape (len(U), len(V))."""
        U, V = np.atleast_2d(U), np.atleast_2d(V)
        g = self.gamma_for(U.shape[1] if dim is None else dim)
        # kexplain's RBF Gram (cancellation-free for near rows), not a second copy of the formula
        return RBF(lengthscale=g).gram(np.asarray(U, dtype=np.float64), np.asarray(V, dtype=np.float64))

    def _moments(self, U: Any, X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """C(u) and (mu, s) of <w, x> under N(u', zeta^2 I) for every (row, parameter)."""
        U = np.atleast_2d(np.asarray(U, dtype=np.float64))
        X = np.asarray(X, dtype=np.float64)
        dim = U.shape[1]
        sig2 = self.sigma**2
        gam2 = self.gamma_for(dim) ** 2
        scale = (1.0 + sig2 / gam2) ** (-dim / 2.0) * np.exp(-(U**2).sum(1) / (2.0 * (sig2 + gam2)))
        shrink = sig2 / (sig2 + gam2)
        zeta = np.sqrt(sig2 * gam2 / (sig2 + gam2))
        if X.ndim == 2:
            mu = X @ (shrink * U).T  # (m, T)
            s = zeta * np.sqrt((X**2).sum(1))[:, None]  # (m, 1), broadcast
        else:  # (m, T, dim)
            mu = np.einsum("mts,ts->mt", X, shrink * U)
            s = zeta * np.sqrt((X**2).sum(-1))
        # s = 0 only at x = 0, where mu = 0 too: dividing by 1 there gives the limit value 0
        s_safe = np.where(s > 0, s, 1.0)
        return scale, mu, s, s_safe

    def expectation(self, U: Any, X: Any) -> np.ndarray:
        """E_{w ~ p}[K(u_t, w) phi(w, x_i)] for rows X (m, dim) or (m, T, dim); shape (m, T)."""
        raise NotImplementedError

    def base_predictor(self, W: Any, X: Any) -> np.ndarray:
        """phi(w_t, x_i), shape (m, T): for Monte Carlo checks of ``expectation``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        width = f"gamma={self.gamma!r}" if self.gamma is not None else f"c={self.c!r}"
        return f"{type(self).__name__}(sigma={self.sigma!r}, {width})"


_INSTANTIATION_PARAMETERS = """
    Parameters
    ----------
    sigma : float
        Standard deviation of the parameter distribution p = N(0, sigma^2 I).
    gamma : float, optional
        Width of the Gaussian kernel K(u, w) = exp(-||u - w||^2 / (2 gamma^2)) on parameters.
    c : float in (0, 1), optional
        Used when ``gamma`` is None: gamma is derived from c for each parameter dimension by
        :func:`gamma_from_c` (appendix E, equation 65 in its solved form gamma^2 =
        2 sigma^2 / (c^(-4/n) - 1); the paper's printed form agrees only at sigma = 1).
"""


class RWSign(_GaussianInstantiation):
    __doc__ = (
        """RKHS Weighting with base predictor phi(w, x) = sign(<w, x>) (RWSign).

    Instantiation I1 of Dubé & Marchand (2024), Table 3 of Dubé & Marchand, "Shapley Values of
    Structured Additive Regression Models and Application to RKHS Weightings of Functions":
    E_{w ~ p}[K(u, w) sign(<w, x>)] = C(u) erf(mu / (sqrt(2) s)) in closed form.
"""
        + _INSTANTIATION_PARAMETERS
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RWSign
    >>> inst = RWSign(sigma=1.0, gamma=1.0)
    >>> np.round(inst.expectation(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 0.0]])), 3)
    array([[0.203],
           [0.   ]])
    """
    )

    name = "sign"

    def expectation(self, U: Any, X: Any) -> np.ndarray:
        """E_{w ~ p}[K(u_t, w) sign(<w, x_i>)] for rows X (m, dim) or (m, T, dim); shape (m, T).

        Parameters
        ----------
        U : array-like of shape (T, dim)
            The sampled parameters u_t.
        X : array-like of shape (m, dim) or (m, T, dim)
            Rows (one set per parameter for the 3-D form).

        Returns
        -------
        ndarray of shape (m, T)
            The expectations over w ~ p.
        """
        scale, mu, _, s_safe = self._moments(U, X)
        val = erf(mu / (_SQRT2 * s_safe))
        val *= scale[None, :]
        return val

    def base_predictor(self, W: Any, X: Any) -> np.ndarray:
        """sign(<w_t, x_i>), shape (m, T).

        Parameters
        ----------
        W : array-like of shape (T, dim)
            Parameters w_t.
        X : array-like of shape (m, dim)
            Rows.

        Returns
        -------
        ndarray of shape (m, T)
            The base predictor at every (row, parameter) pair.
        """
        return np.sign(np.asarray(X) @ np.atleast_2d(W).T)


class RWRelu(_GaussianInstantiation):
    __doc__ = (
        """RKHS Weighting with base predictor phi(w, x) = max(0, <w, x>) (RWRelu).

    Introduced by Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and
    Application to RKHS Weightings of Functions", section 4.1; its expectation
    E_{w ~ p}[K(u, w) max(0, <w, x>)] = C(u) (mu Phi(mu / s) + s varphi(mu / s)) is their
    Theorem 4.1.
"""
        + _INSTANTIATION_PARAMETERS
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RWRelu
    >>> inst = RWRelu(sigma=1.0, c=0.5)
    >>> np.round(inst.expectation(np.array([[1.0, 0.0]]), np.array([[2.0, 0.0], [-2.0, 0.0]])), 3)
    array([[0.39 ],
           [0.034]])
    """
    )

    name = "relu"

    def expectation(self, U: Any, X: Any) -> np.ndarray:
        """E_{w ~ p}[K(u_t, w) max(0, <w, x_i>)] for rows X (m, dim) or (m, T, dim); shape (m, T).

        Parameters
        ----------
        U : array-like of shape (T, dim)
            The sampled parameters u_t.
        X : array-like of shape (m, dim) or (m, T, dim)
            Rows (one set per parameter for the 3-D form).

        Returns
        -------
        ndarray of shape (m, T)
            The expectations over w ~ p.
        """
        scale, mu, s, s_safe = self._moments(U, X)
        r = mu / s_safe
        dens = np.square(r)
        dens *= -0.5
        np.exp(dens, out=dens)
        dens *= s * _INV_SQRT_2PI
        val = ndtr(r)
        val *= mu
        val += dens
        val *= scale[None, :]
        return val

    def base_predictor(self, W: Any, X: Any) -> np.ndarray:
        """max(0, <w_t, x_i>), shape (m, T).

        Parameters
        ----------
        W : array-like of shape (T, dim)
            Parameters w_t.
        X : array-like of shape (m, dim)
            Rows.

        Returns
        -------
        ndarray of shape (m, T)
            The base predictor at every (row, parameter) pair.
        """
        return np.maximum(0.0, np.asarray(X) @ np.atleast_2d(W).T)


class RWStumps(_GaussianInstantiation):
    __doc__ = (
        """RKHS Weighting of decision stumps phi((j, theta), x) = sign(x_j - theta) (RWStumps).

    Instantiation I2 of Dubé & Marchand (2024), Table 3 of Dubé & Marchand, "Shapley Values of
    Structured Additive Regression Models and Application to RKHS Weightings of Functions", with
    p = U{1..n} x N(0, sigma^2).  Already a GAM: kexplain represents it as the STAR version of a
    one-dimensional threshold predictor with the uniform distribution over single features,
    whose probability 1/n is the uniform choice of j.  Here ``U`` holds thresholds (T, 1) and
    ``X`` the chosen feature's values (m, 1) or (m, T, 1); the 1/n factor is applied by the
    subset distribution.
"""
        + _INSTANTIATION_PARAMETERS
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RWStumps
    >>> inst = RWStumps(sigma=1.0, gamma=0.5)
    >>> np.round(inst.expectation(np.array([[0.0]]), np.array([[-1.0], [0.0], [1.0]])), 3)
    array([[-0.436],
           [ 0.   ],
           [ 0.436]])
    """
    )

    name = "stumps"
    single_feature = True

    def expectation(self, U: Any, X: Any) -> np.ndarray:
        """E[K(theta_t, theta) sign(x - theta)] for thresholds U (T, 1) and X (m, 1) or (m, T, 1).

        Parameters
        ----------
        U : array-like of shape (T, dim)
            The sampled parameters u_t.
        X : array-like of shape (m, dim) or (m, T, dim)
            Rows (one set per parameter for the 3-D form).

        Returns
        -------
        ndarray of shape (m, T)
            The expectations over w ~ p.
        """
        U = np.atleast_2d(np.asarray(U, dtype=np.float64))
        X = np.asarray(X, dtype=np.float64)
        if U.shape[1] != 1 or X.shape[-1] != 1:
            raise ValueError("RWStumps parameters and inputs are one-dimensional (one feature per stump).")
        sig2 = self.sigma**2
        gam2 = self.gamma_for(1) ** 2
        theta = U[:, 0]
        scale = (1.0 + sig2 / gam2) ** -0.5 * np.exp(-(theta**2) / (2.0 * (sig2 + gam2)))
        shifted = theta * sig2 / (sig2 + gam2)
        zeta = np.sqrt(sig2 * gam2 / (sig2 + gam2))
        x = X[:, 0][:, None] if X.ndim == 2 else X[..., 0]
        return erf((x - shifted[None, :]) / (_SQRT2 * zeta)) * scale[None, :]

    def base_predictor(self, W: Any, X: Any) -> np.ndarray:
        """sign(x - theta_t), shape (m, T).

        Parameters
        ----------
        W : array-like of shape (T, dim)
            Parameters w_t.
        X : array-like of shape (m, dim)
            Rows.

        Returns
        -------
        ndarray of shape (m, T)
            The base predictor at every (row, parameter) pair.
        """
        x = np.asarray(X)[:, 0][:, None] if np.ndim(X) == 2 else np.asarray(X)[..., 0]
        return np.sign(x - np.atleast_2d(W)[:, 0][None, :])


INSTANTIATIONS: dict[str, type[_GaussianInstantiation]] = {"sign": RWSign, "relu": RWRelu, "stumps": RWStumps}
