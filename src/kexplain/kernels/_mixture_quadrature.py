"""Discretised Gaussian scale mixtures: the Matérn and rational quadratic profiles as sums of Gaussians.

Both kernels are functions of the scaled squared distance u = r^2 / l^2 and are mixtures of
Gaussians, k(u) = E[exp(-tau u / 2)] over a random precision tau, with t ~ Gamma(a, 1):

- rational quadratic (scikit-learn: (1 + u / (2 alpha))^(-alpha)): tau = t / alpha, a = alpha,
  because E exp(-s t) = (1 + s)^(-alpha) for t ~ Gamma(alpha, 1) (the Laplace transform of the Gamma
  law) with s = u / (2 alpha);
- Matérn-nu (scikit-learn: 2^(1-nu) / Gamma(nu) z^nu K_nu(z), z = sqrt(2 nu u)): tau = nu / t,
  a = nu.  From K_nu(z) = (1/2) (z/2)^nu int_0^inf exp(-t - z^2 / (4 t)) t^(-nu-1) dt and the
  substitution t -> z^2 / (4 t), the kernel is E exp(-z^2 / (4 t)) = E exp(-(nu / t) u / 2).

Written in y = log t, k(u) = int exp(-tau(y) u / 2) rho(y) dy with rho(y) = exp(a y - e^y) / Gamma(a),
an integrand that is analytic in a strip around the real line (|Im y| < pi / 2) and decays on both
sides, so the trapezoid rule in y converges exponentially in the number of nodes per unit length
(Trefethen & Weideman, 2014, "The exponentially convergent trapezoidal rule").  Its weights
h rho(y_q) are positive, so the discretised kernel sum_q w_q exp(-tau_q u / 2) is itself positive
definite.  The two tails of the mixing law are treated separately:

- precisions tau too large to matter away from u = 0 (small t for the Matérn, large t for the
  rational quadratic) are dropped only where their total mass is below a quarter of the tolerance
  (the Matérn's law has a slowly decaying t^a tail there, so the range is wide for small nu: it is
  this tail that naive quadratures truncate, stalling Matérn-1/2 near 1e-2);
- precisions so small that exp(-tau u / 2) is nearly linear on the data's range [0, R] are lumped
  into one node at their mean precision with their total mass; the lumping error is at most
  mass (R tau_c)^2 / 32 for a cut tau_c (the second-order term of exp(-tau u / 2), u <= R, times the
  variance of a law on [0, tau_c]), kept below a quarter of the tolerance.  This is what makes the
  number of nodes depend on the data's range instead of growing with the slow small-tau tail of the
  rational quadratic with small alpha.

The step h is then shrunk until the uniform error, *measured* on a dense grid of [0, R] (with u = 0,
a logarithmic grid down to far below the largest precision's scale, a linear grid, and a local
refinement around the largest errors found), is at most the tolerance; the reported error is that
measurement plus 1% and a few units of rounding.

That rule is then compressed (:func:`_reduced_rule`).  A positive mixture sum_q w_q exp(-tau_q u / 2)
is the impulse response b' exp(A u) b of the symmetric system A = -diag(tau) / 2, b = sqrt(w); the
Galerkin projection onto any orthonormal basis V gives b' V exp(V'AV u) V'b, again a positive
mixture (eigen-decompose the negative definite V'AV).  V is taken from the leading right singular
vectors of the fine rule's terms sampled on a logarithmic grid of [0, R] (as in balanced truncation
with a discrete gramian), and the smallest dimension whose measured error meets the tolerance is
kept: about half the trapezoid's terms for the Matérn-5/2, a third for the rational quadratic.  The
eigenvalues carry an absolute rounding error of about 1e-16 max(tau), which puts a floor near
1e-12 on the compression of the Matérn with small nu (precisions up to 1e25); where it cannot meet
the tolerance the trapezoid rule is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: relative margin added to the measured error (see :func:`mixture_rule`)
_MARGIN = 0.01

#: precisions above this are not compressed (see :func:`_reduced_rule`)
_MAX_REDUCED_PRECISION = 1e9

#: mass below which the full trapezoid grid stops on either side, before the tails are cut and lumped
_GRID_MASS = 1e-18


@dataclass(frozen=True)
class MixtureRule:
    """A discretised scale mixture: k~(u) = sum_q weights[q] exp(-precisions[q] u / 2) on u in [0, R].

    ``error`` is the largest |k~(u) - k(u)| measured on [0, R] (see the module notes).
    """

    family: str
    param: float
    max_sq_dist: float
    tol: float
    precisions: np.ndarray
    weights: np.ndarray
    error: float

    @property
    def n_terms(self) -> int:
        """Number of Gaussians in the mixture."""
        return int(self.precisions.size)


def exact_profile(family: str, param: float, u: np.ndarray) -> np.ndarray:
    """The kernel k(u) at scaled squared distances u, in scikit-learn's conventions.

    ``family`` is "matern" (``param`` = nu) or "rq" (``param`` = alpha).
    """
    u = np.maximum(np.asarray(u, dtype=np.float64), 0.0)
    if family == "rq":
        return np.exp(-param * np.log1p(u / (2.0 * param)))
    z = np.sqrt(2.0 * param * u)
    if param == 0.5:
        return np.exp(-z)
    if param == 1.5:
        return (1.0 + z) * np.exp(-z)
    if param == 2.5:
        return (1.0 + z + z * z / 3.0) * np.exp(-z)
    from scipy.special import gammaln, kv  # here: at the top it was a third of ``import kexplain``

    out = np.ones_like(z)
    pos = z > 0
    zp = z[pos]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # log of 2^(1-nu) / Gamma(nu) z^nu K_nu(z), without overflow of z^nu or K_nu for small z
        val = np.exp((1.0 - param) * np.log(2.0) - gammaln(param) + param * np.log(zp)) * kv(param, zp)
    out[pos] = np.where(np.isfinite(val), val, 0.0)
    return out


def mixture_profile(precisions: np.ndarray, weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """sum_q weights[q] exp(-precisions[q] u / 2) at every u."""
    u = np.asarray(u, dtype=np.float64)
    out = np.zeros(u.shape)
    for start in range(0, u.size, 4096):
        block = u.ravel()[start : start + 4096]
        out.ravel()[start : start + 4096] = np.exp(-0.5 * np.outer(block, precisions)) @ weights
    return out


def _nodes(family: str, a: float, R: float, tol: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Trapezoid nodes in y = log t with the large-precision tail cut and the small one lumped."""
    from scipy.special import gammaln  # here: at the top it was a third of ``import kexplain``

    y_lo = (np.log(_GRID_MASS) + gammaln(a + 1.0)) / a  # mass of t < e^y_lo is about e^(a y) / Gamma(a + 1)
    y_hi = np.log(60.0 + 4.0 * a + 10.0 * np.sqrt(a))  # e^-t t^a is negligible beyond
    y = np.arange(y_lo, y_hi + h, h)
    w = h * np.exp(a * y - np.exp(y) - gammaln(a))
    t = np.exp(y)
    tau = a / t if family == "matern" else t / a
    order = np.argsort(tau)
    tau, w = tau[order], w[order]
    keep = w > 0
    tau, w = tau[keep], w[keep]
    # drop the largest precisions while their total mass stays below tol / 4
    upper_mass = np.cumsum(w[::-1])[::-1]
    n_keep = int(np.searchsorted(-upper_mass, -tol / 4.0, side="left"))
    n_keep = max(n_keep, 1)
    tau, w = tau[:n_keep], w[:n_keep]
    # lump the smallest precisions while mass * (R tau_c)^2 / 32 stays below tol / 4
    lower_mass = np.cumsum(w)
    ok = lower_mass * (R * tau) ** 2 / 32.0 <= tol / 4.0
    n_lump = int(np.argmin(ok)) if not ok.all() else len(ok) - 1
    if n_lump >= 2:
        mass = lower_mass[n_lump - 1]
        mean = float(w[:n_lump] @ tau[:n_lump]) / mass
        tau = np.concatenate([[mean], tau[n_lump:]])
        w = np.concatenate([[mass], w[n_lump:]])
    return tau, w


