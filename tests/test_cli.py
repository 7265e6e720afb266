"""The kexplain command line, end to end through main([...]) in a temporary folder.

Every value the CLI writes is checked against the Python API on the same model and rows, and
every input error must give exit status 2 with one line on stderr (no traceback)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import re  # noqa: E402

import joblib  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC, SVR  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain.cli import main  # noqa: E402
from kexplain.models import model_output  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")

NAMES = ["age", "dose", "weight", "score"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(60, 4)) * [1.0, 3.0, 10.0, 0.5] + [0, 1, 50, 0], columns=NAMES)
    y = np.sin(X["age"]) + 0.1 * X["dose"] * X["score"] + 0.01 * X["weight"]
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def model_path(tmp_path_factory, data):
    X, y = data
    model = make_pipeline(StandardScaler(), SVR(C=3.0, gamma=0.2)).fit(X, y)
    path = tmp_path_factory.mktemp("m") / "svr.joblib"
    joblib.dump(model, path)
    return path, model


@pytest.fixture
def files(tmp_path, data):
    X, _ = data
    X.iloc[:8].to_csv(tmp_path / "X.csv", index=False)
    X.iloc[:8].to_parquet(tmp_path / "X.parquet", index=False)
    X.iloc[20:35].to_csv(tmp_path / "B.csv", index=False)
    return tmp_path


def run(argv, capsys):
    argv = [str(a) for a in argv]
    # these tests write their models with joblib; the CLI loads such a file only with --allow-pickle
    if any(a.lower().endswith((".joblib", ".pkl")) for a in argv) and "--allow-pickle" not in argv:
        argv.append("--allow-pickle")
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_matches(frame, ex, names=NAMES):
    assert list(frame.columns) == list(names) + ["base_value"]
    np.testing.assert_allclose(frame[names].to_numpy(), ex.values, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(frame["base_value"].to_numpy(), ex.base_values, rtol=1e-13, atol=1e-13)


def test_functional_csv_matches_python_api(model_path, files, data, capsys):
    path, model = model_path
    code, out, err = run(["explain", "--model", path, "--data", files / "X.csv", "--out", files / "v.csv"], capsys)
    assert code == 0, err
    assert "functional-baseline game: no --background given" in out and "efficiency check" in out
    assert "predict of Pipeline(StandardScaler, SVR)" in out
    ex = kx.ProductKernelExplainer(model).explain(data[0].iloc[:8])
    frame = pd.read_csv(files / "v.csv")
    assert_matches(frame, ex)
    # efficiency against the model itself, through the written file
    total = frame[NAMES].sum(axis=1) + frame["base_value"]
    np.testing.assert_allclose(total, model.predict(data[0].iloc[:8]), rtol=1e-10)


def test_polynomial_kernel_model(tmp_path, files, data, capsys):
    """A Pipeline ending in SVR(kernel="poly") is explained exactly through the polynomial route."""
    X, y = data
    model = make_pipeline(StandardScaler(), SVR(kernel="poly", degree=3, coef0=1.0)).fit(X, y)
    path = tmp_path / "poly.joblib"
    joblib.dump(model, path)
    argv = ["explain", "--model", path, "--data", files / "X.csv", "--background", files / "B.csv"]
    code, out, err = run([*argv, "--out", tmp_path / "v.csv"], capsys)
    assert code == 0, err
    ex = kx.ProductKernelExplainer(model, X.iloc[20:35]).explain(X.iloc[:8])
    frame = pd.read_csv(tmp_path / "v.csv")
    assert_matches(frame, ex)
    total = frame[NAMES].sum(axis=1) + frame["base_value"]
    np.testing.assert_allclose(total, model.predict(X.iloc[:8]), rtol=1e-10)


def test_parquet_in_and_out_interventional(model_path, files, data, capsys):
    path, model = model_path
    code, out, err = run(
        [
            "explain",
            "--model",
            path,
            "--data",
            files / "X.parquet",
            "--background",
            files / "B.csv",
            "--out",
            files / "v.parquet",
            "--progress",
        ],
        capsys,
    )
    assert code == 0, err
    assert "interventional game: --background given (15 rows" in out
    X = data[0]
    ex = kx.ProductKernelExplainer(model, X.iloc[20:35]).explain(X.iloc[:8])
    assert_matches(pd.read_parquet(files / "v.parquet"), ex)


@pytest.mark.parametrize("source", ["data", "background"])
def test_baseline_row(model_path, files, data, capsys, source):
    path, model = model_path
    X = data[0]
    argv = ["explain", "--model", path, "--data", files / "X.csv", "--baseline-row", 3, "--out", files / "v.csv"]
    if source == "background":
        argv += ["--background", files / "B.csv"]
        z = X.iloc[23]
    else:
        z = X.iloc[3]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "--baseline-row 3 given" in out and f"row 3 of --{source}" in out
    ex = kx.ProductKernelExplainer(model, baseline=z.to_numpy()).explain(X.iloc[:8])
    frame = pd.read_csv(files / "v.csv")
    assert_matches(frame, ex)
    np.testing.assert_allclose(
        frame["base_value"], model.predict(X.iloc[[3 if source == "data" else 23]])[0], rtol=1e-10
    )


def test_interactions_long_file(model_path, files, data, capsys):
    path, model = model_path
    code, out, err = run(
        [
            "explain",
            "--model",
            path,
            "--data",
            files / "X.csv",
            "--background",
            files / "B.csv",
            "--interactions",
            "--out",
            files / "v.csv",
        ],
        capsys,
    )
    assert code == 0, err
    inter = pd.read_csv(files / "v.interactions.csv")
    assert list(inter.columns) == ["row", "output", "feature_1", "feature_2", "value"]
    assert len(inter) == 8 * 4 * 4
    X = data[0]
    ex = kx.ProductKernelExplainer(model, X.iloc[20:35]).explain(X.iloc[:8], interactions=True)
    cube = inter.pivot_table(index=["row", "feature_1"], columns="feature_2", values="value")
    cube = cube.reindex(columns=NAMES).reindex(pd.MultiIndex.from_product([range(8), NAMES]))
    np.testing.assert_allclose(cube.to_numpy().reshape(8, 4, 4), ex.interactions, rtol=1e-12, atol=1e-13)
    # shap's convention: each row of the matrix sums to the feature's Shapley value
    values = pd.read_csv(files / "v.csv")[NAMES].to_numpy()
    np.testing.assert_allclose(cube.to_numpy().reshape(8, 4, 4).sum(axis=2), values, rtol=1e-10, atol=1e-12)


def test_interactions_index_option(model_path, files, data, capsys):
    import json

    from kexplain.cli import build_parser

    path, model = model_path
    parse = build_parser().parse_args
    base = ["--model", "m", "--data", "X.csv", "--out", "v"]
    for command in ("explain", "report"):
        assert parse([command, *base]).interactions is False
        assert parse([command, *base, "--interactions"]).interactions == "sii"
        assert parse([command, "--interactions", *base]).interactions == "sii"  # no value: sii
        assert parse([command, *base, "--interactions", "STII"]).interactions == "stii"
    argv = _explain_argv(path, files / "X.csv", files / "v.csv", "--background", files / "B.csv")
    code, out, err = run(argv + ["--interactions", "stii", "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["interaction_index"] == "stii"
    X = data[0]
    ex = kx.ProductKernelExplainer(model, X.iloc[20:35]).explain(X.iloc[:8], interactions="stii")
    inter = pd.read_csv(files / "v.interactions.csv")
    cube = inter.pivot_table(index=["row", "feature_1"], columns="feature_2", values="value")
    cube = cube.reindex(columns=NAMES).reindex(pd.MultiIndex.from_product([range(8), NAMES]))
    np.testing.assert_allclose(cube.to_numpy().reshape(8, 4, 4), ex.interactions, rtol=1e-12, atol=1e-13)
    sii = kx.ProductKernelExplainer(model, X.iloc[20:35]).explain(X.iloc[:8], interactions=True).interactions
    assert not np.allclose(ex.interactions, sii)  # the option changes the index
    code, out, _ = run(argv + ["--interactions", "--force"], capsys)
    assert code == 0 and "interactions (sii) ->" in out
    with pytest.raises(SystemExit) as info:
        run(argv + ["--interactions", "bii", "--force"], capsys)
    err = capsys.readouterr().err
    assert info.value.code == 2 and "invalid choice: 'bii'" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "extra,expected", [([], False), (["--interactions"], "sii"), (["--interactions", "stii"], "stii")]
)
def test_report_passes_the_interaction_index(model_path, files, capsys, monkeypatch, extra, expected):
    import kexplain.report

    seen = {}

    class Stop(Exception):
        pass

    def fake_report(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(kexplain.report, "model_report", fake_report)
    with pytest.raises(Stop):
        main(
            [
                "report",
                "--model",
                str(model_path[0]),
                "--allow-pickle",
                "--data",
                str(files / "X.csv"),
                "--out",
                str(files / "r"),
                *extra,
            ]
        )
    assert seen["interactions"] == expected


def test_interactions_out_path_and_long_layout(model_path, files, data, capsys):
    path, model = model_path
    code, _, err = run(
        [
            "explain",
            "--model",
            path,
            "--data",
            files / "X.csv",
            "--interactions",
            "--interactions-out",
            files / "I.parquet",
            "--layout",
            "long",
            "--out",
            files / "v.csv",
        ],
        capsys,
    )
    assert code == 0, err
    assert (files / "I.parquet").is_file()
    long = pd.read_csv(files / "v.csv")
    assert list(long.columns) == ["row", "output", "feature", "value", "base_value"]
    ex = kx.ProductKernelExplainer(model).explain(data[0].iloc[:8])
    np.testing.assert_allclose(long["value"].to_numpy().reshape(8, 4), ex.values, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(long.groupby("row")["base_value"].first(), ex.base_values, rtol=1e-13)


def test_headerless_csv_and_model_without_names(tmp_path, data, capsys):
    X, y = data
    Xa = X.to_numpy()
    model = SVR(C=2.0, gamma=0.05).fit(Xa, y)  # fitted on an array: no feature_names_in_
    joblib.dump(model, tmp_path / "m.joblib")
    np.savetxt(tmp_path / "X.csv", Xa[:5], delimiter=",")
    code, _, err = run(
        ["explain", "--model", tmp_path / "m.joblib", "--data", tmp_path / "X.csv", "--out", tmp_path / "v.csv"], capsys
    )
    assert code == 0, err
    ex = kx.ProductKernelExplainer(model).explain(Xa[:5])
    assert_matches(pd.read_csv(tmp_path / "v.csv"), ex, names=["x0", "x1", "x2", "x3"])
    # with a header, the header names the columns
    X.iloc[:5].to_csv(tmp_path / "H.csv", index=False)
    code, _, err = run(
        ["explain", "--model", tmp_path / "m.joblib", "--data", tmp_path / "H.csv", "--out", tmp_path / "h.csv"], capsys
    )
    assert code == 0, err
    assert_matches(pd.read_csv(tmp_path / "h.csv"), ex)


def test_headerless_csv_with_named_model(model_path, tmp_path, data, capsys):
    path, model = model_path
    np.savetxt(tmp_path / "X.csv", data[0].to_numpy()[:4], delimiter=",")
    code, _, err = run(["explain", "--model", path, "--data", tmp_path / "X.csv", "--out", tmp_path / "v.csv"], capsys)
    assert code == 0, err
    assert_matches(pd.read_csv(tmp_path / "v.csv"), kx.ProductKernelExplainer(model).explain(data[0].iloc[:4]))


def test_multiclass_svc_long_layout_round_trips_names_with_a_slash(tmp_path, data, capsys):
    X, y = data
    X = X.rename(columns={"dose": "dose/kg", "score": "a/b/c"})
    names = list(X.columns)
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    model = make_pipeline(StandardScaler(), SVC(C=2.0, gamma=0.3, decision_function_shape="ovo")).fit(X, labels)
    joblib.dump(model, tmp_path / "svc.joblib")
    X.iloc[:6].to_csv(tmp_path / "X.csv", index=False)
    argv = ["explain", "--model", tmp_path / "svc.joblib", "--data", tmp_path / "X.csv", "--out", tmp_path / "v.csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "long layout" in out
    frame = pd.read_csv(tmp_path / "v.csv")
    assert list(frame.columns) == ["row", "output", "feature", "value", "base_value"]
    ex = kx.ProductKernelExplainer(model).explain(X.iloc[:6])
    assert set(frame["feature"]) == set(names)
    cube = frame.pivot_table(index=["row", "output"], columns="feature", values="value")[names]
    decision = model_output(model, X.iloc[:6])
    for o, name in enumerate(ex.output_names):
        block = cube.xs(name, level="output").to_numpy()
        np.testing.assert_allclose(block, ex.values[:, :, o], rtol=1e-13, atol=1e-13)
        base = frame[frame["output"] == name].groupby("row")["base_value"].first().to_numpy()
        np.testing.assert_allclose(block.sum(axis=1) + base, decision[:, o], rtol=1e-10, atol=1e-12)
    # a wide table of several outputs would be ambiguous: refused with the way out
    code, _, err = run(argv + ["--layout", "wide", "--force"], capsys)
    assert code == 2 and "--layout long" in _one_error_line(err)


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"kexplain {kx.__version__}"


def test_missing_required_option_is_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["explain", "--data", "X.csv", "--out", "v.csv"])
    assert info.value.code == 2
    assert "--model" in capsys.readouterr().err


# -- every input error: exit status 2, one line on stderr ---------------------------------------
def _write_bad_inputs(tmp, data):
    X, y = data
    X.iloc[:5].to_csv(tmp / "X.csv", index=False)
    (tmp / "garbage.joblib").write_bytes(b"this is not a pickle")
    # (polynomial kernels are explained exactly now; sigmoid is not)
    joblib.dump(make_pipeline(StandardScaler(), SVR(kernel="sigmoid")).fit(X, y), tmp / "poly.joblib")
    joblib.dump(SVR(), tmp / "unfitted.joblib")
    joblib.dump({"not": "a model"}, tmp / "dict.joblib")
    X.iloc[:5].rename(columns={"dose": "dosage"}).to_csv(tmp / "renamed.csv", index=False)
    X.iloc[:5][NAMES[::-1]].to_csv(tmp / "reordered.csv", index=False)
    X.iloc[:5, :3].to_csv(tmp / "three.csv", index=False)
    bad = X.iloc[:5].copy()
    bad.iloc[2, 1] = np.nan
    bad.to_csv(tmp / "nan.csv", index=False)
    (tmp / "broken.parquet").write_bytes(b"not parquet")
    X.iloc[:5, :3].to_csv(tmp / "B3.csv", index=False)
    X.iloc[:5].to_csv(tmp / "indexed.csv")
    X.iloc[:5].assign(patient_id=range(5)).to_csv(tmp / "extra.csv", index=False)
    X.iloc[:5].assign(patient_id=range(5), site="a").to_csv(tmp / "extra2.csv", index=False)
    X.iloc[:5].to_parquet(tmp / "X.parquet", index=False)
    text = X.iloc[:5].astype(object)
    text.iloc[1, 2] = "heavy"
    text.to_csv(tmp / "text.csv", index=False)
    np.savetxt(tmp / "wide_noheader.csv", np.c_[X.to_numpy()[:5], np.ones(5)], delimiter=",")
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    joblib.dump(make_pipeline(StandardScaler(), SVC(decision_function_shape="ovo")).fit(X, labels), tmp / "svc.joblib")


BAD = [
    ("missing model", ["--model", "nope.joblib"], "file not found"),
    ("missing data", ["--data", "nope.csv"], "file not found"),
    ("unreadable model", ["--model", "garbage.joblib"], "cannot load a model"),
    ("unsupported kernel", ["--model", "poly.joblib"], "Supported"),
    ("not a model", ["--model", "dict.joblib"], "not supported"),
    ("unfitted", ["--model", "unfitted.joblib"], "not fitted"),
    ("renamed column", ["--data", "renamed.csv"], "missing model feature(s) 'dose'; columns 'dosage' are not model"),
    ("extra column", ["--data", "extra.csv"], "'patient_id' is not a model feature; pass --id-column patient_id"),
    ("two extra columns", ["--data", "extra2.csv"], "columns 'patient_id', 'site' are not model features"),
    ("missing column", ["--data", "three.csv"], "missing model feature(s) 'score'"),
    ("saved index", ["--data", "indexed.csv"], "looks like a saved pandas index"),
    ("NaN", ["--data", "nan.csv"], "column 'dose' has a missing, NaN or infinite value in row 2"),
    ("text", ["--data", "text.csv"], "column 'weight' holds text ('heavy' in row 1)"),
    ("no id column", ["--id-column", "nope"], "has no column 'nope' (--id-column)"),
    ("wide multi-output", ["--layout", "wide", "--model", "svc.joblib"], "Use --layout long"),
    ("chunked parquet out", ["--chunk-size", "2", "--out", "v.parquet"], "--chunk-size appends to CSV files"),
    ("chunked parquet in", ["--chunk-size", "2", "--data", "X.parquet"], "--chunk-size streams CSV files"),
    ("zero chunk", ["--chunk-size", "0"], "--chunk-size 0: must be a positive number"),
    ("headerless too many", ["--data", "wide_noheader.csv"], "has 5 columns, but the model expects 4"),
    ("broken parquet", ["--data", "broken.parquet"], "cannot read it as PARQUET"),
    ("unknown data type", ["--data", "X.txt"], "unknown file type"),
    ("unknown out type", ["--out", "v.json"], "--out"),
    ("background columns", ["--background", "B3.csv"], "--background"),
    ("baseline row range", ["--baseline-row", "5"], "--baseline-row 5: must be a row number from 0 to 4"),
    ("negative baseline row", ["--baseline-row", "-1"], "--baseline-row -1"),
    ("interactions-out alone", ["--interactions-out", "I.csv"], "needs --interactions"),
    ("missing out folder", ["--out", "no/such/dir/v.csv"], "does not exist"),
]


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("bad")
    _write_bad_inputs(folder, data)
    joblib.dump(make_pipeline(StandardScaler(), SVR()).fit(*data), folder / "good.joblib")
    return folder


@pytest.mark.parametrize("label,override,expected", BAD, ids=[b[0] for b in BAD])
def test_errors_exit_2_with_one_line(bad_inputs, capsys, label, override, expected, monkeypatch):
    tmp_path = bad_inputs
    monkeypatch.chdir(tmp_path)
    opts = {"--model": "good.joblib", "--data": "X.csv", "--out": "v.csv"}
    extra = []
    for key, value in zip(override[::2], override[1::2]):
        if key in opts:
            opts[key] = value
        else:
            extra += [key, value]
    argv = ["explain"] + [x for kv in opts.items() for x in kv] + extra
    code, out, err = run(argv, capsys)
    assert code == 2, (label, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kexplain: error: "), err
    assert expected in lines[0], lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "v.csv").exists()


def test_traceback_flag_reraises(tmp_path):
    with pytest.raises(Exception, match="file not found"):
        main(
            [
                "--traceback",
                "explain",
                "--model",
                str(tmp_path / "nope.joblib"),
                "--data",
                "X.csv",
                "--out",
                str(tmp_path / "v.csv"),
            ]
        )


# -- the demo: the report on bundled data ---------------------------------------------------------
@pytest.mark.slow
def test_demo_quick_writes_the_report_and_files_that_reproduce_it(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    code, out, err = run(["demo", "--out", out_dir, "--quick"], capsys)
    assert code == 0, err
    for name in ("index.html", "values.csv", "heldout.csv", "background.csv", "model.skops"):
        assert (out_dir / name).is_file(), name
    assert "efficiency (interventional)" in out and "KernelExplainer" in out
    html = (out_dir / "index.html").read_text()
    for section in ("model", "explained", "timings", "efficiency", "speed", "importance", "comparison", "values"):
        assert f'id="{section}"' in html, section
    assert "CV R^2" in html and "FAIL" not in html and "pass" in html
    assert "not counted above" in html  # the one-time kernel load is shown apart
    # the demo's values reproduce with `kexplain explain` on the files it wrote (a safe .skops model)
    argv = ["explain", "--model", out_dir / "model.skops", "--data", out_dir / "heldout.csv"]
    argv += ["--background", out_dir / "background.csv", "--layout", "long", "--out", tmp_path / "v.csv"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    mine = pd.read_csv(tmp_path / "v.csv")
    theirs = pd.read_csv(out_dir / "values.csv")
    np.testing.assert_allclose(mine["value"], theirs["value"], rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_demo_efficiency_failure_exits_1(tmp_path, capsys, monkeypatch):
    # a broken explainer must make the demo fail loudly, not leave a report that looks fine
    import kexplain.report as report

    real = report.efficiency_errors
    monkeypatch.setattr(report, "efficiency_errors", lambda exs, pred: {k: (1.0, 1e-3) for k in real(exs, pred)})
    code, _, err = run(["demo", "--out", tmp_path / "demo", "--quick"], capsys)
    assert code == 1
    assert "efficiency check failed" in err
    assert not (tmp_path / "demo" / "index.html").exists()


# -- issue 11 #15: never overwrite silently; every file error names its option -------------------
def _explain_argv(model, data, out, *extra):
    return ["explain", "--model", model, "--data", data, "--out", out, *extra]


def _one_error_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kexplain: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_out_refuses_to_overwrite_an_existing_file_without_force(model_path, files, data, capsys):
    path, model = model_path
    out = files / "v.csv"
    out.write_text("precious\n")
    code, _, err = run(_explain_argv(path, files / "X.csv", out), capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "--out" in line and "already exists" in line and "--force" in line
    assert out.read_text() == "precious\n"
    # --force overwrites, with the right values
    code, _, err = run(_explain_argv(path, files / "X.csv", out, "--force"), capsys)
    assert code == 0, err
    assert_matches(pd.read_csv(out), kx.ProductKernelExplainer(model).explain(data[0].iloc[:8]))


def test_existing_interactions_file_is_refused_before_anything_is_written(model_path, files, capsys):
    path, _ = model_path
    (files / "v.interactions.csv").write_text("precious\n")
    code, _, err = run(_explain_argv(path, files / "X.csv", files / "v.csv", "--interactions"), capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "--interactions-out" in line and "already exists" in line and "--force" in line
    assert not (files / "v.csv").exists()
    assert (files / "v.interactions.csv").read_text() == "precious\n"
    code, _, err = run(_explain_argv(path, files / "X.csv", files / "v.csv", "--interactions", "--force"), capsys)
    assert code == 0, err
    assert len(pd.read_csv(files / "v.interactions.csv")) == 8 * 4 * 4


@pytest.mark.parametrize("spelling", ["same", "dotted"])
@pytest.mark.parametrize("force", [False, True])
def test_interactions_out_equal_to_out_is_refused(model_path, files, capsys, monkeypatch, spelling, force):
    path, _ = model_path
    monkeypatch.chdir(files)
    inter = "v.csv" if spelling == "same" else "./sub/../v.csv"
    (files / "sub").mkdir()
    argv = _explain_argv(path, "X.csv", "v.csv", "--interactions", "--interactions-out", inter)
    code, _, err = run(argv + (["--force"] if force else []), capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "--interactions-out" in line and "--out" in line and "same file" in line
    assert not (files / "v.csv").exists()


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("option", ["--out", "--interactions-out"])
def test_output_path_that_is_a_directory_names_the_option(model_path, files, capsys, option, force):
    path, _ = model_path
    (files / "dir.csv").mkdir()
    opts = {"--out": files / "v.csv", "--interactions-out": files / "I.csv"}
    opts[option] = files / "dir.csv"
    argv = _explain_argv(path, files / "X.csv", opts["--out"], "--interactions", "--interactions-out")
    argv += [opts["--interactions-out"]] + (["--force"] if force else [])
    code, _, err = run(argv, capsys)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith(f"kexplain: error: {option} ") and "is a directory" in line, line


@pytest.mark.parametrize("option", ["--out", "--interactions-out"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_write_failure_names_the_option_and_leaves_no_partial_file(
    model_path, files, capsys, monkeypatch, option, kind
):
    import errno

    path, _ = model_path
    target = {"--out": "v", "--interactions-out": "I"}[option] + f".{kind}"
    real = {"csv": pd.DataFrame.to_csv, "parquet": pd.DataFrame.to_parquet}[kind]

    def full_disk(frame, where, *args, **kwargs):
        if str(where).endswith(target):  # the temporary file keeps the name's ending
            with open(where, "w") as fh:  # a partial write, then the disk is full
                fh.write("par")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(frame, where, *args, **kwargs)

    if kind == "csv":
        monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    else:  # Parquet outputs are streamed a row group at a time through pyarrow's ParquetWriter
        import pyarrow.parquet as pq

        real_write = pq.ParquetWriter.write_table

        def full_disk_parquet(writer, table, *args, **kwargs):
            if str(writer.where).endswith(target):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real_write(writer, table, *args, **kwargs)

        monkeypatch.setattr(pq.ParquetWriter, "write_table", full_disk_parquet)
    argv = _explain_argv(path, files / "X.csv", files / f"v.{kind}", "--interactions", "--interactions-out")
    code, _, err = run(argv + [files / f"I.{kind}"], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith(f"kexplain: error: {option} ") and "No space left on device" in line, line
    assert not (files / target).exists()
    assert not [p.name for p in files.iterdir() if "kexplain" in p.name]  # no temporary left behind


@pytest.mark.parametrize("option", ["--data", "--background", "--model"])
def test_input_path_that_is_a_directory_names_the_option(model_path, files, capsys, option):
    path, _ = model_path
    (files / "dir.csv").mkdir()
    (files / "dir.joblib").mkdir()
    opts = {"--model": path, "--data": files / "X.csv", "--background": files / "B.csv"}
    opts[option] = files / ("dir.joblib" if option == "--model" else "dir.csv")
    argv = _explain_argv(opts["--model"], opts["--data"], files / "v.csv", "--background", opts["--background"])
    code, _, err = run(argv, capsys)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith(f"kexplain: error: {option} ") and "is a directory" in line, line


@pytest.mark.parametrize("option", ["--data", "--background", "--model"])
def test_read_failure_names_the_option(model_path, files, capsys, monkeypatch, option):
    import errno

    path, _ = model_path
    import joblib as joblib_module

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    if option == "--model":
        monkeypatch.setattr(joblib_module, "load", denied)
    else:
        real = pd.read_csv
        name = "X.csv" if option == "--data" else "B.csv"
        monkeypatch.setattr(pd, "read_csv", lambda p, *a, **k: denied() if str(p).endswith(name) else real(p, *a, **k))
    argv = _explain_argv(path, files / "X.csv", files / "v.csv", "--background", files / "B.csv")
    code, _, err = run(argv, capsys)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith(f"kexplain: error: {option} ") and "Permission denied" in line, line


def test_demo_out_that_is_a_file_names_the_option(tmp_path, capsys):
    (tmp_path / "demo").write_text("a file, not a folder\n")
    code, _, err = run(["demo", "--out", tmp_path / "demo", "--quick"], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith("kexplain: error: demo --out ") and "not a folder" in line, line
    assert (tmp_path / "demo").read_text() == "a file, not a folder\n"


def test_demo_refuses_to_overwrite_an_earlier_run_without_force(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    out_dir.mkdir()
    (out_dir / "index.html").write_text("precious\n")
    code, _, err = run(["demo", "--out", out_dir, "--quick"], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "demo --out" in line and "index.html" in line and "--force" in line
    assert (out_dir / "index.html").read_text() == "precious\n"


def test_demo_write_failure_names_the_option(tmp_path, capsys, monkeypatch):
    import errno

    def full_disk(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    code, _, err = run(["demo", "--out", tmp_path / "demo", "--quick"], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith("kexplain: error: demo --out ") and "No space left on device" in line, line


# -- issue 11 #16: a model file is code; the CLI loads only the one it is given ----------------
class _Payload:
    """Unpickling this runs ``exec(code)``: what any pickle can do."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


