"""The kexplain command line, end to end through main([...]) in a temporary folder.

Every value the CLI writes is checked against the Python API on the same model and rows, and
every input error must give exit status 2 with one line on stderr (no traceback)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

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
    code = main([str(a) for a in argv])
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
    assert "functional baseline" in out and "efficiency check" in out
    assert "predict of Pipeline(StandardScaler, SVR)" in out
    ex = kx.ProductKernelExplainer(model).explain(data[0].iloc[:8])
    frame = pd.read_csv(files / "v.csv")
    assert_matches(frame, ex)
    # efficiency against the model itself, through the written file
    total = frame[NAMES].sum(axis=1) + frame["base_value"]
    np.testing.assert_allclose(total, model.predict(data[0].iloc[:8]), rtol=1e-10)


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
    assert "interventional over 15 background rows" in out
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
    assert f"baseline Shapley at row 3 of --{source}" in out
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


def test_multiclass_svc_columns(tmp_path, data, capsys):
    X, y = data
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    model = make_pipeline(StandardScaler(), SVC(C=2.0, gamma=0.3)).fit(X, labels)
    joblib.dump(model, tmp_path / "svc.joblib")
    X.iloc[:6].to_csv(tmp_path / "X.csv", index=False)
    code, _, err = run(
        ["explain", "--model", tmp_path / "svc.joblib", "--data", tmp_path / "X.csv", "--out", tmp_path / "v.csv"],
        capsys,
    )
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "v.csv")
    ex = kx.ProductKernelExplainer(model).explain(X.iloc[:6])
    assert ex.output_names == ["0 vs 1", "0 vs 2", "1 vs 2"]
    decision = model_output(model, X.iloc[:6])
    for o, out in enumerate(ex.output_names):
        cols = [f"{out}/{n}" for n in NAMES]
        np.testing.assert_allclose(frame[cols].to_numpy(), ex.values[:, :, o], rtol=1e-13, atol=1e-13)
        total = frame[cols].sum(axis=1) + frame[f"{out}/base_value"]
        np.testing.assert_allclose(total, decision[:, o], rtol=1e-10, atol=1e-12)
    assert frame.shape[1] == 3 * (4 + 1)


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
    joblib.dump(make_pipeline(StandardScaler(), SVR(kernel="poly")).fit(X, y), tmp / "poly.joblib")
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


BAD = [
    ("missing model", ["--model", "nope.joblib"], "file not found"),
    ("missing data", ["--data", "nope.csv"], "file not found"),
    ("unreadable model", ["--model", "garbage.joblib"], "cannot load a model"),
    ("unsupported kernel", ["--model", "poly.joblib"], "Supported"),
    ("not a model", ["--model", "dict.joblib"], "not supported"),
    ("unfitted", ["--model", "unfitted.joblib"], "not fitted"),
    ("renamed column", ["--data", "renamed.csv"], "missing ['dose'], unexpected ['dosage']"),
    ("reordered columns", ["--data", "reordered.csv"], "different order"),
    ("wrong column count", ["--data", "three.csv"], "has 3 columns, but the model expects 4"),
    ("saved index", ["--data", "indexed.csv"], "looks like a saved pandas index"),
    ("NaN", ["--data", "nan.csv"], "NaN or infinite values at (row 2, column 1)"),
    ("broken parquet", ["--data", "broken.parquet"], "cannot read it as PARQUET"),
    ("unknown data type", ["--data", "X.txt"], "unknown file type"),
    ("unknown out type", ["--out", "v.json"], "--out"),
    ("background columns", ["--background", "B3.csv"], "--background"),
    ("baseline row range", ["--baseline-row", "5"], "--baseline-row 5: must be a row number from 0 to 4"),
    ("negative baseline row", ["--baseline-row", "-1"], "--baseline-row -1"),
    ("interactions-out alone", ["--interactions-out", "I.csv"], "needs --interactions"),
    ("missing out folder", ["--out", "no/such/dir/v.csv"], "does not exist"),
]


@pytest.mark.parametrize("label,override,expected", BAD, ids=[b[0] for b in BAD])
def test_errors_exit_2_with_one_line(tmp_path, data, capsys, label, override, expected, monkeypatch):
    _write_bad_inputs(tmp_path, data)
    monkeypatch.chdir(tmp_path)
    joblib.dump(make_pipeline(StandardScaler(), SVR()).fit(*data), tmp_path / "good.joblib")
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


# -- the demo ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_demo_quick_writes_everything(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    code, out, err = run(["demo", "--out", out_dir, "--quick"], capsys)
    assert code == 0, err
    for name in [
        "report.html",
        "values_functional.csv",
        "values_interventional.csv",
        "heldout.csv",
        "background.csv",
        "model.joblib",
        "importance_comparison.png",
    ] + [
        f"{kind}_{game}.png" for kind in ("bar", "beeswarm", "waterfall") for game in ("functional", "interventional")
    ]:
        assert (out_dir / name).is_file(), name
        if name.endswith(".png"):
            assert (out_dir / name).read_bytes().startswith(b"\x89PNG")
    assert "efficiency (functional)" in out and "efficiency (interventional)" in out
    assert "timings:" in out
    html = (out_dir / "report.html").read_text()
    for section in (
        "id='model'",
        "id='timings'",
        "id='efficiency'",
        "id='importance'",
        "id='comparison'",
        "id='plots'",
        "CV R^2",
    ):
        assert section in html, section
    assert html.count("data:image/png;base64,") == 7
    assert "FAIL" not in html and "pass" in html
    # the demo's values reproduce with `kexplain explain` on the files it wrote
    code, _, err = run(
        [
            "explain",
            "--model",
            out_dir / "model.joblib",
            "--data",
            out_dir / "heldout.csv",
            "--background",
            out_dir / "background.csv",
            "--out",
            tmp_path / "v.csv",
        ],
        capsys,
    )
    assert code == 0, err
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "v.csv"), pd.read_csv(out_dir / "values_interventional.csv"), rtol=1e-12, atol=1e-12
    )


def test_demo_efficiency_failure_exits_1(tmp_path, capsys, monkeypatch):
    # a broken explainer must make the demo fail loudly, not write a report that looks fine
    import kexplain.report as report

    real = report.efficiency_errors
    monkeypatch.setattr(report, "efficiency_errors", lambda exs, pred: {k: (1.0, 1e-3) for k in real(exs, pred)})
    code, _, err = run(["demo", "--out", tmp_path / "demo", "--quick"], capsys)
    assert code == 1
    assert "efficiency check failed" in err
    assert not (tmp_path / "demo" / "report.html").exists()


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

    monkeypatch.setattr(pd.DataFrame, "to_csv" if kind == "csv" else "to_parquet", full_disk)
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
    (out_dir / "report.html").write_text("precious\n")
    code, _, err = run(["demo", "--out", out_dir, "--quick"], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "demo --out" in line and "report.html" in line and "--force" in line
    assert (out_dir / "report.html").read_text() == "precious\n"


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
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("pickle.load called"))
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
