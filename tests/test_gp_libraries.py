"""GPyTorch and BoTorch models explained exactly, checked against the libraries' own posteriors.

References: the library's own posterior mean (``model(X).mean`` / ``model.posterior(X).mean``)
evaluated on every hybrid point of every coalition (enumeration), and its own posterior covariance
on the hybrid points of every pair of coalitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the gpytorch extra (torch) is not installed")
gpytorch = pytest.importorskip("gpytorch", reason="the gpytorch extra is not installed")
botorch = pytest.importorskip("botorch", reason="the botorch extra is not installed")

from botorch.models import ModelListGP, SingleTaskGP  # noqa: E402
from botorch.models.transforms import Normalize, Standardize  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain.exceptions import UnsupportedModelError  # noqa: E402
from kexplain.kernels.gpytorch import from_gpytorch  # noqa: E402
from kexplain.kernels.mixture import ScaleMixtureKernel  # noqa: E402

gk = gpytorch.kernels
F64 = torch.float64


def shapley_matrix(d: int) -> tuple[np.ndarray, np.ndarray]:
    """(coalitions (2^d, d) bool, W (d, 2^d)) with phi_j = sum_S W[j, S] v(S)."""
    coalitions = np.array([[(m >> k) & 1 for k in range(d)] for m in range(2**d)], dtype=bool)
    W = np.zeros((d, 2**d))
    for s, S in enumerate(coalitions):
        size = int(S.sum())
        for j in range(d):
            if S[j]:
                W[j, s] += math.factorial(size - 1) * math.factorial(d - size) / math.factorial(d)
            else:
                W[j, s] -= math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d)
    return coalitions, W


def hybrid_points(x: np.ndarray, Z: np.ndarray, coalitions: np.ndarray) -> np.ndarray:
    pts = np.where(coalitions[:, None, :], x[None, None, :], Z[None, :, :])
    return pts.reshape(-1, x.shape[0])


def enum_values(f, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Interventional Shapley values of f at x over background Z (uniform weights), by enumeration."""
    coalitions, W = shapley_matrix(x.shape[0])
    v = f(hybrid_points(x, Z, coalitions)).reshape(2 ** x.shape[0], Z.shape[0], -1).mean(axis=1)
    return W @ v  # (d, n_outputs)


class ExactModel(gpytorch.models.ExactGP):
    def __init__(self, X, y, lik, kernel, mean=None):
        super().__init__(X, y, lik)
        self.mean_module = mean if mean is not None else gpytorch.means.ConstantMean()
        self.covar_module = kernel

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _data(n=30, d=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.rand(n, d, dtype=F64, generator=g) * 2 - 1
    y = torch.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2 % d] + 0.1 * torch.randn(n, dtype=F64, generator=g)
    return X, y


def _set_lengthscales(k, seed):
    """Fixed, distinct hyperparameters on every stationary part (no fitting: tests stay fast)."""
    rng = np.random.default_rng(seed)
    for m in k.modules():
        if hasattr(m, "lengthscale") and m.lengthscale is not None and isinstance(m, gk.Kernel):
            shape = m.lengthscale.shape
            m.lengthscale = torch.tensor(rng.uniform(0.5, 1.5, size=shape), dtype=F64)
        if isinstance(m, gk.ScaleKernel):
            m.outputscale = torch.tensor(rng.uniform(0.5, 2.0), dtype=F64)
        if isinstance(m, gk.RQKernel):
            m.alpha = torch.tensor(rng.uniform(0.5, 2.0), dtype=F64)
    return k


def _exact_model(kernel, d=4, fixed_noise=False, mean=None, seed=0):
    X, y = _data(d=d, seed=seed)
    if fixed_noise:
        lik = gpytorch.likelihoods.FixedNoiseGaussianLikelihood(noise=torch.linspace(0.01, 0.05, len(y), dtype=F64))
    else:
        lik = gpytorch.likelihoods.GaussianLikelihood().double()
        lik.noise = torch.tensor(0.03, dtype=F64)
    model = ExactModel(X, y, lik, _set_lengthscales(kernel.double(), seed), mean).double()
    if mean is None:
        model.mean_module.constant.data.fill_(0.4)
    return model.eval(), X


