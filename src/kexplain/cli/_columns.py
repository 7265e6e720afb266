"""Columns of an input table checked by name: features, an id column, extra and missing columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._tables import CLIError


def _shown(names: Sequence[str], limit: int = 5) -> str:
    """``'a', 'b'`` (at most ``limit`` names, then ``...``)."""
    text = ", ".join(repr(str(n)) for n in list(names)[:limit])
    return text + (", ..." if len(names) > limit else "")


def _number(value: Any) -> float:
    """``float(value)``, or NaN for text that is not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def header_of(frame: Any) -> list[str] | None:
    """The header names of a read table, or None for a headerless CSV (integer labels)."""
    if all(isinstance(c, (int, np.integer)) for c in frame.columns):
        return None
    return [str(c) for c in frame.columns]


def split_id_column(frame: Any, path: Any, option: str, id_column: str | None) -> tuple[Any, Any]:
    """Remove ``id_column`` from ``frame``; return (the feature columns, the ids or None)."""
    if id_column is None:
        return frame, None
    header = header_of(frame)
    if header is None:
        raise CLIError(f"{option} {path}: has no header line, so it has no column {id_column!r} for --id-column.")
    if id_column not in header:
        raise CLIError(f"{option} {path}: has no column {id_column!r} (--id-column); its columns are {_shown(header)}.")
    ids = frame[frame.columns[header.index(id_column)]]
    return frame.drop(columns=frame.columns[header.index(id_column)]), ids


def names_list(text: str | None) -> list[str]:
    """``"a, b"`` -> ``["a", "b"]`` (the value of ``--drop`` and the column-list options)."""
    return [] if not text else [c.strip() for c in str(text).split(",") if c.strip()]


def strip_columns(
    frame: Any, path: Any, option: str, id_column: str | None, drop: Any, *, id_required: bool = True
) -> tuple[Any, Any]:
    """Remove ``--id-column`` and the ``--drop`` columns from one input file of a command.

    Every input file of a command (data, background, the other sample, Y) goes through here, so
    the two options mean the same for all of them: the id column is taken out (and returned as the
    row ids) where the file has it, and the dropped columns are removed where present.  The id
    column must be in the file only where ``id_required`` (the rows being explained).

    Returns
    -------
    (frame, ids)
        The other columns, and the id column's values (None where absent).
    """
    if id_column is not None and (id_required or id_column in (header_of(frame) or [])):
        frame, ids = split_id_column(frame, path, option, id_column)
    else:
        ids = None
    header = header_of(frame)
    names = names_list(drop) if isinstance(drop, (str, type(None))) else list(drop)
    if names and header is not None:
        present = [frame.columns[header.index(n)] for n in names if n in header]
        frame = frame.drop(columns=present)
    return frame, ids


def check_drop(drop: Any, headers: Sequence[Sequence[str] | None], options: str = "the input files") -> None:
    """Refuse a ``--drop`` name that no input file has (a typo would otherwise pass unnoticed)."""
    names = names_list(drop) if isinstance(drop, (str, type(None))) else list(drop)
    seen = {str(c) for h in headers if h is not None for c in h}
    unknown = [n for n in names if n not in seen]
    if unknown:
        raise CLIError(f"--drop {','.join(names)}: no column {_shown(unknown)} in {options}.")


