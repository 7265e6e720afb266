"""
Which variables carry the dependence between two data sets? HSIC attributions
=============================================================================

X has 5 variables and Y has 3.  Y1 depends on X1 through a sine, Y2 on X3 through a square
(invisible to correlation), Y3 is independent noise, and X2, X4, X5 are independent of everything.
The HSIC independence test gives a permutation p-value for the whole dependence, and exact Shapley
values of HSIC split it over the variables of X (Y's kernel held whole) and, in a second game,
over the variables of Y (Mohammadi, Chau & Muandet, 2025, PKeX-Shapley, section 4.2 and appendix G),
with per-variable permutation p-values from the same permutations::

    python examples/hsic_dependence.py            # n = 300, 500 permutations (~1 min)
    python examples/hsic_dependence.py --quick    # n = 120, 200 permutations (also: KEXPLAIN_QUICK=1)
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import kexplain as kx


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="HSIC between two multivariate data sets, per variable.")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--permutations", type=int, default=500)
    ap.add_argument("--quick", action="store_true", help="n = 120, 200 permutations (also: KEXPLAIN_QUICK=1)")
    ap.add_argument("--figure", default="", help="also save the attribution bar charts to this PNG")
    args, _ = ap.parse_known_args(argv)
    if args.quick or os.environ.get("KEXPLAIN_QUICK") == "1":
        args.n, args.permutations = 120, 200
    rng = np.random.default_rng(0)
    n = args.n
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"X{j}" for j in range(1, 6)])
    Y = pd.DataFrame(
        {
            "Y1": np.sin(2 * X["X1"]) + 0.3 * rng.normal(size=n),
            "Y2": X["X3"] ** 2 + 0.3 * rng.normal(size=n),
            "Y3": rng.normal(size=n),
        }
    )
    print(f"Pearson correlation of X3 and Y2: {np.corrcoef(X['X3'], Y['Y2'])[0, 1]:+.3f} (no linear signal)")
    res = kx.stats.hsic_test(X, Y, attribute="both", n_permutations=args.permutations, random_state=0)
    print(f"HSIC = {res.statistic:.4g}, permutation p-value = {res.p_value:.4f} ({res.n_permutations} permutations)")
    print("\nShapley values of HSIC and their permutation p-values (each side sums to HSIC):")
    print(res.to_frame().to_string(float_format=lambda v: f"{v:.4g}"))
    for side in res.attribution:
        assert np.isclose(side.values.sum(), res.statistic)

    # %%
    # The two attributions side by side: X's variables (left) and Y's (right), each summing to HSIC.
    try:
        axes = res.plot()
    except ImportError:
        print("matplotlib is not installed: no figure")
        return
    axes[0].figure.tight_layout()
    if args.figure:
        axes[0].figure.savefig(args.figure, dpi=120)
        print(f"figure written to {args.figure}")


if __name__ == "__main__":
    main()
