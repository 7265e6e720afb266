"""Optional dependencies, imported on demand with an error that says how to get them."""

from __future__ import annotations

import importlib
from types import ModuleType

_EXTRAS = {
    "shap": "plots",
    "matplotlib": "plots",
    "pandas": "io",
    "pyarrow": "io",
    "interpret": "star",
    "pyHSICLasso": "examples",
    "numba": "fast",
    "torch": "torch",
    "array_api_compat": "torch",
    "dask": "dask",
    "distributed": "dask",
    "jinja2": "report",
    "skops": "skops",
    "statsmodels": "preference",
    "shapiq": "shapiq",
}


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise ImportError naming the extra that installs it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"matplotlib.pyplot"``.
    purpose : str
        What needs it, for the message (``"<purpose> needs the optional package ..."``).

    Returns
    -------
    module

    Examples
    --------
    >>> from kexplain._optional import require
    >>> require("json", "reading settings").__name__
    'json'
    >>> try:
    ...     require("no_such_package_xyz", "this example")
    ... except ImportError as exc:
    ...     print(exc)
    this example needs the optional package 'no_such_package_xyz': pip install no_such_package_xyz
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = _EXTRAS.get(top)
        hint = f"pip install 'kexplain[{extra}]'" if extra else f"pip install {top}"
        raise ImportError(f"{purpose} needs the optional package '{top}': {hint}") from exc