KERNELS = {
    "rbf": lambda d: gk.ScaleKernel(gk.RBFKernel()),
    "rbf_ard": lambda d: gk.ScaleKernel(gk.RBFKernel(ard_num_dims=d)),
    "matern05": lambda d: gk.ScaleKernel(gk.MaternKernel(nu=0.5, ard_num_dims=d)),
    "matern15": lambda d: gk.ScaleKernel(gk.MaternKernel(nu=1.5)),
    "matern25": lambda d: gk.ScaleKernel(gk.MaternKernel(nu=2.5, ard_num_dims=d)),
    "rq": lambda d: gk.ScaleKernel(gk.RQKernel(ard_num_dims=d)),
    "sum": lambda d: gk.ScaleKernel(gk.RBFKernel(ard_num_dims=d)) + gk.ScaleKernel(gk.MaternKernel(nu=1.5)),
    "product": lambda d: gk.ScaleKernel(gk.RBFKernel(ard_num_dims=d) * gk.MaternKernel(nu=2.5)),
    "active_dims": lambda d: gk.ScaleKernel(
        gk.RBFKernel(ard_num_dims=2, active_dims=[0, 2]) * gk.RBFKernel(ard_num_dims=d - 2, active_dims=[1, 3])
    ),
    "constant": lambda d: gk.ScaleKernel(gk.RBFKernel(ard_num_dims=d)) + gk.ConstantKernel(),
    # dot-product kernels: exact through the polynomial route, not the product one
    "linear_ard": lambda d: gk.ScaleKernel(gk.LinearKernel(ard_num_dims=d)) + gk.ConstantKernel(),
    "polynomial": lambda d: gk.ScaleKernel(gk.PolynomialKernel(power=3)),
}


def _tolerance(em, model_mean, rtol=1e-8):
    """1e-8 relative, or the mixture's reported bound times the sum of |coefficients|."""
    err = getattr(em.kernel, "error", 0.0) * float(np.abs(em.coef).sum())
    return rtol * max(1.0, float(np.abs(model_mean).max())) + err


@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_conversion_equals_gpytorch_gram(name):
    d = 4
    k = _set_lengthscales(KERNELS[name](d).double(), 1)
    X = torch.rand(7, d, dtype=F64, generator=torch.Generator().manual_seed(3)) * 3
    ours, const = from_gpytorch(k, d)
    with torch.no_grad():
        ref = k(X).to_dense().numpy()
    got = ours(X.numpy()) + const
    bound = getattr(ours, "error", 0.0)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 + bound)
    if isinstance(ours, ScaleMixtureKernel):
        np.testing.assert_allclose(ours.exact(X.numpy()) + const, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "name, fixed_noise", [(k, False) for k in KERNELS] + [("rbf_ard", True), ("matern25", True), ("sum", True)]
)
def test_exact_gp_values_sum_to_its_mean_and_equal_enumeration(name, fixed_noise):
    d = 4
    model, X = _exact_model(KERNELS[name](d), d=d, fixed_noise=fixed_noise)
    Z = X[:3].numpy()
    Xq = X[10:12].numpy() + 0.05

    def f(H):
        with torch.no_grad():
            return model(torch.as_tensor(H, dtype=F64)).mean.numpy()

    ex = kx.ProductKernelExplainer(model, background=Z).explain(Xq)
    em = kx.models.as_polynomial_expansion(model) or kx.models.as_kernel_expansion(model)
    own = f(Xq)
    tol = _tolerance(em, own)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), own, rtol=0, atol=tol)
    for i in range(2):
        ref = enum_values(f, Xq[i], Z)[:, 0]
        np.testing.assert_allclose(ex.values[i], ref, rtol=0, atol=2 * tol)
    assert "posterior mean" in ex.output


def test_zero_mean_and_output_text():
    model, X = _exact_model(KERNELS["rbf_ard"](3), d=3, mean=gpytorch.means.ZeroMean())
    em = kx.models.as_kernel_expansion(model)
    with torch.no_grad():
        own = model(X[:5]).mean.numpy()
    np.testing.assert_allclose(em.predict(X[:5].numpy()), own, rtol=1e-10, atol=1e-12)
    assert kx.models.describe_output(model) == "posterior mean of the latent f of ExactModel"