def feature_table(
    frame: Any,
    path: Any,
    option: str,
    model_names: Sequence[str] | None,
    n_features: int,
    numeric: Sequence[bool] | None = None,
    id_column: str | None = None,
) -> tuple[np.ndarray, list[str] | None]:
    """Check a table's columns against the model's features, by name where there are names.

    Columns are matched by name when the file has a header and the model knows its feature names
    (their order in the file does not matter); an extra column is named with the advice to pass it
    as ``--id-column`` or drop it, a missing one is named.  Without names only the count can be
    checked.  Text in a numeric feature and missing values are reported with the column's name
    and the row's number.

    Returns
    -------
    (values, header)
        The rows with the columns in the model's order, and the header names (None without one).
    """
    header = header_of(frame)
    d_file = frame.shape[1]
    id_hint = "" if id_column else "; pass --id-column NAME for a column of row ids"
    if header is not None and model_names is not None:
        model_names = [str(n) for n in model_names]
        missing = [n for n in model_names if n not in header]
        extra = [n for n in header if n not in model_names]
        if extra and not missing:
            if extra[0].startswith("Unnamed: 0"):
                raise CLIError(
                    f"{option} {path}: the first column {extra[0]!r} looks like a saved pandas index (not a "
                    "model feature): write the file with index=False, or pass --id-column for it."
                )
            if len(extra) == 1:
                raise CLIError(
                    f"{option} {path}: {extra[0]!r} is not a model feature; pass --id-column {extra[0]} or drop it."
                )
            raise CLIError(
                f"{option} {path}: columns {_shown(extra)} are not model features; pass one as --id-column "
                "and drop the others."
            )
        if missing:
            msg = f"{option} {path}: missing model feature(s) {_shown(missing)}"
            if extra:
                msg += f"; columns {_shown(extra)} are not model features"
            raise CLIError(msg + f" (the model's features: {_shown(model_names, 8)}).")
        if len(set(header)) != len(header):
            dup = sorted({n for n in header if header.count(n) > 1})
            raise CLIError(f"{option} {path}: column(s) {_shown(dup)} appear more than once.")
        frame = frame[[frame.columns[header.index(n)] for n in model_names]]
        header = list(model_names)
    elif d_file != n_features:
        hint = ""
        if header is not None and header[0].startswith("Unnamed: 0"):
            hint = " (the first column looks like a saved pandas index: write the file with index=False)"
        elif header is not None and d_file > n_features:
            hint = id_hint
        cols = f" ({_shown(header, 8)})" if header is not None else ""
        raise CLIError(
            f"{option} {path}: has {d_file} columns{cols}, but the model expects {n_features} features{hint}."
        )
    names = header if header is not None else [f"column {j + 1}" for j in range(d_file)]
    numeric = [True] * d_file if numeric is None else list(numeric)
    columns = []
    for j, col in enumerate(frame.columns):
        series = frame[col]
        if not numeric[j]:
            columns.append(series.to_numpy(dtype=object))
            continue
        if series.dtype.kind in "biuf":
            values = series.to_numpy(dtype=float)
        else:
            values = np.asarray([_number(v) for v in series], dtype=float)
            text = np.flatnonzero(np.isnan(values) & series.notna().to_numpy())
            if text.size:
                where = f"{series.iloc[text[0]]!r} in row {series.index[text[0]]}"
                raise CLIError(
                    f"{option} {path}: column {names[j]!r} holds text ({where}), "
                    "but the model takes numbers there: write the column as the numbers the model was fitted on."
                )
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise CLIError(
                f"{option} {path}: column {names[j]!r} has a missing, NaN or infinite value in row "
                f"{series.index[bad[0]]} (0-based, {bad.size} such row(s)); fill or drop those rows."
            )
        columns.append(values)
    if all(numeric):
        return np.column_stack(columns) if columns else np.empty((len(frame), 0)), header
    return np.column_stack([np.asarray(c, dtype=object) for c in columns]), header


def row_ids(ids: Any, n_rows: int, offset: int = 0) -> np.ndarray:
    """The ids of an id column, or the row numbers ``offset, offset + 1, ...`` without one."""
    if ids is None:
        return np.arange(offset, offset + n_rows)
    return np.asarray(ids)


def id_name(id_column: str | None, taken: Sequence[str]) -> str:
    """The name of the id column in an output table: ``id_column``, else ``"row"``."""
    name = id_column or "row"
    if name in taken:
        raise CLIError(f"--id-column {name}: is also the name of an output column; rename the id column.")
    return name
