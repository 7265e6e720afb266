"""
Clusters of comparable items from duels
=======================================

Items are often comparable only within groups: players of different leagues, products of
different categories.  Chau's thesis (2023, Section 6.4.2) simulates this: each of 30 items (5
features) has a latent state; within a state a utility function decides the duels, across states
the outcome is a fair coin.  With L such clusters the preference matrix G = [g(x_i, x_j)] has
rank 2L (Section 6.3.4), so k-means on its top 2L singular vectors recovers the clusters.

Three ways to find the clusters, scored by the fraction of items correctly clustered (best
matching of cluster labels), averaged over several simulations at two sparsity levels:

- GPGP-CLUS: G from a fitted generalised preference model
  (:func:`kexplain.preference.comparable_clusters` on a
  :class:`~kexplain.preference.PreferenceClassifier` and on a
  :class:`~kexplain.preference.PreferenceGPClassifier`);
- SVD-CLUS: the same spectral step on the observed comparison matrix (+1 / -1 for won / lost
  duels, 0 where the items did not meet);
- chance: random labels.

``python examples/pref_clusters.py [--runs N]`` runs 4 simulations per setting; ``--quick`` or
``KEXPLAIN_QUICK=1`` 3 without the GP; ``--full`` or ``KEXPLAIN_FULL=1`` the thesis's 10.
"""

# %%
# Helpers
# -------
import argparse
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

from kexplain.preference import (
    PreferenceClassifier,
    PreferenceGPClassifier,
    comparable_clusters,
    make_latent_state_duels,
)


def fraction_correct(truth, labels, n_clusters):
    """Fraction of items in the best one-to-one matching of found clusters to true ones."""
    counts = np.zeros((n_clusters, n_clusters))
    np.add.at(counts, (truth, labels), 1)
    rows, cols = linear_sum_assignment(-counts)
    return counts[rows, cols].sum() / len(truth)


def svd_clusters(data, n_clusters, seed):
    n = len(data.items)
    Y = np.zeros((n, n))
    s = 2 * data.y - 1
    Y[data.left_index, data.right_index] = s
    Y[data.right_index, data.left_index] = -s
    U = np.linalg.svd(Y)[0][:, : 2 * n_clusters]
    return KMeans(n_clusters, n_init=10, random_state=seed).fit_predict(U)


def cell(values, width):
    return (f"{np.mean(values):.2f} +- {np.std(values):.2f}" if values else "-").rjust(width)


# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="Clusters of comparable items from a preference model.")
ap.add_argument("--quick", action="store_true", help="3 simulations, no GP (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="10 simulations per setting (KEXPLAIN_FULL=1)")
ap.add_argument("--runs", type=int, default=None, help="simulations per setting (default 4, quick 3, full 10)")
args = ap.parse_known_args()[0]
quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
full = not quick and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
runs = args.runs or (3 if quick else 10 if full else 4)
warnings.filterwarnings("ignore", category=ConvergenceWarning)
grid = {"lengthscale_grid": (0.5, 1.0), "C_grid": (1.0, 10.0)} if quick else {}

# %%
# Cluster the items in every setting
# ----------------------------------
# L clusters, duels observed between a fraction ``density`` of the item pairs.
summary = {}
print(f"Fraction of the 30 items correctly clustered (mean +- sd over {runs} simulations)")
print(f"{'L':>2} {'density':>8} {'GPGP-CLUS (Nystroem)':>21} {'GPGP-CLUS (GP)':>15} {'SVD-CLUS':>12} {'chance':>8}")
for n_clusters in (2, 3):
    for density in (0.3, 0.7):
        scores = {"nys": [], "gp": [], "svd": [], "chance": []}
        for seed in range(runs):
            data = make_latent_state_duels(
                n_items=30, n_features=5, n_states=n_clusters, density=density, across="random", random_state=seed
            )
            truth = data.item_labels
            model = PreferenceClassifier(random_state=seed, **grid).fit(data.X_left, data.X_right, data.y)
            labels = comparable_clusters(model, data.items, n_clusters, random_state=seed)
            scores["nys"].append(fraction_correct(truth, labels, n_clusters))
            if not quick:
                gp = PreferenceGPClassifier().fit(data.X_left, data.X_right, data.y)
                labels = comparable_clusters(gp, data.items, n_clusters, random_state=seed)
                scores["gp"].append(fraction_correct(truth, labels, n_clusters))
            labels = svd_clusters(data, n_clusters, seed)
            scores["svd"].append(fraction_correct(truth, labels, n_clusters))
            rand = np.random.default_rng(10_000 + seed).integers(n_clusters, size=len(truth))
            scores["chance"].append(fraction_correct(truth, rand, n_clusters))

        summary[f"L={n_clusters}, density {density}"] = {k: np.mean(v) for k, v in scores.items() if v}
        cells = [cell(scores[key], width) for key, width in (("nys", 21), ("gp", 15), ("svd", 12), ("chance", 8))]
        print(f"{n_clusters:>2} {density:>8.1f} " + " ".join(cells))

# %%
# The same table drawn: the fraction correctly clustered per method and setting.
labels = {"nys": "GPGP-CLUS (Nystroem)", "gp": "GPGP-CLUS (GP)", "svd": "SVD-CLUS", "chance": "chance"}
methods = [k for k in labels if any(k in v for v in summary.values())]
fig, ax = plt.subplots(figsize=(8, 3.8))
width = 0.8 / len(methods)
for i, key in enumerate(methods):
    ax.bar(np.arange(len(summary)) + i * width, [v[key] for v in summary.values()], width, label=labels[key])
ax.set_xticks(np.arange(len(summary)) + 0.4 - width / 2, list(summary))
ax.set_ylabel("fraction correctly clustered")
ax.set_ylim(0, 1)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
