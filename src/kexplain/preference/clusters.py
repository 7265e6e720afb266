"""Clusters of comparable items: the spectral method of Chau (2023, Section 6.3.4)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.cluster import KMeans

from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import check_data, check_random_state
from .expansion import preference_expansion


def comparable_clusters(
    model: Any, items: ArrayLike, n_clusters: int, random_state: RandomStateLike = None
) -> np.ndarray:
    """Cluster items into groups that are comparable (rankable) within and not across.

    With L clusters of comparable items the preference matrix G = [g(x_i, x_j)] has rank 2L
    (Chau, 2023, Section 6.3.4): k-means on the rows of its top 2L left singular vectors recovers
    the clusters.  Here G comes from the fitted model.

    Parameters
    ----------
    model : fitted PreferenceClassifier, PreferenceGPClassifier or PreferenceExpansion
        A model without a context.
    items : array-like of shape (n_items, d)
        The items to cluster.
    n_clusters : int
        The number of clusters L.
    random_state : int, Generator or None
        Seeds k-means.

    Returns
    -------
    ndarray of shape (n_items,)
        Cluster labels 0..L-1.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import PreferenceExpansion, comparable_clusters
    >>> from kexplain.kernels import RBF
    >>> items = np.array([[0.0], [0.5], [1.0], [6.0], [6.5], [7.0]])
    >>> # two far-apart groups, each with its own ranking; no duels across the groups
    >>> pe = PreferenceExpansion(items[[0, 1, 3, 4]], items[[1, 2, 4, 5]], [1.0] * 4, RBF(0.5))
    >>> labels = comparable_clusters(pe, items, 2, random_state=0)
    >>> print(labels[:3] == labels[0], labels[3:] == labels[3], labels[0] != labels[3])
    [ True  True  True] [ True  True  True] True
    """
    pe = preference_expansion(model)
    if pe.context is not None:
        raise ValueError("comparable_clusters needs a model fitted without a context.")
    check_param(n_clusters, "n_clusters", Integer(1))
    if items is None:
        raise ValueError("items is required: the rows (n_items, d) to cluster.")
    X = check_data(
        items,
        name="items",
        n_features=pe.n_features,
        numeric_mask=pe.item_kernel.numeric_mask(pe.n_features),
        feature_names=pe.columns,
    )
    n = len(X)
    if n_clusters > n:
        raise ValueError(f"n_clusters={n_clusters} is more than the {n} items.")
    ii, jj = np.triu_indices(n, 1)
    G = np.zeros((n, n))
    if len(ii):
        g = pe._logit(X[ii], X[jj], None)
        G[ii, jj] = g
        G[jj, ii] = -g
    U, _, _ = np.linalg.svd(G)
    emb = U[:, : min(2 * int(n_clusters), n)]
    seed = int(check_random_state(random_state).integers(2**31))
    return KMeans(n_clusters=int(n_clusters), n_init=10, random_state=seed).fit_predict(emb)
