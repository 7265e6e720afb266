"""Which scikit-learn kernels kexplain explains exactly, per model family, asked of the real conversion code.

:func:`coverage` fits a tiny model for every kernel name of ``sklearn.metrics.pairwise``
(``PAIRWISE_KERNEL_FUNCTIONS``, plus ``"precomputed"`` and a callable) and for every kernel class
of ``sklearn.gaussian_process.kernels``, in every estimator that takes it (SVC, SVR, KernelRidge,
GaussianProcessRegressor, GaussianProcessClassifier), and converts it with
:func:`kexplain.models.as_kernel_expansion`: what that conversion does is the answer, so a kernel
taught to the converter appears here without a change to this file.  :func:`coverage_table`
renders the answer as the reST table of the documentation (a test keeps the page equal to it).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError

#: the estimators asked, in the order of the table's columns
ESTIMATORS = ("SVC", "SVR", "KernelRidge", "GaussianProcessRegressor", "GaussianProcessClassifier")
#: the kernel names an SVC/SVR accepts as strings
_SVM_KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")

_SHORT = {
    "exact": "exact",
    "bound": "exact, bound",
    "refused": "refused",
    "n/a": "n/a",
}


@dataclass(frozen=True)
class CoverageRow:
    """One (kernel, estimator) answer of :func:`coverage`.

    Parameters
    ----------
    kernel : str
        The kernel as a user writes it (a pairwise name, or a GP kernel expression).
    estimator : str
        The scikit-learn estimator that carried it.
    status : {"exact", "bound", "refused", "n/a"}
        ``exact``: exact Shapley values of the model; ``bound``: exact values of a kernel within a
        reported error bound of the model's (``error`` of the converted kernel); ``refused``: an
        UnsupportedModelError naming a route that works; ``n/a``: the estimator does not take
        this kernel (or does not fit with it).
    route : str
        For a refusal, the ``kx.RKHSExplainer(...)`` call its message names; else "".
    detail : str
        The refusal's or the estimator's message (empty when exact).

    Examples
    --------
    >>> from kexplain.models import CoverageRow
    >>> CoverageRow('"rbf"', "SVC", "exact").status
    'exact'
    """

    kernel: str
    estimator: str
    status: str
    route: str = ""
    detail: str = ""


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tiny deterministic data: positive features (chi2 needs them), a target and two classes."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0.1, 2.0, size=(16, 3))
    y = np.sin(2.0 * X[:, 0]) + X[:, 1] * X[:, 2]
    yc = (y > np.median(y)).astype(int)
    return X, y, yc


def _pairwise_rows() -> list[tuple[str, Any, Any]]:
    """(label, string/callable kernel for SVM and KernelRidge, GP kernel object or None)."""
    from sklearn.gaussian_process.kernels import PairwiseKernel
    from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS

    rows: list[tuple[str, Any, Any]] = []
    for name in sorted(PAIRWISE_KERNEL_FUNCTIONS):
        rows.append((f'"{name}"', name, PairwiseKernel(metric=name)))
    rows.append(('"precomputed"', "precomputed", None))
    rows.append(("a callable k(X, Y)", _callable_kernel, PairwiseKernel(metric=_callable_kernel)))
    return rows


def _callable_kernel(A: np.ndarray, B: np.ndarray, **params: Any) -> Any:
    """A user's callable kernel, exp(-||a - b||^2 / 2), written by hand: a number for two rows (as
    KernelRidge and PairwiseKernel call it), a Gram matrix for two sets of rows (as an SVM does)."""
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    if A.ndim == 1 and B.ndim == 1:
        return float(np.exp(-0.5 * np.sum((A - B) ** 2)))
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    sq = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
    return np.exp(-0.5 * sq)


def _gp_rows() -> list[tuple[str, Any]]:
    """(label, GP kernel object) for every kernel class of sklearn.gaussian_process.kernels."""
    from sklearn.gaussian_process import kernels as sk

    ls = np.array([1.0, 1.5, 2.0])
    return [
        ("RBF (ARD)", sk.RBF(ls)),
        ("Matern(nu=0.5)", sk.Matern(ls, nu=0.5)),
        ("Matern(nu=1.5)", sk.Matern(ls, nu=1.5)),
        ("Matern(nu=2.5)", sk.Matern(ls, nu=2.5)),
        ("Matern(nu=0.8)", sk.Matern(1.2, nu=0.8)),
        ("RationalQuadratic", sk.RationalQuadratic(1.2, alpha=2.0)),
        ("ExpSineSquared", sk.ExpSineSquared(1.0, periodicity=20.0)),
        ("DotProduct", sk.DotProduct(1.0)),
        ("DotProduct ** 2", sk.DotProduct(1.0) ** 2),
        ("ConstantKernel * RBF", sk.ConstantKernel(2.0) * sk.RBF(1.0)),
        ("RBF + WhiteKernel", sk.RBF(1.0) + sk.WhiteKernel(0.1)),
        ("RBF + RBF (Sum)", sk.RBF(1.0) + sk.RBF(ls)),
        ("RBF * Matern (Product)", sk.RBF(1.0) * sk.Matern(1.0, nu=1.5)),
        ("RBF ** 2 (Exponentiation)", sk.RBF(1.0) ** 2),
        ("ConstantKernel alone", sk.ConstantKernel(2.0)),
        ("CompoundKernel", sk.CompoundKernel([sk.RBF(1.0), sk.RBF(2.0)])),
    ]


def _fit(estimator: str, kernel: Any, gp: bool) -> Any:
    """The estimator fitted on the tiny data with ``kernel``, or a string saying why it cannot be."""
    from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVC, SVR

    X, y, yc = _data()
    precomputed = isinstance(kernel, str) and kernel == "precomputed"
    Xfit = _callable_kernel(X, X) if precomputed else X
    makers: dict[str, Callable[[], Any]] = {
        "SVC": lambda: SVC(kernel=kernel).fit(Xfit, yc),
        "SVR": lambda: SVR(kernel=kernel).fit(Xfit, y),
        "KernelRidge": lambda: KernelRidge(kernel=kernel, alpha=0.1, gamma=None if gp else 0.5).fit(Xfit, y),
        "GaussianProcessRegressor": lambda: GaussianProcessRegressor(kernel, alpha=0.1, optimizer=None).fit(X, y),
        "GaussianProcessClassifier": lambda: GaussianProcessClassifier(kernel, optimizer=None).fit(X, yc),
    }
    if estimator in ("SVC", "SVR") and gp:
        return "an SVM takes a kernel name or a callable (see the callable row)"
    if estimator in ("SVC", "SVR") and isinstance(kernel, str) and kernel not in _SVM_KERNELS:
        return f"{estimator} does not take kernel={kernel!r}"
    if estimator.startswith("Gaussian") and not gp:
        return "a Gaussian process takes a kernel object (see the PairwiseKernel column entry)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return makers[estimator]()
    except Exception as exc:  # the estimator itself refuses the kernel: not kexplain's call
        return f"{estimator} does not fit with it: {type(exc).__name__}: {exc}"


def _route_in(message: str) -> str:
    """The first ``kx.RKHSExplainer(...)`` call named in a refusal message (balanced parentheses)."""
    start = message.find("kx.RKHSExplainer(")
    if start < 0:
        return ""
    depth = 0
    for pos in range(start + len("kx.RKHSExplainer"), len(message)):
        depth += {"(": 1, ")": -1}.get(message[pos], 0)
        if depth == 0:
            return message[start : pos + 1]
    return ""


def _kernel_error(kernel: Any) -> float:
    """The reported uniform error of a converted kernel (0 for an exact one), over its terms."""
    err = float(getattr(kernel, "error", 0.0) or 0.0)
    for term in getattr(kernel, "terms", []):
        if term is not kernel:
            err = max(err, _kernel_error(term))
    return err


def _converters() -> list[Callable[[Any], Any]]:
    """The adapters ProductKernelExplainer accepts a model through, the product-kernel one first.

    Any other exact adapter the models package exports under a name listed here (the polynomial
    route's ``as_polynomial_expansion``) is asked too, so its kernels show as exact once it exists.
    """
    import kexplain.models as models

    from .sklearn import as_kernel_expansion

    others = [getattr(models, name) for name in ("as_polynomial_expansion",) if hasattr(models, name)]
    return [as_kernel_expansion, *others]


def _answer(label: str, estimator: str, model: Any) -> CoverageRow:
    if isinstance(model, str):
        return CoverageRow(label, estimator, "n/a", detail=model)
    refusal: UnsupportedModelError | None = None
    em = None
    for convert in _converters():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                em = convert(model)
            break
        except UnsupportedModelError as exc:
            refusal = refusal or exc  # the product-kernel adapter's message: the one users see first
    if em is None:
        assert refusal is not None
        return CoverageRow(label, estimator, "refused", route=_route_in(str(refusal)), detail=str(refusal))
    kernels = em.kernels if hasattr(em, "kernels") else [getattr(em, "kernel", None)]
    err = max(_kernel_error(k) for k in kernels)
    return CoverageRow(label, estimator, "bound" if err > 0 else "exact")


def _cases() -> Iterator[tuple[str, str, Any]]:
    """(kernel label, estimator, fitted model or the reason there is none) for every cell."""
    for label, kernel, gp_kernel in _pairwise_rows():
        for est in ESTIMATORS:
            gp = est.startswith("Gaussian")
            if gp and gp_kernel is None:
                yield label, est, "a Gaussian process has no precomputed kernel"
                continue
            yield label, est, _fit(est, gp_kernel if gp else kernel, gp)
    for label, kernel in _gp_rows():
        for est in ESTIMATORS:
            yield label, est, _fit(est, kernel, True)


def coverage() -> list[CoverageRow]:
    """What kexplain does with every scikit-learn kernel, per estimator, asked of the conversion code.

    Fits a tiny model (16 rows, 3 features) for every kernel name of
    ``sklearn.metrics.pairwise.PAIRWISE_KERNEL_FUNCTIONS`` (with ``"precomputed"`` and a callable)
    and every kernel class of ``sklearn.gaussian_process.kernels`` in every estimator that takes
    it, and converts it with :func:`kexplain.models.as_kernel_expansion`.  Takes a few seconds.

    Returns
    -------
    list of CoverageRow
        One row per (kernel, estimator): exact, exact to a reported bound, refused (with the
        route the refusal names) or n/a.

    Examples
    --------
    >>> from kexplain.models import coverage
    >>> rows = {(r.kernel, r.estimator): r for r in coverage()}
    >>> rows['"rbf"', "SVC"].status
    'exact'
    >>> rows['"sigmoid"', "KernelRidge"].route
    "kx.RKHSExplainer(model, background=B, game='interventional')"
    """
    return [_answer(label, est, model) for label, est, model in _cases()]


def coverage_table(rows: list[CoverageRow] | None = None) -> str:
    """The coverage as a reST grid table: one line per kernel, one column per estimator.

    Cells: ``exact``; ``exact, bound`` (exact values of a kernel within a reported error bound);
    ``refused (A)``, where A is the route the refusal names (listed under the table); ``constant``
    (refused: the model is a constant, every Shapley value is 0); ``n/a`` (the estimator does not
    take the kernel, or does not fit with it).

    Parameters
    ----------
    rows : list of CoverageRow, optional
        Default: :func:`coverage` (computed now).

    Returns
    -------
    str
        The reST grid table (as pasted between the markers of the kernels page).

    Examples
    --------
    >>> from kexplain.models.kernel_coverage import CoverageRow, coverage_table
    >>> print(coverage_table([CoverageRow('"rbf"', "SVC", "exact")]))
    +--------+-------+
    | kernel | SVC   |
    +========+=======+
    | "rbf"  | exact |
    +--------+-------+
    """
    rows = coverage() if rows is None else rows
    estimators = [e for e in ESTIMATORS if any(r.estimator == e for r in rows)]
    kernels = list(dict.fromkeys(r.kernel for r in rows))
    cell = {(r.kernel, r.estimator): r for r in rows}
    routes = list(dict.fromkeys(r.route for r in rows if r.status == "refused" and r.route))
    keys = {route: chr(ord("A") + i) for i, route in enumerate(routes)}

    def text(r: CoverageRow | None) -> str:
        if r is None:
            return ""
        if r.status == "refused":
            return f"refused ({keys[r.route]})" if r.route else "constant"
        return _SHORT[r.status]

    header = ["kernel"] + [_ABBREV.get(e, e) for e in estimators]
    body = [[k] + [text(cell.get((k, e))) for e in estimators] for k in kernels]
    widths = [max(len(line[i]) for line in [header, *body]) + 1 for i in range(len(header))]

    def sep(ch: str) -> str:
        return "+" + "+".join(ch * (w + 1) for w in widths) + "+"

    def line(cells: list[str]) -> str:
        return "|" + "|".join(" " + c.ljust(w) for c, w in zip(cells, widths)) + "|"

    out = [sep("-"), line(header), sep("=")]
    for b in body:
        out += [line(b), sep("-")]
    if keys:
        out.append("")
        out += [f"- {key}: ``{route}``" for route, key in keys.items()]
    return "\n".join(out)


#: column headings of the table
_ABBREV = {"GaussianProcessRegressor": "GPR", "GaussianProcessClassifier": "GPC"}
