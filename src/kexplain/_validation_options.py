"""The explain options every boundary shares: flags, interaction indices, n_jobs, random states.

Import the names from :mod:`kexplain._validation`, the one validation entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._params import Boolean, Integer, check_param


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a bool; anything but True/False (numpy bools included) raises TypeError.

    Parameters
    ----------
    value : bool
    name : str
        The argument's name, used in the message.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._validation import check_bool
    >>> check_bool(np.True_, "interactions")
    True
    >>> try:
    ...     check_bool(1, "progress")
    ... except TypeError as exc:
    ...     print(exc)
    progress must be True or False, got 1.
    """
    if value is True or value is False:  # every explain call checks a few flags: skip the generic path
        return value
    return bool(check_param(value, name, Boolean()))


#: the pairwise interaction indices the solvers and explainers compute
INTERACTION_INDICES = ("sii", "stii")


def check_interactions(value: Any, name: str = "interactions") -> str | None:
    """The interaction index asked for: None (no interactions), ``"sii"`` or ``"stii"``.

    ``False`` (or None) means none, ``True`` the default ``"sii"`` (the Shapley interaction index of
    Grabisch & Roubens, 1999, in the layout of shap's ``TreeExplainer``); ``"stii"`` is the
    Shapley-Taylor interaction index of order 2 (Sundararajan, Dhamdhere & Agarwal, 2020), the
    one shap's ``ExactExplainer`` reports.  Case is ignored.

    Parameters
    ----------
    value : bool, None or {"sii", "stii"}
    name : str
        The argument's name, used in the message.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from kexplain._validation import check_interactions
    >>> check_interactions(True), check_interactions("STII"), check_interactions(False)
    ('sii', 'stii', None)
    """
    if value is None or isinstance(value, (bool, np.bool_)):
        return "sii" if value else None
    if isinstance(value, str) and value.lower() in INTERACTION_INDICES:
        return value.lower()
    if isinstance(value, Mapping):
        raise ValueError(
            f"{name}={dict(value)!r} (an index of any order) is supported by the explainers of product games "
            "(ProductKernelExplainer, PrefShapExplainer), by kx.gp.OAKExplainer and by kx.exact_shapley; here "
            "pass True, False, 'sii' or 'stii'."
        )
    raise TypeError(
        f"{name} must be True or False, or the name of an index: 'sii' (the Shapley interaction "
        f"index, what True means) or 'stii' (the Shapley-Taylor index of order 2, as shap's "
        f"ExactExplainer); got {value!r}."
    )


def check_n_jobs(n_jobs: int | None) -> int:
    """``n_jobs`` as joblib reads it: None defers to joblib, -1 is every core, -2 all but one.

    ``None`` takes the ``n_jobs`` of an enclosing ``joblib.parallel_config(n_jobs=...)`` (1 outside
    one); negative counts are resolved by ``joblib.effective_n_jobs``, which counts the cores
    this process may use (CPU affinity and container quotas), not every core of the machine.

    Parameters
    ----------
    n_jobs : int or None

    Returns
    -------
    int
        The number of workers, at least 1.

    Examples
    --------
    >>> import joblib
    >>> from kexplain._validation import check_n_jobs
    >>> check_n_jobs(None), check_n_jobs(3)
    (1, 3)
    >>> with joblib.parallel_config(n_jobs=2):
    ...     check_n_jobs(None)
    2
    >>> check_n_jobs(-1) == joblib.cpu_count()
    True
    """
    validate_n_jobs(n_jobs)
    from joblib import effective_n_jobs

    return max(1, int(effective_n_jobs(None if n_jobs is None else int(n_jobs))))


def validate_n_jobs(n_jobs: Any) -> int | None:
    """``n_jobs`` checked but not resolved: None, a positive or a negative integer, as given.

    :func:`check_n_jobs` resolves it through joblib, which costs more than a small explanation
    (a per-call lookup of joblib's active backend); a caller with only one block of work to do
    checks the argument with this and resolves it only when there is more than one block.

    Examples
    --------
    >>> from kexplain._validation import validate_n_jobs
    >>> validate_n_jobs(None), validate_n_jobs(-1)
    (None, -1)
    """
    if not (n_jobs is None or (type(n_jobs) is int and n_jobs >= 1)):  # the common values need no parsing
        check_param(
            n_jobs,
            "n_jobs",
            None,
            Integer(1),
            Integer(high=-1),
            what="None, a positive integer or a negative one (-1: every core)",
        )
    return None if n_jobs is None else int(n_jobs)


def check_random_state(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from None, an int seed, a SeedSequence, a Generator or a RandomState.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
        A Generator is returned as it is (so draws continue its stream).
    name : str
        The argument's name, used in the message.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._validation import check_random_state
    >>> float(np.round(check_random_state(0).random(), 3))
    0.637
    >>> rng = np.random.default_rng(1)
    >>> check_random_state(rng) is rng
    True
    """
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if (
        isinstance(random_state, (int, np.integer))
        and not isinstance(random_state, (bool, np.bool_))
        and random_state >= 0
    ):
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"{name} must be None, a non-negative integer, a numpy SeedSequence, Generator or RandomState, "
        f"got {random_state!r}."
    )


def check_legacy_random_state(random_state: Any, name: str = "random_state") -> np.random.RandomState:
    """A numpy RandomState, for estimators whose draws are defined through scikit-learn's convention.

    Accepts what :func:`check_random_state` accepts; an int seeds a RandomState exactly as
    scikit-learn's ``check_random_state`` does (so fitted results do not change), a Generator or a
    SeedSequence seeds one from its stream.  Anything else raises a ValueError naming ``name``.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
    name : str
        The argument's name, used in the message.

    Returns
    -------
    numpy.random.RandomState

    Examples
    --------
    >>> from kexplain._validation import check_legacy_random_state
    >>> int(check_legacy_random_state(0).randint(100))
    44
    >>> try:
    ...     check_legacy_random_state(-1)
    ... except ValueError as exc:
    ...     print(str(exc)[:44])
    random_state must be None, a non-negative in
    """
    if random_state is None:
        return np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        return random_state
    gen = check_random_state(random_state, name)  # validates, naming the argument
    if isinstance(random_state, (int, np.integer)):
        if random_state >= 2**32:
            raise ValueError(f"{name} must be below 2**32 for this estimator, got {random_state!r}.")
        return np.random.RandomState(int(random_state))
    return np.random.RandomState(int(gen.integers(2**32 - 1)))
