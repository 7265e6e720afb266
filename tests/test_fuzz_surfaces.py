"""Deterministic fuzz pass over the public entry points of kexplain.preference, kexplain.embeddings and
kexplain.causal (issue 28): every matrix argument gets each of fuzz_strategies.MATRIX_KINDS, every
vector argument each of VECTOR_KINDS, every numeric option each of BAD_FLOAT_OPTIONS or
BAD_INT_OPTIONS, and the judge of tests/fuzz_strategies.py sorts each call.  None may be unclear,
a crash or silent.  On main before issue 28's fixes the same 1,174 calls gave 596 clear, 269
unclear, 24 crashes, 71 silent and 214 ok; after them 1,034 clear and 140 ok (numeric strings,
tiny values, defaults passed as None).
"""

from __future__ import annotations

import functools
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
from fuzz_strategies import (
    BAD_FLOAT_OPTIONS,
    BAD_INT_OPTIONS,
    MATRIX_KINDS,
    VECTOR_KINDS,
    Outcome,
    judge,
    spoil_matrix,
    spoil_vector,
)

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore")]


def _calls() -> list[tuple[str, Outcome]]:
    from kexplain.causal import BayesIMP
    from kexplain.embeddings import (
        BayesianCME,
        ConditionalMeanEmbedding,
        ExactRidge,
        NystroemRidge,
        choose_landmarks,
        cme_cv_loss_from_grams,
        cme_log_marginal_likelihood,
        nuclear_dominant_rbf,
    )
    from kexplain.kernels import RBF
    from kexplain.preference import (
        PreferenceClassifier,
        PreferenceExpansion,
        PreferenceGPClassifier,
        PreferenceKernel,
        PrefShapExplainer,
        comparable_clusters,
        duels_from_matches,
    )

    rng = np.random.default_rng(0)
    n, d, p = 16, 3, 2
    L, R, C = rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, p))
    y = (L[:, 0] > R[:, 0]).astype(int)
    clf = PreferenceClassifier(lengthscale=1.0, C=1.0, n_components=8, random_state=0).fit(L, R, y)
    clfc = PreferenceClassifier(lengthscale=1.0, C=1.0, context_lengthscale=1.0, n_components=8, random_state=0).fit(
        L, R, y, C
    )
    gp = PreferenceGPClassifier(optimizer=None).fit(L[:10], R[:10], y[:10])
    X1 = rng.normal(size=(n, 2))
    Y1 = X1[:, :1] + 0.1 * rng.normal(size=(n, 1))
    cme = ConditionalMeanEmbedding().fit(X1, Y1[:, 0])
    bcme = BayesianCME().fit(X1, Y1)
    K = X1 @ X1.T + np.eye(n)
    imp = BayesIMP(optimize=False).fit(X1[:, :1], Y1, Y1[:10], Y1[:10, 0])

    results: list[tuple[str, Outcome]] = []

    def run(entry: str, names: tuple[str, ...], call: Any) -> None:
        out = judge(call, names, entry)
        results.append((entry, out))

    def mats(entry, arg, rows, cols, call):
        for k in MATRIX_KINDS:
            if k == "too-few-columns" and cols < 2:
                continue
            _, v = spoil_matrix(k, rows, cols, seed=1, i=1, j=1)
            run(f"{entry}.{arg}[{k}]", (arg,), functools.partial(call, v))

    def vecs(entry, arg, m, call):
        for k in VECTOR_KINDS:
            _, v = spoil_vector(k, m, seed=1, i=1)
            run(f"{entry}.{arg}[{k}]", (arg,), functools.partial(call, v))

    def opts(entry, arg, call, kinds=BAD_FLOAT_OPTIONS):
        for k, v in kinds:
            run(f"{entry}.{arg}[{k}]", (arg,), functools.partial(call, v))

    def fitc(**kw):
        a = dict(X_left=L, X_right=R, y=y, context=None)
        a.update(kw)
        return PreferenceClassifier(lengthscale=1.0, C=1.0, n_components=8, random_state=0).fit(**a)

    mats("PreferenceClassifier.fit", "X_left", n, d, lambda v: fitc(X_left=v))
    mats("PreferenceClassifier.fit", "X_right", n, d, lambda v: fitc(X_right=v))
    mats("PreferenceClassifier.fit", "context", n, p, lambda v: fitc(context=v))
    vecs("PreferenceClassifier.fit", "y", n, lambda v: fitc(y=v))
    for o in ("lengthscale", "C", "tol", "context_lengthscale"):
        opts(
            "PreferenceClassifier",
            o,
            lambda v, o=o: PreferenceClassifier(**{"lengthscale": 1.0, "C": 1.0, "n_components": 8, o: v}).fit(
                L, R, y, C
            ),
        )
    for o in ("n_components", "cv", "max_iter", "cv_max_duels"):
        opts(
            "PreferenceClassifier",
            o,
            lambda v, o=o: PreferenceClassifier(**{"n_components": 8, o: v}).fit(L, R, y),
            BAD_INT_OPTIONS,
        )
    for o in ("lengthscale_grid", "C_grid"):
        opts("PreferenceClassifier", o, lambda v, o=o: PreferenceClassifier(**{"n_components": 8, o: v}).fit(L, R, y))
    mats("PreferenceClassifier.decision_function", "X_left", 4, d, lambda v: clf.decision_function(v, R[:4]))
    mats("PreferenceClassifier.decision_function", "context", 4, p, lambda v: clfc.decision_function(L[:4], R[:4], v))
    vecs("PreferenceClassifier.score", "sample_weight", n, lambda v: clf.score(L, R, y, sample_weight=v))
    vecs("PreferenceClassifier.score", "y", n, lambda v: clf.score(L, R, v))

    def fitg(**kw):
        a = dict(X_left=L[:10], X_right=R[:10], y=y[:10])
        a.update(kw)
        return PreferenceGPClassifier(optimizer=None).fit(**a)

    mats("PreferenceGPClassifier.fit", "X_left", 10, d, lambda v: fitg(X_left=v))
    vecs("PreferenceGPClassifier.fit", "y", 10, lambda v: fitg(y=v))
    opts(
        "PreferenceGPClassifier",
        "n_restarts_optimizer",
        lambda v: PreferenceGPClassifier(n_restarts_optimizer=v).fit(L[:10], R[:10], y[:10]),
        BAD_INT_OPTIONS,
    )
    opts(
        "PreferenceGPClassifier",
        "max_iter_predict",
        lambda v: PreferenceGPClassifier(max_iter_predict=v, optimizer=None).fit(L[:10], R[:10], y[:10]),
        BAD_INT_OPTIONS,
    )
    mats("PreferenceGPClassifier.latent_variance", "X_right", 4, d, lambda v: gp.latent_variance(L[:4], v))
    mats("PrefShapExplainer", "background", 6, d, lambda v: PrefShapExplainer(clf, v).explain(L[:2], R[:2]))
    vecs(
        "PrefShapExplainer",
        "background_weights",
        6,
        lambda v: PrefShapExplainer(clf, L[:6], background_weights=v).explain(L[:2], R[:2]),
    )
    mats("PrefShapExplainer.explain", "X_left", 3, d, lambda v: PrefShapExplainer(clf).explain(v, R[:3]))
    mats(
        "PrefShapExplainer.explain",
        "context",
        3,
        p,
        lambda v: PrefShapExplainer(clfc, level="context").explain(L[:3], R[:3], v),
    )
    mats(
        "PrefShapExplainer",
        "context_background",
        5,
        p,
        lambda v: PrefShapExplainer(clfc, level="context", context_background=v).explain(L[:2], R[:2], C[:2]),
    )
    vecs("PrefShapExplainer.explain", "y", 3, lambda v: PrefShapExplainer(clf).explain(L[:3], R[:3], y=v))
    opts(
        "PrefShapExplainer",
        "cme_regularization",
        lambda v: PrefShapExplainer(clf, game="observational", cme_regularization=v).explain(L[:2], R[:2]),
    )
    opts(
        "PrefShapExplainer",
        "n_landmarks",
        lambda v: PrefShapExplainer(clf, game="observational", n_landmarks=v).explain(L[:2], R[:2]),
        BAD_INT_OPTIONS[:-3] + BAD_INT_OPTIONS[-2:],
    )
    opts("PrefShapExplainer", "max_block_bytes", lambda v: PrefShapExplainer(clf, max_block_bytes=v), BAD_INT_OPTIONS)
    opts(
        "PrefShapExplainer.explain",
        "budget",
        lambda v: PrefShapExplainer(clf, game="observational").explain(L[:2], R[:2], budget=v),
        BAD_INT_OPTIONS,
    )
    mats("comparable_clusters", "items", 6, d, lambda v: comparable_clusters(clf, v, 2, random_state=0))
    opts(
        "comparable_clusters",
        "n_clusters",
        lambda v: comparable_clusters(clf, L[:6], v, random_state=0),
        BAD_INT_OPTIONS,
    )
    mats("PreferenceKernel", "X", 4, 2 * d, lambda v: PreferenceKernel(n_item_features=d)(v))
    mats("PreferenceKernel", "Y", 4, 2 * d, lambda v: PreferenceKernel(n_item_features=d)(L[:3].repeat(2, axis=1), v))
    opts(
        "PreferenceKernel",
        "n_item_features",
        lambda v: PreferenceKernel(n_item_features=v)(np.zeros((2, 4))),
        BAD_INT_OPTIONS,
    )
    mats("PreferenceExpansion", "left", 4, d, lambda v: PreferenceExpansion(v, R[:4], np.ones(4), RBF(1.0)))
    vecs("PreferenceExpansion", "coef", 4, lambda v: PreferenceExpansion(L[:4], R[:4], v, RBF(1.0)))
    mats("duels_from_matches", "items", 5, d, lambda v: duels_from_matches([0, 1], [2, 3], v))
    mats("duels_from_matches", "context", 2, p, lambda v: duels_from_matches([0, 1], [2, 3], L[:5], context=v))

    # embeddings
    def fcme(**kw):
        a = dict(X=X1, y=Y1[:, 0], sample_weight=None)
        a.update(kw)
        return ConditionalMeanEmbedding().fit(**a).predict(X1[:3])

    mats("ConditionalMeanEmbedding.fit", "X", n, 2, lambda v: fcme(X=v))
    vecs("ConditionalMeanEmbedding.fit", "y", n, lambda v: fcme(y=v))
    vecs("ConditionalMeanEmbedding.fit", "sample_weight", n, lambda v: fcme(sample_weight=v))
    mats("ConditionalMeanEmbedding.predict", "X", 3, 2, lambda v: cme.predict(v))
    mats("ConditionalMeanEmbedding.embedding", "Y", 3, 1, lambda v: cme.embedding(X1[:2], v))
    mats("ConditionalMeanEmbedding.inner_product", "X2", 3, 2, lambda v: cme.inner_product(X1[:2], v))
    vecs("ConditionalMeanEmbedding.expectation", "g", n, lambda v: cme.expectation(X1[:2], v))
    opts("ConditionalMeanEmbedding", "regularization", lambda v: ConditionalMeanEmbedding(regularization=v).fit(X1, Y1))
    opts(
        "ConditionalMeanEmbedding", "grid", lambda v: ConditionalMeanEmbedding(regularization="cv", grid=v).fit(X1, Y1)
    )
    opts(
        "ConditionalMeanEmbedding",
        "n_landmarks",
        lambda v: ConditionalMeanEmbedding(approximation="nystroem", n_landmarks=v).fit(X1, Y1),
        BAD_INT_OPTIONS,
    )
    mats("BayesianCME.fit", "X", n, 2, lambda v: BayesianCME().fit(v, Y1))
    mats("BayesianCME.fit", "y", n, 1, lambda v: BayesianCME().fit(X1, v))
    mats("BayesianCME.predict", "Y", 3, 1, lambda v: bcme.predict(X1[:2], v, return_cov=True))
    mats("BayesianCME.expectation", "points", 3, 1, lambda v: bcme.expectation(X1[:2], v, np.ones(3), return_cov=True))
    vecs("BayesianCME.expectation", "coef", 3, lambda v: bcme.expectation(X1[:2], Y1[:3], v, return_cov=True))
    opts("BayesianCME", "lengthscale", lambda v: BayesianCME(lengthscale=v).fit(X1, Y1))
    opts("BayesianCME", "measure_scale", lambda v: BayesianCME(measure_scale=v).fit(X1, Y1))
    opts("BayesianCME", "regularization", lambda v: BayesianCME(regularization=v).fit(X1, Y1))
    mats("ExactRidge", "K", n, n, lambda v: ExactRidge(v, 0.1).weights(K[:, :2]))
    opts("ExactRidge", "lam", lambda v: ExactRidge(K, v).weights(K[:, :2]))
    vecs("ExactRidge", "D", n, lambda v: ExactRidge(K, 0.1, v).weights(K[:, :2]))
    mats("ExactRidge.weights", "K_x", n, 2, lambda v: ExactRidge(K, 0.1).weights(v))
    mats("NystroemRidge", "K_LX", 4, n, lambda v: NystroemRidge(v, K[:4, :4], 0.1).weights(K[:4, :2]))
    mats("NystroemRidge", "K_LL", 4, 4, lambda v: NystroemRidge(K[:4], v, 0.1).weights(K[:4, :2]))
    opts("NystroemRidge", "lam", lambda v: NystroemRidge(K[:4], K[:4, :4], v).weights(K[:4, :2]))
    mats("NystroemRidge.weights", "K_Lx", 4, 2, lambda v: NystroemRidge(K[:4], K[:4, :4], 0.1).weights(v))
    mats("cme_log_marginal_likelihood", "K", n, n, lambda v: cme_log_marginal_likelihood(v, K, 0.1))
    mats("cme_log_marginal_likelihood", "L", n, n, lambda v: cme_log_marginal_likelihood(K, v, 0.1))
    opts("cme_log_marginal_likelihood", "lam", lambda v: cme_log_marginal_likelihood(K, K, v))
    mats("cme_cv_loss_from_grams", "L", n, n, lambda v: cme_cv_loss_from_grams(K, v, 0.1, [np.arange(4)]))
    opts("cme_cv_loss_from_grams", "regularization", lambda v: cme_cv_loss_from_grams(K, K, v, [np.arange(4)]))
    opts("cme_cv_loss_from_grams", "folds", lambda v: cme_cv_loss_from_grams(K, K, 0.1, [v]), BAD_INT_OPTIONS)
    mats("nuclear_dominant_rbf", "A", 3, 2, lambda v: nuclear_dominant_rbf(v, X1, 1.0, 1.0))
    mats("nuclear_dominant_rbf", "B", 3, 2, lambda v: nuclear_dominant_rbf(X1, v, 1.0, 1.0))
    opts("nuclear_dominant_rbf", "lengthscale", lambda v: nuclear_dominant_rbf(X1, X1, v, 1.0))
    opts("nuclear_dominant_rbf", "measure_scale", lambda v: nuclear_dominant_rbf(X1, X1, 1.0, v))
    opts("choose_landmarks", "n_landmarks", lambda v: choose_landmarks(10, v, 0), BAD_INT_OPTIONS)
    opts("choose_landmarks", "n_rows", lambda v: choose_landmarks(v, 3, 0), BAD_INT_OPTIONS)

    # causal
    def fimp(**kw):
        a = dict(X=X1[:, :1], Y=Y1, Y2=Y1[:10], T=Y1[:10, 0])
        a.update(kw)
        return BayesIMP(optimize=False).fit(**a).predict(X1[:2, :1])

    mats("BayesIMP.fit", "X", n, 1, lambda v: fimp(X=v))
    mats("BayesIMP.fit", "Y2", 10, 1, lambda v: fimp(Y2=v))
    vecs("BayesIMP.fit", "T", 10, lambda v: fimp(T=v))
    mats("BayesIMP.predict", "x", 3, 1, lambda v: imp.predict(v, return_cov=True))
    mats("BayesIMP.cross_cov", "xb", 3, 1, lambda v: imp.cross_cov(X1[:2, :1], v))
    for o in ("regularization", "amplitude", "noise", "measure_scale", "lengthscale_x", "lengthscale_y"):
        opts("BayesIMP", o, lambda v, o=o: BayesIMP(optimize=False, **{o: v}).fit(X1[:, :1], Y1, Y1[:10], Y1[:10, 0]))

    return results


def test_fuzz_surfaces() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = _calls()
    tally = Counter(o.kind for _, o in results)
    failed = [f"{o.kind} {e}: {o.detail[:160]}" for e, o in results if o.failed]
    print(f"\nsurface fuzz: {len(results)} calls: {dict(tally)}")
    assert len(results) > 1000
    assert not failed, "\n".join(failed)
