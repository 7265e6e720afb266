"""Files and tables of the command line: reading rows, loading a model, writing values."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation

_CSV_SUFFIXES = (".csv", ".csv.gz")
_PARQUET_SUFFIXES = (".parquet", ".pq")


class CLIError(Exception):
    """An input problem of the command line, reported as one line on stderr with exit status 2.

    Examples
    --------
    >>> from kexplain.cli import CLIError, read_table
    >>> try:
    ...     read_table("rows.txt")
    ... except CLIError as exc:
    ...     print(exc)
    --data rows.txt: unknown file type; use .csv, .csv.gz, .parquet or .pq.
    """


def _kind(path: Path, option: str) -> str:
    """``"csv"`` or ``"parquet"`` from the file name, else a CLIError naming ``option``."""
    name = path.name.lower()
    if name.endswith(_CSV_SUFFIXES):
        return "csv"
    if name.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    raise CLIError(f"{option} {path}: unknown file type; use .csv, .csv.gz, .parquet or .pq.")


def _csv_has_header(path: Path) -> bool:
    """Whether the first line of a CSV file holds anything that is not a number."""
    with gzip.open(path, "rt", newline="") if path.name.lower().endswith(".gz") else open(path, newline="") as fh:
        first = next(csv.reader(fh), None)
    if not first:
        return True
    for field in first:
        try:
            float(field)
        except ValueError:
            return True
    return False


def read_table(path: str | Path, option: str = "--data") -> Any:
    """Read a CSV or Parquet file into a DataFrame.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq`` file.  A CSV whose first line is all
        numbers is read as having no header and gets integer column labels.
    option : str
        The command-line option the file came from, named in error messages.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    CLIError
        For an unknown extension, a missing file or one that cannot be parsed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kexplain.cli import read_table
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "rows.csv").write_text("1.5,2\\n3,4\\n")
    >>> read_table(folder / "rows.csv")
         0  1
    0  1.5  2
    1  3.0  4
    """
    path = Path(path)
    kind = _kind(path, option)
    if not path.is_file():
        raise CLIError(f"{option} {path}: file not found.")
    pd = require("pandas", "reading CSV and Parquet files")
    try:
        if kind == "parquet":
            require("pyarrow", "reading Parquet files")
            return pd.read_parquet(path)
        header = 0 if _csv_has_header(path) else None
        return pd.read_csv(path, header=header)
    except ImportError:
        raise
    except Exception as exc:  # pandas raises many types for malformed files
        raise CLIError(f"{option} {path}: cannot read it as {kind.upper()}: {exc}") from None


def write_table(frame: Any, path: str | Path, option: str = "--out") -> Path:
    """Write a DataFrame to a CSV or Parquet file chosen by the extension, without the index.

    Floats are written with ``repr``, so the values read back exactly.

    Parameters
    ----------
    frame : pandas.DataFrame
    path : str or Path
        A ``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq`` file in an existing folder.
    option : str
        The command-line option the path came from, named in error messages.

    Returns
    -------
    Path
        The path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from kexplain.cli import write_table
    >>> path = write_table(pd.DataFrame({"a": [0.1]}), pathlib.Path(tempfile.mkdtemp()) / "v.csv")
    >>> print(path.read_text().strip())
    a
    0.1
    """
    path = Path(path)
    kind = _kind(path, option)
    if path.parent and not path.parent.exists():
        raise CLIError(f"{option} {path}: folder {path.parent} does not exist.")
    if kind == "parquet":
        require("pyarrow", "writing Parquet files")
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def load_model(path: str | Path) -> Any:
    """Load a model saved with ``joblib.dump``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    object
        The unpickled model.

    Raises
    ------
    CLIError
        When the file is missing or does not unpickle.

    Examples
    --------
    >>> import tempfile, pathlib, joblib
    >>> from sklearn.svm import SVR
    >>> from kexplain.cli import load_model
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "m.joblib"
    >>> _ = joblib.dump(SVR(C=2.0), path)
    >>> load_model(path)
    SVR(C=2.0)
    """
    path = Path(path)
    if not path.is_file():
        raise CLIError(f"--model {path}: file not found.")
    import joblib

    try:
        return joblib.load(path)
    except Exception as exc:  # unpickling can fail in many ways; all mean "not a usable model file"
        raise CLIError(f"--model {path}: cannot load a model from it ({type(exc).__name__}: {exc}).") from None


def values_frame(explanation: Explanation, layout: str = "wide") -> Any:
    """The table of Shapley values that ``kexplain explain`` writes.

    Parameters
    ----------
    explanation : Explanation
    layout : {"wide", "long"}
        ``wide``: one row per explained row, one column per feature and a ``base_value`` column
        (``"<output>/<feature>"`` and ``"<output>/base_value"`` with several outputs);
        ``long``: columns ``row, output, feature, value, base_value``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.cli import values_frame
    >>> ex = kx.Explanation(np.array([[1.0, -0.5]]), 2.0, feature_names=["a", "b"])
    >>> values_frame(ex)
         a    b  base_value
    0  1.0 -0.5         2.0
    >>> values_frame(ex, "long")
       row output feature  value  base_value
    0    0   f(x)       a    1.0         2.0
    1    0   f(x)       b   -0.5         2.0
    """
    pd = require("pandas", "writing Shapley values")
    ex = explanation
    vals = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    base = ex.base_values if ex.base_values.ndim == 2 else ex.base_values[:, None]
    names, outs = list(ex.feature_names), list(ex.output_names)
    N, d, n_out = vals.shape
    if layout == "wide":
        cols = {}
        for o, out in enumerate(outs):
            prefix = "" if n_out == 1 else f"{out}/"
            for j, name in enumerate(names):
                cols[f"{prefix}{name}"] = vals[:, j, o]
            cols[f"{prefix}base_value"] = base[:, o]
        if len(cols) != n_out * (d + 1):
            raise CLIError("feature names are not unique (or one is 'base_value'); cannot write a wide table.")
        return pd.DataFrame(cols)
    if layout == "long":
        return pd.DataFrame(
            {
                "row": np.repeat(np.arange(N), n_out * d),
                "output": np.tile(np.repeat(np.asarray(outs, dtype=object), d), N),
                "feature": np.tile(np.asarray(names, dtype=object), N * n_out),
                "value": vals.transpose(0, 2, 1).reshape(-1),
                "base_value": np.repeat(base.reshape(-1), d),
            }
        )
    raise CLIError(f"--layout must be 'wide' or 'long', got {layout!r}.")


def interactions_frame(explanation: Explanation) -> Any:
    """Long table of pairwise interaction values: ``row, output, feature_1, feature_2, value``.

    Parameters
    ----------
    explanation : Explanation
        Explained with ``interactions=True``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.cli import interactions_frame
    >>> inter = np.array([[[1.0, 0.25], [0.25, -0.5]]])
    >>> ex = kx.Explanation(inter.sum(axis=2), 0.0, feature_names=["a", "b"], interactions=inter)
    >>> interactions_frame(ex)
       row output feature_1 feature_2  value
    0    0   f(x)         a         a   1.00
    1    0   f(x)         a         b   0.25
    2    0   f(x)         b         a   0.25
    3    0   f(x)         b         b  -0.50
    """
    pd = require("pandas", "writing interaction values")
    inter = explanation.interactions
    if inter is None:
        raise ValueError("this explanation has no interaction values (explain with interactions=True).")
    inter = inter if inter.ndim == 4 else inter[..., None]
    N, d, _, n_out = inter.shape
    names = np.asarray(explanation.feature_names, dtype=object)
    return pd.DataFrame(
        {
            "row": np.repeat(np.arange(N), n_out * d * d),
            "output": np.tile(np.repeat(np.asarray(explanation.output_names, dtype=object), d * d), N),
            "feature_1": np.tile(np.repeat(names, d), N * n_out),
            "feature_2": np.tile(names, N * n_out * d),
            "value": inter.transpose(0, 3, 1, 2).reshape(-1),
        }
    )


def _default_interactions_path(out: Path) -> Path:
    """``<out stem>.interactions<ext>`` next to the values file."""
    name = out.name
    for suffix in _CSV_SUFFIXES + _PARQUET_SUFFIXES:
        if name.lower().endswith(suffix):
            return out.with_name(name[: -len(suffix)] + ".interactions" + name[-len(suffix) :])
    return out.with_name(name + ".interactions.csv")
