"""Links from our pages into numpy's, scipy's, scikit-learn's, pandas', shap's, joblib's and shapiq's docs.

Intersphinx would do this from each project's ``objects.inv``, but the machines that build these
docs reach PyPI only, so the inventories cannot be fetched.  Instead, a reference that Sphinx
cannot resolve inside this site (``numpy.ndarray``, ``sklearn.svm.SVC.fit``, ``shap.plots.bar``,
also spelled ``np.``/``pd.``) is checked against the installed package (the name must import, so
no link points at a page that does not exist) and linked by the URL scheme of that project's API
reference.  Names that do not import stay code, as before.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from docutils import nodes

ALIASES = {"np": "numpy", "pd": "pandas", "sp": "scipy"}

# project -> (URL of an object's page, with {page} the dotted name of the documented object;
#             whether methods and attributes have pages of their own (else: an anchor on the
#             class's page))
SCHEMES: dict[str, tuple[str, bool]] = {
    "numpy": ("https://numpy.org/doc/stable/reference/generated/{page}.html", True),
    "scipy": ("https://docs.scipy.org/doc/scipy/reference/generated/{page}.html", True),
    "sklearn": ("https://scikit-learn.org/stable/modules/generated/{page}.html", False),
    "pandas": ("https://pandas.pydata.org/docs/reference/api/{page}.html", True),
    "shap": ("https://shap.readthedocs.io/en/latest/generated/{page}.html", False),
    "joblib": ("https://joblib.readthedocs.io/en/stable/generated/{page}.html", False),
    # shapiq's page names have moved between releases: link its API index, not a guessed page
    "shapiq": ("https://shapiq.readthedocs.io/en/latest/api.html", False),
}


def _lookup(dotted: str) -> tuple[Any, Any] | None:
    """Import the longest module prefix of ``dotted`` and walk the rest; (object, owner class)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        owner = None
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return None
            owner = obj if inspect.isclass(obj) else owner
            obj = getattr(obj, attr)
        return obj, owner
    return None


def external_url(target: str) -> str | None:
    """The URL of ``target``'s page in its project's docs, or None when it is not one of theirs."""
    head, _, rest = target.partition(".")
    head = ALIASES.get(head, head)
    if head not in SCHEMES:
        return None
    dotted = f"{head}.{rest}" if rest else head
    found = _lookup(dotted)
    if found is None:
        return None
    obj, owner = found
    pattern, member_pages = SCHEMES[head]
    if "{page}" not in pattern:
        return pattern
    if owner is None and not (inspect.isclass(obj) or callable(obj)):
        # modules and module-level data (a dict, a constant) have no page of their own
        return None
    if owner is not None and not member_pages:
        # a method or attribute: an anchor on its class's page
        cls = dotted.rsplit(".", 1)[0]
        return pattern.format(page=cls) + "#" + dotted
    return pattern.format(page=dotted) + "#" + dotted


def _missing_reference(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    url = external_url(node.get("reftarget", ""))
    if url is None:
        return None
    ref = nodes.reference("", "", internal=False, refuri=url, reftitle=node["reftarget"])
    ref.append(contnode)
    return ref


def setup(app: Any) -> dict[str, Any]:
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
