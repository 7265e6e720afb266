"""Duel data of kexplain.preference: the thesis generators, match records, modechoice, leak-free splits."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from kexplain.preference import (
    DuelData,
    duels_from_matches,
    load_modechoice,
    make_cluster_duels,
    make_gpm_duels,
    make_latent_state_duels,
)


def test_cluster_duels_follow_the_chapter_7_rule():
    data = make_cluster_duels(n_duels=500, n_items=60, random_state=0)
    assert data.X_left.shape == (500, 7) and data.items.shape == (60, 7)
    onehot = data.items[:, 4:]
    assert np.array_equal(onehot.argmax(1), data.item_labels) and np.all(onehot.sum(1) == 1)
    col = {(0, 0): 0, (1, 1): 0, (2, 2): 0, (0, 1): 1, (0, 2): 2, (1, 2): 3}
    for i in range(len(data)):
        a, b = data.left_index[i], data.right_index[i]
        ca, cb = sorted((data.item_labels[a], data.item_labels[b]))
        j = col[(ca, cb)]
        assert data.y[i] == float(data.items[a, j] > data.items[b, j])
        assert data.info["deciding_feature"][i] == data.feature_names[j]
    assert np.array_equal(data.X_left, data.items[data.left_index])
    again = make_cluster_duels(n_duels=500, n_items=60, random_state=0)
    assert np.array_equal(again.y, data.y) and np.array_equal(again.X_right, data.X_right)
    assert 0.3 < data.y.mean() < 0.7  # orientation is random


def test_latent_state_duels():
    data = make_latent_state_duels(n_items=20, n_features=3, n_states=3, density=0.5, random_state=1)
    assert len(data) == 95 and data.X_left.shape[1] == 3
    pairs = {tuple(sorted(p)) for p in zip(data.left_index.tolist(), data.right_index.tolist())}
    assert len(pairs) == len(data)  # each pair of items is played at most once
    util = data.info["utilities"]
    z = data.item_labels
    for i in range(len(data)):
        a, b = data.left_index[i], data.right_index[i]
        assert data.y[i] == float(util[z[a], z[b], a] > util[z[a], z[b], b])
    rand = make_latent_state_duels(n_items=20, n_states=2, density=1.0, across="random", random_state=1)
    assert len(rand) == 190
    with pytest.raises(ValueError, match="across"):
        make_latent_state_duels(across="other")
    with pytest.raises(ValueError, match="density"):
        make_latent_state_duels(density=0.0)


def test_gpm_duels_have_a_skew_symmetric_preference_matrix():
    data = make_gpm_duels(n_duels=3000, n_items=15, amplitude=5.0, random_state=2)
    G = data.info["G"]
    assert np.allclose(G, -G.T) and np.all(np.diag(G) == 0)
    g = G[data.left_index, data.right_index]
    assert np.all(data.left_index != data.right_index)
    # outcomes follow sigmoid(g): the sign of g predicts them well
    assert np.mean((g > 0) == (data.y == 1)) > 0.75
    with pytest.raises(ValueError, match="n_items"):
        make_gpm_duels(n_items=1)


def test_split_is_disjoint_and_keeps_groups_together():
    data = make_cluster_duels(n_duels=200, n_items=30, random_state=0)
    data.groups = np.arange(200) // 4
    train, test = data.split(0.25, random_state=3)
    assert len(train) + len(test) == 200
    assert not set(train.groups.tolist()) & set(test.groups.tolist())
    key = lambda d: set(zip(d.left_index.tolist(), d.right_index.tolist(), d.groups.tolist()))  # noqa: E731
    assert not key(train) & key(test)
    # nothing was flipped or duplicated: every duel appears once, with its own outcome
    assert sorted(train.groups.tolist() + test.groups.tolist()) == sorted(data.groups.tolist())
    with pytest.raises(ValueError, match="test_size"):
        data.split(1.5)


def test_duels_from_matches():
    items = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    ids = ["a", "b", "c"]
    data = duels_from_matches(["a", "b", "c"], ["b", "c", "a"], items, item_ids=ids, random_state=0)
    assert isinstance(data, DuelData) and len(data) == 3
    winners = np.where(data.y[:, None] == 1, data.X_left, data.X_right)
    assert np.array_equal(winners, items)
    fixed = duels_from_matches(["a"], ["b"], items, item_ids=ids, orientation="winner_left", context=[[2.0]])
    assert fixed.y.tolist() == [1.0] and fixed.context.shape == (1, 1)
    with pytest.raises(ValueError, match="'z'"):
        duels_from_matches(["z"], ["a"], items, item_ids=ids)
    with pytest.raises(ValueError, match="same item"):
        duels_from_matches(["a"], ["a"], items, item_ids=ids)
    with pytest.raises(ValueError, match="losers has 2"):
        duels_from_matches(["a"], ["b", "c"], items, item_ids=ids)
    with pytest.raises(ValueError, match="items"):
        duels_from_matches([0], [1], np.array([[np.nan], [1.0]]))
    with pytest.raises(ValueError, match="orientation"):
        duels_from_matches([0], [1], items, orientation="left")


def test_duels_from_matches_reads_dataframes():
    pd = pytest.importorskip("pandas")
    items = pd.DataFrame({"speed": [1.0, 2.0, 3.0], "power": [3.0, 2.0, 1.0]}, index=[10, 20, 30])
    data = duels_from_matches([30, 10], [20, 30], items, orientation="winner_left")
    assert data.feature_names == ["speed", "power"]
    assert data.X_left.tolist() == [[3.0, 1.0], [1.0, 3.0]]


def test_load_modechoice():
    pytest.importorskip("statsmodels")
    data = load_modechoice()
    assert len(data) == 630 and data.X_left.shape == (630, 8) and data.context.shape == (630, 2)
    assert data.context_names == ["hinc", "psize"] and data.feature_names[:4] == ["ttme", "invc", "invt", "gc"]
    assert len(np.unique(data.groups)) == 210 and np.all(np.bincount(data.groups.astype(int))[1:] == 3)
    train, test = data.split(0.3, random_state=0)
    assert not set(train.groups.tolist()) & set(test.groups.tolist())
    assert load_modechoice(modes_as_features=False).X_left.shape[1] == 4


def test_load_modechoice_names_the_extra_when_statsmodels_is_missing(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("statsmodels"):
            raise ImportError("no statsmodels")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"kexplain\[preference\]"):
        load_modechoice()
