"""Reliability of the preference, embeddings and causal surfaces (issue 28, library surfaces).

Table-driven: each case is a call with bad (or once silently mishandled) input, the exception it
must now raise and a substring of the message that names the argument (``exc=None``: the call
must return, and it asserts the right answer itself).  ``before`` records what the call did on
main before the fixes: ``clear`` (the error named the argument), ``unclear`` (an allowed
exception type whose message names no argument), ``crash`` (numpy/scipy internals, IndexError,
AttributeError, LinAlgError ...), ``silent`` (a wrong or non-finite answer returned), ``accepted``
(a bad input taken as good) or ``refused`` (a valid input refused).  Run this file as a script
(``python tests/test_reliability_surfaces.py``) to tally the outcomes of the current checkout.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from kexplain.exceptions import UnsupportedModelError

ALLOWED = (ValueError, TypeError, UnsupportedModelError, NotFittedError)


@dataclasses.dataclass(frozen=True)
class Case:
    """One regression case: ``call()`` must raise ``exc`` with ``match`` in its message (or return)."""

    id: str
    call: Callable[[], Any]
    exc: type[BaseException] | tuple[type[BaseException], ...] | None
    match: str
    before: str


#: messages of numpy and scipy internals: an error carrying one is a crash, whatever its type
FOREIGN = ("operands could not be broadcast", "core dimension", "einsum", "not positive definite", "leading minor")


def outcome(case: Case) -> tuple[str, str]:
    """What ``case.call`` does now (in the vocabulary of ``Case.before``; "returned" for a call with
    ``exc`` set that returned: silent or accepted), and the message."""
    try:
        case.call()
    except AssertionError as exc:
        return ("silent" if case.exc is None else "returned"), str(exc)[:200]
    except ALLOWED as exc:
        msg = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        if case.exc is None:
            return "refused", msg
        if isinstance(exc, np.linalg.LinAlgError) or any(m in str(exc) for m in FOREIGN):
            return "crash", msg
        ok = isinstance(exc, case.exc) and case.match.lower() in str(exc).lower()
        return ("clear" if ok else "unclear"), msg
    except Exception as exc:  # noqa: BLE001 - every other type is what the table counts as a crash
        return "crash", " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    return ("ok" if case.exc is None else "returned"), ""


# -- fitted models shared by the cases -----------------------------------------------------------
@functools.cache
def duels() -> tuple[Any, Any, Any, Any]:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    L = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    R = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    C = pd.DataFrame(rng.normal(size=(40, 2)), columns=["u", "v"])
    y = (L["a"] + 0.5 * L["b"] > R["a"] + 0.5 * R["b"]).astype(int).to_numpy()
    return L, R, C, y


@functools.cache
def classifier(context: bool = False) -> Any:
    from kexplain.preference import PreferenceClassifier

    L, R, C, y = duels()
    model = PreferenceClassifier(lengthscale=1.0, C=10.0, n_components=20, random_state=0)
    return model.fit(L, R, y, C if context else None)


@functools.cache
def gp_classifier() -> Any:
    from kexplain.preference import PreferenceGPClassifier

    L, R, _, y = duels()
    return PreferenceGPClassifier(optimizer=None).fit(L.iloc[:20], R.iloc[:20], y[:20])


def _reordered(df: Any) -> Any:
    return df[list(df.columns[::-1])]


def _renamed(df: Any) -> Any:
    return df.rename(columns={df.columns[0]: "zz"})


def _clf_decision(X_left: Any, X_right: Any, context: Any = None, gp: bool = False) -> Any:
    model = gp_classifier() if gp else classifier(context is not None)
    return model.decision_function(X_left, X_right, context)


def _prefshap(*, background: Any = None, reorder_x: bool = False, **kwargs: Any) -> Any:
    from kexplain.preference import PrefShapExplainer

    L, R, _, _ = duels()
    ex = PrefShapExplainer(classifier(), background, **kwargs)
    Xl, Xr = (L.iloc[:3], R.iloc[:3]) if not reorder_x else (_reordered(L.iloc[:3]), _reordered(R.iloc[:3]))
    return ex.explain(Xl, Xr)


def _route_consistent() -> None:
    """With no background the game (and so the values) must not depend on ``route``."""
    from kexplain.preference import PrefShapExplainer

    L, R, _, _ = duels()
    a = PrefShapExplainer(classifier(), route="subsets").explain(L.iloc[:4], R.iloc[:4])
    b = PrefShapExplainer(classifier(), route="quadrature").explain(L.iloc[:4], R.iloc[:4])
    assert np.allclose(a.values, b.values, rtol=1e-10, atol=1e-12), np.abs(a.values - b.values).max()


def _matern_gp() -> None:
    """The Matern kernel the docstring allows: fits, predicts skew-symmetrically, refused by PREF-SHAP only."""
    from sklearn.gaussian_process.kernels import Matern

    from kexplain.preference import PreferenceGPClassifier, PrefShapExplainer

    L, R, _, y = duels()
    Ln, Rn = L.to_numpy()[:20], R.to_numpy()[:20]
    model = PreferenceGPClassifier(kernel=Matern(length_scale=1.0, nu=1.5), optimizer=None).fit(Ln, Rn, y[:20])
    g = model.decision_function(Ln, Rn)
    assert np.all(np.isfinite(g)) and np.array_equal(g, -model.decision_function(Rn, Ln))
    # the posterior mean of scikit-learn's own classifier on the stacked duels
    mean, _ = model.gpc_.base_estimator_.latent_mean_and_variance(np.hstack([Ln, Rn]))
    assert np.allclose(g, mean, rtol=1e-10, atol=1e-12)
    p = model.predict_proba(Ln, Rn)
    assert np.allclose(p.sum(axis=1), 1.0)
    with pytest.raises(UnsupportedModelError, match="PREF-SHAP"):
        PrefShapExplainer(model)


def _kernel_nan() -> Any:
    from kexplain.preference import PreferenceKernel

    Z = np.zeros((3, 2))
    Z[1, 0] = np.nan
    return PreferenceKernel(n_item_features=1)(Z)


def _fit_classifier(C: Any = 1.0, **data: Any) -> Any:
    from kexplain.preference import PreferenceClassifier

    L, R, _, y = duels()
    args = {"X_left": L.to_numpy(), "X_right": R.to_numpy(), "y": y}
    args.update(data)
    return PreferenceClassifier(lengthscale=1.0, C=C, n_components=10, random_state=0).fit(**args)


def _fit_gp(**data: Any) -> Any:
    from kexplain.preference import PreferenceGPClassifier

    L, R, _, y = duels()
    args = {"X_left": L.to_numpy()[:10], "X_right": R.to_numpy()[:10], "y": y[:10]}
    args.update(data)
    return PreferenceGPClassifier(optimizer=None).fit(**args)


def _score(sample_weight: Any) -> float:
    L, R, _, y = duels()
    return float(classifier().score(L, R, y, sample_weight=sample_weight))


def _huge() -> np.ndarray:
    X = duels()[0].to_numpy().copy()
    X[0, 0] = 1e300
    return X


def _subset(rows: Any) -> Any:
    from kexplain.preference import make_cluster_duels

    return make_cluster_duels(n_duels=20, n_items=10, random_state=0).subset(rows)


def _clusters(items: Any) -> Any:
    from kexplain.preference import comparable_clusters

    return comparable_clusters(classifier(), items, 2, random_state=0)


# -- embeddings --------------------------------------------------------------------------------
@functools.cache
def bayesian_cme(one_column: bool = False) -> Any:
    from kexplain.embeddings import BayesianCME

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 1))
    Y = np.hstack([X + 0.1 * rng.normal(size=(30, 1)), rng.normal(size=(30, 1))])
    return BayesianCME(regularization=1e-2).fit(X, Y[:, :1] if one_column else Y)


def _bcme_expectation(points: Any, coef: Any = None, one_column: bool = False) -> Any:
    P = np.asarray(points)
    a = np.ones(len(P)) / len(P) if coef is None else coef
    return bayesian_cme(one_column).expectation(np.zeros((2, 1)), points, a, return_cov=True)


def _cme(kernel: Any) -> Any:
    from kexplain.embeddings import ConditionalMeanEmbedding

    X = np.linspace(0, 1, 10)[:, None]
    return ConditionalMeanEmbedding(kernel=kernel).fit(X, X[:, 0]).predict(X[:3])


def _bcme(kernel: Any) -> Any:
    from kexplain.embeddings import BayesianCME

    X = np.linspace(0, 1, 10)[:, None]
    return BayesianCME(kernel=kernel).fit(X, X).predict(X[:3], X[:2], return_cov=True)


def _nan_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    out = np.exp(-((A[:, None, 0] - B[None, :, 0]) ** 2))
    out[0, 0] = np.nan
    return out


def _square_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.ones((len(A), len(A)))


K2 = np.array([[1.0, 1.0], [1.0, 1.0]])  # singular: a ridge of 0 cannot be factorised


def _ridge(K: Any = K2, lam: Any = 0.1, Kx: Any = None, D: Any = None) -> Any:
    from kexplain.embeddings import ExactRidge

    r = ExactRidge(K, lam, D)
    return r.weights(np.ones((2, 1)) if Kx is None else Kx)


def _nystroem(K_LX: Any = None, K_LL: Any = None, lam: Any = 0.1, Kx: Any = None) -> Any:
    from kexplain.embeddings import NystroemRidge

    K = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.5], [0.2, 0.5, 1.0]])
    r = NystroemRidge(K[:2] if K_LX is None else K_LX, K[:2, :2] if K_LL is None else K_LL, lam)
    return r.weights(np.ones((2, 1)) if Kx is None else Kx)


def _lml(K: Any = None, L: Any = None, lam: Any = 0.1) -> Any:
    from kexplain.embeddings import cme_log_marginal_likelihood

    return cme_log_marginal_likelihood(np.eye(3) if K is None else K, np.eye(3) if L is None else L, lam)


def _cv(folds: Any, eta: Any = 0.1) -> Any:
    from kexplain.embeddings import cme_cv_loss_from_grams

    K = np.array([[1.0, 1.0], [1.0, 1.0]])
    K = np.kron(np.eye(5), K)  # singular: a zero ridge cannot be factorised
    return cme_cv_loss_from_grams(K, np.eye(10), eta, folds)


def _nuclear(lengthscale: Any = 1.0, measure_scale: Any = 1.0, A: Any = None, B: Any = None) -> Any:
    from kexplain.embeddings import nuclear_dominant_rbf

    A = np.zeros((2, 2)) if A is None else A
    B = np.ones((3, 2)) if B is None else B
    return nuclear_dominant_rbf(A, B, lengthscale, measure_scale)


def _bo_prior_unfitted() -> Any:
    from kexplain.causal import BayesIMP

    return BayesIMP().bo_prior()


def _prefshap_regularization(value: Any) -> Any:
    from kexplain.preference import PrefShapExplainer

    return PrefShapExplainer(classifier(), game="observational", cme_regularization=value)


def _preference_kernel(n: Any) -> Any:
    from kexplain.preference import PreferenceKernel

    return PreferenceKernel(n_item_features=n)(np.zeros((2, 2)))


@functools.cache
def _frames() -> tuple[Any, Any, np.ndarray]:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
    Y = pd.DataFrame(rng.normal(size=(30, 2)) + X.to_numpy(), columns=["m1", "m2"])
    return X, Y, np.sin(Y["m1"].to_numpy())


def _bayesimp_fit(**kw: Any) -> Any:
    from kexplain.causal import BayesIMP

    X, Y, T = _frames()
    args = {"X": X, "Y": Y, "Y2": Y.iloc[:20], "T": T[:20]}
    args.update(kw)
    return BayesIMP(optimize=False).fit(**args)


@functools.cache
def _frame_models() -> tuple[Any, Any, Any]:
    from kexplain.embeddings import BayesianCME, ConditionalMeanEmbedding

    X, _, T = _frames()
    return ConditionalMeanEmbedding().fit(X, T), BayesianCME().fit(X, T), _bayesimp_fit()


NAN2 = np.array([[0.0, np.nan], [1.0, 1.0]])

CASES = [
    # -- 1. DataFrames matched by column name -------------------------------------------------
    Case(
        "clf.decision_function.X_left-reordered",
        lambda: _clf_decision(_reordered(duels()[0]), _reordered(duels()[1])),
        ValueError,
        "X_left has the model's columns in a different order",
        "silent",
    ),
    Case(
        "clf.decision_function.X_right-renamed",
        lambda: _clf_decision(duels()[0], _renamed(duels()[1])),
        ValueError,
        "the columns of X_right do not match",
        "silent",
    ),
    Case(
        "clf.decision_function.context-reordered",
        lambda: _clf_decision(duels()[0], duels()[1], _reordered(duels()[2])),
        ValueError,
        "context has the model's columns in a different order",
        "silent",
    ),
    Case(
        "gp.decision_function.X_left-reordered",
        lambda: _clf_decision(_reordered(duels()[0]), _reordered(duels()[1]), gp=True),
        ValueError,
        "X_left has the model's columns in a different order",
        "silent",
    ),
    Case(
        "PrefShapExplainer.explain.X_left-reordered",
        lambda: _prefshap(reorder_x=True),
        ValueError,
        "X_left has the model's columns in a different order",
        "silent",
    ),
    Case(
        "PrefShapExplainer.background-reordered",
        lambda: _prefshap(background=_reordered(duels()[0])),
        ValueError,
        "background has the model's columns in a different order",
        "silent",
    ),
    Case(
        "comparable_clusters.items-renamed",
        lambda: _clusters(_renamed(duels()[0])),
        ValueError,
        "the columns of items do not match",
        "silent",
    ),
    Case(
        "ConditionalMeanEmbedding.predict.X-reordered",
        lambda: _frame_models()[0].predict(_reordered(_frames()[0])),
        ValueError,
        "X has the model's columns in a different order",
        "unclear",
    ),
    Case(
        "BayesianCME.predict.X-reordered",
        lambda: _frame_models()[1].predict(_reordered(_frames()[0]), np.zeros((2, 1))),
        ValueError,
        "X has the model's columns in a different order",
        "unclear",
    ),
    Case(
        "BayesIMP.predict.x-reordered",
        lambda: _frame_models()[2].predict(_reordered(_frames()[0])),
        ValueError,
        "x has the model's columns in a different order",
        "silent",
    ),
    Case(
        "BayesIMP.fit.Y2-reordered",
        lambda: _bayesimp_fit(Y2=_reordered(_frames()[1].iloc[:20])),
        ValueError,
        "Y2 has the model's columns in a different order",
        "silent",
    ),
    # -- 2. silent answers ----------------------------------------------------------------------
    Case("PrefShapExplainer.route-no-background", _route_consistent, None, "", "silent"),
    Case(
        "BayesianCME.expectation.points-columns",
        lambda: _bcme_expectation(np.zeros((4, 1))),
        ValueError,
        "points has 1 column",
        "crash",
    ),
    Case(
        "BayesianCME.expectation.points-extra-columns",
        lambda: _bcme_expectation(np.zeros((4, 2)), one_column=True),
        ValueError,
        "points has 2 column",
        "silent",
    ),
    Case(
        "BayesianCME.expectation.points-nan",
        lambda: _bcme_expectation(np.full((2, 2), np.nan)),
        ValueError,
        "points contains NaN",
        "silent",
    ),
    Case(
        "BayesianCME.expectation.coef-nan",
        lambda: _bcme_expectation(np.zeros((2, 2)), np.array([np.nan, 1.0])),
        ValueError,
        "coef contains NaN",
        "silent",
    ),
    Case("ConditionalMeanEmbedding.kernel-nan", lambda: _cme(_nan_kernel), ValueError, "kernel returned", "silent"),
    Case(
        "ConditionalMeanEmbedding.kernel-shape",
        lambda: _cme(_square_kernel),
        ValueError,
        "kernel must return",
        "silent",
    ),
    Case("BayesianCME.kernel-nan", lambda: _bcme(_nan_kernel), ValueError, "kernel returned", "silent"),
    Case("PreferenceKernel.X-nan", _kernel_nan, ValueError, "X contains NaN", "silent"),
    Case("PreferenceClassifier.C-nan", lambda: _fit_classifier(C=float("nan")), ValueError, "C must", "unclear"),
    Case("PreferenceClassifier.C-inf", lambda: _fit_classifier(C=float("inf")), ValueError, "C must", "unclear"),
    Case(
        "PreferenceClassifier.score.sample_weight-nan",
        lambda: _score(np.full(40, np.nan)),
        ValueError,
        "sample_weight",
        "silent",
    ),
    Case(
        "PreferenceClassifier.score.sample_weight-negative",
        lambda: _score(-np.ones(40)),
        ValueError,
        "sample_weight",
        "accepted",
    ),
    Case(
        "PreferenceClassifier.score.sample_weight-length",
        lambda: _score(np.ones(3)),
        ValueError,
        "sample_weight",
        "unclear",
    ),
    # -- 3. crashes -----------------------------------------------------------------------------
    Case("ExactRidge.lam-zero", lambda: _ridge(lam=0.0), ValueError, "lam must be a positive", "crash"),
    Case("ExactRidge.lam-negative", lambda: _ridge(lam=-1.0), ValueError, "lam must be a positive", "crash"),
    Case("ExactRidge.K-nan", lambda: _ridge(K=NAN2), ValueError, "K contains NaN", "crash"),
    Case("ExactRidge.K-not-square", lambda: _ridge(K=np.ones((2, 3))), ValueError, "K must be a square", "crash"),
    Case("ExactRidge.D-length", lambda: _ridge(D=np.ones(3)), ValueError, "D must have", "crash"),
    Case("ExactRidge.weights.K_x-rows", lambda: _ridge(Kx=np.ones((3, 1))), ValueError, "K_x has 3 rows", "unclear"),
    Case("NystroemRidge.lam-negative", lambda: _nystroem(lam=-1.0), ValueError, "lam must be a positive", "crash"),
    Case("NystroemRidge.K_LL-shape", lambda: _nystroem(K_LL=np.eye(3)), ValueError, "K_LL must be a square", "crash"),
    Case("NystroemRidge.K_LX-nan", lambda: _nystroem(K_LX=np.full((2, 3), np.nan)), ValueError, "K_LX", "silent"),
    Case("NystroemRidge.weights.K_Lx-rows", lambda: _nystroem(Kx=np.ones((3, 1))), ValueError, "K_Lx has 3", "unclear"),
    Case("cme_log_marginal_likelihood.L-shape", lambda: _lml(L=np.eye(2)), ValueError, "L must be", "crash"),
    Case(
        "cme_log_marginal_likelihood.K-nan", lambda: _lml(K=np.full((3, 3), np.nan)), ValueError, "K contains", "crash"
    ),
    Case("cme_log_marginal_likelihood.lam-zero", lambda: _lml(lam=0.0), ValueError, "lam must be", "silent"),
    Case("cme_cv_loss_from_grams.folds-int", lambda: _cv(3), ValueError, "folds must be", "unclear"),
    Case("cme_cv_loss_from_grams.folds-range", lambda: _cv([np.arange(8, 12)]), ValueError, "folds must be", "crash"),
    Case(
        "cme_cv_loss_from_grams.regularization-zero",
        lambda: _cv([np.arange(3)], eta=0.0),
        ValueError,
        "regularization must be",
        "crash",
    ),
    Case("nuclear_dominant_rbf.lengthscale-nan", lambda: _nuclear(np.nan), ValueError, "lengthscale must", "silent"),
    Case("nuclear_dominant_rbf.lengthscale-zero", lambda: _nuclear(0.0), ValueError, "lengthscale must", "silent"),
    Case(
        "nuclear_dominant_rbf.lengthscale-length",
        lambda: _nuclear([1.0, 1.0, 1.0]),
        ValueError,
        "lengthscale must",
        "crash",
    ),
    Case(
        "nuclear_dominant_rbf.measure_scale-zero",
        lambda: _nuclear(measure_scale=0.0),
        ValueError,
        "measure_scale",
        "crash",
    ),
    Case(
        "nuclear_dominant_rbf.B-columns", lambda: _nuclear(B=np.ones((3, 1))), ValueError, "B has 1 column", "accepted"
    ),
    Case("nuclear_dominant_rbf.A-nan", lambda: _nuclear(A=NAN2), ValueError, "A contains NaN", "silent"),
    Case("BayesIMP.bo_prior-unfitted", _bo_prior_unfitted, (ValueError, NotFittedError), "not fitted", "crash"),
    Case("DuelData.subset.rows-out-of-range", lambda: _subset([0, 25]), ValueError, "rows", "crash"),
    Case("DuelData.subset.rows-float", lambda: _subset([0.5]), (ValueError, TypeError), "rows", "crash"),
    # -- 4. unclear errors and accepted bad inputs --------------------------------------------
    Case(
        "PreferenceClassifier.fit.X_left-empty",
        lambda: _fit_classifier(X_left=np.zeros((0, 3))),
        ValueError,
        "X_left",
        "unclear",
    ),
    Case(
        "PreferenceClassifier.fit.X_left-complex",
        lambda: _fit_classifier(X_left=duels()[0].to_numpy() * 1j),
        ValueError,
        "X_left has complex",
        "unclear",
    ),
    Case(
        "PreferenceClassifier.fit.X_left-huge",
        lambda: _fit_classifier(X_left=_huge()),
        ValueError,
        "X_left has values",
        "accepted",
    ),
    Case(
        "PreferenceGPClassifier.fit.X_left-huge",
        lambda: _fit_gp(X_left=_huge()[:10]),
        ValueError,
        "X_left has values",
        "unclear",
    ),
    Case(
        "PreferenceGPClassifier.fit.X_right-empty",
        lambda: _fit_gp(X_right=np.zeros((0, 3))),
        ValueError,
        "X_right must have at least 1 row",
        "unclear",
    ),
    Case(
        "comparable_clusters.items-nan",
        lambda: _clusters(NAN2 @ np.ones((2, 3))),
        ValueError,
        "items contains NaN",
        "unclear",
    ),
    Case(
        "comparable_clusters.items-columns", lambda: _clusters(np.zeros((4, 2))), ValueError, "items has 2", "unclear"
    ),
    Case(
        "PrefShapExplainer.cme_regularization-inf",
        lambda: _prefshap_regularization(float("inf")),
        ValueError,
        "cme_regularization must be a positive finite",
        "accepted",
    ),
    Case(
        "PreferenceKernel.n_item_features-zero",
        lambda: _preference_kernel(0),
        ValueError,
        "n_item_features must be a positive",
        "unclear",
    ),
    Case(
        "PreferenceKernel.n_item_features-float",
        lambda: _preference_kernel(1.5),
        (ValueError, TypeError),
        "n_item_features must be a positive",
        "unclear",
    ),
    Case("PreferenceGPClassifier.kernel-matern", _matern_gp, None, "", "refused"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    if case.exc is None:
        case.call()
        return
    with pytest.raises(case.exc) as info:
        case.call()
    assert case.match.lower() in str(info.value).lower(), str(info.value)


def test_before_labels_are_known() -> None:
    kinds = {"clear", "unclear", "crash", "silent", "accepted", "refused"}
    assert all(c.before in kinds for c in CASES)
    assert len({c.id for c in CASES}) == len(CASES)


if __name__ == "__main__":  # tally the outcomes of this checkout against the recorded ones
    import warnings

    warnings.simplefilter("ignore")
    verbose = "-v" in sys.argv
    now = {}
    for c in CASES:
        kind, msg = outcome(c)
        now[c.id] = kind
        if verbose or kind not in ("clear", "ok"):
            print(f"{c.id:50s} before={c.before:9s} now={kind:8s} {msg[:150]}")
    print("before:", dict(Counter(c.before for c in CASES)))
    print("now:   ", dict(Counter(now.values())))


# -- the accepted side of the same fixes ---------------------------------------------------------
def test_dataframes_in_the_fitted_order_give_the_array_answer():
    L, R, C, y = duels()
    model = classifier(context=True)
    g = model.decision_function(L, R, C)
    assert np.array_equal(g, model.decision_function(L.to_numpy(), R.to_numpy(), C.to_numpy()))
    assert model.item_columns_ == ["a", "b", "c"] and model.context_columns_ == ["u", "v"]
    assert classifier().to_expansion().columns == ["a", "b", "c"]
    # fitted on arrays: any DataFrame is taken by position, as before
    from kexplain.preference import PreferenceClassifier

    plain = PreferenceClassifier(lengthscale=1.0, C=10.0, n_components=20, random_state=0)
    plain.fit(L.to_numpy(), R.to_numpy(), y)
    assert plain.item_columns_ is None
    Rn = R.to_numpy()
    assert np.array_equal(
        plain.decision_function(_reordered(L), Rn), plain.decision_function(L.to_numpy()[:, ::-1], Rn)
    )
    # but the two sides of a duel hold the same features: DataFrames in different orders are refused
    with pytest.raises(ValueError, match="X_right has the model's columns in a different order"):
        plain.decision_function(_reordered(L), R)


def test_fit_refuses_right_columns_unlike_left():
    L, R, _, y = duels()
    with pytest.raises(ValueError, match="X_right has the model's columns in a different order"):
        _fit_classifier(X_left=L, X_right=_reordered(R))


def test_expansion_takes_columns_from_dataframes():
    from kexplain.kernels import RBF
    from kexplain.preference import PreferenceExpansion

    L, R, _, _ = duels()
    pe = PreferenceExpansion(L.iloc[:5], R.iloc[:5], np.ones(5), RBF(1.0))
    assert pe.columns == pe.feature_names == ["a", "b", "c"]
    with pytest.raises(ValueError, match="different order"):
        pe.decision_function(_reordered(L.iloc[:2]), R.iloc[:2])
    arrays = PreferenceExpansion(L.to_numpy()[:5], R.to_numpy()[:5], np.ones(5), RBF(1.0))
    assert arrays.columns is None and arrays.feature_names == ["x0", "x1", "x2"]
    with pytest.raises(ValueError, match="columns has 2 names"):
        PreferenceExpansion(L.to_numpy()[:5], R.to_numpy()[:5], np.ones(5), RBF(1.0), columns=["a", "b"])


def test_prefshap_observational_blocks_do_not_change_values():
    from kexplain.preference import PrefShapExplainer

    L, R, _, _ = duels()
    whole = PrefShapExplainer(classifier(), game="observational").explain(L, R)
    blocks = PrefShapExplainer(classifier(), game="observational", max_block_bytes=2**16)
    assert blocks._observational is not None and 2**16 // blocks._observational.bytes_per_duel() < len(L)
    parts = blocks.explain(L, R)
    assert np.allclose(parts.values, whole.values, rtol=1e-12, atol=1e-13)
    assert np.allclose(parts.v_full, whole.v_full, rtol=1e-12, atol=1e-13)


def test_cme_predict_blocks_match_one_block(monkeypatch):
    from kexplain.embeddings import ConditionalMeanEmbedding, cme

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    Y = np.column_stack([X[:, 0], X[:, 1] ** 2])
    for approximation in (None, "nystroem"):
        model = ConditionalMeanEmbedding(approximation=approximation, n_landmarks=20, random_state=0).fit(X, Y)
        whole = model.predict(X)
        monkeypatch.setattr(cme, "BLOCK_BYTES", 16 * 60 * 7)  # 7 query rows per block
        # the triangular solves round differently for 7 right-hand sides than for 60; the Nystroem
        # factor (QR of the stacked system, condition ~1e8 here) amplifies that to ~1e-12 absolute
        tol = 1e-13 if approximation is None else 1e-10 * np.abs(whole).max()
        assert np.allclose(model.predict(X), whole, rtol=1e-12, atol=tol)
        assert np.allclose(model.weights(X).T @ Y, whole, rtol=1e-12, atol=tol)
        monkeypatch.undo()


def test_exact_ridge_overwrite_matches_copy():
    from kexplain.embeddings import ExactRidge

    rng = np.random.default_rng(4)
    A = rng.normal(size=(8, 8))
    K = A @ A.T
    Kx = rng.normal(size=(8, 3))
    ref = np.linalg.solve(K + 0.5 * np.eye(8), Kx)
    K0 = K.copy()
    assert np.allclose(ExactRidge(K, 0.5).weights(Kx), ref)
    assert np.array_equal(K, K0)  # the caller's K is left alone by default
    assert np.allclose(ExactRidge(K, 0.5, overwrite_K=True).weights(Kx), ref)
    with pytest.raises(ValueError, match="not positive definite"):
        ExactRidge(-K0, 0.5)


def test_matern_context_kernel_fits():
    from sklearn.gaussian_process.kernels import Matern

    from kexplain.preference import PreferenceGPClassifier

    L, R, C, y = duels()
    model = PreferenceGPClassifier(context_kernel=Matern(nu=2.5), optimizer=None).fit(L[:15], R[:15], y[:15], C[:15])
    g = model.decision_function(L[:15], R[:15], C[:15])
    Z = np.hstack([L.to_numpy()[:15], R.to_numpy()[:15], C.to_numpy()[:15]])
    assert np.allclose(g, model.gpc_.base_estimator_.latent_mean_and_variance(Z)[0], rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="context has the model's columns in a different order"):
        model.decision_function(L[:2], R[:2], _reordered(C[:2]))
