"""The kernel coverage table (kx.models.coverage) against scikit-learn's lists, the docs and the routes.

Every kernel name of ``PAIRWISE_KERNEL_FUNCTIONS`` and every kernel class of
``sklearn.gaussian_process.kernels`` has a row; the table in docs/capabilities/kernels.rst is
exactly what the code answers now (so it cannot go stale); and every refusal names a route that,
run as written in the message, gives the values of enumeration of all coalitions of the model's
own prediction.
"""

from __future__ import annotations

import inspect
import pathlib
import warnings

import numpy as np
import pytest
from conftest import assert_rel_close, interventional_value_function

import kexplain as kx
from kexplain.models import kernel_coverage as cov

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "capabilities" / "kernels.rst"
BEGIN, END = ".. coverage-table-begin", ".. coverage-table-end"


@pytest.fixture(scope="module")
def rows():
    return cov.coverage()


def test_every_pairwise_name_and_gp_kernel_class_has_a_row(rows):
    from sklearn.gaussian_process import kernels as sk
    from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS

    labels = {r.kernel for r in rows}
    for name in PAIRWISE_KERNEL_FUNCTIONS:
        assert f'"{name}"' in labels
    assert '"precomputed"' in labels and "a callable k(X, Y)" in labels
    seen: set[type] = set()
    stack = [k for _, k in cov._gp_rows()] + [g for _, _, g in cov._pairwise_rows() if g is not None]
    while stack:
        k = stack.pop()
        seen.add(type(k))
        stack.extend(getattr(k, n) for n in ("k1", "k2", "kernel") if isinstance(getattr(k, n, None), sk.Kernel))
        stack.extend(getattr(k, "kernels", []))
    classes = {
        c
        for c in vars(sk).values()
        if inspect.isclass(c) and issubclass(c, sk.Kernel) and not inspect.isabstract(c) and c.__module__ == sk.__name__
    }
    missing = sorted(c.__name__ for c in classes - seen)
    assert not missing, f"GP kernel classes without a row: {missing}"
    for r in rows:
        assert r.estimator in cov.ESTIMATORS
        assert r.status in ("exact", "bound", "refused", "n/a")
    assert len({(r.kernel, r.estimator) for r in rows}) == len(rows)


def test_docs_table_is_what_the_code_answers(rows):
    text = DOCS.read_text()
    assert BEGIN in text and END in text
    block = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")
    assert block.strip() == cov.coverage_table(rows).strip(), (
        "docs/capabilities/kernels.rst is stale: paste the output of "
        "`python -c 'import kexplain; print(kexplain.models.coverage_table())'` between the markers"
    )


def test_known_answers(rows):
    cell = {(r.kernel, r.estimator): r for r in rows}
    assert cell['"rbf"', "SVC"].status == "exact"
    assert cell['"laplacian"', "KernelRidge"].status == "exact"
    assert cell["RBF (ARD)", "GaussianProcessRegressor"].status == "exact"
    for key in [('"sigmoid"', "SVC"), ('"cosine"', "KernelRidge"), ("ExpSineSquared", "GaussianProcessRegressor")]:
        assert cell[key].status == "refused"
    assert cell['"laplacian"', "SVC"].status == "n/a"  # an SVM does not take it by name


def test_every_refusal_names_a_route_unless_the_model_is_constant(rows):
    for r in rows:
        if r.status == "refused":
            assert r.route or "nothing to explain" in r.detail, (r.kernel, r.estimator, r.detail)
            if r.route:  # the route's limits are said: exact enumeration's 12 features, sampling beyond
                assert "12 features" in r.detail and "standard errors" in r.detail, (r.kernel, r.estimator)


def _own_prediction(model, estimator, precomputed, X_train):
    """The model's own explained output on feature rows (the reference, never kexplain's kernels)."""
    if estimator in ("SVC", "SVR", "KernelRidge") and precomputed:
        fn = model.decision_function if estimator == "SVC" else model.predict
        return lambda H: fn(cov._callable_kernel(H, X_train))
    if estimator == "SVC":
        return model.decision_function
    if estimator == "GaussianProcessClassifier":
        return lambda H: model.predict_proba(H)[:, 1]
    return model.predict


def test_every_route_runs_as_written_and_matches_enumeration(rows):
    X_train, _, _ = cov._data()
    B, X = X_train[:4], X_train[10:12]
    models = {(label, est): m for label, est, m in cov._cases()}
    ran = 0
    for r in rows:
        if r.status != "refused" or not r.route:
            continue
        model = models[r.kernel, r.estimator]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # the route exactly as the message writes it; k is the user's kernel of a precomputed model
            env = {"kx": kx, "model": model, "B": B, "k": cov._callable_kernel, "X_train": X_train}
            explainer = eval(r.route, env)  # noqa: S307 - our own message text, run as a user would
            ex = explainer.explain(X)
            background = B if "background=B" in r.route else X_train
            pred = _own_prediction(model, r.estimator, "k(X, X_train)" in r.route, X_train)
            ref = kx.exact_shapley(interventional_value_function(pred, X, background), X.shape[1])
        values = ex.values[..., 0] if ex.values.ndim == 3 and ex.values.shape[-1] == 1 else ex.values
        assert_rel_close(values, ref.values, rtol=1e-10, atol_scale=1e-12, err_msg=f"{r.kernel} / {r.estimator}")
        ran += 1
    # every refusal that names a route ran (fewer since linear and polynomial kernels are exact)
    assert ran == sum(1 for r in rows if r.status == "refused" and r.route) and ran >= 30


def test_refusal_messages_name_the_route_for_each_estimator():
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVC, SVR

    X_train, y, yc = cov._data()
    cases = [
        (SVC(kernel="sigmoid").fit(X_train, yc), "kx.RKHSExplainer(model.decision_function, background=B"),
        (SVR(kernel="sigmoid").fit(X_train, y), "kx.RKHSExplainer(model, background=B"),
        (KernelRidge(kernel="cosine").fit(X_train, y), "kx.RKHSExplainer(model, background=B"),
        (KernelRidge(kernel="precomputed").fit(X_train @ X_train.T, y), "model.predict(k(X, X_train))"),
        (SVC(kernel="precomputed").fit(X_train @ X_train.T, yc), "model.decision_function(k(X, X_train))"),
    ]
    for model, route in cases:
        with pytest.raises(kx.UnsupportedModelError) as info:
            kx.ProductKernelExplainer(model, background=X_train[:3])
        msg = str(info.value)
        assert route in msg
        assert "12 features" in msg and "standard errors" in msg
    with pytest.raises(kx.UnsupportedModelError, match="Gram matrices, not features"):
        kx.ProductKernelExplainer(cases[3][0], background=X_train[:3])


def test_coverage_table_renders_given_rows():
    table = cov.coverage_table(
        [
            cov.CoverageRow("a", "SVC", "exact"),
            cov.CoverageRow("a", "SVR", "refused", route="kx.RKHSExplainer(model)"),
            cov.CoverageRow("b", "SVC", "bound"),
            cov.CoverageRow("b", "SVR", "refused", detail="nothing to explain"),
        ]
    )
    assert "| a" in table and "refused (A)" in table and "exact, bound" in table and "constant" in table
    assert "- A: ``kx.RKHSExplainer(model)``" in table
    assert np.all([len(line) == len(table.splitlines()[0]) for line in table.splitlines()[:7]])
