"""Thesis Table 3.1 (direct matching): what the thesis's 5,000 points cost the exact models here.

Times one L-BFGS-B iteration (``max_iter=1``: the start's likelihood and gradient plus a line search)
of the exact CMP on the bagged swiss roll at growing sizes.  Each evaluation builds the n x n RBF
Gram matrix and one derivative matrix per input lengthscale and sums them over bags, so the cost
grows as n^2.

Output on 2026-11-28 (one BLAS thread, nice 5, load ~14 on 2 cores; CPU seconds are the process's own)::

    500 exact CMP fit max_iter=1: cpu 1.44 wall 17.6    (includes first-call set-up)
    1000 exact CMP fit max_iter=1: cpu 0.56 wall 6.8
    2000 exact CMP fit max_iter=1: cpu 1.84 wall 22.3
    5000 exact CMP fit max_iter=1: cpu 13.69 wall 167.6

One iteration holds two or three likelihood evaluations, so at 5,000 points a fit of 100 iterations is
10-20 CPU-minutes; every seed fits five such models (each DGP model, the variational ones too for their
trace term, builds the bag sums of the n x n Gram matrix), 1-2 CPU-hours a seed, a CPU-day or more for
the thesis's 20 seeds: the record stays at 500 points and 2 seeds (``REPRODUCE_SWISS_POINTS`` /
``REPRODUCE_SWISS_SEEDS`` run the thesis's size where the time exists).
"""

from __future__ import annotations

import time

import numpy as np

from reproduce.experiments import thesis_embeddings as T


def main(sizes: tuple[int, ...] = (500, 1000, 2000, 5000)) -> None:
    for n in sizes:
        X, t, labels, centres, z = T.swiss_roll(n, 50, np.random.default_rng(0))
        m = T._dgp("exact", 0, 80, max_iter=1)
        c0, w0 = time.process_time(), time.time()
        m.fit(X, z, bags=labels, mediator=centres)
        cpu, wall = time.process_time() - c0, time.time() - w0
        print(f"{n} exact CMP fit max_iter=1: cpu {cpu:.2f} wall {wall:.1f}", flush=True)


if __name__ == "__main__":
    main()
