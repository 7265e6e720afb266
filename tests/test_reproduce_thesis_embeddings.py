"""Thesis chapters 3-4 (CMP, BayesIMP, causal BO) at their quick size: each asserts the thesis's
qualitative claim that the experiment supports, or the documented disagreement."""

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reproduce.experiments import thesis_embeddings as te  # noqa: E402
from reproduce.framework import experiments  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")


def _rows(result):
    return {r.quantity: r for r in result.rows}


@functools.cache
def _direct():
    """The quick direct-matching run, shared by two tests (it is the slowest quick run)."""
    return _rows(te.swiss_direct("quick", 0))


def _mean(text):
    """The mean of a 'mean ± sd' cell."""
    return float(str(text).split()[0])


def test_every_experiment_of_chapters_3_and_4_is_declared():
    ids = {e.id for e in experiments() if e.id in {x.id for x in te.EXPERIMENTS}}
    assert ids == {
        "thesis-table3.1-direct",
        "thesis-table3.1-indirect",
        "thesis-tableA.1",
        "thesis-figA.1-A.4",
        "thesis-table3.2",
        "thesis-table3.2-standin",
        "thesis-fig3.3",
        "thesis-tableA.2",
        "thesis-figA.5-A.8",
        "thesis-fig4.5",
        "thesis-figB.2",
        "thesis-fig4.7",
        "thesis-figB.3",
        "thesis-fig4.8",
        "thesis-fig4.8-right",
    }
    blocked = {e.id for e in te.EXPERIMENTS if e.run is None}
    assert blocked == {
        "thesis-tableA.1",
        "thesis-table3.2",
        "thesis-fig3.3",
        "thesis-tableA.2",
        "thesis-figA.5-A.8",
        "thesis-fig4.8-right",
    }


def test_swiss_roll_generator_bags_by_height_level():
    X, t, labels, centres, z = te.swiss_roll(400, 10, np.random.default_rng(0), noise_sd=0.0)
    assert X.shape == (400, 3) and centres.shape == (labels.max() + 1, 1)
    for j in range(labels.max() + 1):
        h = X[labels == j, 2]
        # every point of a bag lies in its height level, whose centre is the bag covariate
        assert abs(h.mean() - centres[j, 0]) < (X[:, 2].max() - X[:, 2].min()) / 10
        assert z[j] == pytest.approx(t[labels == j].mean())


@pytest.mark.slow
def test_table_3_1_direct_learned_ridge_closes_the_gap():
    rows = _direct()
    cmp_ = min(_mean(rows[f"RMSE {m} (direct)"].ours) for m in te.CMP_MODELS)
    bag = min(_mean(rows[f"RMSE {m} (direct)"].ours) for m in ("BAGG-GP", "VBAGG", "GPR"))
    fixed = _mean(rows[f"{te.FIXED}: RMSE (the earlier setting of examples/cmp_swiss_roll.py)"].ours)
    # the earlier disagreement came from the fixed ridge: learned, CMP is within 50% of the bag baselines
    assert cmp_ < 0.6 * fixed
    assert cmp_ < 1.5 * bag


@pytest.mark.slow
def test_table_3_1_indirect_matching_costs_every_model():
    direct = _direct()
    indirect = _rows(te.swiss_indirect("quick", 0))
    # the thesis: "an anticipated drop in RMSE for all models" (RMSE rises) under indirect matching
    for m in (*te.CMP_MODELS, *te.BAG_MODELS, "GPR"):
        assert _mean(indirect[f"RMSE {m} (indirect)"].ours) > _mean(direct[f"RMSE {m} (direct)"].ours)


@pytest.mark.slow
def test_shrinkage_cmo_agrees_with_the_standard_cmo_and_is_faster():
    rows = te.shrinkage_ablation("quick", 0).rows
    unscaled = [r.ours for r in rows if "unscaled" in r.quantity]
    scaled = [r.ours for r in rows if "scaled to the rows" in r.quantity]
    speed = [r.ours for r in rows if "time" in r.quantity]
    assert max(unscaled) < 0.1 and min(unscaled) > 1e-4  # close, but not equal with one unscaled lambda
    assert max(scaled) < 1e-10  # equal with kexplain's n-lambda convention and equal bag sizes
    assert speed[-1] > 5  # 1,000 rows: the B x B solve beats the N x N one


def test_harder_graph_as_printed_has_a_flat_interventional_target():
    g = te.harder_graph_truth("D", np.linspace(-3, 3, 7), np.random.default_rng(0), 40_000)
    assert np.ptp(g) < 0.25  # Monte Carlo sd per point: 6 / sqrt(2 * 40,000) = 0.02
    # the same equations with the shared noise removed do vary: the flatness is the damping of U1 + U2
    assert np.ptp(6 * np.sin(3 * (np.cos(np.linspace(-3, 3, 7))))) > 5


