"""
BayesIMP: where the uncertainty comes from, and whether it is calibrated
========================================================================

The ablation study of Chau, Ton, Gonzalez, Teh & Sejdinovic (2021) (Chau's thesis, 2023,
section 4.4, figure 4.5 and appendix B.4.1) with ``kexplain.causal.BayesIMP``.

Two data sets on the chain X -> Y -> T (appendix B.4.1.1): D1 has treatments x ~ N(0, 1.5^2) and
y = x cos(pi x) + N(0, 0.3^2); D2 has mediator values y~ ~ U(-2, 4), so no y below -2 is ever seen
with a target, and t = 0.5 y~ cos(y~) + N(0, 0.3^2).  The target of inference is

    g(x) = E[T | do(X) = x] = 0.5 exp(-s^2 / 2) (m cos m - s^2 sin m),   m = x cos(pi x), s = 0.3,

known in closed form.  IMP (GP on D2, kernel ridge embedding), BayesIME (kernel ridge on D2,
Bayesian embedding) and BayesIMP (both) are fitted with fixed lengthscales (x: 0.3, y: 0.5) and
lambda = 1e-3; the amplitude and noise of f come from D2's marginal likelihood.

Part 1 (figure 4.5's shapes, as numbers): the posterior standard deviation of g averaged over
three regions of x: dense treatments (``|x| < 1``), sparse treatments (``2.5 < |x| < 4``) and the
extrapolation region where x cos(pi x) < -2 (mediator values D2 never saw), for several data sizes
(N, M).  IMP's uncertainty follows D2 (it spikes where the mediator leaves D2's support), BayesIME's
follows D1 (it grows where treatments are rare), BayesIMP's follows both; the columns D1 / D2 /
interaction split BayesIMP's variance into its three terms.

Part 2 (appendix B.4.1.3's calibration): the fraction of a grid of x in [-3, 3] whose true g lies in
the central credible interval of each nominal level, over several seeds (closer to the nominal
level is better).

The sampling baseline of Aglietti et al. (2020) and the Bayesian-optimisation experiments (figures
4.7, 4.8; the healthcare data of Stamey et al., 1989 and Ferro et al., 2015 cannot be downloaded
here) are out of scope; ``BayesIMP.bo_prior`` gives the moment-matched GP prior they use.

Sizes: ``python examples/bayesimp_ablation.py [--seeds N]`` runs 4 seeds on three data sizes;
``--quick`` or ``KEXPLAIN_QUICK=1`` 1 seed on two data sizes (CI); ``--full`` or ``KEXPLAIN_FULL=1`` the thesis's
10 seeds on five data sizes.
"""

# %%
# Sizes and the data sets
# -----------------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import norm

from kexplain.causal import BayesIMP

S1, S2 = 0.3, 0.3
PARAMS = dict(lengthscale_x=0.3, lengthscale_y=0.5, regularization="ml")
METHODS = ("imp", "bayesime", "bayesimp")


def data(N, M, rng):
    X = rng.normal(scale=1.5, size=(N, 1))
    Y = X * np.cos(np.pi * X) + S1 * rng.normal(size=(N, 1))
    Y2 = rng.uniform(-2, 4, size=(M, 1))
    T = 0.5 * Y2[:, 0] * np.cos(Y2[:, 0]) + S2 * rng.normal(size=M)
    return X, Y, Y2, T


def truth(x):
    m = x * np.cos(np.pi * x)
    return 0.5 * np.exp(-(S1**2) / 2) * (m * np.cos(m) - S1**2 * np.sin(m))


def regions(x):
    m = x * np.cos(np.pi * x)
    return {
        "dense |x|<1": np.abs(x) < 1,
        "sparse 2.5<|x|<4": (np.abs(x) > 2.5) & (np.abs(x) < 4),
        "extrap. y<-2": m < -2,
    }


