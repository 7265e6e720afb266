"""Quick runs of the additive-GP paper's reproductions (paper 001, OAK): each asserts the figure's claim."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reproduce.experiments import oak as O  # noqa: E402
from reproduce.framework import run_experiment  # noqa: E402

BY_ID = {e.id: e for e in O.EXPERIMENTS}


def rows(eid):
    record = run_experiment(BY_ID[eid], "quick", 0)
    return record["rows"]


def test_every_figure_is_declared():
    items = {e.item.split(" (")[0] for e in O.EXPERIMENTS}
    assert {"Fig. 1", "Fig. 2", "Fig. 3", "Fig. 4", "Fig. 5"} <= items
    assert all("ship" in e.blocked for e in O.EXPERIMENTS if e.run is None)


def test_synthetic_sets_and_mean_rank():
    rng = np.random.default_rng(0)
    X, y = O.make(2, 500, rng)
    f = 0.5 * (np.exp(X[:, 0] * X[:, 1] * X[:, 2]) + np.exp(X[:, 3] * X[:, 4]))
    assert np.std(y - f) < 0.02 * np.std(f)  # 1% noise
    assert O.mean_true_rank([5, 4, 3, 0, 0], [0, 1, 2]) == 2.0
    assert O.mean_true_rank([0, 0, 0, 5, 4], [0, 1]) == 4.0  # ties share the mean rank
    assert O.IDEAL == {1: 2.0, 2: 3.0, 3: 2.5, 4: 3.0}


@pytest.mark.slow
def test_fig1_oak_global_values_find_the_true_features():
    r = rows("oak-fig1")
    for row in r[:2]:  # sets 1 and 4: AGP-SV at the ideal rank and no worse than any selector
        means = row["ours"]
        assert means["AGP-SV (OAK global)"] <= min(means.values()) + 0.05, row
    # set 4 (complex): AGP-SV beats HSIC-Lasso, as the paper says
    assert r[1]["ours"]["AGP-SV (OAK global)"] < r[1]["ours"]["HSIC-Lasso"]


@pytest.mark.slow
def test_fig3_oak_local_values_rank_the_true_features():
    for row in rows("oak-fig3"):
        means = row["ours"]
        assert means["AGP-SV (OAK local, functional ANOVA)"] <= min(means.values()) + 0.5, row


@pytest.mark.slow
def test_fitting_check_restarts_never_worsen_the_likelihood():
    r = rows("oak-fig1-fitting")
    assert r[2]["ours"] is True
    assert r[0]["ours"]["one start, Gaussian measure (paper)"]["global"] <= 4.0


@pytest.mark.slow
def test_real_data_feature_curves_removal_and_time():
    for row in rows("oak-fig2"):
        area = row["ours"]
        assert area["AGP-SV (OAK global)"] <= 1.25 * min(area.values()), row
    for row in rows("oak-fig4"):
        score = row["ours"]
        # the least important features by OAK's exact values move the prediction less than a random order
        assert score["AGP-SV"] < score["random order"], row
