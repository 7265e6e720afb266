"""Thesis Fig. 4.5(c): does IMP's band widen where treatments are rare only because N is small?

IMP (BayesIMP's "imp" method, the record's hyperparameters) on the ablation's chain with N = 100
(the thesis's size) and N = 400 rows of D1 (M = 100 of D2), three seeds each; the ratio of the mean
posterior sd in the sparse region (2.5 < |x| < 4) to the dense one (|x| < 1).

Output on 2026-11-28 (the N = 1600 run did not finish within 15 min on the shared machine)::

    N=100: imp sparse/dense sd ratio per seed [1.4  1.95 1.89] mean 1.74
    (share of D1 treatments in the sparse region 0.090)
    N=400: imp sparse/dense sd ratio per seed [1.18 4.4  1.02] mean 2.20
    (share of D1 treatments in the sparse region 0.102)
"""

from __future__ import annotations

import warnings

import numpy as np

from kexplain.causal import BayesIMP
from reproduce.experiments.thesis_embeddings import ABL_PARAMS, _regions, ablation_data


def main(sizes: tuple[int, ...] = (100, 400)) -> None:
    warnings.simplefilter("ignore")
    x = np.linspace(-4, 4, 161)[:, None]
    reg = _regions(x[:, 0])
    for N in sizes:
        ratios = []
        for s in range(3):
            X, Y, Y2, T = ablation_data(N, 100, np.random.default_rng(s))
            p = BayesIMP("imp", **ABL_PARAMS).fit(X, Y, Y2, T).predict(x, return_cov=True)
            ratios.append(p.std[reg["sparse"]].mean() / p.std[reg["dense"]].mean())
        print(f"N={N}: imp sparse/dense sd ratio per seed {np.round(ratios, 2)} mean {np.mean(ratios):.2f}")


if __name__ == "__main__":
    main()