def _check_grid(R: float, precisions: np.ndarray) -> np.ndarray:
    """Scaled squared distances where the error is measured: 0, logarithmic, linear."""
    smallest = min(1e-4 / float(precisions.max()), 1e-4 * R)
    log_grid = np.logspace(np.log10(smallest), np.log10(R), 3000)
    return np.concatenate([[0.0], log_grid, np.linspace(0.0, R, 2001)[1:]])


def measured_error(family: str, param: float, R: float, precisions: np.ndarray, weights: np.ndarray) -> float:
    """The largest |k~(u) - k(u)| on a dense grid of [0, R], refined around the largest errors."""
    u = np.unique(_check_grid(R, precisions))
    err = np.abs(mixture_profile(precisions, weights, u) - exact_profile(family, param, u))
    worst = float(err.max())
    # refine between the neighbours of the ten largest local errors
    for i in np.argsort(err)[-10:]:
        lo, hi = u[max(i - 1, 0)], u[min(i + 1, u.size - 1)]
        fine = np.linspace(lo, hi, 201)
        e = np.abs(mixture_profile(precisions, weights, fine) - exact_profile(family, param, fine))
        worst = max(worst, float(e.max()))
    return worst


def _reported(err: float) -> float:
    """The measured error plus a margin for what a grid cannot see between its points (after local
    refinement the error curve is smooth at the grid's resolution) and for rounding in both profiles."""
    return err * (1.0 + _MARGIN) + 8.0 * float(np.finfo(np.float64).eps)


