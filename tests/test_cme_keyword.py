"""The CME ridge keyword is ``regularization`` everywhere below rkhs/; ``eta=`` of the CV helper is deprecated."""

from __future__ import annotations

import numpy as np
import pytest

from kexplain.embeddings import ConditionalMeanEmbedding, cme_cv_loss_from_grams


def _grams():
    x = np.linspace(0, 1, 8)[:, None]
    K = np.exp(-((x - x.T) ** 2))
    return K, K.copy(), [np.arange(0, 8, 2), np.arange(1, 8, 2)]


def test_regularization_keyword_and_deprecated_eta_give_the_same_loss():
    K, L, folds = _grams()
    new = cme_cv_loss_from_grams(K, L, regularization=1e-3, folds=folds)
    assert new == cme_cv_loss_from_grams(K, L, 1e-3, folds)
    with pytest.warns(FutureWarning, match=r"eta=\.\.\.\) is deprecated: write regularization="):
        old = cme_cv_loss_from_grams(K, L, eta=1e-3, folds=folds)
    assert old == new
    # another regularization gives another loss: the keyword is read
    assert cme_cv_loss_from_grams(K, L, regularization=1.0, folds=folds) != new


def test_both_spellings_or_none_are_refused():
    K, L, folds = _grams()
    with pytest.raises(TypeError, match="not both regularization and its deprecated spelling eta"):
        cme_cv_loss_from_grams(K, L, 1e-3, folds, eta=1e-3)
    with pytest.raises(TypeError, match="needs regularization and folds"):
        cme_cv_loss_from_grams(K, L, folds=folds)
    with pytest.raises(ValueError, match="regularization must be"):
        cme_cv_loss_from_grams(K, L, 0.0, folds)


def test_the_estimators_use_the_same_keyword():
    import inspect

    from kexplain.causal import BayesIMP
    from kexplain.embeddings import BayesianCME, DeconditionalGPRegressor

    for cls in (ConditionalMeanEmbedding, BayesianCME, DeconditionalGPRegressor, BayesIMP):
        assert "regularization" in inspect.signature(cls).parameters, cls.__name__
