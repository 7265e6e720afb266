"""The containers of duels: :class:`DuelData` (duels with their outcomes and the items they come
from, split without leaking a duel into both parts) and :class:`Duels` (the duels an explainer
explains), with the checks of row indices and counts the generators share.

Every name here is still imported from ``kexplain.preference.data``.
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
