"""The kernel conformance registry: every kexplain kernel joins the suite by being registered ONCE.

``tests/test_kernel_conformance.py`` runs every check on every registered case (in the spirit of
GPyTorch's ``BaseKernelTestCase``); the other test files take their lists of kernels from here
instead of writing them by hand.  To add a kernel:

- a stationary profile k_j(x, y) = profile((x - y) / l): ``register_stationary(MyKernel, profile)``
  (then it is also in ``STATIONARY``, which the Gram, rescaling, message and property tests
  parametrise over), where ``profile`` is a plain scalar formula written from the definition, not
  from kexplain's code;
- any other kernel: ``register(KernelCase(...))`` with a factory and a per-feature scalar formula
  (or, for a sum, ``terms``: a list of (amplitude, per-feature formula) pairs).

The formulas here are the slow, obviously correct references: one pair of scalars at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kexplain.kernels import RBF, Categorical, Cauchy, Laplacian, ProductKernel, SumKernel

#: a per-feature formula: (x_j, y_j, j) -> k_j(x_j, y_j), from the kernel's definition
Factor = Callable[[Any, Any, int], float]


@dataclass
class KernelCase:
    """One registered kernel: how to build it on d features and its reference formula.

    ``make(d)`` returns the kernel; ``terms`` lists (amplitude, per-feature formula) pairs whose
    sum is the kernel (one pair for a product kernel); ``labels`` marks the features that hold
    labels (the data generator draws strings there); ``product`` is False for sums (no
    ``feature_values``, and the statistics refuse them); ``compiled`` says whether the
    statistics' compiled pair loop is expected to take the kernel; ``rtol`` is the agreement
    with the formula that the Gram, feature-value and explainer checks ask for.
    """

    name: str
    make: Callable[[int], Any]
    terms: Callable[[int], list[tuple[float, Factor]]]
    labels: Callable[[int], np.ndarray] = field(default=lambda d: np.zeros(d, dtype=bool))
    product: bool = True
    compiled: bool = False
    d_values: tuple[int, ...] = (1, 3, 5)
    #: relative agreement with the formula; an approximating kernel (a discretised scale mixture)
    #: registers its guaranteed accuracy here, the exact kernels keep the default
    rtol: float = 1e-13
    #: for a kernel that is not a sum of per-feature products (a Matern of the whole distance):
    #: (x, y, mask) -> the kernel restricted to the features where mask is True; None derives it
    #: from ``terms``
    restricted: Callable[[Any, Any, np.ndarray], float] | None = None
    #: the kernel takes non-negative inputs only and is not translation invariant (chi-squared):
    #: data are drawn positive, and ``rescaled`` is checked for positive scales without shift
    positive: bool = False

    def restrict(self, x: Any, y: Any, mask: np.ndarray) -> float:
        """k_S(x, y): the kernel on the features in ``mask`` only (absent features drop out)."""
        if self.restricted is not None:
            return float(self.restricted(x, y, mask))
        return float(
            sum(amp * math.prod(f(x[j], y[j], j) for j in np.flatnonzero(mask)) for amp, f in self.terms(len(x)))
        )

    def data(self, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
        """n rows on d features: normals, or labels where ``labels(d)`` says so."""
        lab = self.labels(d)
        if self.positive:
            return np.abs(rng.normal(size=(n, d))) + 0.1
        if not lab.any():
            return rng.normal(size=(n, d))
        out = np.empty((n, d), dtype=object)
        for j in range(d):
            out[:, j] = rng.choice(np.array(["a", "b", "c"], dtype=object), size=n) if lab[j] else rng.normal(size=n)
        return out

    def direct(self, X: np.ndarray, Y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The Gram matrix from the formula (restricted to ``mask``), one pair at a time."""
        mask = np.ones(X.shape[1], dtype=bool) if mask is None else mask
        return np.array([[self.restrict(x, y, mask) for y in Y] for x in X], dtype=np.float64).reshape(len(X), len(Y))

    def direct_factors(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Per-feature values (len(X), len(Y), d) of a product kernel, from the formula."""
        (amp, factor), *rest = self.terms(X.shape[1])
        assert not rest, "a sum has no per-feature values"
        return np.array([[[factor(x[j], y[j], j) for j in range(len(x))] for y in Y] for x in X], dtype=np.float64)

    def amplitude(self, d: int) -> float:
        (amp, _), *rest = self.terms(d)
        assert not rest
        return amp


#: every registered kernel case, in registration order
CASES: list[KernelCase] = []
#: stationary kernel classes and their one-dimensional profiles of u = (x - y) / l
STATIONARY: dict[type, Callable[[float], float]] = {}


def register(case: KernelCase) -> KernelCase:
    """Add one case to the suite (names are unique)."""
    assert case.name not in {c.name for c in CASES}, f"{case.name} is registered twice"
    CASES.append(case)
    return case


def _ls(d: int) -> np.ndarray:
    """Per-feature lengthscales used by the ARD cases."""
    return np.linspace(0.6, 1.8, d)


def register_stationary(cls: type, profile: Callable[[float], float], *, compiled: bool = False) -> None:
    """Register a stationary kernel class: one isotropic and one ARD case, and add it to STATIONARY."""
    STATIONARY[cls] = profile
    name = cls.__name__
    register(
        KernelCase(
            f"{name}-iso",
            lambda d: cls(0.9, amplitude=1.7),
            lambda d: [(1.7, lambda x, y, j: profile((x - y) / 0.9))],
            compiled=compiled,
        )
    )
    register(
        KernelCase(
            f"{name}-ard",
            lambda d: cls(_ls(d)),
            lambda d: [(1.0, lambda x, y, j: profile((x - y) / _ls(d)[j]))],
            compiled=compiled,
        )
    )


def _rbf(u: float) -> float:
    return math.exp(-0.5 * u * u)


def _laplace(u: float) -> float:
    return math.exp(-abs(u))


def _cauchy(u: float) -> float:
    return 1.0 / (1.0 + u * u)


register_stationary(RBF, _rbf, compiled=True)
register_stationary(Laplacian, _laplace, compiled=True)
register_stationary(Cauchy, _cauchy, compiled=True)

register(
    KernelCase(
        "Categorical",
        lambda d: Categorical(0.3, amplitude=1.2),
        lambda d: [(1.2, lambda x, y, j: 1.0 if x == y else 0.3)],
        labels=lambda d: np.ones(d, dtype=bool),
        compiled=True,
    )
)


def _mixed_kinds(d: int) -> list[str]:
    return [("rbf", "cat", "laplace", "cauchy")[j % 4] for j in range(d)]


def _mixed_make(d: int) -> ProductKernel:
    parts = {"rbf": RBF(1.1), "cat": Categorical(0.4), "laplace": Laplacian(0.8), "cauchy": Cauchy(1.3)}
    return ProductKernel([parts[k] for k in _mixed_kinds(d)], amplitude=0.8)


def _mixed_factor(x: Any, y: Any, j: int, d: int) -> float:
    kind = _mixed_kinds(d)[j]
    if kind == "cat":
        return 1.0 if x == y else 0.4
    u = float(x) - float(y)
    return {"rbf": _rbf(u / 1.1), "laplace": _laplace(u / 0.8), "cauchy": _cauchy(u / 1.3)}[kind]


register(
    KernelCase(
        "ProductKernel-mixed",
        _mixed_make,
        lambda d: [(0.8, lambda x, y, j, d=d: _mixed_factor(x, y, j, d))],
        labels=lambda d: np.array([k == "cat" for k in _mixed_kinds(d)]),
        compiled=True,
    )
)

register(
    KernelCase(
        "PointwiseProduct-rbf-laplacian",
        lambda d: 2.0 * (RBF(_ls(d)) * Laplacian(1.5)),
        lambda d: [(2.0, lambda x, y, j: _rbf((x - y) / _ls(d)[j]) * _laplace((x - y) / 1.5))],
    )
)

register(
    KernelCase(
        "SumKernel-rbf-cauchy-laplacian",
        lambda d: RBF(_ls(d), amplitude=1.5) + 0.5 * Cauchy(0.7) + Laplacian(1.2),
        lambda d: [
            (1.5, lambda x, y, j: _rbf((x - y) / _ls(d)[j])),
            (0.5, lambda x, y, j: _cauchy((x - y) / 0.7)),
            (1.0, lambda x, y, j: _laplace((x - y) / 1.2)),
        ],
        product=False,
    )
)

register(
    KernelCase(
        "SumKernel-of-products",
        lambda d: (RBF(1.0) + Cauchy(2.0)) * Laplacian(_ls(d)),
        lambda d: [
            (1.0, lambda x, y, j: _rbf(x - y) * _laplace((x - y) / _ls(d)[j])),
            (1.0, lambda x, y, j: _cauchy((x - y) / 2.0) * _laplace((x - y) / _ls(d)[j])),
        ],
        product=False,
    )
)


def cases(*, product: bool | None = None, numeric: bool | None = None) -> list[KernelCase]:
    """Registered cases, optionally only product kernels (or sums) and only numeric ones."""
    out = CASES
    if product is not None:
        out = [c for c in out if c.product == product]
    if numeric is not None:
        out = [c for c in out if (not c.labels(3).any()) == numeric]
    return list(out)


def stationary_classes() -> list[type]:
    """The registered stationary kernel classes (for tests parametrised over kernel families)."""
    return list(STATIONARY)


def profile_of(cls: type) -> Callable[[Any], Any]:
    """The registered profile of a stationary class, vectorised over arrays."""
    return np.vectorize(STATIONARY[cls], otypes=[np.float64])


def sum_kernel(d: int) -> SumKernel:
    """A registered sum kernel on d features (for tests that need any sum)."""
    return cases(product=False)[0].make(d)


# -- kernels of the sibling branches of issue 20, registered when they are there ----------------------
import kexplain.kernels as _kernels  # noqa: E402


def _scaled_r2(x: Any, y: Any, mask: np.ndarray) -> float:
    ls = _ls(len(x))
    return float(sum(((x[j] - y[j]) / ls[j]) ** 2 for j in np.flatnonzero(mask)))


def _matern52(r2: float) -> float:
    r = math.sqrt(5.0 * r2)
    return (1.0 + r + r * r / 3.0) * math.exp(-r)


if hasattr(_kernels, "ScaleMixtureKernel"):  # item 2: Matern and RQ of the whole scaled distance
    _mix = _kernels.ScaleMixtureKernel
    register(
        KernelCase(
            "ScaleMixtureKernel-matern52",
            lambda d: _mix.matern(lengthscale=_ls(d), nu=2.5),
            lambda d: [],
            product=False,
            rtol=1e-10,
            restricted=lambda x, y, mask: _matern52(_scaled_r2(x, y, mask)),
        )
    )
    register(
        KernelCase(
            "ScaleMixtureKernel-rq",
            lambda d: _mix.rational_quadratic(lengthscale=_ls(d), alpha=2.0),
            lambda d: [],
            product=False,
            rtol=1e-10,
            restricted=lambda x, y, mask: (1.0 + _scaled_r2(x, y, mask) / 4.0) ** -2.0,
        )
    )

if hasattr(_kernels, "Chi2"):  # item 3: the exponential chi-squared kernel, a product over features
    _chi2 = _kernels.Chi2
    register(
        KernelCase(
            "Chi2",
            lambda d: _chi2(gamma=0.7, amplitude=1.4),
            lambda d: [(1.4, lambda x, y, j: math.exp(-0.7 * (x - y) ** 2 / (x + y)))],
            positive=True,
        )
    )
