"""Thesis Fig. 6.2: does PAIR-GP's fixed kernel explain why it drops as much as PAIR-LOGREG?

The record's PAIR-GP keeps its kernel fixed (amplitude 2, lengthscale 3) to keep the run in minutes.
Here the same simulations (seeds as run_fig62, L = 1 and 5) are refitted with PAIR-GP's kernel by
marginal likelihood, next to the fixed kernel and PAIR-LOGREG.  Run it as
``python reproduce/checks/fig62_pair_gp_kernel.py 0.2 0.8`` (densities; default 0.2).

Output on 2026-11-28, density 0.2 (61 training and 26 test duels per simulation)::

    L=1 r=0: fixed 0.769, ML 0.808 (5.97**2 * RBF(2.35)), LOGREG 0.615
    L=1 r=1: fixed 0.885, ML 0.885 (9.45**2 * RBF(7.07)), LOGREG 0.808
    L=1 r=2: fixed 0.846, ML 0.808 (37.5**2 * RBF(6.94)), LOGREG 0.808
    L=5 r=0: fixed 0.769, ML 0.731 (0.946**2 * RBF(2.94)), LOGREG 0.731
    L=5 r=1: fixed 0.577, ML 0.577 (1.65**2 * RBF(2.46)), LOGREG 0.654
    L=5 r=2: fixed 0.654, ML 0.538 (0.0372**2 * RBF(0.106)), LOGREG 0.615
    mean L=1 -> L=5: fixed 0.833 -> 0.667 (drop 0.167), ML 0.834 -> 0.615 (0.218), LOGREG 0.744 -> 0.667 (0.077)

and density 0.8 (the dense half; 244 training duels; about 2.5 min for all six simulations at load ~8)::

    density 0.8 L=1 r=0: fixed 0.846, ML 0.933, LOGREG 0.615
    density 0.8 L=1 r=1: fixed 0.933, ML 0.942, LOGREG 0.846
    density 0.8 L=1 r=2: fixed 0.971, ML 0.981, LOGREG 0.971
    density 0.8 L=5 r=0: fixed 0.760, ML 0.760, LOGREG 0.548
    density 0.8 L=5 r=1: fixed 0.712, ML 0.712, LOGREG 0.663
    density 0.8 L=5 r=2: fixed 0.750, ML 0.731, LOGREG 0.606
    density 0.8 fixed: L=1 0.917 -> L=5 0.740 (drop 0.176)
    density 0.8 ML: L=1 0.952 -> L=5 0.734 (drop 0.218)
    density 0.8 LOGREG: L=1 0.811 -> L=5 0.606 (drop 0.205)

The fixed-kernel and LOGREG means over both densities (drops 0.171 and 0.141) are the record's.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from kexplain.preference import make_latent_state_duels
from reproduce.experiments.thesis_preference import _pair_gp, _pair_logreg


def main(densities: tuple[float, ...] = (0.2,), seed: int = 0) -> None:
    warnings.simplefilter("ignore")
    res: dict[tuple, list[float]] = {}
    names = ("fixed", "ML", "LOGREG")
    for dens in densities:
        for L in (1, 5):
            for r in range(3):
                s = seed + 100 * r + 10 * L  # as run_fig62
                data = make_latent_state_duels(n_items=30, n_features=5, n_states=L, density=dens, random_state=s)
                tr, te = data.split(test_size=0.3, random_state=s)
                models = (_pair_gp(optimise=False), _pair_gp(optimise=True), _pair_logreg())
                for name, m in zip(names, models):
                    m.fit(tr.X_left, tr.X_right, tr.y)
                    res.setdefault((dens, L, name), []).append(float(m.score(te.X_left, te.X_right, te.y)))
                print(f"density {dens} L={L} r={r}: " + ", ".join(f"{n} {res[(dens, L, n)][-1]:.3f}" for n in names))
        for name in names:
            a1, a5 = np.mean(res[(dens, 1, name)]), np.mean(res[(dens, 5, name)])
            print(f"density {dens} {name}: L=1 {a1:.3f} -> L=5 {a5:.3f} (drop {a1 - a5:.3f})", flush=True)


if __name__ == "__main__":
    main(tuple(float(a) for a in sys.argv[1:]) or (0.2,))
