"""Files and tables of the command line: reading rows, loading a model, writing values."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path
from typing import Any

from .._files import OutputPathError, check_new_file, replace_atomically
from .._optional import require

_CSV_SUFFIXES = (".csv", ".csv.gz")
_PARQUET_SUFFIXES = (".parquet", ".pq")


class CLIError(Exception):
    """An input problem of the command line, reported as one line on stderr with exit status 2.

    Examples
    --------
    >>> from kexplain.cli._tables import CLIError, read_table
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


def os_error(option: str, path: str | Path, exc: OSError) -> CLIError:
    """A CLIError naming ``option`` and ``path`` for an operating-system error ``exc``.

    Parameters
    ----------
    option : str
        The command-line option the path came from, e.g. ``"--out"``.
    path : str or Path
        The path the operation was on.
    exc : OSError
        The error raised.

    Returns
    -------
    CLIError
        With the message ``"<option> <path>: [Errno N] <reason>"``.

    Examples
    --------
    >>> import errno
    >>> from kexplain.cli._tables import os_error
    >>> print(os_error("--out", "v.csv", OSError(errno.ENOSPC, "No space left on device")))
    --out v.csv: [Errno 28] No space left on device
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno is not None:
        reason = f"[Errno {exc.errno}] {reason}"
    return CLIError(f"{option} {path}: {reason}")


def check_output_path(path: str | Path, option: str = "--out", force: bool = False) -> Path:
    """Check, before any work, that a table can be written to ``path``.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq`` file in an existing folder.
    option : str
        The command-line option the path came from, named in error messages.
    force : bool
        Whether an existing file may be replaced (``--force``).

    Returns
    -------
    Path

    Raises
    ------
    CLIError
        For an unknown extension, a directory, a missing folder, or an existing file without ``force``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kexplain.cli._tables import CLIError, check_output_path
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "v.csv"
    >>> _ = path.write_text("old")
    >>> try:
    ...     check_output_path(path)
    ... except CLIError as exc:
    ...     print(str(exc).split(": ", 1)[1])
    already exists; pass --force to overwrite it.
    >>> check_output_path(path, force=True) == path
    True
    """
    path = Path(path)
    _kind(path, option)
    return check_file(path, option, force)


def check_file(path: str | Path, option: str, force: bool = False) -> Path:
    """:func:`kexplain._files.check_new_file` with its error as a :class:`CLIError`: any file type;
    an existing file or a symbolic link (even dangling) is refused without ``force``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kexplain.cli._tables import check_file
    >>> check_file(pathlib.Path(tempfile.mkdtemp()) / "m.skops", "--save-model").name
    'm.skops'
    """
    try:
        return check_new_file(path, option, force)
    except OutputPathError as exc:
        raise CLIError(str(exc)) from None


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
    >>> from kexplain.cli._tables import read_table
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "rows.csv").write_text("1.5,2\\n3,4\\n")
    >>> read_table(folder / "rows.csv")
         0  1
    0  1.5  2
    1  3.0  4
    """
    path = Path(path)
    kind = _kind(path, option)
    if path.is_dir():
        raise CLIError(f"{option} {path}: is a directory, not a file.")
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
        if isinstance(exc, OSError) and exc.errno is not None:  # the file system, not the format
            raise os_error(option, path, exc) from None
        raise CLIError(f"{option} {path}: cannot read it as {kind.upper()}: {exc}") from None


def write_table(frame: Any, path: str | Path, option: str = "--out") -> Path:
    """Write a DataFrame to a CSV or Parquet file chosen by the extension, without the index.

    Floats are written with ``repr``, so the values read back exactly.  The table is written to a
    temporary file in the same folder and renamed over ``path`` only when complete, so a failed
    write (a full disk) leaves neither a partial file nor a damaged earlier one.  Whether an
    existing file may be replaced is decided before, by :func:`check_output_path`.

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

    Raises
    ------
    CLIError
        For an unknown extension, a missing folder, a directory, or an operating-system error
        while writing (the message names ``option``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from kexplain.cli._tables import write_table
    >>> path = write_table(pd.DataFrame({"a": [0.1]}), pathlib.Path(tempfile.mkdtemp()) / "v.csv")
    >>> print(path.read_text().strip())
    a
    0.1
    """
    path = Path(path)
    kind = _kind(path, option)
    if path.is_dir() and not path.is_symlink():
        raise CLIError(f"{option} {path}: is a directory; give a file name.")
    if path.parent and not path.parent.is_dir():
        raise CLIError(f"{option} {path}: folder {path.parent} does not exist.")
    if kind == "parquet":
        require("pyarrow", "writing Parquet files")
    try:
        with replace_atomically(path) as tmp:  # a symbolic link is replaced, its target never written
            if kind == "parquet":
                frame.to_parquet(tmp, index=False)
            else:
                frame.to_csv(tmp, index=False)
    except OSError as exc:
        raise os_error(option, path, exc) from None
    return path


def iter_csv_chunks(path: str | Path, option: str, chunk_size: int) -> Any:
    """Read a CSV file in chunks of ``chunk_size`` rows (an iterator of DataFrames).

    The header is detected as by :func:`read_table`; errors name ``option``.
    """
    path = Path(path)
    if _kind(path, option) != "csv":
        raise CLIError(
            f"{option} {path}: --chunk-size streams CSV files (.csv, .csv.gz); convert it or drop --chunk-size."
        )
    if path.is_dir():
        raise CLIError(f"{option} {path}: is a directory, not a file.")
    if not path.is_file():
        raise CLIError(f"{option} {path}: file not found.")
    pd = require("pandas", "reading CSV files")
    try:
        reader = pd.read_csv(path, header=0 if _csv_has_header(path) else None, chunksize=chunk_size)
        yield from reader
    except OSError as exc:
        raise os_error(option, path, exc) from None
    except Exception as exc:  # pandas raises many types for malformed files
        raise CLIError(f"{option} {path}: cannot read it as CSV: {exc}") from None