@pytest.mark.parametrize("fixed_noise", [False, True])
def test_covariance_equals_enumeration_of_coalition_pairs_on_gpytorch_posterior(fixed_noise):
    d = 3
    model, X = _exact_model(KERNELS["rbf_ard"](d), d=d, fixed_noise=fixed_noise, seed=2)
    Z = X[:3].numpy()
    x = X[7].numpy() + 0.1
    ex = kx.ProductKernelExplainer(model, background=Z).explain(x[None], uncertainty=True)
    coalitions, W = shapley_matrix(d)
    H = hybrid_points(x, Z, coalitions)
    with torch.no_grad():
        K = model(torch.as_tensor(H)).covariance_matrix.numpy()
    B = Z.shape[0]
    V = K.reshape(2**d, B, 2**d, B).mean(axis=(1, 3))
    ref = W @ V @ W.T
    np.testing.assert_allclose(ex.covariance[0], ref, rtol=1e-7, atol=1e-9 * np.abs(ref).max())


def _botorch_data(n=25, d=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.rand(n, d, dtype=F64, generator=g) * torch.tensor([1.0, 10.0, 0.1], dtype=F64)[:d] + 3.0
    y = torch.sin(X[:, 0] * 3) + 0.2 * X[:, 1] + 5 * X[:, 2]
    return X, y


@pytest.mark.parametrize("covar", ["default", "matern", "linear"])
def test_singletaskgp_with_transforms_equals_posterior_and_enumeration(covar):
    d = 3
    X, y = _botorch_data(d=d)
    kw = {}
    if covar == "matern":
        kw["covar_module"] = gk.ScaleKernel(gk.MaternKernel(nu=2.5, ard_num_dims=d))
    if covar == "linear":  # not translation invariant: Normalize's shift must be folded in as well
        kw["covar_module"] = gk.ScaleKernel(gk.LinearKernel(ard_num_dims=d))
    gp = SingleTaskGP(X, 10 * y[:, None] + 100, input_transform=Normalize(d), outcome_transform=Standardize(1), **kw)
    _set_lengthscales(gp.covar_module, 5)
    gp = gp.double().eval()

    def f(H):
        with torch.no_grad():
            return gp.posterior(torch.as_tensor(H, dtype=F64)).mean.numpy()

    Z = X[:4].numpy()
    Xq = X[5:7].numpy() * 1.01
    ex = kx.ProductKernelExplainer(gp, background=Z).explain(Xq)
    em = kx.models.as_polynomial_expansion(gp) or kx.models.as_kernel_expansion(gp)
    own = f(Xq)[:, 0]
    tol = _tolerance(em, own)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), own, rtol=0, atol=tol)
    for i in range(2):
        np.testing.assert_allclose(ex.values[i], enum_values(f, Xq[i], Z)[:, 0], rtol=0, atol=2 * tol)
    if covar == "linear":  # values exact; the covariance path is for product kernels, and says so
        with pytest.raises(UnsupportedModelError, match="linear or polynomial kernel"):
            kx.models.gp_posterior(gp)
        return
    # the posterior, transforms undone, equals BoTorch's
    post = kx.models.gp_posterior(gp)
    with torch.no_grad():
        p = gp.posterior(torch.as_tensor(Xq))
        cov = p.distribution.covariance_matrix.numpy()
    np.testing.assert_allclose(post.mean(Xq), own, rtol=1e-8, atol=tol)
    np.testing.assert_allclose(post.covariance(Xq), cov, rtol=1e-6, atol=1e-8 * np.abs(cov).max() + 1e3 * tol)