@pytest.mark.slow
def test_fig_4_5_uncertainty_follows_its_data_set():
    rows = te.bayesimp_ablation("quick", 0).rows
    ratio = {r.quantity.split(":")[0] + " " + r.quantity.split(" region")[0].split("the ")[-1]: r.ours for r in rows}
    # IMP's band spikes where the mediator leaves D2's support; BayesIME's grows where treatments are rare
    assert ratio["imp extrapolation"] > 1.5
    assert ratio["bayesime sparse"] > 1.3
    assert ratio["bayesimp extrapolation"] > 1.3 and ratio["bayesimp sparse"] > 1.3


@pytest.mark.slow
def test_fig_b2_calibration_and_the_embedding_amplitude():
    rows = _rows(te.calibration("quick", 0))

    def cover(v):
        return np.array([float(c) for c in rows[f"{v}: coverage at 50% / 80% / 95%"].ours.split(" / ")])

    nominal = np.array([0.5, 0.8, 0.95])
    # IMP ignores D1's uncertainty and under-covers; BayesIMP as printed (no amplitude) over-covers
    assert cover("imp")[0] < 0.5
    assert cover("bayesimp")[0] > 0.6
    # an amplitude of the embedding prior learnt by marginal likelihood moves BayesIMP towards nominal
    dev_printed = np.abs(cover("bayesimp") - nominal).mean()
    dev_ml = np.abs(cover("bayesimp (c by ML)") - nominal).mean()
    assert dev_ml < dev_printed
    # and so does a measure nu of scale 1 for the nuclear dominant kernel (the printed prior leaves it open)
    assert np.abs(cover("bayesimp (nu scale 1)") - nominal).mean() < dev_printed


def test_housing_stand_in_bags_are_coarse_cells_with_their_mean_targets():
    X, f, labels, ylr, z = te.housing_bags(2000, 1.0, np.random.default_rng(0))
    B = labels.max() + 1
    assert X.shape[1] == 6 and ylr.shape == (B, 3) and 20 < B < 200
    assert np.bincount(labels).min() >= 3
    np.testing.assert_allclose(z, [f[labels == j].mean() for j in range(B)])


@pytest.mark.slow
def test_table_3_2_stand_in_carries_signal_and_documents_the_ordering():
    rows = _rows(te.cmip6_standin("quick", 0))

    def score(m):
        return [float(v) for v in rows[f"{m}: RMSE / MAE / Corr"].ours.split(" / ")]

    # the pseudo-target bag GP recovers the HR field better than a constant (house values: sd ~1.15)
    assert score("VBAGG")[0] < 1.1 and score("VBAGG")[2] > 0.3
    # documented disagreement: the thesis's VARCMP-first ordering does not carry over to the stand-in
    assert score("VARCMP")[0] > score("VBAGG")[0]


def test_embedding_amplitude_is_the_marginal_likelihood_maximiser():
    from kexplain.causal import BayesIMP
    from kexplain.embeddings import nuclear_dominant_rbf

    X, Y, Y2, T = te.ablation_data(40, 30, np.random.default_rng(3))
    model = BayesIMP("bayesime", **te.ABL_PARAMS).fit(X, Y, Y2, T)
    lam, c = te._embedding_scale(model, X, Y, Y2)
    N = X.shape[0]
    K = te._rbf(X, X, 0.3) + N * lam * np.eye(N)
    Kyy = te._rbf(Y, Y, 0.5)
    R = nuclear_dominant_rbf(Y, Y, 0.5, model.measure_scale_)
    R = R + 1e-10 * np.trace(R) / N * np.eye(N)

    def nll(cc):  # eq. 4.13 with prior covariance cc K (x) R and noise lam, up to constants
        return 0.5 * N * np.linalg.slogdet(cc * K)[1] + 0.5 * np.trace(
            np.linalg.solve(cc * K, Kyy @ np.linalg.solve(R, Kyy))
        )

    assert nll(c) <= min(nll(0.9 * c), nll(1.1 * c))


@pytest.mark.slow
def test_fig_4_7_bayesimp_prior_warm_starts_bo():
    rows = te.bo_simple("quick", 0).rows
    means = [r.ours for r in rows if "mean regret over" in r.quantity]
    ours, gp = np.array([[float(v) for v in m.split(" / ")] for m in means]).T
    # averaged over the three panels, BO from the BayesIMP prior finds lower values sooner
    assert ours.mean() < gp.mean()


def test_bo_loop_finds_the_minimum_with_an_exact_prior():
    class Exact:  # a prior that knows the function: the first EI step goes to its minimum
        def mean(self, x):
            return np.cos(x[:, 0])

        def kernel(self, x):
            return 1e-6 * np.exp(-0.5 * (x - x.T) ** 2)

    grid = np.linspace(-3, 3, 61)[:, None]
    regret = te.bo_loop(Exact(), grid, np.cos(grid[:, 0]), 3, np.random.default_rng(0))
    assert regret[1] < 1e-3 and np.all(np.diff(regret) <= 0)
