"""The HTML report: sections, numbers it shows, embedded images, and bad input."""

from __future__ import annotations

import base64
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain import report  # noqa: E402


@pytest.fixture(scope="module")
def explained():
    rng = np.random.default_rng(3)
    X_ref = rng.normal(size=(25, 5))
    model = kx.KernelExpansion(
        X_ref,
        rng.normal(size=25),
        kx.kernels.RBF(lengthscale=[1.0, 2.0, 0.5, 1.5, 3.0]),
        intercept=0.3,
        feature_names=["a", "b", "c<d>", "e", "f"],
    )
    X = rng.normal(size=(12, 5))
    return (
        model,
        X,
        kx.ProductKernelExplainer(model).explain(X),
        kx.ProductKernelExplainer(model, X_ref[:10]).explain(X),
    )


def _png():
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1])
    try:
        return report.figure_to_png(fig)
    finally:
        plt.close(fig)


def test_sections_numbers_and_images(explained, tmp_path):
    model, X, ex_f, ex_i = explained
    png = _png()
    (tmp_path / "p.png").write_bytes(png)
    path = report.write_html(
        tmp_path / "r.html",
        {"functional": ex_f, "interventional": ex_i},
        title="T & <title>",
        summary={"model": "KernelExpansion", "CV R^2": 0.5},
        timings={"explain": 0.25},
        predictions=model.predict(X),
        images={"from bytes": png, "from path": tmp_path / "p.png"},
        notes=["a note"],
    )
    html = path.read_text(encoding="utf-8")
    for section in ("model", "timings", "efficiency", "importance", "comparison", "plots", "notes"):
        assert f"id='{section}'" in html, section
    # text is escaped, so feature names and titles cannot break the page
    assert "T &amp; &lt;title&gt;" in html and "c&lt;d&gt;" in html and "<title>" in html
    assert "0.250 s" in html and "a note" in html
    # two given images and the comparison chart, all decodable PNGs
    blobs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html)
    assert len(blobs) == 3
    assert all(base64.b64decode(b).startswith(b"\x89PNG") for b in blobs)
    assert base64.b64decode(blobs[1]) == png
    assert html.count("class='ok'>pass") == 2 and "FAIL" not in html
    # the importance table lists the features in the order of the first explanation's importance
    order = [ex_f.feature_names[j] for j in np.argsort(-np.abs(ex_f.values).mean(axis=0), kind="stable")]
    shown = re.findall(r"<tr><td>\d+</td><td>([^<]*)</td>", html)
    assert [s.replace("&lt;", "<").replace("&gt;", ">") for s in shown] == order


def test_efficiency_failure_is_marked(explained):
    model, X, ex_f, ex_i = explained
    wrong = model.predict(X) + np.r_[0.0, 1e-3, np.zeros(len(X) - 2)]
    html = report.render_html({"functional": ex_f}, predictions=wrong, comparison_chart=False)
    assert "FAIL" in html
    errors = report.efficiency_errors({"functional": ex_f}, wrong)
    assert errors["functional"][0] == pytest.approx(1e-3, rel=1e-6)


def test_efficiency_errors_values(explained):
    model, X, ex_f, ex_i = explained
    errors = report.efficiency_errors({"f": ex_f, "i": ex_i}, model.predict(X))
    for abs_err, rel_err in errors.values():
        assert abs_err < 1e-12 and rel_err <= abs_err
    with pytest.raises(ValueError, match="predictions has shape"):
        report.efficiency_errors({"f": ex_f}, model.predict(X)[:3])


def test_without_predictions_uses_full_coalition_value(explained):
    _, _, ex_f, _ = explained
    html = report.render_html(ex_f)
    assert "the value of the full coalition" in html and "class='ok'>pass" in html
    assert "id='comparison'" not in html  # one explanation: nothing to compare


def test_compare_games(explained):
    _, _, ex_f, ex_i = explained
    same = report.compare_games(ex_f, ex_f)
    assert same["importance rank correlation (Spearman)"] == pytest.approx(1.0)
    assert same["max |difference| of values"] == 0.0 and same["same most important feature"]
    diff = report.compare_games(ex_f, ex_i)
    assert diff["max |difference| of values"] == pytest.approx(np.max(np.abs(ex_f.values - ex_i.values)))
    assert diff["max |difference| of base values"] == pytest.approx(np.max(np.abs(ex_f.base_values - ex_i.base_values)))
    assert -1.0 <= diff["correlation of all values (Pearson)"] <= 1.0


def test_importance_table(explained):
    _, _, ex_f, ex_i = explained
    names, labels, mat = report.importance_table({"f": ex_f, "i": ex_i})
    assert labels == ["f", "i"]
    assert np.all(np.diff(mat[:, 0]) <= 0)
    j = ex_f.feature_names.index(names[0])
    assert mat[0, 1] == pytest.approx(np.abs(ex_i.values[:, j]).mean())


def test_multi_output_importance_averages_outputs():
    rng = np.random.default_rng(4)
    model = kx.KernelExpansion(rng.normal(size=(10, 3)), rng.normal(size=(10, 2)), kx.kernels.RBF(1.0))
    ex = kx.ProductKernelExplainer(model).explain(rng.normal(size=(4, 3)))
    _, _, mat = report.importance_table(ex)
    assert sorted(mat[:, 0]) == pytest.approx(sorted(np.abs(ex.values).mean(axis=(0, 2))))
    assert "averaged over outputs" in report.render_html(ex)


def test_bad_input(explained):
    _, _, ex_f, _ = explained
    with pytest.raises(ValueError, match="explanations must be"):
        report.render_html({})
    with pytest.raises(TypeError, match="explanations\\['x'\\] must be a kexplain.Explanation"):
        report.render_html({"x": np.zeros((2, 2))})
    with pytest.raises(ValueError, match="same points and features"):
        report.render_html({"a": ex_f, "b": ex_f[:3]})
    with pytest.raises(ValueError, match="images\\['x'\\] is not a PNG"):
        report.render_html(ex_f, images={"x": b"GIF89a"})
    with pytest.raises(TypeError, match="images\\['x'\\] must be PNG bytes or a path"):
        report.render_html(ex_f, images={"x": 3})
