"""The fuzz cases of the newest surfaces (issue 28), declared once and used twice.

Preference models and PREF-SHAP, the embedding estimators and ridge helpers, BayesIMP, the Dask
entry points (``explain_dask``, ``kexplain.dask.on``), ``model_report`` and the command-line
commands (``explain``, ``report``, ``mmd``, ``hsic``, ``oak``, ``star``): each :class:`Spec` is one
argument of one entry point, the names a clear error may use, where its bad values come from
(``"matrix:<rows>x<cols>"``, ``"vector:<n>"`` or a key of :data:`OPTION_KINDS`) and the call that
takes the bad value.  ``tests/test_fuzz_surfaces.py`` runs every spec with every kind of bad value
(deterministic); ``tests/test_fuzz.py`` adds the specs to its cases, so hypothesis draws their
inputs like those of every other entry point.  The fitted models are built once, on first use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from fuzz_strategies import (
    BAD_FLOAT_OPTIONS,
    BAD_INT_OPTIONS,
    BAD_RANDOM_STATES,
    MATRIX_KINDS,
    VECTOR_KINDS,
    spoil_matrix,
    spoil_vector,
)

#: bad values of the options, by the ``source`` of a spec
OPTION_KINDS: dict[str, list[tuple[str, Any]]] = {
    "float": BAD_FLOAT_OPTIONS,
    "int": BAD_INT_OPTIONS,
    # None is the default of these (an ordinary value, not a bad one)
    "int-or-none": [(k, v) for k, v in BAD_INT_OPTIONS if k != "none"],
    "random_state": BAD_RANDOM_STATES,
    "explainer": [
        ("none", None),
        ("string", "ProductKernelExplainer"),
        ("model", "svr"),  # a fitted scikit-learn model passed where an explainer belongs
        ("array", np.ones((3, 3))),
    ],
    "client": [("object", object()), ("address", "tcp://127.0.0.1:1"), ("int", 3), ("bool", True)],
    # command-line values are strings
    "cli-int": [(k, str(v)) for k, v in BAD_INT_OPTIONS],
}


@dataclasses.dataclass(frozen=True)
class Spec:
    """One argument of one entry point (see the module docstring)."""

    id: str
    names: tuple[str, ...]
    source: str
    call: Callable[[Any], Any]

    def inputs(self) -> list[tuple[str, Any]]:
        """Every kind of bad value of this argument, deterministic: ``(label, value)``."""
        kind, _, shape = self.source.partition(":")
        if kind == "matrix":
            r, c = (int(t) for t in shape.split("x"))
            kinds = [k for k in MATRIX_KINDS if c >= 2 or k != "too-few-columns"]
            return [spoil_matrix(k, r, c, seed=1, i=1, j=1) for k in kinds]
        if kind == "vector":
            return [spoil_vector(k, int(shape), seed=1, i=1) for k in VECTOR_KINDS]
        return list(OPTION_KINDS[self.source])


# -- fitted models and data, built once ----------------------------------------------------------
N, D, P = 16, 3, 2


@functools.cache
def fitted() -> dict[str, Any]:
    from kexplain.causal import BayesIMP
    from kexplain.embeddings import BayesianCME, ConditionalMeanEmbedding
    from kexplain.preference import PreferenceClassifier, PreferenceGPClassifier

    rng = np.random.default_rng(0)
    L, R, C = rng.normal(size=(N, D)), rng.normal(size=(N, D)), rng.normal(size=(N, P))
    y = (L[:, 0] > R[:, 0]).astype(int)
    X1 = rng.normal(size=(N, 2))
    Y1 = X1[:, :1] + 0.1 * rng.normal(size=(N, 1))
    return {
        "L": L,
        "R": R,
        "C": C,
        "y": y,
        "clf": PreferenceClassifier(lengthscale=1.0, C=1.0, n_components=8, random_state=0).fit(L, R, y),
        "clfc": PreferenceClassifier(
            lengthscale=1.0, C=1.0, context_lengthscale=1.0, n_components=8, random_state=0
        ).fit(L, R, y, C),
        "gp": PreferenceGPClassifier(optimizer=None).fit(L[:10], R[:10], y[:10]),
        "X1": X1,
        "Y1": Y1,
        "cme": ConditionalMeanEmbedding().fit(X1, Y1[:, 0]),
        "bcme": BayesianCME().fit(X1, Y1),
        "K": X1 @ X1.T + np.eye(N),
        "imp": BayesIMP(optimize=False).fit(X1[:, :1], Y1, Y1[:10], Y1[:10, 0]),
    }


def _specs_preference(add: Callable[..., None]) -> None:
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

    def f(key: str) -> Any:
        return fitted()[key]

    def fitc(**kw: Any) -> Any:
        a = {"X_left": f("L"), "X_right": f("R"), "y": f("y"), "context": None}
        a.update(kw)
        return PreferenceClassifier(lengthscale=1.0, C=1.0, n_components=8, random_state=0).fit(**a)

    add("PreferenceClassifier.fit", "X_left", f"matrix:{N}x{D}", lambda v: fitc(X_left=v))
    add("PreferenceClassifier.fit", "X_right", f"matrix:{N}x{D}", lambda v: fitc(X_right=v))
    add("PreferenceClassifier.fit", "context", f"matrix:{N}x{P}", lambda v: fitc(context=v))
    add("PreferenceClassifier.fit", "y", f"vector:{N}", lambda v: fitc(y=v))
    for o in ("lengthscale", "C", "tol", "context_lengthscale"):
        add(
            "PreferenceClassifier",
            o,
            "float",
            lambda v, o=o: PreferenceClassifier(**{"lengthscale": 1.0, "C": 1.0, "n_components": 8, o: v}).fit(
                f("L"), f("R"), f("y"), f("C")
            ),
        )
    for o in ("n_components", "cv", "max_iter", "cv_max_duels"):
        add(
            "PreferenceClassifier",
            o,
            "int",
            lambda v, o=o: PreferenceClassifier(**{"n_components": 8, o: v}).fit(f("L"), f("R"), f("y")),
        )
    for o in ("lengthscale_grid", "C_grid"):
        add(
            "PreferenceClassifier",
            o,
            "float",
            lambda v, o=o: PreferenceClassifier(**{"n_components": 8, o: v}).fit(f("L"), f("R"), f("y")),
        )
    add(
        "PreferenceClassifier.decision_function",
        "X_left",
        f"matrix:4x{D}",
        lambda v: f("clf").decision_function(v, f("R")[:4]),
    )
    add(
        "PreferenceClassifier.decision_function",
        "context",
        f"matrix:4x{P}",
        lambda v: f("clfc").decision_function(f("L")[:4], f("R")[:4], v),
    )
    add(
        "PreferenceClassifier.score",
        "sample_weight",
        f"vector:{N}",
        lambda v: f("clf").score(f("L"), f("R"), f("y"), sample_weight=v),
    )
    add("PreferenceClassifier.score", "y", f"vector:{N}", lambda v: f("clf").score(f("L"), f("R"), v))

    def fitg(**kw: Any) -> Any:
        a = {"X_left": f("L")[:10], "X_right": f("R")[:10], "y": f("y")[:10]}
        a.update(kw)
        return PreferenceGPClassifier(optimizer=None).fit(**a)

    add("PreferenceGPClassifier.fit", "X_left", f"matrix:10x{D}", lambda v: fitg(X_left=v))
    add("PreferenceGPClassifier.fit", "y", "vector:10", lambda v: fitg(y=v))
    add(
        "PreferenceGPClassifier",
        "n_restarts_optimizer",
        "int",
        lambda v: PreferenceGPClassifier(n_restarts_optimizer=v).fit(f("L")[:10], f("R")[:10], f("y")[:10]),
    )
    add(
        "PreferenceGPClassifier",
        "max_iter_predict",
        "int",
        lambda v: PreferenceGPClassifier(max_iter_predict=v, optimizer=None).fit(f("L")[:10], f("R")[:10], f("y")[:10]),
    )
    add(
        "PreferenceGPClassifier.latent_variance",
        "X_right",
        f"matrix:4x{D}",
        lambda v: f("gp").latent_variance(f("L")[:4], v),
    )
    add(
        "PrefShapExplainer",
        "background",
        f"matrix:6x{D}",
        lambda v: PrefShapExplainer(f("clf"), v).explain(f("L")[:2], f("R")[:2]),
    )
    add(
        "PrefShapExplainer",
        "background_weights",
        "vector:6",
        lambda v: PrefShapExplainer(f("clf"), f("L")[:6], background_weights=v).explain(f("L")[:2], f("R")[:2]),
    )
    add(
        "PrefShapExplainer.explain",
        "X_left",
        f"matrix:3x{D}",
        lambda v: PrefShapExplainer(f("clf")).explain(v, f("R")[:3]),
    )
    add(
        "PrefShapExplainer.explain",
        "context",
        f"matrix:3x{P}",
        lambda v: PrefShapExplainer(f("clfc"), level="context").explain(f("L")[:3], f("R")[:3], v),
    )
    add(
        "PrefShapExplainer",
        "context_background",
        f"matrix:5x{P}",
        lambda v: PrefShapExplainer(f("clfc"), level="context", context_background=v).explain(
            f("L")[:2], f("R")[:2], f("C")[:2]
        ),
    )
    add(
        "PrefShapExplainer.explain",
        "y",
        "vector:3",
        lambda v: PrefShapExplainer(f("clf")).explain(f("L")[:3], f("R")[:3], y=v),
    )
    add(
        "PrefShapExplainer",
        "cme_regularization",
        "float",
        lambda v: PrefShapExplainer(f("clf"), game="observational", cme_regularization=v).explain(
            f("L")[:2], f("R")[:2]
        ),
    )
    add(
        "PrefShapExplainer",
        "n_landmarks",
        "int-or-none",
        lambda v: PrefShapExplainer(f("clf"), game="observational", n_landmarks=v).explain(f("L")[:2], f("R")[:2]),
    )
    add("PrefShapExplainer", "max_block_bytes", "int", lambda v: PrefShapExplainer(f("clf"), max_block_bytes=v))
    add(
        "PrefShapExplainer.explain",
        "budget",
        "int",
        lambda v: PrefShapExplainer(f("clf"), game="observational").explain(f("L")[:2], f("R")[:2], budget=v),
    )
    add(
        "comparable_clusters",
        "items",
        f"matrix:6x{D}",
        lambda v: comparable_clusters(f("clf"), v, 2, random_state=0),
    )
    add(
        "comparable_clusters",
        "n_clusters",
        "int",
        lambda v: comparable_clusters(f("clf"), f("L")[:6], v, random_state=0),
    )
    add("PreferenceKernel", "X", f"matrix:4x{2 * D}", lambda v: PreferenceKernel(n_item_features=D)(v))
    add(
        "PreferenceKernel",
        "Y",
        f"matrix:4x{2 * D}",
        lambda v: PreferenceKernel(n_item_features=D)(f("L")[:3].repeat(2, axis=1), v),
    )
    add(
        "PreferenceKernel",
        "n_item_features",
        "int",
        lambda v: PreferenceKernel(n_item_features=v)(np.zeros((2, 4))),
    )
    add(
        "PreferenceExpansion",
        "left",
        f"matrix:4x{D}",
        lambda v: PreferenceExpansion(v, f("R")[:4], np.ones(4), RBF(1.0)),
    )
    add(
        "PreferenceExpansion",
        "coef",
        "vector:4",
        lambda v: PreferenceExpansion(f("L")[:4], f("R")[:4], v, RBF(1.0)),
    )
    add("duels_from_matches", "items", f"matrix:5x{D}", lambda v: duels_from_matches([0, 1], [2, 3], v))
    add(
        "duels_from_matches",
        "context",
        f"matrix:2x{P}",
        lambda v: duels_from_matches([0, 1], [2, 3], f("L")[:5], context=v),
    )


def _specs_embeddings(add: Callable[..., None]) -> None:
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

    def f(key: str) -> Any:
        return fitted()[key]

    def fcme(**kw: Any) -> Any:
        a = {"X": f("X1"), "y": f("Y1")[:, 0], "sample_weight": None}
        a.update(kw)
        return ConditionalMeanEmbedding().fit(**a).predict(f("X1")[:3])

    add("ConditionalMeanEmbedding.fit", "X", f"matrix:{N}x2", lambda v: fcme(X=v))
    add("ConditionalMeanEmbedding.fit", "y", f"vector:{N}", lambda v: fcme(y=v))
    add("ConditionalMeanEmbedding.fit", "sample_weight", f"vector:{N}", lambda v: fcme(sample_weight=v))
    add("ConditionalMeanEmbedding.predict", "X", "matrix:3x2", lambda v: f("cme").predict(v))
    add("ConditionalMeanEmbedding.embedding", "Y", "matrix:3x1", lambda v: f("cme").embedding(f("X1")[:2], v))
    add(
        "ConditionalMeanEmbedding.inner_product",
        "X2",
        "matrix:3x2",
        lambda v: f("cme").inner_product(f("X1")[:2], v),
    )
    add("ConditionalMeanEmbedding.expectation", "g", f"vector:{N}", lambda v: f("cme").expectation(f("X1")[:2], v))
    add(
        "ConditionalMeanEmbedding",
        "regularization",
        "float",
        lambda v: ConditionalMeanEmbedding(regularization=v).fit(f("X1"), f("Y1")),
    )
    add(
        "ConditionalMeanEmbedding",
        "grid",
        "float",
        lambda v: ConditionalMeanEmbedding(regularization="cv", grid=v).fit(f("X1"), f("Y1")),
    )
    add(
        "ConditionalMeanEmbedding",
        "n_landmarks",
        "int",
        lambda v: ConditionalMeanEmbedding(approximation="nystroem", n_landmarks=v).fit(f("X1"), f("Y1")),
    )
    add("BayesianCME.fit", "X", f"matrix:{N}x2", lambda v: BayesianCME().fit(v, f("Y1")))
    add("BayesianCME.fit", "y", f"matrix:{N}x1", lambda v: BayesianCME().fit(f("X1"), v))
    add("BayesianCME.predict", "Y", "matrix:3x1", lambda v: f("bcme").predict(f("X1")[:2], v, return_cov=True))
    add(
        "BayesianCME.expectation",
        "points",
        "matrix:3x1",
        lambda v: f("bcme").expectation(f("X1")[:2], v, np.ones(3), return_cov=True),
    )
    add(
        "BayesianCME.expectation",
        "coef",
        "vector:3",
        lambda v: f("bcme").expectation(f("X1")[:2], f("Y1")[:3], v, return_cov=True),
    )
    for o in ("lengthscale", "measure_scale", "regularization"):
        add("BayesianCME", o, "float", lambda v, o=o: BayesianCME(**{o: v}).fit(f("X1"), f("Y1")))
    add("ExactRidge", "K", f"matrix:{N}x{N}", lambda v: ExactRidge(v, 0.1).weights(f("K")[:, :2]))
    add("ExactRidge", "lam", "float", lambda v: ExactRidge(f("K"), v).weights(f("K")[:, :2]))
    add("ExactRidge", "D", f"vector:{N}", lambda v: ExactRidge(f("K"), 0.1, v).weights(f("K")[:, :2]))
    add("ExactRidge.weights", "K_x", f"matrix:{N}x2", lambda v: ExactRidge(f("K"), 0.1).weights(v))
    add(
        "NystroemRidge",
        "K_LX",
        f"matrix:4x{N}",
        lambda v: NystroemRidge(v, f("K")[:4, :4], 0.1).weights(f("K")[:4, :2]),
    )
    add(
        "NystroemRidge",
        "K_LL",
        "matrix:4x4",
        lambda v: NystroemRidge(f("K")[:4], v, 0.1).weights(f("K")[:4, :2]),
    )
    add(
        "NystroemRidge",
        "lam",
        "float",
        lambda v: NystroemRidge(f("K")[:4], f("K")[:4, :4], v).weights(f("K")[:4, :2]),
    )
    add(
        "NystroemRidge.weights",
        "K_Lx",
        "matrix:4x2",
        lambda v: NystroemRidge(f("K")[:4], f("K")[:4, :4], 0.1).weights(v),
    )
    add("cme_log_marginal_likelihood", "K", f"matrix:{N}x{N}", lambda v: cme_log_marginal_likelihood(v, f("K"), 0.1))
    add("cme_log_marginal_likelihood", "L", f"matrix:{N}x{N}", lambda v: cme_log_marginal_likelihood(f("K"), v, 0.1))
    add("cme_log_marginal_likelihood", "lam", "float", lambda v: cme_log_marginal_likelihood(f("K"), f("K"), v))
    add(
        "cme_cv_loss_from_grams",
        "L",
        f"matrix:{N}x{N}",
        lambda v: cme_cv_loss_from_grams(f("K"), v, 0.1, [np.arange(4)]),
    )
    add(
        "cme_cv_loss_from_grams",
        "regularization",
        "float",
        lambda v: cme_cv_loss_from_grams(f("K"), f("K"), v, [np.arange(4)]),
    )
    add("cme_cv_loss_from_grams", "folds", "int", lambda v: cme_cv_loss_from_grams(f("K"), f("K"), 0.1, [v]))
    add("nuclear_dominant_rbf", "A", "matrix:3x2", lambda v: nuclear_dominant_rbf(v, f("X1"), 1.0, 1.0))
    add("nuclear_dominant_rbf", "B", "matrix:3x2", lambda v: nuclear_dominant_rbf(f("X1"), v, 1.0, 1.0))
    add("nuclear_dominant_rbf", "lengthscale", "float", lambda v: nuclear_dominant_rbf(f("X1"), f("X1"), v, 1.0))
    add("nuclear_dominant_rbf", "measure_scale", "float", lambda v: nuclear_dominant_rbf(f("X1"), f("X1"), 1.0, v))
    add("choose_landmarks", "n_landmarks", "int", lambda v: choose_landmarks(10, v, 0))
    add("choose_landmarks", "n_rows", "int", lambda v: choose_landmarks(v, 3, 0))

    # causal
    def fimp(**kw: Any) -> Any:
        a = {"X": f("X1")[:, :1], "Y": f("Y1"), "Y2": f("Y1")[:10], "T": f("Y1")[:10, 0]}
        a.update(kw)
        return BayesIMP(optimize=False).fit(**a).predict(f("X1")[:2, :1])

    add("BayesIMP.fit", "X", f"matrix:{N}x1", lambda v: fimp(X=v))
    add("BayesIMP.fit", "Y2", "matrix:10x1", lambda v: fimp(Y2=v))
    add("BayesIMP.fit", "T", "vector:10", lambda v: fimp(T=v))
    add("BayesIMP.predict", "x", "matrix:3x1", lambda v: f("imp").predict(v, return_cov=True))
    add("BayesIMP.cross_cov", "xb", "matrix:3x1", lambda v: f("imp").cross_cov(f("X1")[:2, :1], v))
    for o in ("regularization", "amplitude", "noise", "measure_scale", "lengthscale_x", "lengthscale_y"):
        add(
            "BayesIMP",
            o,
            "float",
            lambda v, o=o: BayesIMP(optimize=False, **{o: v}).fit(
                f("X1")[:, :1], f("Y1"), f("Y1")[:10], f("Y1")[:10, 0]
            ),
        )


# -- Dask entry points, the report and the command line ---------------------------------------------
NAMES = ["age", "dose", "weight"]


@functools.cache
def svr_setup() -> dict[str, Any]:
    """An RBF SVR on named columns, its explainer, and its skops file for the command line."""
    import pandas as pd
    import skops.io as sio
    from sklearn.svm import SVR

    import kexplain as kx

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=NAMES)
    y = np.sin(X["age"]) + 0.2 * X["dose"] * X["weight"]
    model = SVR(C=3.0).fit(X.to_numpy(), y.to_numpy())
    folder = Path(tempfile.mkdtemp(prefix="kexplain-fuzz-"))
    sio.dump(model, folder / "svr.skops")
    X.iloc[:6].to_csv(folder / "data.csv", index=False)
    X.iloc[10:20].to_csv(folder / "background.csv", index=False)
    X.assign(y=y).iloc[:25].to_csv(folder / "train.csv", index=False)
    return {
        "X": X.to_numpy(),
        "model": model,
        "explainer": kx.ProductKernelExplainer(model, X.to_numpy()[10:20]),
        "folder": folder,
    }


def _dask_array(v: Any) -> Any:
    """A bad value as a dask array where numpy can make an array of it (else the value itself)."""
    import dask.array as da

    try:
        a = np.asarray(v)
    except (ValueError, TypeError):
        return v
    return da.from_array(a, chunks=2) if a.ndim >= 1 and a.size else v


def _explain_dask(v: Any, arg: str) -> Any:
    from kexplain.dask import explain_dask

    s = svr_setup()
    explainer, X, kwargs = s["explainer"], _dask_array(s["X"][:6]), {}
    if arg == "explainer":
        explainer = s["model"] if isinstance(v, str) and v == "svr" else v
    elif arg == "X":
        X = _dask_array(v)
    else:
        kwargs[arg] = v
    return explain_dask(explainer, X, **kwargs).compute(scheduler="synchronous")


def _dask_on(client: Any) -> Any:
    import kexplain as kx
    from kexplain.dask import on

    X = svr_setup()["X"]
    with on(client):
        return kx.stats.mmd(X[:10], X[10:20] + 1.0)


def _report(v: Any, arg: str) -> Any:
    from kexplain.report import model_report

    s = svr_setup()
    # no figures of rows or features, no KernelSHAP timing: the inputs are checked all the same
    kwargs: dict[str, Any] = {"background": s["X"][10:20], "kernel_shap_rows": 0, "top_features": 0, "rows": ()}
    X = s["X"][:5]
    if arg == "X":
        X = v
    else:
        kwargs[arg] = v
    out = Path(tempfile.mkdtemp(prefix="kexplain-fuzz-report-"))
    return model_report(s["model"], X, out, **kwargs)["explanation"]


class CommandFailed(ValueError):
    """The command line refused its input: exit status 2 and one ``kexplain: error:`` line."""


def write_table(value: Any, path: Path, columns: list[str]) -> Path:
    """A bad value as a CSV file, as a user could have made it: the model's column names over its
    rows (more or fewer names when it has more or fewer columns), ragged rows as they are, None as
    an empty file, a scalar as one line."""
    if value is None:
        path.write_text("")
        return path
    rows = value.tolist() if isinstance(value, np.ndarray) else value
    if not isinstance(rows, list):
        path.write_text(f"{rows}\n")
        return path
    width = max((len(r) if isinstance(r, list) else 1 for r in rows), default=len(columns))
    header = (columns + [f"extra{i}" for i in range(width)])[: max(width, 1)]
    lines = [",".join(header)]
    for r in rows:
        cells = r if isinstance(r, list) else [r]
        lines.append(",".join("" if c is None else str(c) for c in cells))
    path.write_text("\n".join(lines) + "\n")
    return path


def run_command(argv: list[str], out: Path | None = None) -> Any:
    """``kexplain.cli.main(argv)``: a refusal as :class:`CommandFailed` with the error line, an
    argument the parser refuses likewise; done: the numbers of ``out`` (for the judge)."""
    import pandas as pd

    from kexplain.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse: the option's value is refused before any work
            code = exc.code if isinstance(exc.code, int) else 2
    if code != 0:
        raise CommandFailed(" ".join(err.getvalue().split()) or f"exit status {code}")
    if out is None or not out.exists():
        return code
    table = pd.read_csv(out)
    return table.select_dtypes("number").to_numpy()


def _cli(command: str, arg: str, v: Any) -> Any:
    s = svr_setup()
    folder = Path(tempfile.mkdtemp(prefix="kexplain-fuzz-cli-"))
    base = s["folder"]
    files = {"--data": base / "data.csv", "--background": base / "background.csv"}
    if command in ("oak", "star"):
        files = {"--data": base / "train.csv", "--background": base / "background.csv"}
    columns = NAMES + (["y"] if command in ("oak", "star") else [])
    options: dict[str, Any] = {}
    if arg in ("--data", "--background", "--other"):
        files[arg] = write_table(v, folder / f"{arg.strip('-')}.csv", columns)
    else:
        options[arg] = v
    out = folder / "values.csv"
    if command == "explain":
        argv = ["explain", "--model", base / "svr.skops", "--out", out]
    elif command == "report":
        argv = ["report", "--model", base / "svr.skops", "--out", folder / "r", "--compare-rows", "0", "--top", "1"]
        out = folder / "r" / "values.csv"
    elif command == "mmd":
        files.setdefault("--other", base / "background.csv")
        files.pop("--background", None)
        argv = ["mmd", "--out", out]
    elif command == "hsic":
        files.pop("--background", None)
        argv = ["hsic", "--y-columns", "weight", "--out", out]
    else:  # oak, star: fit on train.csv
        argv = [command, "--target", "y", "--out", out]
        argv += ["--max-iter", "5"] if command == "oak" else ["--n-parameters", "20"]
    for name, path in files.items():
        argv += [name, path]
    for name, value in options.items():
        argv += [name, value]
    return run_command(argv, out)


def _specs_scale_report_cli(add: Callable[..., None]) -> None:
    add("explain_dask", "explainer", "explainer", functools.partial(_explain_dask, arg="explainer"))
    add("explain_dask", "X", "matrix:6x3", functools.partial(_explain_dask, arg="X"))
    add("explain_dask", "rows_per_block", "int-or-none", functools.partial(_explain_dask, arg="rows_per_block"))
    add("explain_dask", "random_state", "random_state", functools.partial(_explain_dask, arg="random_state"))
    add("explain_dask", "client", "client", functools.partial(_explain_dask, arg="client"))
    add("kexplain.dask.on", "client", "client", _dask_on)
    add("model_report", "X", "matrix:5x3", functools.partial(_report, arg="X"))
    add("model_report", "background", "matrix:10x3", functools.partial(_report, arg="background"))
    add("model_report", "index", "vector:5", functools.partial(_report, arg="index"))
    for arg in ("top_features", "kernel_shap_rows", "table_rows"):
        add("model_report", arg, "int", functools.partial(_report, arg=arg))
    for command, args in [
        ("explain", [("--data", "matrix:6x3"), ("--background", "matrix:10x3"), ("--chunk-size", "cli-int")]),
        ("report", [("--data", "matrix:6x3"), ("--background", "matrix:10x3"), ("--top", "cli-int")]),
        ("mmd", [("--data", "matrix:6x3"), ("--other", "matrix:10x3"), ("--seed", "cli-int")]),
        ("hsic", [("--data", "matrix:6x3")]),
        ("oak", [("--data", "matrix:25x4"), ("--max-order", "cli-int")]),
        ("star", [("--data", "matrix:25x4"), ("--background", "matrix:10x3")]),
    ]:
        for arg, source in args:
            # a file is named by its option or its path (both tell the user which one); a data file
            # whose columns do not match the other file may be reported against that one (or the target)
            names: tuple[str, ...] = (arg,)
            if source.startswith("matrix"):
                names = (arg, f"{arg.strip('-')}.csv", "--background", "--other", "--target")
            add(f"kexplain {command}", arg, source, functools.partial(_cli, command, arg), names)


@functools.cache
def specs() -> tuple[Spec, ...]:
    """Every spec of this module, in a fixed order (ids ``"<entry>.<argument>"``, unique)."""
    out: list[Spec] = []

    def add(entry: str, arg: str, source: str, call: Callable[[Any], Any], names: tuple[str, ...] = ()) -> None:
        out.append(Spec(f"{entry}.{arg}", names or (arg,), source, call))

    _specs_preference(add)
    _specs_embeddings(add)
    _specs_scale_report_cli(add)
    assert len({s.id for s in out}) == len(out)
    return tuple(out)
