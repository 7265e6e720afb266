"""The HTML report: jinja2 templates with autoescaping, the numbers it shows, figures, a user model."""

from __future__ import annotations

import base64
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain import report  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")

NAMES = ["a", "<b>x</b>", "c<d>", "e", "f"]


@pytest.fixture(scope="module")
def explained():
    rng = np.random.default_rng(3)
    X_ref = rng.normal(size=(25, 5))
    model = kx.KernelExpansion(
        X_ref,
        rng.normal(size=25),
        kx.kernels.RBF(lengthscale=[1.0, 2.0, 0.5, 1.5, 3.0]),
        intercept=0.3,
        feature_names=NAMES,
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


def test_sections_numbers_figures_and_escaping(explained, tmp_path):
    model, X, ex_f, ex_i = explained
    png = _png()
    (tmp_path / "p.png").write_bytes(png)
    path = report.write_html(
        tmp_path / "r.html",
        {"functional": ex_f, "interventional": ex_i},
        title="T & <title>",
        summary={"model": "<script>alert(1)</script>", "CV R^2": 0.5},
        why={"functional": "no --background given"},
        timings={"explain": 0.25},
        predictions=model.predict(X),
        figures={"Plots": {"from bytes": png, "from <path>": tmp_path / "p.png"}},
        speed=[
            {"method": "kexplain (exact)", "rows": 2, "seconds": 0.01, "max_error": 0.0, "note": "a & b"},
            {"method": "shap KernelExplainer", "rows": 2, "seconds": 1.0, "max_error": 1e-9},
        ],
        notes=["a note"],
    )
    html = path.read_text(encoding="utf-8")
    for section in ("explained", "model", "timings", "efficiency", "speed", "importance", "comparison", "values"):
        assert f'id="{section}"' in html, section
    assert 'id="fig-plots"' in html and 'id="notes"' in html
    # autoescaping: names, titles and labels from the data are text, never markup
    assert "T &amp; &lt;title&gt;" in html and "&lt;b&gt;x&lt;/b&gt;" in html and "c&lt;d&gt;" in html
    assert "<b>x</b>" not in html and "<script>alert" not in html and "from &lt;path&gt;" in html
    assert "a &amp; b" in html and "no --background given" in html
    assert "0.250 s" in html and "a note" in html and "500.00" in html  # ms per row of shap
    assert "took 100 times less time" in html
    blobs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html)
    assert len(blobs) == 2 and all(base64.b64decode(b) == png for b in blobs)
    assert html.count('class="ok">pass') == 2 and "FAIL" not in html
    # the importance table lists the features in the order of the first explanation's importance
    order = [ex_f.feature_names[j] for j in np.argsort(-np.abs(ex_f.values).mean(axis=0), kind="stable")]
    section = html[html.index('id="importance"') : html.index('id="comparison"')]
    shown = re.findall(r'<td class="feature">([^<]*)</td>', section)
    unescape = {"&lt;": "<", "&gt;": ">", "&#34;": '"', "&#39;": "'", "&amp;": "&"}
    for k, v in unescape.items():
        shown = [s.replace(k, v) for s in shown]
    assert shown == order
    # the searchable table: one row per explained row, with prediction = base + sum of values, and its filter
    table = html[html.index('id="values-table"') :]
    assert table.count("<tr><td>") == len(X) and 'id="filter"' in html and "addEventListener" in html


def test_efficiency_failure_is_marked(explained):
    model, X, ex_f, _ = explained
    wrong = model.predict(X) + np.r_[0.0, 1e-3, np.zeros(len(X) - 2)]
    html = report.render_html({"functional": ex_f}, predictions=wrong)
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
    html = report.render_html(ex_f, table_rows=0)
    assert "the value of the full coalition" in html and 'class="ok">pass' in html
    assert 'id="comparison"' not in html and 'id="values"' not in html  # one explanation, no table


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


