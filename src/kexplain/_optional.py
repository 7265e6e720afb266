"""Optional dependencies, imported on demand with an error that says how to get them.

:func:`compiled_or_none` loads compiled (numba) code on demand: once, and None where it cannot.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache, wraps
from types import ModuleType
from typing import Any

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
    "gpytorch": "gpytorch",
    "botorch": "botorch",
}


def require(module: str, purpose: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` or raise ImportError naming the extra that installs it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"matplotlib.pyplot"``.
    purpose : str
        What needs it, for the message (``"<purpose> needs the optional package ..."``).
    extra : str, optional
        The extra to name in the message, where the feature needs more than the package's own
        extra (``kexplain demo`` needs ``report``, not only ``plots``); by default the extra that
        installs ``module``.

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
        extra = extra or _EXTRAS.get(top)
        hint = f"pip install 'kexplain[{extra}]'" if extra else f"pip install {top}"
        raise ImportError(f"{purpose} needs the optional package '{top}': {hint}") from exc


def compiled_or_none(load: Callable[[], Any]) -> Callable[[], Any]:
    """``load`` as a cached loader of compiled (numba) code that gives None where it cannot be loaded.

    numba is optional and its import is slow, so each compiled module (``_*_numba.py``) is imported
    on first use, once: the first call runs ``load`` and every later call returns its result.  Where
    ``load`` raises (numba missing, or unusable here, e.g. without a cache location) the loader
    gives None, and the caller takes its numpy path, which gives the same numbers.  Tests replace a
    loader by ``lambda: None`` (``mock.patch.object`` on its module) to run the numpy path, and
    ``loader.cache_clear()`` forgets the result.

    Parameters
    ----------
    load : callable
        Imports the compiled module and returns what the caller needs from it (or None).

    Returns
    -------
    callable
        The loader: no arguments, ``load``'s result or None, cached.

    Examples
    --------
    >>> from kexplain._optional import compiled_or_none
    >>> @compiled_or_none
    ... def _compiled_pass():
    ...     from no_such_package_xyz import fast_pass
    ...     return fast_pass
    >>> _compiled_pass() is None
    True
    """

    @lru_cache(maxsize=1)
    @wraps(load)
    def loader() -> Any:
        try:
            return load()
        except Exception:  # numba missing or unusable here: the numpy passes give the same numbers
            return None

    return loader
