"""Duel data sets that run offline: the synthetic studies of Chau's thesis (2023, chapters 6 and 7),
duels sampled from a generalised preference model, duels built from match records, and statsmodels'
``modechoice`` travel data (optional extra ``preference``).

Every generator returns a :class:`DuelData`: ``y`` is 1 where the LEFT item wins.  Orientation
(which item is on the left) is drawn at random once per duel; nothing is duplicated or flipped
here, so :meth:`DuelData.split` can split duels without leaking one into both parts (estimators
flip duels only inside ``fit``).

The functions that build duels from records live here; the containers :class:`DuelData` and
:class:`Duels` (and the checks the generators share) in ``duel_data``, whose names are still
imported from here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._typing import RandomStateLike
from .._validation import check_random_state
from .duel_data import DuelData, Duels, _check_count, _check_rows  # noqa: F401  (names of this module before the split)


def duels_from_matches(
    winners: ArrayLike,
    losers: ArrayLike,
    items: Any,
    *,
    item_ids: ArrayLike | None = None,
    context: Any = None,
    groups: ArrayLike | None = None,
    orientation: str = "random",
    random_state: RandomStateLike = None,
) -> DuelData:
    """Duels from match records: who beat whom, and a table of item features.

    Parameters
    ----------
    winners, losers : array-like of shape (n,)
        Ids of the winner and the loser of each match.
    items : array-like or DataFrame of shape (n_items, d)
        Item features, one row per item; a DataFrame's column names become feature names.
    item_ids : array-like of shape (n_items,), optional
        The id of each row of ``items`` (default: a DataFrame's index, else 0..n_items-1).
    context : array-like or DataFrame of shape (n, p), optional
        Context of each match (surface, tournament, a traveller's income).
    groups : array-like of shape (n,), optional
        Group of each match, kept together by :meth:`DuelData.split`.
    orientation : {"random", "winner_left"}
        Put the winner on a random side (y says which) or always on the left (y all 1; the
        estimators accept that).  Each match gives exactly one duel either way.
    random_state : int, Generator or None
        Seeds the random orientation.

    Returns
    -------
    DuelData
        One duel per match, the winner on a random side (``y`` is 1 where the left item won).

    Raises
    ------
    ValueError
        For an id missing from ``item_ids`` (named), a match of an item with itself, or lengths
        that disagree.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import duels_from_matches
    >>> items = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    >>> data = duels_from_matches(["b", "a"], ["c", "b"], items, item_ids=["a", "b", "c"],
    ...                           orientation="winner_left")
    >>> data.X_left, data.y
    (array([[0., 1.],
           [1., 0.]]), array([1., 1.]))
    """
    from .._validation import feature_names_of
    from ._checks import check_side

    names = feature_names_of(items)
    if item_ids is None and hasattr(items, "index") and hasattr(items, "columns"):
        item_ids = np.asarray(items.index)
    table = check_side(items, "items")
    ids = np.arange(len(table)) if item_ids is None else np.asarray(item_ids)
    if ids.shape != (len(table),):
        raise ValueError(f"item_ids has shape {ids.shape} for {len(table)} rows of items.")
    lookup: dict[Any, int] = {}
    for i, key in enumerate(ids.tolist()):
        if key in lookup:
            raise ValueError(f"item_ids has the id {key!r} twice.")
        lookup[key] = i
    w = np.asarray(winners).reshape(-1).tolist()
    lo = np.asarray(losers).reshape(-1).tolist()
    if len(w) != len(lo):
        raise ValueError(f"winners has {len(w)} entries but losers has {len(lo)}; one of each per match.")
    for what, seq in (("winners", w), ("losers", lo)):
        for key in seq:
            if key not in lookup:
                raise ValueError(f"{what} has the id {key!r}, which is not among the item ids.")
    wi = np.array([lookup[k] for k in w], dtype=np.int64)
    li = np.array([lookup[k] for k in lo], dtype=np.int64)
    if np.any(wi == li):
        raise ValueError(f"match {int(np.flatnonzero(wi == li)[0])} has the same item as winner and loser.")
    if orientation not in ("random", "winner_left"):
        raise ValueError(f"orientation must be 'random' or 'winner_left', got {orientation!r}.")
    n = len(wi)
    left_wins = np.ones(n, dtype=bool)
    if orientation == "random":
        left_wins = check_random_state(random_state).random(n) < 0.5
    a = np.where(left_wins, wi, li)
    b = np.where(left_wins, li, wi)
    ctx = None
    cnames: list[str] = []
    if context is not None:
        ctx = check_side(context, "context")
        if len(ctx) != n:
            raise ValueError(f"context has {len(ctx)} rows for {n} matches.")
        cn = feature_names_of(context)
        cnames = list(cn) if cn is not None else [f"c{j}" for j in range(ctx.shape[1])]
    grp = None
    if groups is not None:
        grp = np.asarray(groups).reshape(-1)
        if len(grp) != n:
            raise ValueError(f"groups has {len(grp)} entries for {n} matches.")
    return DuelData(
        X_left=table[a],
        X_right=table[b],
        y=left_wins.astype(np.float64),
        context=ctx,
        left_index=a,
        right_index=b,
        items=table,
        groups=grp,
        feature_names=list(names) if names is not None else [f"x{j}" for j in range(table.shape[1])],
        context_names=cnames,
    )


MODES = ["air", "train", "bus", "car"]


def load_modechoice(*, random_state: RandomStateLike = 0, modes_as_features: bool = True) -> DuelData:
    """Travel-mode choices (statsmodels' ``modechoice``) as duels: chosen mode vs each other mode.

    210 travellers between Sydney and Melbourne each chose one of air, train, bus and car
    (Greene, Econometric Analysis).  Each traveller gives three duels, the chosen mode against each
    mode not chosen (630 duels).  Items are modes with the traveller's alternative-specific
    features: terminal waiting time ``ttme``, in-vehicle cost ``invc``, in-vehicle time ``invt``
    and generalised cost ``gc`` (plus one-hot mode indicators with ``modes_as_features``); the
    context is the traveller's household income ``hinc`` and party size ``psize``.  ``groups`` is
    the traveller, so :meth:`DuelData.split` keeps a traveller's duels together.  Needs the
    optional extra ``preference`` (statsmodels, pandas).

    Parameters
    ----------
    random_state : int, Generator or None
        Seeds which side the chosen mode is put on.
    modes_as_features : bool
        Append one-hot indicators of the four modes to the item features.

    Returns
    -------
    DuelData
        ``item_labels`` holds the mode (0 air, 1 train, 2 bus, 3 car) of each row of ``items``.

    Raises
    ------
    ImportError
        Naming the extra ``preference`` when statsmodels is missing.

    Notes
    -----
    ``ttme`` leaks the outcome.  The data record the terminal waiting time only for the mode the
    traveller took; for the public modes not taken it holds one of two filled-in values per mode
    (air 64 or 69, train 34 or 44, bus 35 or 53; car is always 0), which no chosen row takes.  A
    model that can single out those values (a GP with a short ``ttme`` lengthscale) predicts every
    held-out duel correctly, whatever the split.  Drop column 0 (``ttme``) of ``X_left``,
    ``X_right`` and ``items`` for an honest accuracy (see ``reproduce/experiments/thesis_preference.py``).

    Examples
    --------
    >>> from kexplain.preference import load_modechoice
    >>> data = load_modechoice()
    >>> len(data), data.feature_names[:4], data.context_names
    (630, ['ttme', 'invc', 'invt', 'gc'], ['hinc', 'psize'])
    """
    try:
        import statsmodels.datasets.modechoice as mc
    except ImportError as exc:
        raise ImportError(
            "load_modechoice needs the optional package 'statsmodels': pip install 'kexplain[preference]'"
        ) from exc
    df = mc.load_pandas().data
    feats = ["ttme", "invc", "invt", "gc"]
    X = df[feats].to_numpy(dtype=np.float64)
    mode = df["mode"].to_numpy(dtype=np.int64) - 1
    if modes_as_features:
        X = np.hstack([X, np.eye(4)[mode]])
        feats = feats + [f"mode_{m}" for m in MODES]
    person = df["individual"].to_numpy(dtype=np.int64)
    chosen = df["choice"].to_numpy() == 1
    winners: list[int] = []
    losers: list[int] = []
    ctx_rows: list[int] = []
    for p in np.unique(person):
        rows = np.flatnonzero(person == p)
        win = rows[chosen[rows]]
        if len(win) != 1:
            continue
        for r in rows:
            if r != win[0]:
                winners.append(int(win[0]))
                losers.append(int(r))
                ctx_rows.append(int(win[0]))
    context = df[["hinc", "psize"]].to_numpy(dtype=np.float64)[ctx_rows]
    data = duels_from_matches(winners, losers, X, context=context, groups=person[ctx_rows], random_state=random_state)
    data.feature_names = feats
    data.context_names = ["hinc", "psize"]
    data.item_labels = mode
    return data
