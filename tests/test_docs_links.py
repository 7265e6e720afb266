"""Links out of our docs into numpy's, scikit-learn's, shap's ... (docs/_ext/external_links.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))

from external_links import external_url  # noqa: E402

SK = "https://scikit-learn.org/stable/modules/generated/"


@pytest.mark.parametrize(
    ("target", "url"),
    [
        ("numpy.ndarray", "https://numpy.org/doc/stable/reference/generated/numpy.ndarray.html#numpy.ndarray"),
        # the np. alias is the same page
        (
            "np.linalg.cholesky",
            "https://numpy.org/doc/stable/reference/generated/numpy.linalg.cholesky.html#numpy.linalg.cholesky",
        ),
        ("sklearn.svm.SVC", SK + "sklearn.svm.SVC.html#sklearn.svm.SVC"),
        # scikit-learn documents methods on the class's page
        ("sklearn.svm.SVC.fit", SK + "sklearn.svm.SVC.html#sklearn.svm.SVC.fit"),
        ("shap.plots.bar", "https://shap.readthedocs.io/en/latest/generated/shap.plots.bar.html#shap.plots.bar"),
        # pandas gives methods their own pages
        (
            "pd.DataFrame.to_csv",
            "https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.to_csv.html#pandas.DataFrame.to_csv",
        ),
        ("shapiq.InteractionValues", "https://shapiq.readthedocs.io/en/latest/api.html"),
    ],
)
def test_names_that_import_link_to_their_projects_page(target, url):
    assert external_url(target) == url


@pytest.mark.parametrize(
    "target",
    [
        "numpy.no_such_function",  # does not import: no dead link
        "sklearn.svm",  # a module
        "sklearn.metrics.pairwise.PAIRWISE_KERNEL_FUNCTIONS",  # module-level data has no page
        "kexplain.Explanation",  # ours: Sphinx resolves it, never this hook
        "os.path.join",  # not a project we link
    ],
)
def test_everything_else_stays_code(target):
    assert external_url(target) is None
