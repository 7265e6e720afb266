"""Duel data sets that run offline: the synthetic studies of Chau's thesis (2023, chapters 6 and 7),
duels sampled from a generalised preference model, duels built from match records, and statsmodels'
``modechoice`` travel data (optional extra ``preference``).

Every generator returns a :class:`DuelData`: ``y`` is 1 where the LEFT item wins.  Orientation
(which item is on the left) is drawn at random once per duel; nothing is duplicated or flipped
here, so :meth:`DuelData.split` can split duels without leaking one into both parts (estimators
flip duels only inside ``fit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import check_random_state


@dataclass
class DuelData:
    """Duels (X_left, X_right, y[, context]) with the items they come from.

    The parameters are kept as attributes of the same names.

    Parameters
    ----------
    X_left : ndarray of shape (n, d)
        Left item of each duel.
    X_right : ndarray of shape (n, d)
        Right item of each duel.
    y : ndarray of shape (n,) of 0/1
        ``y[i] == 1`` means the left item won.
    context : ndarray of shape (n, p) or None
        The context of each duel, for a context model.
    left_index : ndarray of shape (n,) or None
        Rows of ``items`` on the left.
    right_index : ndarray of shape (n,) or None
        Rows of ``items`` on the right.
    items : ndarray of shape (n_items, d) or None
        The items the duels are drawn from.
    item_labels : ndarray of shape (n_items,) or None
        Ground-truth groups of the items (clusters, latent states, travel modes), where known.
    groups : ndarray of shape (n,) or None
        Duels sharing a group (e.g. one traveller's choices) are kept together by :meth:`split`.
    feature_names : list of str
        Names of the item features.
    context_names : list of str
        Names of the context features.
    info : dict
        Anything else the generator knows (e.g. the true preference matrix).

    Examples
    --------
    >>> from kexplain.preference import make_cluster_duels
    >>> data = make_cluster_duels(n_duels=100, n_items=50, random_state=0)
    >>> train, test = data.split(test_size=0.3, random_state=0)
    >>> len(train), len(test), data.feature_names[:2]
    (70, 30, ['x0', 'xAB'])
    """

    X_left: np.ndarray
    X_right: np.ndarray
    y: np.ndarray
    context: np.ndarray | None = None
    left_index: np.ndarray | None = None
    right_index: np.ndarray | None = None
    items: np.ndarray | None = None
    item_labels: np.ndarray | None = None
    groups: np.ndarray | None = None
    feature_names: list[str] = field(default_factory=list)
    context_names: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(len(self.y))

    def subset(self, rows: ArrayLike) -> DuelData:
        """The duels ``rows`` (items, labels and info shared).

        Parameters
        ----------
        rows : array-like of int or bool
            Indices of the duels to keep, or a boolean mask over the duels.

        Returns
        -------
        DuelData
            The chosen duels, with the same items, labels, names and info.

        Examples
        --------
        >>> from kexplain.preference import make_cluster_duels
        >>> len(make_cluster_duels(n_duels=20, n_items=10, random_state=0).subset([0, 3, 5]))
        3
        """
        r = _check_rows(rows, len(self))

        def take(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[r]

        return replace(
            self,
            X_left=self.X_left[r],
            X_right=self.X_right[r],
            y=self.y[r],
            context=take(self.context),
            left_index=take(self.left_index),
            right_index=take(self.right_index),
            groups=take(self.groups),
        )

    def split(self, test_size: float = 0.3, random_state: RandomStateLike = None) -> tuple[DuelData, DuelData]:
        """Random train/test split of the duels (whole ``groups`` when present), before any flipping.

        Parameters
        ----------
        test_size : float
            Fraction of the duels (of the groups, when present) in the test part, in (0, 1).
        random_state : None, int or numpy.random.Generator
            Seed or generator of the random split.

        Returns
        -------
        train : DuelData
            The duels not in the test part.
        test : DuelData
            The test duels.

        Examples
        --------
        >>> from kexplain.preference import make_cluster_duels
        >>> train, test = make_cluster_duels(n_duels=10, n_items=10, random_state=0).split(0.2, random_state=1)
        >>> len(train), len(test)
        (8, 2)
        """
        if not 0.0 < float(test_size) < 1.0:
            raise ValueError(f"test_size must be a fraction in (0, 1), got {test_size!r}.")
        rng = check_random_state(random_state)
        keys = np.arange(len(self)) if self.groups is None else self.groups
        uniq = np.unique(keys)
        n_test = min(len(uniq) - 1, max(1, int(round(float(test_size) * len(uniq)))))
        if len(uniq) < 2:
            raise ValueError("split needs at least two duels (or two groups).")
        test_keys = rng.choice(uniq, size=n_test, replace=False)
        is_test = np.isin(keys, test_keys)
        return self.subset(np.flatnonzero(~is_test)), self.subset(np.flatnonzero(is_test))


@dataclass(frozen=True)
class Duels:
    """The duels to explain: left items, right items and, for a context model, their contexts.

    The input type of :meth:`PrefShapExplainer.explain`, so that it takes one ``X`` as every
    explainer does.  Rows may be arrays or DataFrames (validated by the explainer against the
    model).  A :class:`DuelData` is accepted in its place (its ``y`` is not read: pass
    ``y=data.y`` to explain winner vs loser).

    Parameters
    ----------
    left, right : array-like (N, d)
        The two items of each duel.
    context : array-like (N, p) or None
        The context of each duel (required exactly when the model has one).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import Duels
    >>> duels = Duels(np.zeros((3, 2)), np.ones((3, 2)))
    >>> len(duels), duels.context is None
    (3, True)
    """

    left: Any
    right: Any
    context: Any = None

    def __len__(self) -> int:
        return int(np.shape(self.left)[0])

    @classmethod
    def of(cls, data: DuelData) -> Duels:
        """The duels of a :class:`DuelData` (items and contexts; the outcomes stay there).

        Parameters
        ----------
        data : DuelData
            The duels, with or without outcomes.

        Returns
        -------
        Duels

        Examples
        --------
        >>> from kexplain.preference import Duels, make_cluster_duels
        >>> len(Duels.of(make_cluster_duels(n_duels=20, n_items=10, random_state=0)))
        20
        """
        return cls(data.X_left, data.X_right, data.context)


def _check_rows(rows: Any, n: int) -> np.ndarray:
    """Row indices into n duels: integers in [-n, n) or a boolean mask of length n."""
    r = np.asarray(rows)
    if r.dtype.kind == "b":
        if r.shape != (n,):
            raise ValueError(f"rows as a boolean mask must have one entry per duel, shape ({n},), got {r.shape}.")
        return r
    if r.ndim > 1 or (r.size and r.dtype.kind not in "iu"):
        raise ValueError(f"rows must be integer indices of duels (or a boolean mask of length {n}), got {rows!r:.80}.")
    r = r.astype(np.int64).reshape(-1)
    bad = (r < -n) | (r >= n)
    if bad.any():
        raise ValueError(f"rows has the index {int(r[bad][0])}, out of range for {n} duels (0 to {n - 1}).")
    return r


def _check_count(value: Any, name: str, minimum: int = 1) -> int:
    return int(check_param(value, name, Integer(minimum), what=f"an integer >= {minimum}"))


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