def test_transforms_give_the_values_of_the_untransformed_equivalent_model():
    """Normalize and Standardize folded in: the same values as a model fitted on pre-transformed data."""
    d = 3
    X, y = _botorch_data(d=d, seed=4)
    Y = 10 * y[:, None] + 100
    gp = SingleTaskGP(X, Y, input_transform=Normalize(d), outcome_transform=Standardize(1)).double().eval()
    lo, hi = X.min(0).values, X.max(0).values
    Xn = (X - lo) / (hi - lo)
    mu, sd = Y.mean(), Y.std()
    plain = SingleTaskGP(Xn, (Y - mu) / sd).double()
    plain.covar_module.load_state_dict(gp.covar_module.state_dict())
    plain.likelihood.load_state_dict(gp.likelihood.state_dict())
    plain.mean_module.load_state_dict(gp.mean_module.state_dict())
    plain.eval()
    Z, Xq = X[:4].numpy(), X[6:8].numpy()
    a = kx.ProductKernelExplainer(gp, background=Z).explain(Xq)
    b = kx.ProductKernelExplainer(plain, background=((Z - lo.numpy()) / (hi - lo).numpy())).explain(
        (Xq - lo.numpy()) / (hi - lo).numpy()
    )
    np.testing.assert_allclose(a.values, float(sd) * b.values, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a.base_values, float(sd) * b.base_values + float(mu), rtol=1e-10)


def test_multi_output_singletaskgp_and_model_list():
    d = 3
    X, y = _botorch_data(d=d, seed=1)
    Y = torch.stack([y, y**2], -1)
    gp2 = SingleTaskGP(X, Y, input_transform=Normalize(d), outcome_transform=Standardize(2)).double().eval()
    gp1 = SingleTaskGP(X, y[:, None] * 3, input_transform=Normalize(d), outcome_transform=Standardize(1))
    gp1 = gp1.double().eval()
    for model, m in ((gp2, 2), (ModelListGP(gp1, gp2).eval(), 3)):

        def f(H, model=model):
            with torch.no_grad():
                return model.posterior(torch.as_tensor(H, dtype=F64)).mean.numpy()

        Z, Xq = X[:3].numpy(), X[8:10].numpy()
        ex = kx.ProductKernelExplainer(model, background=Z).explain(Xq)
        assert ex.values.shape == (2, d, m)
        own = f(Xq)
        np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), own, rtol=1e-8, atol=1e-10)
        ref = enum_values(f, Xq[0], Z)
        np.testing.assert_allclose(ex.values[0], ref, rtol=1e-8, atol=1e-10)
    with pytest.raises(UnsupportedModelError, match="single-output"):
        kx.models.gp_posterior(gp2)


# -- refusals ------------------------------------------------------------------------------------
ROUTE = "RKHSExplainer"


@pytest.mark.parametrize(
    "kernel, what",
    [
        (lambda: gk.ScaleKernel(gk.PeriodicKernel()), "PeriodicKernel"),
        (lambda: gk.SpectralMixtureKernel(num_mixtures=2, ard_num_dims=4), "SpectralMixtureKernel"),
        (lambda: gk.ScaleKernel(gk.LinearKernel() * gk.RBFKernel()), "LinearKernel"),
        (lambda: gk.LinearKernel(active_dims=[0, 1]), "only on all features"),
        (lambda: gk.RBFKernel(active_dims=[0, 1]), "does not involve features"),
    ],
)
def test_unsupported_kernels_refused_with_route(kernel, what):
    model, X = _exact_model(kernel(), d=4)
    with pytest.raises(UnsupportedModelError, match=what) as info:
        kx.ProductKernelExplainer(model, background=X[:3].numpy())
    assert ROUTE in str(info.value) and "Supported" in str(info.value)


def test_deep_kernel_refused():
    X, y = _data(d=4)

    class DeepGP(ExactModel):
        def __init__(self, X, y, lik):
            super().__init__(X, y, lik, gk.ScaleKernel(gk.RBFKernel()))
            self.feature_extractor = torch.nn.Linear(4, 2).double()

        def forward(self, x):
            return super().forward(self.feature_extractor(x))

    model = DeepGP(X, y, gpytorch.likelihoods.GaussianLikelihood()).double().eval()
    with pytest.raises(UnsupportedModelError, match="feature extractor") as info:
        kx.models.as_kernel_expansion(model)
    assert ROUTE in str(info.value)


