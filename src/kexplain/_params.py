"""Option checks declared, not hand-written: constraints in the spirit of scikit-learn's
``_parameter_constraints`` / ``validate_params``, with kexplain's messages.

A check states what an option accepts::

    k = check_param(k, "k", Integer(1))                 # "k must be a positive integer, got 0."
    tol = check_param(tol, "tol", Real(0, closed="neither"), None)
    validate_params({"n_jobs": n_jobs, "progress": progress}, {"n_jobs": [Integer(), None], "progress": [Boolean()]})

The message names the option, says what is accepted (the constraints' descriptions joined by
"or") and shows the value given.  The error is :class:`InvalidParameterError`, a ValueError and a
TypeError at once (as scikit-learn's), so callers that caught either before still do.  Bools are
never integers or reals here (``True`` is not a count), and numpy scalars are accepted as their
Python kinds.

scikit-learn's own ``sklearn.utils._param_validation`` is private to scikit-learn and phrases its
messages as "The 'k' parameter of f must be ..."; kexplain keeps its own shorter phrasing, which
its tests assert.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "Boolean",
    "Constraint",
    "Integer",
    "InvalidParameterError",
    "Options",
    "Real",
    "check_param",
    "check_positive",
    "check_positive_int",
    "validate_params",
]


class InvalidParameterError(ValueError, TypeError):
    """An option outside what it accepts: both a ValueError and a TypeError (as scikit-learn's).

    Examples
    --------
    >>> from kexplain._params import InvalidParameterError
    >>> issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)
    True
    """


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


class Constraint:
    """What an option accepts: ``is_satisfied_by(value)`` and a description for messages.

    Examples
    --------
    >>> from kexplain._params import Integer
    >>> Integer(1).is_satisfied_by(3), str(Integer(1))
    (True, 'a positive integer')
    """

    def is_satisfied_by(self, value: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        """The accepted value as its Python type."""
        return value


class Boolean(Constraint):
    """True or False (numpy bools included).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._params import Boolean
    >>> Boolean().is_satisfied_by(np.True_), Boolean().is_satisfied_by(1)
    (True, False)
    """

    def is_satisfied_by(self, value: Any) -> bool:
        return _is_bool(value)

    def convert(self, value: Any) -> bool:
        return bool(value)

    def __str__(self) -> str:
        return "True or False"


def _bounds_text(kind: str, low: float | None, high: float | None, closed: str) -> str:
    """The accepted range in words: "a positive integer", "a number in (0, 1)", "an integer >= 2", ..."""
    left = closed in ("left", "both")
    right = closed in ("right", "both")
    if high is None and low == 0:
        return f"a {'non-negative' if left else 'positive'} {kind}"
    if high is None and low == 1 and kind == "integer" and left:
        return "a positive integer"
    if low is None and high is None:
        return "an integer" if kind == "integer" else "a real number"
    if high is None:
        return f"{'an' if kind == 'integer' else 'a'} {kind} {'>=' if left else '>'} {low}"
    if low is None:
        return f"{'an' if kind == 'integer' else 'a'} {kind} {'<=' if right else '<'} {high}"
    article = "an" if kind == "integer" else "a"
    return f"{article} {kind} in {'[' if left else '('}{low}, {high}{']' if right else ')'}"


class Integer(Constraint):
    """An integer (not a bool) in an interval, closed at the ends ``closed`` names.

    Parameters
    ----------
    low, high : int or None
        The bounds (None: unbounded).
    closed : {"both", "left", "right", "neither"}

    Examples
    --------
    >>> from kexplain._params import Integer
    >>> str(Integer(1)), str(Integer(2)), Integer(1).is_satisfied_by(True)
    ('a positive integer', 'an integer >= 2', False)
    """

    def __init__(self, low: int | None = None, high: int | None = None, *, closed: str = "both") -> None:
        self.low, self.high, self.closed = low, high, closed

    def is_satisfied_by(self, value: Any) -> bool:
        if _is_bool(value) or not isinstance(value, numbers.Integral):
            return False
        return _inside(value, self.low, self.high, self.closed)

    def convert(self, value: Any) -> int:
        return int(value)

    def __str__(self) -> str:
        return _bounds_text("integer", self.low, self.high, self.closed)


class Real(Constraint):
    """A real number (not a bool; finite unless ``finite=False``) in an interval.

    Parameters
    ----------
    low, high : float or None
        The bounds (None: unbounded).
    closed : {"both", "left", "right", "neither"}
    finite : bool
        Refuse infinities (NaN is always refused).

    Examples
    --------
    >>> from kexplain._params import Real
    >>> str(Real(0, closed="neither")), str(Real(0, 1, closed="neither"))
    ('a positive number', 'a number in (0, 1)')
    """

    def __init__(
        self, low: float | None = None, high: float | None = None, *, closed: str = "both", finite: bool = True
    ) -> None:
        self.low, self.high, self.closed, self.finite = low, high, closed, finite

    def is_satisfied_by(self, value: Any) -> bool:
        if _is_bool(value) or not isinstance(value, numbers.Real):
            return False
        v = float(value)
        if np.isnan(v) or (self.finite and not np.isfinite(v)):
            return False
        return _inside(v, self.low, self.high, self.closed)

    def convert(self, value: Any) -> float:
        return float(value)

    def __str__(self) -> str:
        return _bounds_text("number", self.low, self.high, self.closed)


class Options(Constraint):
    """One of a fixed set of values (strings compared exactly).

    Examples
    --------
    >>> from kexplain._params import Options
    >>> str(Options(("numpy", "numba")))
    "one of ('numpy', 'numba')"
    """

    def __init__(self, values: Sequence[Any]) -> None:
        self.values = tuple(values)
        self._shown = values  # as the caller wrote them (a list or a tuple), for the message

    def is_satisfied_by(self, value: Any) -> bool:
        try:
            return value in self.values
        except TypeError:  # unhashable or incomparable
            return False

    def __str__(self) -> str:
        return f"one of {self._shown!r}"


def _inside(v: Any, low: Any, high: Any, closed: str) -> bool:
    left = closed in ("left", "both")
    right = closed in ("right", "both")
    if low is not None and (v < low or (v == low and not left)):
        return False
    return not (high is not None and (v > high or (v == high and not right)))


def check_param(value: Any, name: str, *constraints: Constraint | None, note: str = "", what: str = "") -> Any:
    """``value`` if it satisfies one of ``constraints`` (None accepts None), as its Python type.

    Parameters
    ----------
    value : object
    name : str
        The option's name, used in the message.
    *constraints : Constraint or None
        What is accepted; None stands for the value None.
    note : str
        What the option means, put in parentheses after the description.
    what : str
        The whole description, when the constraints' own would say less (what -1 means, say).

    Returns
    -------
    object
        ``int(value)``, ``float(value)`` or ``bool(value)`` for those constraints, else ``value``.

    Raises
    ------
    InvalidParameterError
        "``name`` must be <description> (<note>), got <value>."

    Examples
    --------
    >>> from kexplain._params import Integer, Real, check_param
    >>> check_param(3, "k", Integer(1))
    3
    >>> check_param(None, "tol", Real(0, closed="neither"), None) is None
    True
    >>> try:
    ...     check_param(0, "d", Integer(1), note="the number of players")
    ... except ValueError as exc:
    ...     print(exc)
    d must be a positive integer (the number of players), got 0.
    """
    for c in constraints:
        if c is None:
            if value is None:
                return None
        elif c.is_satisfied_by(value):
            return c.convert(value)
    what = what or " or ".join("None" if c is None else str(c) for c in constraints)
    extra = f" ({note})" if note else ""
    raise InvalidParameterError(f"{name} must be {what}{extra}, got {value!r}.")


def validate_params(
    values: Mapping[str, Any], constraints: Mapping[str, Sequence[Constraint | None]]
) -> dict[str, Any]:
    """Check several options against their declared constraints; returns the converted values.

    Parameters
    ----------
    values : mapping of str to object
        The options given, by name.
    constraints : mapping of str to list of Constraint or None
        What each option accepts (``_parameter_constraints`` in scikit-learn's terms).

    Returns
    -------
    dict of str to object

    Examples
    --------
    >>> from kexplain._params import Boolean, Integer, validate_params
    >>> validate_params({"k": 2, "progress": False}, {"k": [Integer(1)], "progress": [Boolean()]})
    {'k': 2, 'progress': False}
    """
    return {n: check_param(values[n], n, *constraints[n]) for n in constraints}


def check_positive(
    value: Any, name: str, *, allow_zero: bool = False, allow_array: bool = False, finite: bool = True
) -> Any:
    """A positive (or non-negative) real number, or with ``allow_array`` an array of them.

    Returns a float, or a float64 array when ``allow_array`` and ``value`` is array-like.

    Parameters
    ----------
    value : float or array-like
    name : str
        The option's name, used in the message.
    allow_zero : bool
        Accept 0.
    allow_array : bool
        Accept a 1-D array of such numbers.
    finite : bool
        Refuse infinity.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from kexplain._params import check_positive
    >>> check_positive(0.5, "noise")
    0.5
    >>> try:
    ...     check_positive(-1.0, "noise")
    ... except ValueError as exc:
    ...     print(exc)
    noise must be a positive finite number, got -1.0.
    """
    kind = "non-negative" if allow_zero else "positive"
    if allow_array and not isinstance(value, (str, bytes)) and np.ndim(value) > 0:
        try:
            arr = np.asarray(value)
        except ValueError:
            raise ValueError(f"{name} must be a {kind} number or a 1-D array of them, got {value!r}.") from None
        if arr.ndim != 1 or arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
            raise ValueError(f"{name} must be a {kind} number or a 1-D array of them, got {value!r}.")
        arr = arr.astype(np.float64)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or (not allow_zero and np.any(arr == 0)):
            raise ValueError(f"{name} must hold {kind} finite numbers, got {value!r}.")
        return arr
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a {kind} real number, got {value!r} of type {type(value).__name__}.")
    v = float(value)
    if (finite and not np.isfinite(v)) or np.isnan(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be a {kind} finite number, got {value!r}.")
    return v


def check_positive_int(value: Any, name: str) -> int:
    """A positive integer (bools refused), or an error naming ``name``.

    Parameters
    ----------
    value : int
    name : str
        The option's name, used in the message.

    Returns
    -------
    int

    Examples
    --------
    >>> from kexplain._params import check_positive_int
    >>> check_positive_int(3, "max_iter")
    3
    """
    return int(check_param(value, name, Integer(1)))
