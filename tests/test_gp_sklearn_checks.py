"""OAKRegressor follows scikit-learn's estimator contract (all of sklearn's estimator checks)."""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_dont_overwrite_parameters, parametrize_with_checks

from kexplain.gp import OAKRegressor


# A short optimisation keeps the 52 checks to seconds; with the default max_iter=200 they pass as
# well (several minutes: full-order GPs on sklearn's 200-row regression data).
@pytest.mark.slow
@parametrize_with_checks([OAKRegressor(max_iter=10)])
def test_sklearn_estimator_checks(estimator, check):
    params = estimator.get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)  # raises on a violation of the contract
    # no check may leave the estimator it was handed changed (checks work on clones)
    assert estimator.get_params() == params


class _SetsAttributeInFit(OAKRegressor):
    """Breaks the contract: fit sets a public attribute that is not a fitted one (no trailing _)."""

    def fit(self, X, y):
        super().fit(X, y)
        self.public_state = np.asarray(X).shape[0]
        return self


def test_the_checks_catch_a_broken_estimator():
    # the harness above can fail: sklearn's check rejects an estimator that breaks the contract
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_dont_overwrite_parameters("OAKRegressor", OAKRegressor(max_iter=5))
        with pytest.raises(AssertionError):
            check_dont_overwrite_parameters("_SetsAttributeInFit", _SetsAttributeInFit(max_iter=5))