class SVGP(gpytorch.models.ApproximateGP):
    def __init__(self, Z, kernel, whitened=True):
        dist = gpytorch.variational.CholeskyVariationalDistribution(Z.shape[0])
        cls = (
            gpytorch.variational.VariationalStrategy if whitened else gpytorch.variational.UnwhitenedVariationalStrategy
        )
        super().__init__(cls(self, Z, dist, learn_inducing_locations=False))
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = kernel

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _svgp(kernel, d=3, seed=0):
    X, _ = _data(d=d, seed=seed)
    model = SVGP(X[:12], _set_lengthscales(kernel.double(), seed)).double()
    g = torch.Generator().manual_seed(seed)
    q = model.variational_strategy._variational_distribution
    q.variational_mean.data = torch.randn(12, dtype=F64, generator=g)
    q.chol_variational_covar.data = torch.tril(0.3 * torch.randn(12, 12, dtype=F64, generator=g)) + 0.5 * torch.eye(
        12, dtype=F64
    )
    model.variational_strategy.variational_params_initialized.fill_(1)  # keep q(u) as set (no re-initialising)
    model.mean_module.constant.data.fill_(-0.2)
    return model.eval(), X


@pytest.mark.parametrize("name", ["rbf_ard", "matern25"])
def test_variational_gp_is_an_expansion_over_inducing_points(name):
    d = 3
    model, X = _svgp(KERNELS[name](d), d=d)

    def f(H):
        with torch.no_grad():
            return model(torch.as_tensor(H, dtype=F64)).mean.numpy()

    Z, Xq = X[20:23].numpy(), X[25:27].numpy()
    explainer = kx.ProductKernelExplainer(model, background=Z)
    ex = explainer.explain(Xq)
    em = kx.models.as_polynomial_expansion(model) or kx.models.as_kernel_expansion(model)
    own = f(Xq)
    tol = _tolerance(em, own)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), own, rtol=0, atol=tol)
    for i in range(2):
        np.testing.assert_allclose(ex.values[i], enum_values(f, Xq[i], Z)[:, 0], rtol=0, atol=2 * tol)
    precision = kx.models.gpytorch._all_parts(model)[0]["precision"]
    if np.linalg.eigvalsh(precision).min() < 0:
        # a variational precision K^-1/2 (I - S) K^-1/2 can be indefinite: its covariance is refused, by name
        with pytest.raises(UnsupportedModelError, match="posterior precision is indefinite"):
            explainer.explain(Xq, uncertainty=True)
        return
    ex = explainer.explain(Xq, uncertainty=True)
    if name == "rbf_ard":  # the covariance: GPyTorch's own (jitter on the diagonal aside) on the hybrid points
        coalitions, W = shapley_matrix(d)
        H = hybrid_points(Xq[0], Z, coalitions)
        with torch.no_grad():
            K = model(torch.as_tensor(H), diag=False).covariance_matrix.numpy()
        K = K - model.variational_strategy.jitter_val * np.eye(len(H))
        ref = W @ K.reshape(2**d, 3, 2**d, 3).mean(axis=(1, 3)) @ W.T
        np.testing.assert_allclose(ex.covariance[0], ref, rtol=1e-6, atol=1e-8 * np.abs(ref).max())


def test_other_likelihood_approximate_gp_float32_and_training_mode_refused():
    X, y = _data(d=2)
    # a heteroscedastic likelihood: the noise is itself a function of x (here a small GP)
    noise_gp = ExactModel(X, y, gpytorch.likelihoods.GaussianLikelihood(), gk.RBFKernel()).double()
    noise = gpytorch.likelihoods.noise_models.HeteroskedasticNoise(noise_gp)
    lik = gpytorch.likelihoods.gaussian_likelihood._GaussianLikelihoodBase(noise_covar=noise).double()
    model = ExactModel(X, y, lik, gk.ScaleKernel(gk.RBFKernel())).double().eval()
    with pytest.raises(UnsupportedModelError, match="likelihood _GaussianLikelihoodBase"):
        kx.models.as_kernel_expansion(model)

    unwhitened = SVGP(X[:5], gk.ScaleKernel(gk.RBFKernel()), whitened=False).double().eval()
    with pytest.raises(UnsupportedModelError, match="not an ExactGP") as info:
        kx.models.as_kernel_expansion(unwhitened)
    assert ROUTE in str(info.value)
    model32 = ExactModel(X.float(), y.float(), gpytorch.likelihoods.GaussianLikelihood(), gk.RBFKernel()).eval()
    with pytest.raises(UnsupportedModelError, match=r"model\.double\(\)"):
        kx.models.as_kernel_expansion(model32)
    train = ExactModel(X, y, gpytorch.likelihoods.GaussianLikelihood(), gk.RBFKernel()).double()
    with pytest.raises(UnsupportedModelError, match=r"model\.eval\(\)"):
        kx.models.as_kernel_expansion(train)


