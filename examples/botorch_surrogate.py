"""
Explaining the surrogate of a Bayesian-optimisation run
=======================================================

A few rounds of Bayesian optimisation with BoTorch on the Hartmann-6 test function (minimised, so
the surrogate models its negative), then the surrogate's posterior mean at its current best point
explained exactly with ``kx.ProductKernelExplainer``: which inputs drive the predicted objective,
and, from ``uncertainty=True``, which contributions the surrogate is still unsure about (the
credible interval of each Shapley value).  The values add up to ``model.posterior(x).mean``.

    python examples/botorch_surrogate.py
"""

from __future__ import annotations

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

torch.manual_seed(0)
f = Hartmann(dim=6, negate=True)
bounds = torch.stack([torch.zeros(6), torch.ones(6)]).double()
X = torch.rand(12, 6, dtype=torch.float64)
Y = f(X)[:, None]
for _ in range(4):  # a few BO rounds: fit the surrogate, maximise the acquisition, evaluate
    gp = SingleTaskGP(X, Y, input_transform=Normalize(6), outcome_transform=Standardize(1))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
    acq = LogExpectedImprovement(gp, best_f=Y.max())
    x_new, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=4, raw_samples=64)
    X, Y = torch.cat([X, x_new]), torch.cat([Y, f(x_new)[:, None]])

gp = SingleTaskGP(X, Y, input_transform=Normalize(6), outcome_transform=Standardize(1))
fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
gp.eval()
best = X[Y.argmax()].numpy()[None]
explainer = kx.ProductKernelExplainer(gp, background=X.numpy(), feature_names=[f"x{j + 1}" for j in range(6)])
ex = explainer.explain(best, uncertainty=True)
lo, hi = ex.interval(0.95)
print(ex.output)
botorch_mean = float(gp.posterior(torch.as_tensor(best)).mean.detach())
print(
    f"predicted objective {float(ex.base_values[0] + ex.values[0].sum()):.4f} "
    f"(BoTorch: {botorch_mean:.4f}), base value {float(ex.base_values[0]):.4f}"
)
for j in np.argsort(-np.abs(ex.values[0])):
    print(f"  x{j + 1}: {ex.values[0, j]:+.4f}   95% interval [{lo[0, j]:+.4f}, {hi[0, j]:+.4f}]")