def test_multi_output_importance_averages_outputs_and_table_names_outputs():
    rng = np.random.default_rng(4)
    model = kx.KernelExpansion(rng.normal(size=(10, 3)), rng.normal(size=(10, 2)), kx.kernels.RBF(1.0))
    ex = kx.ProductKernelExplainer(model).explain(rng.normal(size=(4, 3)))
    _, _, mat = report.importance_table(ex)
    assert sorted(mat[:, 0]) == pytest.approx(sorted(np.abs(ex.values).mean(axis=(0, 2))))
    html = report.render_html(ex)
    assert "averaged over outputs" in html
    assert html[html.index('id="values-table"') :].count("<tr><td>") == 4 * 2
    # each output also gets its own importance table, ordered by its own mean |value|
    section = html[html.index('<section id="importance">') : html.index("</section>", html.index('id="importance"'))]
    for o, name in enumerate(ex.output_names):
        assert f'<h3 class="output-importance">Output {name}</h3>' in section
        names, _, own = report.importance_table(ex, output=o)
        order = np.argsort(-np.abs(ex.values[:, :, o]).mean(axis=0), kind="stable")
        assert names == [ex.feature_names[j] for j in order]
        table = section[section.index(f"Output {name}</h3>") :]
        assert table.index(names[0]) < table.index(names[-1])


def test_bad_input(explained):
    _, _, ex_f, _ = explained
    with pytest.raises(ValueError, match="explanations must be"):
        report.render_html({})
    with pytest.raises(TypeError, match="explanations\\['x'\\] must be a kexplain.Explanation"):
        report.render_html({"x": np.zeros((2, 2))})
    with pytest.raises(ValueError, match="same points and features"):
        report.render_html({"a": ex_f, "b": ex_f[:3]})
    with pytest.raises(ValueError, match="figures\\['x'\\] is not a PNG"):
        report.render_html(ex_f, figures={"s": {"x": b"GIF89a"}})
    with pytest.raises(TypeError, match="figures\\['x'\\] must be PNG bytes or a path"):
        report.render_html(ex_f, figures={"s": {"x": 3}})


def test_templates_ship_with_the_package_and_autoescape():
    from kexplain.report._html import _environment

    env = _environment()
    assert env.autoescape is True
    assert env.from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"
    for name in ("report.html", "report.css", "report.js"):
        assert env.get_template(name) is not None


@pytest.mark.slow
def test_model_report_for_a_user_model(tmp_path):
    from sklearn.svm import SVR

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["age", "<b>x</b>", "dose/kg"])
    model = SVR(C=3.0).fit(X, np.sin(X["age"]) + X["dose/kg"])
    result = report.model_report(
        model,
        X.iloc[:8],
        tmp_path / "rep",
        background=X.iloc[20:30],
        rows=[0, 3],
        interactions=True,
        kernel_shap_rows=2,
        top_features=1,
        index=[f"id{i}" for i in range(8)],
    )
    ex = result["explanation"]
    assert ex.game == "interventional" and result["other"].game == "functional"
    np.testing.assert_allclose(ex.predictions, model.predict(X.iloc[:8]), rtol=1e-10)
    exact, kernel = result["speed"]
    assert kernel["method"] == "shap KernelExplainer" and kernel["max_error"] < 1e-6  # 3 features: enumerated
    assert "first call (one-time load or compilation of kernels)" in result["timings"]
    html = result["report"].read_text()
    for section in ("explained", "efficiency", "timings", "speed", "importance", "comparison", "values"):
        assert f'id="{section}"' in html, section
    for heading in ("Global importance (shap", "Waterfall plots", "Dependence plots", "Interaction heatmap"):
        assert heading in html, heading
    assert html.count("<figure>") == 2 + 1 + 2 + 1 + 1 and "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "interventional game: a background was given (10 rows)" in html and "row id3" in html
    values = pd.read_csv(result["values"])
    assert list(values.columns[:4]) == ["row", "output", "feature", "value"] and len(values) == 8 * 3
    assert set(values["feature"]) == {"age", "<b>x</b>", "dose/kg"}
