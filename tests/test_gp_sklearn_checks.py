"""OAKRegressor follows scikit-learn's estimator contract (all of sklearn's estimator checks)."""

import warnings

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from kexplain.gp import OAKRegressor


# A short optimisation keeps the 52 checks to seconds; with the default max_iter=200 they pass as
# well (several minutes: full-order GPs on sklearn's 200-row regression data).
@pytest.mark.slow
@parametrize_with_checks([OAKRegressor(max_iter=10)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)
