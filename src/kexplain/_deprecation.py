"""Renamed keywords: the old spelling keeps working for a while, with a FutureWarning."""

from __future__ import annotations

import warnings
from typing import Any


def renamed_keyword(
    owner: str, new_name: str, new: Any, old_name: str, old: Any, default: Any, stacklevel: int = 3
) -> Any:
    """The value of a keyword renamed from ``old_name`` to ``new_name``.

    ``new`` and ``old`` are what the caller passed (None when not given).  The old keyword alone
    gives its value with a FutureWarning naming the new one; both is a TypeError; neither gives
    ``default``.

    Examples
    --------
    >>> from kexplain._deprecation import renamed_keyword
    >>> renamed_keyword("Explainer", "game", None, "value", None, "observational")
    'observational'
    >>> renamed_keyword("Explainer", "game", "interventional", "value", None, "observational")
    'interventional'
    """
    if old is None:
        return default if new is None else new
    if new is not None:
        raise TypeError(
            f"{owner} got both {new_name}={new!r} and {old_name}={old!r}; pass {new_name}= only "
            f"({old_name}= is its deprecated spelling)."
        )
    warnings.warn(
        f"{owner}({old_name}=...) is deprecated and will be removed; pass {new_name}={old!r} instead.",
        FutureWarning,
        stacklevel=stacklevel,
    )
    return old
