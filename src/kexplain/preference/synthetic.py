"""Synthetic duels that run offline: the chapter 7 cluster duels, the chapter 6 latent-state duels
and duels drawn from a generalised preferential GP (Chau, 2023, thesis chapters 6 and 7)."""

from __future__ import annotations

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_random_state
from ..kernels.base import RBF
from .data import DuelData, _check_count


def _random_pairs(n_items: int, n_duels: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_duels`` pairs of distinct items, drawn uniformly with replacement."""
    if n_items < 2:
        raise ValueError(f"n_items must be at least 2, got {n_items}.")
    a = rng.integers(n_items, size=n_duels)
    b = (a + rng.integers(1, n_items, size=n_duels)) % n_items
    return a, b


CLUSTER_FEATURES = ["x0", "xAB", "xAC", "xBC", "A", "B", "C"]


def make_cluster_duels(n_duels: int = 2000, n_items: int = 1000, random_state: RandomStateLike = None) -> DuelData:
    """The non-rankable cluster duels of Chau (2023, Section 7.4, Figure 7.1).

    Items have four covariates ``[x0, xAB, xAC, xBC] ~ N(0, I_4)`` and a cluster A, B or C (equally
    likely), one-hot encoded after them (7 features).  In a duel within a cluster the item with the
    larger ``x0`` wins; across clusters the covariate of that pair decides (A vs B: larger ``xAB``
    wins, and so on).  No cluster dominates, so the duels are not rankable.  The thesis uses 1,000
    items and 40,000 duels.

    Parameters
    ----------
    n_duels, n_items : int
        Numbers of duels and of items.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the items and the duels.

    Returns
    -------
    DuelData
        ``item_labels`` holds the clusters 0, 1, 2 (A, B, C).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import make_cluster_duels
    >>> data = make_cluster_duels(n_duels=5, n_items=20, random_state=0)
    >>> data.X_left.shape, data.feature_names[4:]
    ((5, 7), ['A', 'B', 'C'])
    """
    n_duels = _check_count(n_duels, "n_duels")
    n_items = _check_count(n_items, "n_items", 2)
    rng = check_random_state(random_state)
    p = rng.normal(size=(n_items, 4))
    cluster = rng.integers(3, size=n_items)
    items = np.hstack([p, np.eye(3)[cluster]])
    a, b = _random_pairs(n_items, n_duels, rng)
    ca, cb = cluster[a], cluster[b]
    # column deciding each duel: x0 within a cluster; xAB (1), xAC (2), xBC (3) across
    pair_col = {(0, 1): 1, (0, 2): 2, (1, 2): 3}
    col = np.array([0 if u == v else pair_col[(min(u, v), max(u, v))] for u, v in zip(ca.tolist(), cb.tolist())])
    y = (p[a, col] > p[b, col]).astype(np.float64)
    return DuelData(
        X_left=items[a],
        X_right=items[b],
        y=y,
        left_index=a,
        right_index=b,
        items=items,
        item_labels=cluster,
        feature_names=list(CLUSTER_FEATURES),
        info={"deciding_feature": np.array(CLUSTER_FEATURES)[col]},
    )


def make_latent_state_duels(
    n_items: int = 30,
    n_features: int = 5,
    n_states: int = 2,
    density: float = 0.5,
    *,
    across: str = "utility",
    lengthscale: float | None = None,
    random_state: RandomStateLike = None,
) -> DuelData:
    """Duels between items with latent states, after Chau (2023, Sections 6.4.1 and 6.4.2).

    Each item gets a latent state z in {0, ..., n_states - 1} (uniform) and features
    x | z ~ N(z 1, I).  Utilities r(x) = sum_j alpha_j k(x, x_j) (RBF kernel, alpha ~ N(0, I)) are
    drawn per pair of states.  A duel within a state compares that state's utility.  Across states,
    ``across="utility"`` compares the utility of the pair of states (cyclic, inconsistent
    preferences: Section 6.4.1), ``across="random"`` gives a fair coin (clusters of comparable
    items: Section 6.4.2).  A fraction ``density`` of all pairs of items is played once.

    Parameters
    ----------
    n_items, n_features, n_states : int
        Numbers of items, of item features and of latent states.
    density : float in (0, 1]
        Fraction of the n_items (n_items - 1) / 2 pairs that are played (1 - sparsity).
    across : {"utility", "random"}
    lengthscale : float, optional
        RBF lengthscale of the utilities (default sqrt(n_features)).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the items and the duels.

    Returns
    -------
    DuelData
        ``item_labels`` holds the latent states; ``info["utilities"]`` the utility of each
        state pair at every item, shape (n_states, n_states, n_items).

    Examples
    --------
    >>> from kexplain.preference import make_latent_state_duels
    >>> data = make_latent_state_duels(n_items=10, density=1.0, across="random", random_state=0)
    >>> len(data), data.X_left.shape[1]
    (45, 5)
    """
    n_items = _check_count(n_items, "n_items", 2)
    n_features = _check_count(n_features, "n_features")
    n_states = _check_count(n_states, "n_states")
    if not 0.0 < float(density) <= 1.0:
        raise ValueError(f"density must be in (0, 1], got {density!r}.")
    if across not in ("utility", "random"):
        raise ValueError(f"across must be 'utility' or 'random', got {across!r}.")
    rng = check_random_state(random_state)
    z = rng.integers(n_states, size=n_items)
    X = z[:, None] + rng.normal(size=(n_items, n_features))
    K = RBF(float(np.sqrt(n_features)) if lengthscale is None else float(lengthscale)).gram(X, check_input=False)
    util = np.einsum("abj,ij->abi", rng.normal(size=(n_states, n_states, n_items)), K)
    util = (util + util.transpose(1, 0, 2)) / 2  # one utility per unordered pair of states
    iu, ju = np.triu_indices(n_items, 1)
    n_pairs = max(1, int(round(float(density) * len(iu))))
    pick = np.sort(rng.choice(len(iu), size=n_pairs, replace=False))
    a, b = iu[pick], ju[pick]
    swap = rng.random(n_pairs) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    za, zb = z[a], z[b]
    left_wins = util[za, zb, a] > util[za, zb, b]
    if across == "random":
        coin = rng.random(n_pairs) < 0.5
        left_wins = np.where(za == zb, left_wins, coin)
    return DuelData(
        X_left=X[a],
        X_right=X[b],
        y=left_wins.astype(np.float64),
        left_index=a,
        right_index=b,
        items=X,
        item_labels=z,
        feature_names=[f"x{j}" for j in range(n_features)],
        info={"utilities": util},
    )


def make_gpm_duels(
    n_duels: int = 2000,
    n_items: int = 100,
    n_features: int = 3,
    *,
    lengthscale: float = 1.0,
    amplitude: float = 3.0,
    random_state: RandomStateLike = None,
) -> DuelData:
    """Duels whose outcomes follow a preference function g drawn from the GPM prior.

    g ~ GP(0, a^2 k_E) on all pairs of ``n_items`` items x ~ N(0, I), sampled exactly: with
    K = A A^T the item Gram matrix (RBF kernel), H = A Z A^T (Z standard normal) has covariance
    K (x) K, and G = a (H - H^T) / sqrt(2) has covariance a^2 k_E (Chau, 2023, Section 6.3).  Each
    duel is a random pair (i, j) with y ~ Bernoulli(sigmoid(G_ij)).

    Parameters
    ----------
    n_duels, n_items, n_features : int
        Numbers of duels, of items and of item features.
    lengthscale : float
        RBF lengthscale of the item kernel.
    amplitude : float
        Scale a of g (larger: less noisy outcomes).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the items and the duels.

    Returns
    -------
    DuelData
        ``info["G"]`` is the true preference matrix [g(x_i, x_j)] (skew-symmetric).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import make_gpm_duels
    >>> data = make_gpm_duels(n_duels=10, n_items=8, random_state=0)
    >>> G = data.info["G"]
    >>> bool(np.allclose(G, -G.T))
    True
    """
    n_duels = _check_count(n_duels, "n_duels")
    n_items = _check_count(n_items, "n_items", 2)
    n_features = _check_count(n_features, "n_features")
    rng = check_random_state(random_state)
    X = rng.normal(size=(n_items, n_features))
    K = RBF(float(lengthscale)).gram(X, check_input=False)
    s, U = np.linalg.eigh(K)
    A = U * np.sqrt(np.clip(s, 0.0, None))
    H = A @ rng.normal(size=(n_items, n_items)) @ A.T
    G = float(amplitude) * (H - H.T) / np.sqrt(2.0)
    a, b = _random_pairs(n_items, n_duels, rng)
    y = (rng.random(n_duels) < 1.0 / (1.0 + np.exp(-G[a, b]))).astype(np.float64)
    return DuelData(
        X_left=X[a],
        X_right=X[b],
        y=y,
        left_index=a,
        right_index=b,
        items=X,
        feature_names=[f"x{j}" for j in range(n_features)],
        info={"G": G},
    )