def trapezoid_rule(family: str, a: float, R: float, tol: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The trapezoid rule in log t whose measured error meets ``tol`` (or the best one found)."""
    # a first step from the strip width pi / 2 (error about exp(-pi^2 / h)); narrower laws
    # (large a: log t has standard deviation about 1 / sqrt(a)) need a proportionally finer step
    h = min(np.pi**2 / (np.log(1.0 / tol) + 2.0), 1.6 / np.sqrt(a))
    tau, w = _nodes(family, a, R, tol, h)
    err = _reported(measured_error(family, a, R, tau, w))
    best = (tau, w, err)
    if err <= tol:
        # the first step may be finer than needed: widen it while the error stays within tol
        for _ in range(10):
            h *= 1.08
            tau, w = _nodes(family, a, R, tol, h)
            err = _reported(measured_error(family, a, R, tau, w))
            if err > tol:
                break
            best = (tau, w, err)
    else:
        stalled = 0
        for _ in range(30):
            h *= 0.9
            tau, w = _nodes(family, a, R, tol, h)
            err = _reported(measured_error(family, a, R, tau, w))
            # below about 1e-13 the exact profile's own rounding (Bessel functions, very narrow
            # mixing laws) sets a floor: stop once refining no longer helps
            stalled = stalled + 1 if err > 0.7 * best[2] else 0
            if err < best[2]:
                best = (tau, w, err)
            if err <= tol or stalled >= 4:
                break
    return best


def _projected(tau: np.ndarray, w: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mixture sum_q w_q exp(-tau_q u / 2) = b' exp(A u) b (A = -diag(tau) / 2, b = sqrt(w))
    compressed onto the orthonormal columns V of ``basis``: b_r' exp(V'AV u) b_r with b_r = V'b.

    V'AV is symmetric negative definite, so with its eigenvectors Q it is again a mixture of
    Gaussians, with precisions -2 eig(V'AV) > 0 and weights (Q'b_r)^2 >= 0: positive by construction.
    """
    lam, Q = np.linalg.eigh((basis.T * (-0.5 * tau)) @ basis)
    weights = (Q.T @ (basis.T @ np.sqrt(w))) ** 2
    return -2.0 * lam, weights


def _reduced_rule(
    family: str, a: float, R: float, tol: float, tau: np.ndarray, w: np.ndarray, max_terms: int
) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The fewest-term compression of a fine rule (``tau``, ``w``) whose measured error meets ``tol``.

    The fine rule is a symmetric linear system (see :func:`_projected`); its outputs on a
    logarithmic grid of [0, R] (every scale of u weighs the same, so the region near u = 0 where
    the large precisions act is kept) span a subspace of the state space whose leading r right
    singular vectors keep the most of those outputs, as in balanced truncation.  Projecting onto
    them keeps the positive structure; the smallest r whose *measured* error is within ``tol`` is
    searched for.  None when none below ``max_terms`` is found.
    """
    # the eigenvalues of V'AV carry an absolute error of about 1e-16 max(tau): precisions above
    # _MAX_REDUCED_PRECISION (the Matérn's tail for small nu) are kept as they are
    big = tau > _MAX_REDUCED_PRECISION
    tau_big, w_big = tau[big], w[big]
    tau, w = tau[~big], w[~big]
    if tau.size < 2:
        return None
    u = np.concatenate([[0.0], np.logspace(np.log10(1e-3 / float(tau.max())), np.log10(R), 2000)])
    _, _, vt = np.linalg.svd(np.exp(-0.5 * np.outer(u, tau)) * np.sqrt(w), full_matrices=False)
    n_max = min(max_terms - tau_big.size, tau.size)

    def attempt(r: int) -> tuple[np.ndarray, np.ndarray, float]:
        t_r, w_r = _projected(tau, w, vt[:r].T)
        t_r, w_r = np.concatenate([t_r, tau_big]), np.concatenate([w_r, w_big])
        good = bool(np.all(t_r > 0) and np.all(w_r > 0) and np.all(np.isfinite(w_r)))
        return t_r, w_r, _reported(measured_error(family, a, R, t_r, w_r)) if good else np.inf

    # far above the rounding floor the error falls steadily with r: bisect for the smallest r
    # within 30 tol, then step up one term at a time (near the floor the error is not monotone)
    lo, hi = 1, n_max
    while lo < hi:
        r = (lo + hi) // 2
        if attempt(r)[2] <= 30.0 * tol:
            hi = r
        else:
            lo = r + 1
    for r in range(lo, min(lo + 12, n_max + 1)):
        t_r, w_r, err = attempt(r)
        if err <= tol:
            return t_r, w_r, err
    return None


def mixture_rule(family: str, param: float, max_sq_dist: float, tol: float) -> MixtureRule:
    """The discretised mixture of ``family`` with uniform error at most ``tol`` on [0, max_sq_dist].

    A trapezoid rule in log t (module notes) meets ``tol``; a finer one (``tol`` / 100) is then
    compressed to the fewest Gaussians whose measured error still meets ``tol``
    (:func:`_reduced_rule`: about half as many terms), and the shorter rule is kept.

    Parameters
    ----------
    family : {"matern", "rq"}
    param : float
        nu of the Matérn or alpha of the rational quadratic (positive, finite).
    max_sq_dist : float
        R: the largest scaled squared distance the kernel is evaluated at.
    tol : float
        Target uniform error, in (0, 1).

    Returns
    -------
    MixtureRule
        With the measured error (at most ``tol`` unless the step could not be made small enough,
        in which case the error says so and the caller reports it).
    """
    R = max(float(max_sq_dist), 1e-12)
    a = float(param)
    tau, w, err = trapezoid_rule(family, a, R, tol)
    # with precisions beyond about 1e7 (the Matérn with nu below about 2 at tight tolerances) the
    # compression's rounding floor is above the tolerance: not worth the attempt
    if err <= tol and tau.size > 2 and tau.max() <= _MAX_REDUCED_PRECISION / 100.0:
        fine_tau, fine_w, _ = trapezoid_rule(family, a, R, tol / 100.0)
        reduced = _reduced_rule(family, a, R, tol, fine_tau, fine_w, tau.size - 1)
        if reduced is not None:
            tau, w, err = reduced
    order = np.argsort(tau)
    return MixtureRule(family, a, R, float(tol), tau[order], w[order], float(err))


_CACHE: dict[tuple[str, float, float, float], MixtureRule] = {}


def cached_mixture_rule(family: str, param: float, max_sq_dist: float, tol: float) -> MixtureRule:
    """:func:`mixture_rule`, memoised (rules are reused by every explainer of the same kernel and range)."""
    # round R up to 2 significant digits so that nearby ranges share a rule (a rule for a larger
    # range is valid on a smaller one: its error is measured on the larger range)
    R = max(float(max_sq_dist), 1e-12)
    exp10 = np.floor(np.log10(R))
    R = float(np.ceil(R / 10 ** (exp10 - 1)) * 10 ** (exp10 - 1))
    key = (family, float(param), R, float(tol))
    rule = _CACHE.get(key)
    if rule is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        rule = _CACHE[key] = mixture_rule(family, param, R, tol)
    return rule
