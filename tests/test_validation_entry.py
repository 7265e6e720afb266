"""The one validation entry (check_data's policies), declared option checks, and the engine's public entries.

- ``check_data``'s options give the messages the validators it replaced gave (argument named,
  what is accepted said), and its default path is unchanged.
- ``kexplain._params``: declared constraints keep kexplain's phrasing; the error is a ValueError
  and a TypeError at once.
- ``kexplain.shapley.product.leave_one_out_integrals`` against enumeration of all coalitions.
- ``kexplain.shapley.routes``: the cost model, against the formula it replaced, written out here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import kexplain as kx
from kexplain._params import (
    Boolean,
    Integer,
    InvalidParameterError,
    Options,
    Real,
    check_param,
    validate_params,
)
from kexplain._validation import MAGNITUDE_LIMIT, check_bool, check_data
from kexplain.shapley.product import compiled_available, leave_one_out_integrals
from kexplain.shapley.quadrature import nodes_for_degree
from kexplain.shapley.routes import (
    BACKGROUND_TABLE_BYTES,
    MAX_SUBSET_FEATURES,
    cheaper_route,
    choose_route,
    subset_table_fits,
)


# -- check_data: policies ------------------------------------------------------------------------
def test_default_path_is_unchanged():
    out = check_data([[1, 2], [3, 4]], n_features=2)
    assert out.dtype == np.float64 and out.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match=r"^X must be a 2-D array of shape \(n_samples, n_features\), got shape"):
        check_data(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"background contains NaN or infinite values at \(row 0, column 1\)"):
        check_data([[1.0, np.nan]], name="background")


def test_none_is_refused_by_name():
    with pytest.raises(ValueError, match="^background is required, got None"):
        check_data(None, name="background")
    with pytest.raises(ValueError, match="This estimator requires Y to be passed"):
        check_data(None, name="Y", estimator=True)


@pytest.mark.parametrize("value", [np.zeros(3), np.zeros((2, 2, 2)), 5.0])
def test_ndims_and_the_reshape_hint(value):
    with pytest.raises(ValueError, match=r"^Y must be a 2-D array \(n_samples, n_features\), got .*Reshape your data"):
        check_data(value, name="Y", estimator=True)


def test_one_dimensional_inputs_when_allowed():
    assert check_data([1, 2], name="y", ndims=(1, 2)).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"y contains NaN or infinite values at entry 1"):
        check_data([1.0, np.inf], name="y", ndims=(1,))
    with pytest.raises(ValueError, match=r"y contains NaN or infinity \(row 1\)"):
        check_data([1.0, np.nan], name="y", ndims=(1,), estimator=True)


def test_estimator_phrasing():
    with pytest.raises(ValueError, match=r"Complex data not supported: X has complex values"):
        check_data([[1j]], estimator=True)
    with pytest.raises(ValueError, match=r"X has 0 sample\(s\) \(shape=\(0, 2\)\) while a minimum of 1 is required"):
        check_data(np.zeros((0, 2)), estimator=True)
    with pytest.raises(ValueError, match=r"X has 0 feature\(s\) \(shape=\(3, 0\)\) while a minimum of 1 is required"):
        check_data(np.zeros((3, 0)), estimator=True, min_features=1)
    with pytest.raises(ValueError, match=r"X must hold numbers; got text such as 'a'"):
        check_data([["a"]], estimator=True)
    with pytest.raises(TypeError, match=r"X has an entry of type dict"):
        check_data(np.array([[{}]], dtype=object), estimator=True)
    with pytest.raises(ValueError, match=r"y has 2 rows, but X has 3: found input variables with inconsistent"):
        check_data([1.0, 2.0], name="y", ndims=(1, 2), n_rows=3, rows_of="X", estimator=True)


def test_min_features_kexplain_phrasing():
    with pytest.raises(ValueError, match=r"^items must have at least one feature \(column\), got shape \(3, 0\)"):
        check_data(np.zeros((3, 0)), name="items", min_features=1)


def test_sparse_policy():
    S = sp.csr_matrix(np.eye(3))
    assert check_data(S).tolist() == np.eye(3).tolist()  # densified by default
    with pytest.raises(TypeError, match=r"^X is a scipy sparse matrix; OAK needs dense data: pass X.toarray\(\)"):
        check_data(S, sparse="refuse", dense_reason="OAK needs dense data")
    assert sp.isspmatrix_csr(check_data(S, sparse="keep"))  # kept sparse, validated (check_sparse_data)
    with pytest.raises(ValueError, match="sparse must be one of"):
        check_data(S, sparse="lazy")


def test_magnitude_bound_is_the_one_constant():
    assert MAGNITUDE_LIMIT == 1e150
    check_data([[MAGNITUDE_LIMIT]], huge=True)  # at the bound: accepted
    with pytest.raises(ValueError, match=r"X has values as large as 1e\+151; their squares .* rescale X"):
        check_data([[1e151]], huge=True)
    with pytest.raises(ValueError, match=r"X varies by only 1e-160; kernel lengthscales that small underflow"):
        check_data([[0.0], [1e-160]], tiny=True)
    assert check_data([[1e200]]).shape == (1, 1)  # no bound unless asked


def test_labels_kept_and_column_names_only_in_messages():
    raw = np.array([[1.0, "a"], [2.0, "b"]], dtype=object)
    out = check_data(raw, numeric_mask=np.array([True, False]))
    assert out.dtype == object and out[:, 1].tolist() == ["a", "b"] and out[:, 0].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 'b'\)"):
        check_data([[1.0, 2.0], [3.0, np.nan]], column_names=["a", "b"])
    kept = check_data([[1, "x"]], convert=False)
    assert kept.dtype.kind == "U"  # convert=False: shape and type checks only


def test_copy_false_passes_a_float_array_through():
    A = np.ones((2, 2))
    assert check_data(A, copy=False) is A
    assert check_data(A) is not A


# -- declared option checks ----------------------------------------------------------------------
def test_constraints_describe_what_is_accepted():
    assert str(Integer(1)) == "a positive integer"
    assert str(Integer(0)) == "a non-negative integer"
    assert str(Integer(2)) == "an integer >= 2"
    assert str(Real(0)) == "a non-negative number"
    assert str(Real(0, closed="neither")) == "a positive number"
    assert str(Real(0, 1, closed="neither")) == "a number in (0, 1)"
    assert str(Boolean()) == "True or False"
    assert str(Options(["a", "b"])) == "one of ['a', 'b']"
    assert str(Integer(-5, 5, closed="left")) == "an integer in [-5, 5)"
    with pytest.raises(ValueError, match=r"^n_jobs must be None, a positive integer or a negative one \(-1: every"):
        kx.stats.hsic_shapley(np.zeros((10, 2)), np.arange(10.0), n_jobs=0)
    with pytest.raises(ValueError, match=r"^x must be a finite real number, got inf\.$"):
        check_param(float("inf"), "x", Real(), what="a finite real number")


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, np.True_, "3", None])
def test_positive_integer_refusals(bad):
    with pytest.raises(InvalidParameterError, match=r"^k must be a positive integer \(a count\), got "):
        check_param(bad, "k", Integer(1), note="a count")


def test_error_is_value_and_type_error_and_values_are_converted():
    with pytest.raises(ValueError):
        check_param(-1, "n", Integer(1))
    with pytest.raises(TypeError):
        check_param(1, "progress", Boolean())
    assert type(check_param(np.int64(3), "k", Integer(1))) is int
    assert type(check_param(np.float32(0.5), "t", Real(0, 1))) is float
    assert check_param(None, "tol", Real(0, closed="neither"), None) is None
    assert check_param(float("inf"), "tol", Real(0, closed="neither", finite=False)) == float("inf")
    with pytest.raises(ValueError, match=r"^tol must be a positive number or None, got nan"):
        check_param(float("nan"), "tol", Real(0, closed="neither", finite=False), None)
    assert validate_params({"k": 2, "flag": np.False_}, {"k": [Integer(1)], "flag": [Boolean()]}) == {
        "k": 2,
        "flag": False,
    }


def test_check_bool_message_kept():
    with pytest.raises(TypeError, match=r"^progress must be True or False, got 1\.$"):
        check_bool(1, "progress")
    assert check_bool(np.True_, "x") is True


def test_declared_checks_keep_the_public_messages():
    with pytest.raises(ValueError, match=r"batch_size must be a positive integer, got 0"):
        kx.exact_shapley(lambda S: S.sum(axis=1).astype(float), 2, batch_size=0)
    with pytest.raises(ValueError, match=r"d must be a positive integer \(the number of players\), got True"):
        kx.exact_shapley(lambda S: S.sum(axis=1).astype(float), True)


# -- the engine's leave-one-out entry ------------------------------------------------------------
def _enumerated(a_row, b_row):
    """Shapley values of v(S) = prod_{S} a prod_{not S} b by enumeration of all coalitions."""
    d = len(a_row)

    def v(S):
        S = np.asarray(S, dtype=bool)
        return np.prod(np.where(S, a_row, b_row), axis=1)

    return np.ravel(kx.exact_shapley(v, d).values)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("backend", ["auto", "numpy"])
def test_leave_one_out_integrals_are_the_rows_shapley_values(d, backend):
    rng = np.random.default_rng(d)
    a = rng.uniform(-1.5, 2.0, size=(4, d))
    b = rng.uniform(0.1, 1.5, size=(4, d))
    psi, pa = leave_one_out_integrals(a, b, backend=backend)
    psi1, pa1 = leave_one_out_integrals(a, backend=backend)  # b = 1, the statistics' game
    for k in range(4):
        np.testing.assert_allclose(psi[k], _enumerated(a[k], b[k]), rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(psi1[k], _enumerated(a[k], np.ones(d)), rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(pa, np.prod(a, axis=1), rtol=1e-14)
    np.testing.assert_allclose(psi1.sum(axis=1), pa1 - 1.0, rtol=1e-11, atol=1e-13)  # efficiency


def test_leave_one_out_integrals_refuse_bad_input():
    with pytest.raises(ValueError, match=r"a must be a 2-D array"):
        leave_one_out_integrals(np.ones(3))
    with pytest.raises(ValueError, match=r"b must have shape \(2, 3\) or \(1, 3\)"):
        leave_one_out_integrals(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="a contains NaN or infinite values"):
        leave_one_out_integrals(np.array([[1.0, np.nan]]))
    assert isinstance(compiled_available(), bool)


# -- the route cost model ------------------------------------------------------------------------
def _old_choose_route(d, R, nb, o, max_block_bytes, compiled):
    """The formula explainers/product_games.choose_route had, written out as the reference."""
    n_sets = 2**d if d <= 12 else 0
    if not n_sets or 16 * R * n_sets > max_block_bytes or 8 * (o + 1) * R * n_sets > 256 * 2**20:
        return "quadrature"
    subsets = n_sets * (0.5 if compiled else 1.2)
    quadrature = nb * d * nodes_for_degree(d - 1)
    return "subsets" if subsets < quadrature else "quadrature"


def test_choose_route_is_the_formula_it_replaced():
    grid = itertools.product(range(1, 15), (1, 50, 4000, 10**6), (1, 3, 40, 500), (1, 3), (2**20, 2**25), (True, False))
    for d, R, nb, o, mbb, comp in grid:
        assert choose_route(d, R, nb, o, max_block_bytes=mbb, compiled=comp) == _old_choose_route(
            d, R, nb, o, mbb, comp
        ), (d, R, nb, o, mbb, comp)


def test_route_pieces():
    assert BACKGROUND_TABLE_BYTES == 256 * 2**20 and MAX_SUBSET_FEATURES == 12
    assert subset_table_fits(12, 1) and not subset_table_fits(13, 1)
    assert not subset_table_fits(10, BACKGROUND_TABLE_BYTES // (8 * 2**10) + 1)
    assert cheaper_route(4, 100, compiled=False) == "subsets"
    assert cheaper_route(12, 1, compiled=True) == "quadrature"
