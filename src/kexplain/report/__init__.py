"""Self-contained HTML reports of exact Shapley values, rendered from jinja2 templates.

    import kexplain as kx
    result = kx.report.model_report(model, X_test, "report/", background=X_train[:100], rows=[0, 5])
    # report/index.html: output and game (and why), efficiency check, timings without the one-time
    # kernel load, shap's KernelExplainer timed against the exact values, shap's bar, beeswarm,
    # waterfall and dependence plots, the two games compared, a searchable table of values

    html = kx.report.render_html({"functional": ex_f, "interventional": ex_i},
                                 summary={"model": "SVR(C=10)"}, predictions=model.predict(X))

Everything (styles, the table filter script and the images as base64 PNG) is inside one file,
so it can be mailed or archived without its folder.  The page is rendered from the templates in
``kexplain/templates`` with autoescaping on, so names and labels from the data are shown as text.
Needs the extra ``report`` (jinja2, matplotlib, shap, pandas).
"""

from ._html import render_html, write_html
from ._model import model_report
from ._numbers import GAME_DESCRIPTIONS, compare_games, efficiency_errors, figure_to_png, importance_table

__all__ = [
    "GAME_DESCRIPTIONS",
    "compare_games",
    "efficiency_errors",
    "figure_to_png",
    "importance_table",
    "model_report",
    "render_html",
    "write_html",
]
