"""``explain`` of ProductKernelExplainer: which path a request takes.

One idea: the public ``explain`` and its documentation (the games, the options, the GPU path and
the scale-mixture kernels), handing each request to its path: the sparse route, interactions of
any order, the posterior variance, or the dense path.  The paths are the base classes this one
inherits (``product_kernel_sparse``, ``product_kernel_interactions``, ``product_kernel_dense``);
the class itself, its constructor and the other public methods are in ``product_kernel``, which
inherits from this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import is_sparse
from ..base import check_explain_options
from ..explanation import Explanation
from ..models.expansion import KernelExpansion
from ..shapley.array_api import is_foreign_array, resolve_dtype
from .product_kernel_dense import DensePath
from .product_kernel_interactions import AnyOrderInteractions
from .product_kernel_sparse import SparsePaths


class ExplainRouting(AnyOrderInteractions, SparsePaths, DensePath):
    """``explain``: hands each request to its path (a base class of ``ProductKernelExplainer``)."""

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | Mapping[str, Any] | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        dtype: str | None = None,
        uncertainty: bool = False,
        joint: bool = False,
        noisy: bool = False,
        target: str = "mean",
    ) -> Explanation:
        """Exact Shapley values of each row of ``X`` for the game chosen at construction.

        The game is ``self.game``: with no background (the default) the functional baseline of
        PKeX (Mohammadi, Chau & Muandet, 2025, section 3.1); with ``background=B`` at
        construction the interventional game over the rows of B, the values shap's
        ``ExactExplainer`` gives with ``shap.maskers.Independent(B, max_samples=len(B))`` (a shap
        user who wants shap's interventional values builds the explainer with ``background=B``);
        with ``baseline=z`` baseline Shapley against z.  The background tables built at
        construction are reused by every call.

        Which game?  The default (no background) is not shap's game: its base value is the sum of
        the coefficients, not a prediction, and rankings can differ sharply (on the README's
        diabetes SVR, ``age`` ranks 3rd of 10 there and 8th in the interventional game).  shap's
        ``KernelExplainer``, ``PermutationExplainer`` and ``SamplingExplainer`` on a background B
        estimate the interventional values this explainer computes exactly with ``background=B``;
        ``kx.RKHSExplainer`` gives the observational game (features share credit with the ones
        they are correlated with).  See the documentation page "Which game should I use?".

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse matrix of shape (N, d)
            Rows to explain; a DataFrame's index is kept by ``Explanation.to_frame``.  A scipy
            sparse matrix (CSR; other formats are converted) takes the sparse route: the
            functional, baseline and interventional games of product kernels with work that
            follows the non-zeros of X, the support points and the background, values equal to
            the dense path's (``info["route"] == "sparse"``; module
            ``kexplain.explainers.sparse_games``).  What has no sparse path (interactions,
            uncertainty, ``target="variance"``, float32 or device arrays, polynomial and Matérn
            kernels) raises a TypeError saying to densify: ``X.toarray()``.
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values (every game supports them).  True or "sii":
            the Shapley interaction index, in shap's ``TreeExplainer`` layout (half the index off
            the diagonal, the main effect on it); "stii": the Shapley-Taylor index of order 2,
            as shap's ``ExactExplainer(...)(X, interactions=True)`` gives it.  Each row of the
            d x d matrix sums to the feature's Shapley value; ``interaction_index``
            records the index.  A mapping ``{"index": "k-SII" | "SII" | "STII" | "FSII" | "BII" |
            "BV" | "Moebius" | "SV", "max_order": k, "top_k": n, "threshold": x}`` asks for an index
            of any order, exactly, and returns a :class:`kexplain.InteractionExplanation` (see
            the documentation page "Interactions"); ``top_k`` / ``threshold`` keep only the
            largest values of each order per point.
        progress : bool
            Show a progress bar over points.
        n_jobs : int, optional
            Threads over blocks of rows (None or 1: one; -1: all cores).  The values do not
            depend on it.
        random_state : None, int or numpy Generator
            Accepted for the shared contract; it has no effect (the values are exact).
        dtype : {None, "float64", "float32"}
            Precision of the engine; None means float64.  float32 is opt-in (faster on GPUs,
            agreeing with float64 to about 1e-5 of the largest value); the efficiency error
            is reported in ``efficiency_error`` whatever the dtype.
        uncertainty : bool
            For a Gaussian-process model: also the exact posterior covariance of each point's
            values, ``covariance`` (N, d, d), with ``base_variance`` and ``prediction_variance``
            (single output; interventional and baseline games; numpy float64 only).  The
            values are jointly Gaussian with mean ``values``; efficiency holds in distribution:
            the covariance of their sum is the posterior variance of f(x) minus the background
            mean.  ``ex.std`` and ``ex.interval(0.95)`` give credible intervals.  Cost per point:
            about B^2 d^4 / 4 operations for B background rows (see ``background_summary``);
            0.03 s at d = 10 and 0.6 s at d = 50 on one core for B = 50, n = 300.
            The functional game has no stochastic version here: PKeX's functional baseline
            integrates absent features against the constant function 1, which is not in the RKHS
            of an RBF (or Laplacian, Cauchy) kernel, so the plug-in "covariance" is not positive
            semi-definite; it would be valid for kernels whose factors contain constants
            (1 + theta * k_j: the functional-ANOVA game), which kexplain's kernels cannot
            express.  Such a request raises a ValueError.
        joint : bool
            With ``uncertainty``: also ``joint_covariance`` (N, d, N, d) between the values of
            all pairs of points (N^2 times the per-point cost; computed in one thread).
        noisy : bool
            With ``uncertainty``: explain the noisy observation y = f + noise (the model's
            ``noise_variance``: a WhiteKernel and scalar ``alpha`` of a GaussianProcessRegressor)
            rather than the latent f; the values' means do not change, their covariance grows.
            With ``target="variance"``: add the noise variance to the explained variance (a
            constant: it moves the base value and the prediction, not the values).
        target : {"mean", "variance"}
            "mean" (default): the model's output (a GP's posterior mean).  "variance" (Gaussian
            processes, interventional and baseline games): the exact Shapley values of the
            posterior predictive variance sigma^2(x) of the latent f, v(S) = E_z sigma^2(x_S,
            z_{-S}); the base value is the background mean of sigma^2 and the values sum to
            sigma^2(x) minus it (``kexplain.explainers.variance_games``).  Cost per point about
            B n^2 d^2 / 2 operations for n training rows and B background rows.

        Returns
        -------
        Explanation
            ``values`` (N, d) or (N, d, n_outputs), ``base_values``, ``game``, ``output``,
            ``interactions`` when asked, ``v_full`` (the model output at each point),
            ``info["route"]`` and ``efficiency_error`` (the largest
            ``|sum_j phi_j - (f(x) - base value)|`` relative to ``max(|f(x)|, |base value|)``);
            ``kernel_error_bound`` and ``info["kernel_error"]``, ``info["mixture_terms"]`` for a
            scale-mixture kernel.

        Notes
        -----
        GPU / array API path: when ``X`` is a PyTorch tensor (CPU or CUDA), a CuPy array or any
        other array API array, the product-game engine runs in that namespace on ``X``'s device
        (kernel factors of the explained rows are computed on the host and moved there, the
        background's factors once per device), through the quadrature route, with blocks of up
        to ``max(max_block_bytes, DEVICE_BLOCK_BYTES)`` (512 MiB).  The Explanation holds numpy
        arrays (``data`` is ``X`` copied to the host); ``info["device"]`` names the device.  The
        same path runs for numpy ``X`` with ``dtype="float32"``.  It needs ``array_api_compat``.

        Matérn and rational quadratic kernels (any game, interactions and ``uncertainty``): the
        kernel is a positive sum of RBF kernels within a uniform error eps measured on the range of
        the data (support points, background and ``X``; see
        :class:`~kexplain.kernels.ScaleMixtureKernel`).  The values are the exact Shapley values of
        that sum, itself a valid kernel model within ``eps sum_i |c_i|`` of the model everywhere on the
        data's range, and ``ex.kernel_error_bound`` = ``2 eps sum_i |c_i|`` bounds their distance to
        the values of the model's own kernel (``info["interaction_error_bound"]`` bounds each
        interaction entry off the diagonal, and d times it each entry on the diagonal).  The
        posterior covariance of ``uncertainty=True`` uses the same sum for the prior and the data
        terms.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
        >>> ex = kx.ProductKernelExplainer(em).explain(np.ones((1, 2)), interactions=True)
        >>> ex.game, np.round(ex.values, 3)
        ('functional', array([[-0.316, -0.316]]))
        >>> np.round(ex.interactions[0], 3)
        array([[-0.393,  0.077],
               [ 0.077, -0.393]])

        Stochastic Shapley values of a Gaussian process: the values with their posterior covariance.

        >>> from sklearn.gaussian_process import GaussianProcessRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 3))
        >>> gpr = GaussianProcessRegressor(alpha=0.01).fit(X, X[:, 0] - X[:, 1])
        >>> ex = kx.ProductKernelExplainer(gpr, background=X[:5]).explain(X[:2], uncertainty=True)
        >>> ex.covariance.shape, ex.std.shape
        ((2, 3, 3), (2, 3))
        >>> lower, upper = ex.interval(0.95)
        >>> np.round(ex.std[0], 3)
        array([0.02 , 0.005, 0.028])

        Where the uncertainty comes from: Shapley values of the posterior variance.

        >>> ex = kx.ProductKernelExplainer(gpr, background=X[:5]).explain(X[:2] + 3, target="variance")
        >>> std = gpr.predict(X[:2] + 3, return_std=True)[1]
        >>> ex.output, bool(np.allclose(ex.base_values + ex.values.sum(axis=1), std**2))
        ('posterior variance of latent f of GaussianProcessRegressor', True)
        """
        if is_sparse(X) or self._sparse_argument:
            return self._explain_sparse(X, interactions, progress, n_jobs, dtype, uncertainty, joint, noisy, target)
        if isinstance(interactions, Mapping):
            if uncertainty or dtype not in (None, "float64") or is_foreign_array(X) or target != "mean":
                raise ValueError(
                    "interactions={...} (any order) runs in numpy float64 without uncertainty, for the mean: pass a "
                    "numpy X, dtype=None, uncertainty=False and target='mean'."
                )
            if not isinstance(self.expansion, KernelExpansion):
                raise ValueError(
                    "interactions={...} (any order) needs a product-kernel model; for a linear or polynomial kernel "
                    "use interactions=True ('sii') or 'stii' (pairwise, exact)."
                )
            return self._explain_any_order(X, interactions, progress=progress, n_jobs=n_jobs)
        if target != "mean":
            interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
            resolve_dtype(np, dtype)
            return self._explain_variance(X, target, interactions, progress, n_jobs, dtype, uncertainty, joint, noisy)
        return self._explain_dense(X, interactions, progress, n_jobs, dtype, uncertainty, joint, noisy)
