"""Hypothesis strategies of bad inputs, and the judge of what an entry point did with one.

Every strategy draws a pair ``(label, value)``: the label names the kind of bad input ("nan",
"ragged", "bool-for-int", ...) so that a known defect can be excluded from the random search by
kind and tested on its own (strict xfail) until it is fixed.

The judge (:func:`judge`) sorts one call into

- ``"ok"``: it returned, and every number in the result is finite (no ComplexWarning either:
  a complex value truncated to its real part is a silent wrong answer);
- ``"clear"``: it raised ValueError, TypeError, UnsupportedModelError, NotFittedError or
  ImportError whose message names the offending argument and is not one of numpy's own;
- ``"unclear"``: an allowed exception type whose message does not name the argument (or is
  numpy's own message);
- ``"crash"``: any other exception type (IndexError, ZeroDivisionError, AttributeError, ...);
- ``"silent"``: it returned a non-finite number, or truncated complex input with a warning.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from kexplain.exceptions import UnsupportedModelError

ALLOWED = (ValueError, TypeError, UnsupportedModelError, NotFittedError, ImportError)

# messages that come from numpy or Python themselves: they never tell the user which argument
FOREIGN_MESSAGES = (
    "setting an array element with a sequence",
    "could not convert string to float",
    "operands could not be broadcast",
    "cannot reshape array",
    "invalid literal for int",
    "unsupported operand type",
    "can't convert complex",
    "Cannot cast ufunc",
    "ufunc '",
    "must be real number, not",
    "float() argument must be",
    "only integer scalar arrays",
    "'NoneType' object",
    "inhomogeneous",
    "zero-size array to reduction operation",
)

#: every outcome of every case judged in this session, by entry point and kind
TALLY: Counter[tuple[str, str]] = Counter()


@dataclasses.dataclass
class Outcome:
    """What one call did: ``kind`` is ok, clear, unclear, crash or silent."""

    kind: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind in ("unclear", "crash", "silent")


def _names_argument(message: str, names: Sequence[str]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) for n in names)


def finite_numbers(obj: Any, _depth: int = 0) -> bool:
    """Whether every number reachable in ``obj`` (arrays, results, containers) is finite."""
    if _depth > 4 or obj is None or isinstance(obj, (str, bytes, bool)):
        return True
    if isinstance(obj, (int, np.integer)):
        return True
    if isinstance(obj, (float, complex, np.floating, np.complexfloating)):
        return bool(np.isfinite(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            return bool(np.all(np.isfinite(obj)))
        if obj.dtype == object:
            return all(finite_numbers(x, _depth + 1) for x in obj.reshape(-1)[:1000])
        return True
    if isinstance(obj, (list, tuple)):
        return all(finite_numbers(x, _depth + 1) for x in obj)
    if isinstance(obj, dict):
        return all(finite_numbers(x, _depth + 1) for x in obj.values())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return all(finite_numbers(getattr(obj, f.name), _depth + 1) for f in dataclasses.fields(obj))
    fields = (
        "values",
        "base_values",
        "interactions",
        "standard_errors",
        "total",
        "total_standard_error",
        "p_values",
        "p_value",
        "statistic",
        "attribution",
        "null_distribution",
    )
    return all(finite_numbers(getattr(obj, f, None), _depth + 1) for f in fields)


def judge(call: Callable[[], Any], names: Sequence[str], where: str) -> Outcome:
    """Run ``call`` and sort what it did (see the module docstring); tallied under ``where``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except ALLOWED as exc:
            message = " ".join(str(exc).split())
            if _names_argument(message, names) and not any(m in message for m in FOREIGN_MESSAGES):
                outcome = Outcome("clear", f"{type(exc).__name__}: {message}")
            else:
                outcome = Outcome("unclear", f"{type(exc).__name__}: {message}")
        except Exception as exc:  # noqa: BLE001 - every other type is a crash, which is what we count
            outcome = Outcome("crash", f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300])
        else:
            truncated = [w for w in caught if issubclass(w.category, np.exceptions.ComplexWarning)]
            if not finite_numbers(result):
                outcome = Outcome("silent", "returned non-finite numbers")
            elif truncated:
                outcome = Outcome("silent", f"ComplexWarning: {truncated[0].message}")
            else:
                outcome = Outcome("ok")
    TALLY[(where, outcome.kind)] += 1
    return outcome


# -- the bad values ----------------------------------------------------------------------------


MATRIX_KINDS = [
    "nan",
    "inf",
    "-inf",
    "1d",
    "3d",
    "scalar",
    "too-few-columns",
    "too-many-columns",
    "no-rows",
    "no-columns",
    "ragged",
    "strings",
    "string-array",
    "complex",
    "none",
    "none-entry",
    "huge",
    "tiny",
]
VECTOR_KINDS = ["nan", "inf", "wrong-length", "2d", "empty", "strings", "complex", "none", "huge", "ragged"]