def test_importing_kexplain_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, kexplain, kexplain.models; print('torch' in sys.modules or 'gpytorch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_extra_names_it(monkeypatch):
    import sys

    model, _ = _exact_model(KERNELS["rbf"](2), d=2)
    monkeypatch.setitem(sys.modules, "gpytorch", None)  # as if gpytorch were not installed
    with pytest.raises(ImportError, match=r"kexplain\[gpytorch\]"):
        kx.models.as_kernel_expansion(model)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=12, deadline=None)
@given(
    ls=st.lists(st.floats(0.3, 3.0), min_size=3, max_size=3),
    outputscale=st.floats(0.1, 5.0),
    noise=st.floats(1e-3, 1.0),
    nu=st.sampled_from([None, 0.5, 1.5, 2.5]),
    seed=st.integers(0, 1000),
)
def test_efficiency_and_enumeration_for_random_hyperparameters(ls, outputscale, noise, nu, seed):
    """Efficiency against GPyTorch's own mean, and the values against enumeration, for any hyperparameters."""
    d = 3
    base = gk.RBFKernel(ard_num_dims=d) if nu is None else gk.MaternKernel(nu=nu, ard_num_dims=d)
    kernel = gk.ScaleKernel(base).double()
    X, y = _data(n=15, d=d, seed=seed)
    lik = gpytorch.likelihoods.GaussianLikelihood().double()
    lik.noise = torch.tensor(noise, dtype=F64)
    model = ExactModel(X, y, lik, kernel).double()
    kernel.base_kernel.lengthscale = torch.tensor(ls, dtype=F64)
    kernel.outputscale = torch.tensor(outputscale, dtype=F64)
    model.eval()
    Z = X[:3].numpy()
    x = X[5].numpy()
    ex = kx.ProductKernelExplainer(model, background=Z).explain(x[None])
    with torch.no_grad():
        own = model(torch.as_tensor(x[None])).mean.numpy()
    em = kx.models.as_kernel_expansion(model)
    tol = _tolerance(em, own)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), own, rtol=0, atol=tol)
    ref = enum_values(lambda H: model(torch.as_tensor(H)).mean.detach().numpy(), x, Z)[:, 0]
    np.testing.assert_allclose(ex.values[0], ref, rtol=0, atol=2 * tol)


def test_rkhs_explainer_takes_a_matern_botorch_model_in_both_games():
    """One way in: a Matérn GP of BoTorch goes straight into RKHSExplainer (the product explainer with
    its bound for the interventional game, its posterior mean for the observational one)."""
    d = 3
    X, y = _botorch_data(d=d)
    gp = SingleTaskGP(
        X,
        y[:, None],
        covar_module=gk.ScaleKernel(gk.MaternKernel(nu=2.5, ard_num_dims=d)),
        input_transform=Normalize(d),
    )
    _set_lengthscales(gp.covar_module, 7)
    gp = gp.double().eval()
    Z, Xq = X[:6].numpy(), X[8:10].numpy()

    def f(H):
        with torch.no_grad():
            return gp.posterior(torch.as_tensor(H, dtype=F64)).mean.numpy()[:, 0]

    own = f(Xq)
    ref = kx.ProductKernelExplainer(gp, background=Z).explain(Xq)
    itv = kx.RKHSExplainer(gp, Z, game="interventional")
    assert isinstance(itv.explainer, kx.ProductKernelExplainer)
    np.testing.assert_array_equal(itv.explain(Xq).values, ref.values)
    tol = 1e-9 + 10 * ref.kernel_error_bound
    obs = kx.RKHSExplainer(gp, Z, game="observational").explain(Xq)
    np.testing.assert_allclose(obs.base_values + obs.values.sum(axis=1), own, rtol=0, atol=tol)
    # the same game on the model's own posterior mean as a NumPy function
    via_f = kx.RKHSExplainer(f, Z, game="observational").explain(Xq)
    np.testing.assert_allclose(obs.values, via_f.values, rtol=0, atol=tol)
    with pytest.raises(ValueError, match="budget"):
        itv.explain(Xq, budget=64)