def uncertainty_table(sizes, seeds):
    x = np.linspace(-4, 4, 161)[:, None]
    reg = regions(x[:, 0])
    print(f"{'N':>4} {'M':>4} {'method':<9}" + "".join(f"{r:>18}" for r in reg) + f"{'D1/D2/inter (dense)':>24}")
    for N, M in sizes:
        acc = {m: {r: [] for r in reg} for m in METHODS}
        parts = []
        for seed in range(seeds):
            X, Y, Y2, T = data(N, M, np.random.default_rng(seed))
            for method in METHODS:
                p = BayesIMP(method, **PARAMS).fit(X, Y, Y2, T).predict(x, return_cov=True)
                for r, mask in reg.items():
                    acc[method][r].append(p.std[mask].mean())
                if method == "bayesimp":
                    d = reg["dense |x|<1"]
                    parts.append([np.diag(p.components[k])[d].mean() for k in ("D1", "D2", "interaction")])
        for method in METHODS:
            row = "".join(f"{np.mean(acc[method][r]):>18.3f}" for r in reg)
            extra = "" if method != "bayesimp" else "{:>24}".format("/".join(f"{v:.4f}" for v in np.mean(parts, 0)))
            print(f"{N:>4} {M:>4} {method:<9}{row}{extra}")


def calibration(N, M, seeds, levels):
    x = np.linspace(-3, 3, 61)[:, None]
    g = truth(x[:, 0])
    cover = {m: np.zeros(len(levels)) for m in METHODS}
    rmse = {m: [] for m in METHODS}
    for seed in range(seeds):
        X, Y, Y2, T = data(N, M, np.random.default_rng(100 + seed))
        for method in METHODS:
            p = BayesIMP(method, **PARAMS).fit(X, Y, Y2, T).predict(x, return_cov=True)
            rmse[method].append(np.sqrt(np.mean((p.mean - g) ** 2)))
            for i, lev in enumerate(levels):
                cover[method][i] += np.mean(np.abs(g - p.mean) <= norm.ppf(0.5 + lev / 2) * p.std) / seeds
    print(f"{'method':<9} {'RMSE':>6}" + "".join(f"{f'{lev:.0%}':>8}" for lev in levels))
    for method in METHODS:
        print(f"{method:<9} {np.mean(rmse[method]):>6.3f}" + "".join(f"{c:>8.2f}" for c in cover[method]))


ap = argparse.ArgumentParser(description="BayesIMP: where the uncertainty comes from.")
ap.add_argument("--quick", action="store_true", help="1 seed, two sizes (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="10 seeds, five sizes (KEXPLAIN_FULL=1)")
ap.add_argument("--seeds", type=int, default=None)
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
seeds = args.seeds or (1 if QUICK else 10 if FULL else 4)
sizes = [(100, 100), (30, 100)] if QUICK else [(100, 100), (30, 100), (100, 30)]
if FULL:
    sizes = [(100, 100), (300, 300), (30, 100), (100, 30), (300, 30)]
warnings.simplefilter("ignore")

# %%
# What the three models see
# -------------------------
# One draw of D1 and D2 at N = M = 100: each method's posterior mean of
# :math:`E[T \mid do(X) = x]` with a band of two standard deviations, against the true curve.
# IMP's band widens where x cos(pi x) leaves D2's support, BayesIME's where treatments are rare.
x_grid = np.linspace(-4, 4, 161)[:, None]
X, Y, Y2, T = data(100, 100, np.random.default_rng(0))
fig, axes = plt.subplots(1, 3, figsize=(13, 3.6), sharey=True)
for ax, method in zip(axes, METHODS, strict=True):
    p = BayesIMP(method, **PARAMS).fit(X, Y, Y2, T).predict(x_grid, return_cov=True)
    ax.plot(x_grid[:, 0], truth(x_grid[:, 0]), "k--", lw=1, label="true g(x)")
    ax.plot(x_grid[:, 0], p.mean, label="posterior mean")
    ax.fill_between(x_grid[:, 0], p.mean - 2 * p.std, p.mean + 2 * p.std, alpha=0.3, label="+- 2 sd")
    ax.plot(X[:, 0], np.full(len(X), -1.9), "|", color="grey", ms=6)
    ax.set_title(method)
    ax.set_xlabel("x")
axes[0].set_ylabel("E[T | do(x)]")
axes[0].legend(loc="upper left", fontsize=8)
fig.tight_layout()
plt.show()

# %%
# Part 1: uncertainty by region
# -----------------------------
# The posterior standard deviation of E[T | do(x)] averaged over regions of x (figure 4.5's
# shapes as numbers).
uncertainty_table(sizes, seeds)

# %%
# Part 2: calibration
# -------------------
# Coverage of central credible intervals on x in [-3, 3], N = M = 100 (closer to the nominal
# level is better).
calibration(100, 100, seeds * 2, (0.5, 0.8, 0.9, 0.95))