def spoil_matrix(kind: str, n_rows: int, n_cols: int, seed: int = 0, i: int = 0, j: int = 0) -> tuple[str, Any]:
    """A standard-normal (n_rows, n_cols) matrix (seeded) spoiled one way: ``(kind, value)``."""
    if True:
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n_rows, n_cols))
        i, j = i % n_rows, j % n_cols
        if kind in ("nan", "inf", "-inf"):
            X[i, j] = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}[kind]
            return kind, X
        if kind == "1d":
            return kind, X[0]
        if kind == "3d":
            return kind, X[:, :, None]
        if kind == "scalar":
            return kind, 1.5
        if kind == "too-few-columns":
            return kind, X[:, : n_cols - 1]
        if kind == "too-many-columns":
            return kind, np.column_stack([X, X[:, :1]])
        if kind == "no-rows":
            return kind, X[:0]
        if kind == "no-columns":
            return kind, X[:, :0]
        if kind == "ragged":
            rows = X.tolist()
            rows[i] = rows[i][:-1]
            return kind, rows
        if kind == "strings":
            S = X.astype(object)
            S[i, j] = "abc"
            return kind, S
        if kind == "string-array":
            return kind, X.astype(str)
        if kind == "complex":
            return kind, X + 1j
        if kind == "none":
            return kind, None
        if kind == "none-entry":
            S = X.astype(object)
            S[i, j] = None
            return kind, S
        if kind == "huge":
            return kind, X * 1e300
        if kind == "tiny":
            return kind, X * 1e-300
    raise AssertionError(kind)


def bad_matrices(n_rows: int, n_cols: int) -> st.SearchStrategy[tuple[str, Any]]:
    """Bad versions of an (n_rows, n_cols) float matrix, each as ``(label, value)``."""
    kinds = [k for k in MATRIX_KINDS if n_cols >= 2 or k != "too-few-columns"]
    return st.builds(
        spoil_matrix,
        st.sampled_from(kinds),
        st.just(n_rows),
        st.just(n_cols),
        st.integers(0, 2**16),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
    )


def spoil_vector(kind: str, n: int, seed: int = 0, i: int = 0) -> tuple[str, Any]:
    """A standard-normal length-``n`` vector (seeded) spoiled one way: ``(kind, value)``."""
    if True:
        v = np.random.default_rng(seed).normal(size=n)
        i = i % n
        if kind in ("nan", "inf"):
            v[i] = np.nan if kind == "nan" else np.inf
            return kind, v
        if kind == "wrong-length":
            return kind, v[:-1]
        if kind == "2d":
            return kind, np.column_stack([v, v, v])[:, :, None]
        if kind == "empty":
            return kind, v[:0]
        if kind == "strings":
            s = v.astype(object)
            s[i] = "abc"
            return kind, s
        if kind == "complex":
            return kind, v + 1j
        if kind == "none":
            return kind, None
        if kind == "huge":
            return kind, v * 1e300
        if kind == "ragged":
            return kind, [[1.0, 2.0], [3.0]] + [[0.0, 0.0]] * (n - 2)
    raise AssertionError(kind)


def bad_vectors(n: int) -> st.SearchStrategy[tuple[str, Any]]:
    """Bad versions of a length-``n`` float vector (targets, weights, coefficients)."""
    return st.builds(
        spoil_vector, st.sampled_from(VECTOR_KINDS), st.just(n), st.integers(0, 2**16), st.integers(0, 10**6)
    )


def special_weights(n: int) -> list[tuple[str, Any]]:
    """Weights that are numbers but not weights: a negative one, all zero, a sum that overflows."""
    return [
        ("negative", np.r_[-1.0, np.ones(n - 1)]),
        ("all-zero", np.zeros(n)),
        ("overflowing-sum", np.full(n, 1e308)),
    ]


def bad_weights(n: int) -> st.SearchStrategy[tuple[str, Any]]:
    """Bad background weights for ``n`` rows: the bad vectors, plus :func:`special_weights`."""
    return st.one_of(bad_vectors(n), st.sampled_from(special_weights(n)))


BAD_INT_OPTIONS: list[tuple[str, Any]] = [
    ("bool-true", True),
    ("bool-false", False),
    ("negative", -3),
    ("zero", 0),
    ("float", 2.5),
    ("string", "8"),
    ("none", None),
    ("complex", 1 + 2j),
    ("nan", float("nan")),
]

BAD_FLOAT_OPTIONS: list[tuple[str, Any]] = [
    ("nan", float("nan")),
    ("inf", float("inf")),
    ("negative", -1.0),
    ("zero", 0.0),
    ("string", "0.1"),
    ("none", None),
    ("bool", True),
    ("complex", 1j),
    ("array", np.ones(3)),
]

BAD_RANDOM_STATES: list[tuple[str, Any]] = [
    ("negative", -1),
    ("float", 1.5),
    ("string", "seed"),
    ("negative-list", [1, -2]),
    ("object", object()),
    ("bool-true", True),
]

BAD_FLAGS: list[tuple[str, Any]] = [
    ("string", "yes"),
    ("int", 2),
    ("none", None),
    ("array", np.array([True, False])),
]


def options(values: Iterable[tuple[str, Any]]) -> st.SearchStrategy[tuple[str, Any]]:
    """A strategy over a fixed list of labelled option values."""
    return st.sampled_from(list(values))
