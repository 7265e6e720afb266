"""
Explaining the surrogate of a Bayesian-optimisation run
=======================================================

A few rounds of Bayesian optimisation with BoTorch on the Hartmann-6 test function (minimised, so
the surrogate models its negative), then the surrogate's posterior mean at its current best point
explained exactly with ``kx.ProductKernelExplainer``: which inputs drive the predicted objective,
and, from ``uncertainty=True``, which contributions the surrogate is still unsure about (the
credible interval of each Shapley value).  The values add up to ``model.posterior(x).mean``.

``python examples/botorch_surrogate.py`` starts from 12 random points and runs 4 BO rounds;
``--quick`` or ``KEXPLAIN_QUICK=1`` 8 points and 2 rounds with a cheaper acquisition search;
``--full`` or ``KEXPLAIN_FULL=1`` 12 points and 20 rounds.
"""

# %%
# A few rounds of Bayesian optimisation
# -------------------------------------
# Fit the surrogate, maximise the acquisition, evaluate, repeat.  argparse reads only the options
# it knows (``parse_known_args``): sphinx-gallery runs this file with sphinx-build's command line.
import argparse
import os

import matplotlib.pyplot as plt
import numpy as np
import torch
from botorch.acquisition import LogExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms import Normalize, Standardize
from botorch.optim import optimize_acqf
from botorch.test_functions import Hartmann
from gpytorch.mlls import ExactMarginalLogLikelihood

import kexplain as kx

ap = argparse.ArgumentParser(description="Explain a BoTorch surrogate at its best point, with intervals.")
ap.add_argument("--quick", action="store_true", help="8 initial points, 2 BO rounds (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="12 initial points, 20 BO rounds (KEXPLAIN_FULL=1)")
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
n_init, n_rounds = (8, 2) if QUICK else (12, 20) if FULL else (12, 4)
num_restarts, raw_samples = (2, 32) if QUICK else (4, 64)

torch.manual_seed(0)
f = Hartmann(dim=6, negate=True)
bounds = torch.stack([torch.zeros(6), torch.ones(6)]).double()
X = torch.rand(n_init, 6, dtype=torch.float64)
Y = f(X)[:, None]
for _ in range(n_rounds):
    gp = SingleTaskGP(X, Y, input_transform=Normalize(6), outcome_transform=Standardize(1))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
    acq = LogExpectedImprovement(gp, best_f=Y.max())
    x_new, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=num_restarts, raw_samples=raw_samples)
    X, Y = torch.cat([X, x_new]), torch.cat([Y, f(x_new)[:, None]])
print(f"{len(X)} evaluations, best objective so far {float(Y.max()):.4f} (Hartmann-6 optimum 3.3224)")

# %%
# The final surrogate, explained at its best point
# ------------------------------------------------
# The explainer takes the BoTorch model as it is (input and outcome transforms included), with the
# evaluated points as background; ``uncertainty=True`` adds the posterior covariance of the values.
gp = SingleTaskGP(X, Y, input_transform=Normalize(6), outcome_transform=Standardize(1))
fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
gp.eval()
best = X[Y.argmax()].numpy()[None]
explainer = kx.ProductKernelExplainer(gp, background=X.numpy(), feature_names=[f"x{j + 1}" for j in range(6)])
ex = explainer.explain(best, uncertainty=True)
lo, hi = ex.interval(0.95)
print(ex.output)

# %%
# Efficiency: the values plus the base value give BoTorch's own posterior mean.
botorch_mean = float(gp.posterior(torch.as_tensor(best)).mean.detach())
print(
    f"predicted objective {float(ex.base_values[0] + ex.values[0].sum()):.4f} "
    f"(BoTorch: {botorch_mean:.4f}), base value {float(ex.base_values[0]):.4f}"
)

# %%
# Which contributions is the surrogate sure about?
# ------------------------------------------------
# The values with their 95% credible intervals, largest first: an interval that straddles zero is
# a contribution the surrogate cannot yet tell from none.
for j in np.argsort(-np.abs(ex.values[0])):
    print(f"  x{j + 1}: {ex.values[0, j]:+.4f}   95% interval [{lo[0, j]:+.4f}, {hi[0, j]:+.4f}]")
kx.plots.bar_intervals(ex, 0, level=0.95)
plt.show()