def _evil_pickle(path, marker):
    import pickle

    path.write_bytes(pickle.dumps(_Payload(f"open({str(marker)!r}, 'w').write('payload ran')")))


def test_loading_the_model_file_the_user_names_runs_its_pickle_payload(tmp_path, data, capsys):
    # documents the behaviour (pickle is code): the payload runs before the type is refused,
    # which is why --help warns to load only trusted model files
    marker = tmp_path / "marker.txt"
    _evil_pickle(tmp_path / "evil.pkl", marker)
    data[0].iloc[:3].to_csv(tmp_path / "X.csv", index=False)
    code, _, err = run(_explain_argv(tmp_path / "evil.pkl", tmp_path / "X.csv", tmp_path / "v.csv"), capsys)
    assert code == 2
    assert "not supported" in _one_error_line(err)
    assert marker.read_text() == "payload ran"
    assert not (tmp_path / "v.csv").exists()


def test_help_warns_that_a_model_file_runs_code(capsys):
    for argv in (["--help"], ["explain", "--help"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "WARNING" in text and "runs code" in text and "trust" in text, argv
    import kexplain.cli

    assert "only model files you trust" in " ".join(kexplain.cli.__doc__.split())


def test_cli_never_loads_a_model_file_it_was_not_given(model_path, tmp_path, data, capsys, monkeypatch):
    import pickle

    import joblib as joblib_module

    path, model = model_path
    marker = tmp_path / "marker.txt"
    # booby-trapped files where a careless CLI might look: the working directory, next to the data
    monkeypatch.chdir(tmp_path)
    for name in ("model.joblib", "model.pkl", "X.joblib", "X.pkl", "v.joblib", "kexplain.pkl"):
        _evil_pickle(tmp_path / name, marker)
    data[0].iloc[:4].to_csv(tmp_path / "X.csv", index=False)
    data[0].iloc[20:30].to_csv(tmp_path / "B.csv", index=False)
    loaded = []
    real_load = joblib_module.load

    def spy(filename, *args, **kwargs):
        loaded.append(str(filename))
        return real_load(filename, *args, **kwargs)

    monkeypatch.setattr(joblib_module, "load", spy)
    real_pickle_load = pickle.load

    def pickle_spy(file, *args, **kwargs):
        # numba's on-disk cache of compiled kernels is read with pickle.load too: only files of
        # this folder (the booby traps) must never be unpickled
        if str(getattr(file, "name", "")).startswith(str(tmp_path)):
            pytest.fail(f"pickle.load called on {file.name}")
        return real_pickle_load(file, *args, **kwargs)

    monkeypatch.setattr(pickle, "load", pickle_spy)
    monkeypatch.setattr(pd, "read_pickle", lambda *a, **k: pytest.fail("pandas.read_pickle called"))
    code, _, err = run(
        _explain_argv(path, "X.csv", "v.csv", "--background", "B.csv", "--interactions", "--layout", "long"), capsys
    )
    assert code == 0, err
    assert loaded == [str(path)]
    # a missing --model is an error, never a fall-back to a model file found elsewhere
    loaded.clear()
    code, _, err = run(_explain_argv("missing.joblib", "X.csv", "w.csv"), capsys)
    assert code == 2 and "file not found" in err
    with pytest.raises(SystemExit):
        main(["explain", "--data", "X.csv", "--out", "w.csv"])
    assert loaded == []
    assert not marker.exists()


# -- issue 12: columns by name, row ids, streaming, JSON, skops ----------------------------------
def test_columns_are_matched_by_name_in_any_order(model_path, files, data, capsys):
    path, model = model_path
    X = data[0]
    X.iloc[:8][NAMES[::-1]].to_csv(files / "R.csv", index=False)
    code, _, err = run(["explain", "--model", path, "--data", files / "R.csv", "--out", files / "v.csv"], capsys)
    assert code == 0, err
    assert_matches(pd.read_csv(files / "v.csv"), kx.ProductKernelExplainer(model).explain(X.iloc[:8]))


@pytest.mark.parametrize("layout", ["wide", "long"])
def test_id_column_passes_through(model_path, files, data, capsys, layout):
    path, model = model_path
    X = data[0]
    ids = [f"p{i:03d}" for i in range(8)]
    X.iloc[:8].assign(patient_id=ids)[["patient_id", *NAMES]].to_csv(files / "I.csv", index=False)
    argv = ["explain", "--model", path, "--data", files / "I.csv", "--id-column", "patient_id"]
    argv += ["--background", files / "B.csv", "--layout", layout, "--interactions", "--out", files / "v.csv"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    frame = pd.read_csv(files / "v.csv")
    ex = kx.ProductKernelExplainer(model, X.iloc[20:35]).explain(X.iloc[:8])
    assert frame.columns[0] == "patient_id"
    if layout == "wide":
        assert list(frame["patient_id"]) == ids
        assert_matches(frame.drop(columns="patient_id"), ex)
    else:
        assert list(frame["patient_id"].unique()) == ids
        np.testing.assert_allclose(frame["value"].to_numpy().reshape(8, 4), ex.values, rtol=1e-13, atol=1e-13)
    inter = pd.read_csv(files / "v.interactions.csv")
    assert list(inter.columns[:2]) == ["patient_id", "output"] and list(inter["patient_id"].unique()) == ids


@pytest.mark.parametrize("layout", ["wide", "long"])
def test_chunked_streaming_equals_one_pass(model_path, files, data, capsys, layout):
    path, _ = model_path
    X = data[0]
    X.iloc[:23].assign(pid=np.arange(100, 123))[["pid", *NAMES]].to_csv(files / "big.csv", index=False)
    base = ["explain", "--model", path, "--data", files / "big.csv", "--background", files / "B.csv"]
    base += ["--id-column", "pid", "--interactions", "--layout", layout]
    code, _, err = run(base + ["--out", files / "one.csv"], capsys)
    assert code == 0, err
    code, out, err = run(base + ["--out", files / "chunks.csv", "--chunk-size", "5", "--progress"], capsys)
    assert code == 0, err
    assert "kexplain explain" in err and "Traceback" not in err  # the progress bar, on stderr
    # the bar counts the rows read so far (no total: the file is not read a second time to size it)
    assert re.search(r"kexplain explain: 23row \[", err), err
    assert "23 rows" in out
    pd.testing.assert_frame_equal(pd.read_csv(files / "one.csv"), pd.read_csv(files / "chunks.csv"), rtol=1e-12)
    pd.testing.assert_frame_equal(
        pd.read_csv(files / "one.interactions.csv"), pd.read_csv(files / "chunks.interactions.csv"), rtol=1e-12
    )
    assert not [p.name for p in files.iterdir() if "kexplain-tmp" in p.name]


def test_chunked_streaming_without_ids_numbers_rows_across_chunks(model_path, files, data, capsys):
    path, model = model_path
    data[0].iloc[:7].to_csv(files / "seven.csv", index=False)
    argv = ["explain", "--model", path, "--data", files / "seven.csv", "--layout", "long", "--chunk-size", "3"]
    code, _, err = run(argv + ["--baseline-row", "5", "--out", files / "v.csv"], capsys)
    assert code == 0, err
    frame = pd.read_csv(files / "v.csv")
    assert list(frame["row"].unique()) == list(range(7))
    ex = kx.ProductKernelExplainer(model, baseline=data[0].iloc[5].to_numpy()).explain(data[0].iloc[:7])
    np.testing.assert_allclose(frame["value"].to_numpy().reshape(7, 4), ex.values, rtol=1e-12, atol=1e-13)


def test_format_json_is_one_parseable_object(model_path, files, capsys):
    import json

    path, _ = model_path
    argv = ["explain", "--model", path, "--data", files / "X.csv", "--background", files / "B.csv"]
    code, out, err = run(argv + ["--out", files / "v.csv", "--format", "json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["command"] == "explain" and summary["rows"] == 8 and summary["features"] == NAMES
    assert summary["game"] == "interventional" and "--background given" in summary["game_reason"]
    assert summary["output"] == "predict of Pipeline(StandardScaler, SVR)" and summary["layout"] == "wide"
    assert summary["efficiency_error"] < 1e-10


class _Doubler:
    """A type skops does not trust (defined in a test module)."""

    def __init__(self):
        self.factor = 2.0


def test_skops_model_files_load_safely(model_path, files, data, capsys):
    import skops.io as sio

    path, model = model_path
    sio.dump(model, files / "m.skops")
    argv = ["explain", "--model", files / "m.skops", "--data", files / "X.csv", "--out", files / "v.csv"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert_matches(pd.read_csv(files / "v.csv"), kx.ProductKernelExplainer(model).explain(data[0].iloc[:8]))
    # a Gaussian process: its kernels are trusted by kexplain (not by skops' defaults)
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF

    gp = GaussianProcessRegressor(RBF(2.0), optimizer=None).fit(data[0].iloc[:30], data[1][:30])
    sio.dump(gp, files / "gp.skops")
    code, _, err = run(
        ["explain", "--model", files / "gp.skops", "--data", files / "X.csv", "--out", files / "g.csv"], capsys
    )
    assert code == 0, err
    # an untrusted type is refused by name, before anything is built; --trust lets it through
    sio.dump({"model": _Doubler()}, files / "odd.skops")
    argv = ["explain", "--model", files / "odd.skops", "--data", files / "X.csv", "--out", files / "o.csv"]
    code, _, err = run(argv, capsys)
    line = _one_error_line(err)
    assert code == 2 and "does not trust" in line and "_Doubler" in line and "--trust" in line
    trusted = sio.get_untrusted_types(file=files / "odd.skops")
    code, _, err = run(argv + [x for t in trusted for x in ("--trust", t)], capsys)
    assert code == 2 and "not supported" in _one_error_line(err)  # loaded, then refused as a model


# -- the other commands ----------------------------------------------------------------------------
@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(5)
    n = 40
    frame = pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(n)],
            "a": rng.normal(size=n) + np.repeat([0.0, 2.0], n // 2),
            "b": rng.normal(size=n),
            "g": np.repeat(["ctrl", "treated"], n // 2),
        }
    )
    frame["y"] = np.sin(frame["a"]) + 0.5 * frame["b"]
    frame.to_csv(tmp_path / "d.csv", index=False)
    return tmp_path, frame


def test_mmd_with_a_group_column_and_with_two_files(table, capsys):
    import json

    folder, frame = table
    argv = ["mmd", "--data", folder / "d.csv", "--group-column", "g", "--drop", "id,y", "--format", "json"]
    code, out, err = run(argv + ["--out", folder / "att.csv"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    X, Z = frame[frame.g == "ctrl"][["a", "b"]], frame[frame.g == "treated"][["a", "b"]]
    att = kx.stats.mmd_shapley(X, Z)
    assert summary["features"] == ["a", "b"] and summary["rows"] == [20, 20]
    np.testing.assert_allclose(summary["values"], att.values, rtol=1e-12)
    assert summary["total"] == pytest.approx(att.total, rel=1e-12)
    assert list(pd.read_csv(folder / "att.csv")["feature"]) == ["a", "b"]
    X.to_csv(folder / "x.csv", index=False)
    Z[["b", "a"]].to_csv(folder / "z.csv", index=False)  # columns matched by name
    code, out, err = run(
        ["mmd", "--data", folder / "x.csv", "--other", folder / "z.csv", "--test", "--permutations", "30"], capsys
    )
    assert code == 0, err
    assert "MMD^2 =" in out and "permutation test: p =" in out and "p = " in out.splitlines()[2]


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["--group-column", "id", "--drop", "y"], "must hold exactly two groups, found 40"),
        (["--group-column", "nope"], "has no column 'nope' (--group-column)"),
        (["--group-column", "g"], "column 'id' does not hold numbers"),
        ([], "mmd needs a second sample"),
    ],
)
def test_mmd_errors(table, capsys, argv, expected):
    folder, _ = table
    code, _, err = run(["mmd", "--data", folder / "d.csv", *argv], capsys)
    assert code == 2 and expected in _one_error_line(err)


def test_hsic_columns_and_files(table, capsys):
    import json

    folder, frame = table
    argv = ["hsic", "--data", folder / "d.csv", "--y-columns", "y", "--drop", "id,g", "--format", "json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    summary = json.loads(out)
    att = kx.stats.hsic_shapley(frame[["a", "b"]], frame[["y"]])
    assert summary["x_columns"] == ["a", "b"] and summary["y_columns"] == ["y"]
    np.testing.assert_allclose(summary["attribution"]["x"]["values"], att.values, rtol=1e-12)
    frame[["y"]].to_csv(folder / "y.csv", index=False)
    code, out, err = run(["hsic", "--data", folder / "d.csv", "--x-columns", "a,b", "--y", folder / "y.csv"], capsys)
    assert code == 0, err and "HSIC =" in out
    code, _, err = run(["hsic", "--data", folder / "d.csv", "--y-columns", "nope"], capsys)
    assert code == 2 and "has no column(s) 'nope'" in _one_error_line(err)


def test_oak_prints_sobol_indices_and_writes_local_values(table, capsys):
    import json

    folder, frame = table
    argv = ["oak", "--data", folder / "d.csv", "--target", "y", "--id-column", "id", "--drop", "g"]
    code, out, err = run(argv + ["--max-iter", "5", "--out", folder / "v.csv", "--format", "json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["features"] == ["a", "b"] and summary["game"] == "anova"
    assert sum(summary["shapley"]) == pytest.approx(summary["variance"], rel=1e-9)
    values = pd.read_csv(folder / "v.csv")
    assert list(values.columns) == ["id", "a", "b", "base_value"] and list(values["id"]) == list(frame["id"])
    code, _, err = run(["oak", "--data", folder / "d.csv", "--target", "nope"], capsys)
    assert code == 2 and "has no column 'nope' (--target)" in _one_error_line(err)


def test_star_fits_and_explains_exactly(table, capsys):
    folder, frame = table
    argv = ["star", "--data", folder / "d.csv", "--target", "y", "--id-column", "id", "--drop", "g"]
    code, out, err = run(
        argv + ["--n-parameters", "40", "--out", folder / "v.csv", "--save-model", folder / "s.skops"], capsys
    )
    assert code == 0, err
    assert "interventional game over 40 random rows of --data" in out
    values = pd.read_csv(folder / "v.csv")
    import skops.io as sio

    est = sio.load(folder / "s.skops", trusted=sio.get_untrusted_types(file=folder / "s.skops"))
    total = values[["a", "b"]].sum(axis=1) + values["base_value"]
    np.testing.assert_allclose(total, est.predict(frame[["a", "b"]]), rtol=1e-9, atol=1e-10)


@pytest.mark.slow
def test_report_command_writes_a_page(model_path, files, data, capsys):
    import json

    path, _ = model_path
    X = data[0]
    X.iloc[:6].assign(pid=[f"<i>{i}</i>" for i in range(6)]).to_csv(files / "I.csv", index=False)
    argv = ["report", "--model", path, "--data", files / "I.csv", "--background", files / "B.csv"]
    argv += ["--id-column", "pid", "--rows", "0,2", "--compare-rows", "1", "--top", "1", "--out", files / "rep"]
    code, out, err = run(argv + ["--format", "json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["game"] == "interventional" and summary["efficiency"]["interventional"]["relative"] < 1e-10
    assert summary["kernel_explainer"][1]["method"] == "shap KernelExplainer"
    html = (files / "rep" / "index.html").read_text()
    assert "&lt;i&gt;2&lt;/i&gt;" in html and "<i>2</i>" not in html  # ids are escaped
    assert "interventional game: --background given" in html and html.count("<figure>") == 1 + 1 + 2 + 1 + 1
    code, _, err = run(argv, capsys)  # the folder holds a report now
    assert code == 2 and "--force" in _one_error_line(err)
    code, _, err = run(argv[:-2] + ["--rows", "9", "--out", files / "rep2"], capsys)
    assert code == 2 and "--rows" in _one_error_line(err)


@pytest.mark.slow  # a fresh interpreter importing kexplain: about 5 s on the shared machine
def test_console_script_help_lists_every_command():
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(sys.executable).parent / "kexplain"
    res = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    for command in ("explain", "report", "mmd", "hsic", "oak", "star", "demo"):
        assert command in res.stdout
    assert "skops" in res.stdout and "runs code" in " ".join(res.stdout.split())


def test_chunked_error_names_the_row_of_the_file_and_leaves_no_output(model_path, files, data, capsys):
    path, _ = model_path
    bad = data[0].iloc[:9].copy()
    bad.iloc[7, 2] = np.nan
    bad.to_csv(files / "late_nan.csv", index=False)
    argv = ["explain", "--model", path, "--data", files / "late_nan.csv", "--chunk-size", "3", "--out", files / "v.csv"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "column 'weight' has a missing, NaN or infinite value in row 7" in _one_error_line(err)
    assert not (files / "v.csv").exists() and not [p.name for p in files.iterdir() if "kexplain-tmp" in p.name]


def test_mmd_no_standardize_uses_raw_features_for_the_bandwidth(table, capsys):
    import json

    folder, frame = table
    frame = frame.assign(b=frame["b"] * 1000.0)
    frame.to_csv(folder / "scaled.csv", index=False)
    argv = ["mmd", "--data", folder / "scaled.csv", "--group-column", "g", "--drop", "id,y", "--format", "json"]
    code, out, err = run(argv + ["--no-standardize"], capsys)
    assert code == 0, err
    X, Z = frame[frame.g == "ctrl"][["a", "b"]], frame[frame.g == "treated"][["a", "b"]]
    np.testing.assert_allclose(
        json.loads(out)["values"], kx.stats.mmd_shapley(X, Z, standardize=False).values, rtol=1e-12
    )


@pytest.mark.parametrize("test", [False, True])
def test_hsic_no_standardize_uses_raw_features_for_the_bandwidth(table, capsys, test):
    import json

    folder, frame = table
    frame = frame.assign(b=frame["b"] * 1000.0)
    frame.to_csv(folder / "scaled.csv", index=False)
    argv = ["hsic", "--data", folder / "scaled.csv", "--y-columns", "y", "--drop", "id,g", "--format", "json"]
    argv += ["--test", "--permutations", "19"] if test else []
    X, Y = frame[["a", "b"]], frame[["y"]]
    fn = kx.stats.hsic_test if test else kx.stats.hsic_shapley
    opts = {"n_permutations": 19, "random_state": 0} if test else {}
    for extra, standardize in (([], True), (["--no-standardize"], False)):
        code, out, err = run(argv + extra, capsys)
        assert code == 0, err
        ref = fn(X, Y, standardize=standardize, **opts)
        att = ref.attribution if test else ref
        np.testing.assert_allclose(json.loads(out)["attribution"]["x"]["values"], att.values, rtol=1e-12)
        if test:
            assert json.loads(out)["p_value"] == ref.p_value
    raw = kx.stats.hsic_shapley(X, Y, standardize=False).values
    assert not np.allclose(raw, kx.stats.hsic_shapley(X, Y).values)  # the option matters on these data


def test_demo_format_json_summary(tmp_path, capsys, monkeypatch):
    import json

    import kexplain.cli._demo as demo

    ex = kx.Explanation(np.array([[1.0, -0.5]]), 2.0, feature_names=["a", "b"], game="interventional", output="p")
    fake = {
        "explanation": ex,
        "efficiency": {"interventional": (1e-15, 1e-16)},
        "speed": [{"rows": 1, "seconds": 0.001, "max_error": 0.0}, {"rows": 1, "seconds": 0.5, "max_error": 1e-9}],
        "timings": {"explain": 0.001},
        "report": tmp_path / "index.html",
        "values": tmp_path / "values.csv",
    }
    monkeypatch.setattr(
        demo, "run_demo", lambda *a, **k: {"result": fake, "cv_r2": 0.5, "test_r2": 0.4, "total_seconds": 1.0}
    )
    code, out, err = run(["demo", "--out", tmp_path, "--format", "json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["command"] == "demo" and summary["game"] == "interventional" and summary["cv_r2"] == 0.5
    assert summary["kernel_explainer"][1]["seconds"] == 0.5
