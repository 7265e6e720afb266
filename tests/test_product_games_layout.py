"""The split of kexplain.explainers.product_games: one public face, the games in four private siblings.

``_functional_game`` holds :class:`FunctionalGame`; ``_background_factors`` :class:`BackgroundFactors`
with ``DEVICE_TABLE_BYTES`` and the fused kernel's layout; ``_interventional_game``
:class:`InterventionalGame` and ``present_factors``; ``_subset_game`` ``subset_game``.  What the split
must not change: every name the module had (private ones included) is importable from it and is its
home's object, games pickled when they lived in ``product_games`` (inside a fitted explainer) still
load and give the same values, and the siblings never import the face (no circle).  The games' values
are checked by tests/test_engine.py, test_fused_functional.py and test_fused_interventional.py.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.explainers import (
    _background_factors,
    _functional_game,
    _interventional_game,
    _subset_game,
    product_games,
)
from kexplain.shapley import solve_product_game

HOMES = (_functional_game, _background_factors, _interventional_game, _subset_game)

#: every module-level name product_games.py defined before the split (540 lines)
OLD_NAMES = (
    "DEVICE_TABLE_BYTES",
    "_is_host",
    "_check_finite",
    "FunctionalGame",
    "_lay_out_rows",
    "_KEEP_PAIR_INDEX",
    "BackgroundFactors",
    "InterventionalGame",
    "present_factors",
    "subset_game",
)

#: ``pickle.dumps((FunctionalGame(em, [[2.0]]), InterventionalGame(em, [[2.0]], BackgroundFactors(em,
#: [[1.0]], [1.0]))), protocol=2)`` of ``em = KernelExpansion([[0.0]], [1.0], RBF(1.0))``, made before
#: the split: the classes are named ``kexplain.explainers.product_games.*``
OLD_GAMES = (
    b"\x80\x02ckexplain.explainers.product_games\nFunctionalGame\nq\x00)\x81q\x01}q\x02(X\x05\x00\x00\x00m"
    b"odelq\x03ckexplain.models.expansion\nKernelExpansion\nq\x04)\x81q\x05}q\x06(X\x06\x00\x00\x00kernelq"
    b"\x07ckexplain.kernels.stationary\nRBF\nq\x08)\x81q\t}q\n(X\x0b\x00\x00\x00lengthscaleq\x0bG?\xf0\x00"
    b"\x00\x00\x00\x00\x00X\t\x00\x00\x00amplitudeq\x0cG?\xf0\x00\x00\x00\x00\x00\x00ubX\x0c\x00\x00\x00X_"
    b"ref_sparseq\rNX\x06\x00\x00\x00_X_refq\x0ecnumpy._core.multiarray\n_reconstruct\nq\x0fcnumpy\nndarra"
    b"y\nq\x10K\x00\x85q\x11c_codecs\nencode\nq\x12X\x01\x00\x00\x00bq\x13X\x06\x00\x00\x00latin1q\x14\x86"
    b"q\x15Rq\x16\x87q\x17Rq\x18(K\x01K\x01K\x01\x86q\x19cnumpy\ndtype\nq\x1aX\x02\x00\x00\x00f8q\x1b\x89"
    b"\x88\x87q\x1cRq\x1d(K\x03X\x01\x00\x00\x00<q\x1eNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tq\x1fb"
    b'\x89h\x12X\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00q h\x14\x86q!Rq"tq#bX\x0c\x00\x00\x00numer'
    b"ic_maskq$h\x0fh\x10K\x00\x85q%h\x16\x87q&Rq'(K\x01K\x01\x85q(h\x1aX\x02\x00\x00\x00b1q)\x89\x88\x87"
    b"q*Rq+(K\x03X\x01\x00\x00\x00|q,NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tq-b\x89h\x12X\x01\x00\x00"
    b"\x00\x01q.h\x14\x86q/Rq0tq1bX\x06\x00\x00\x00_shapeq2K\x01K\x01\x86q3X\x04\x00\x00\x00coefq4h\x0fh"
    b"\x10K\x00\x85q5h\x16\x87q6Rq7(K\x01K\x01K\x01\x86q8h\x1d\x89h\x12X\t\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\xc3\xb0?q9h\x14\x86q:Rq;tq<bX\r\x00\x00\x00single_outputq=\x88X\t\x00\x00\x00interceptq>h\x0fh"
    b"\x10K\x00\x85q?h\x16\x87q@RqA(K\x01K\x01\x85qBh\x1d\x89h\x12X\x08\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00qCh\x14\x86qDRqEtqFbX\x05\x00\x00\x00termsqG]qHh\taX\x0c\x00\x00\x00term_outputsqIh\x0fh"
    b"\x10K\x00\x85qJh\x16\x87qKRqL(K\x01K\x01K\x01\x86qMh+\x89h0tqNbX\x0b\x00\x00\x00_amplitudesqOh\x0fh"
    b"\x10K\x00\x85qPh\x16\x87qQRqR(K\x01K\x01\x85qSh\x1d\x89h\x12X\t\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\xc3\xb0?qTh\x14\x86qURqVtqWbX\r\x00\x00\x00feature_namesqXNX\x0c\x00\x00\x00output_namesqY]qZX\x04"
    b"\x00\x00\x00f(x)q[aubX\x01\x00\x00\x00Xq\\h\x0fh\x10K\x00\x85q]h\x16\x87q^Rq_(K\x01K\x01K\x01\x86q`h"
    b"\x1d\x89h\x12X\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@qah\x14\x86qbRqctqdbX\x08\x00\x00\x00n_po"
    b"intsqeK\x01X\n\x00\x00\x00n_featuresqfK\x01X\x06\x00\x00\x00n_rowsqgK\x01X\t\x00\x00\x00n_outputsqhK"
    b"\x01X\r\x00\x00\x00row_alignmentqiK\x01X\x02\x00\x00\x00xpqjNX\x06\x00\x00\x00deviceqkNubckexplain.e"
    b"xplainers.product_games\nInterventionalGame\nql)\x81qm}qn(h\x03h\x05h\\h\x0fh\x10K\x00\x85qoh\x16"
    b"\x87qpRqq(K\x01K\x01K\x01\x86qrh\x1d\x89h\x12X\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@qsh\x14"
    b"\x86qtRqutqvbX\n\x00\x00\x00backgroundqwckexplain.explainers.product_games\nBackgroundFactors\nqx)"
    b"\x81qy}qz(h\x03h\x05X\x01\x00\x00\x00Zq{h\x0fh\x10K\x00\x85q|h\x16\x87q}Rq~(K\x01K\x01K\x01\x86q\x7f"
    b"h\x1d\x89h\x12X\t\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc3\xb0?q\x80h\x14\x86q\x81Rq\x82tq\x83bX\x01"
    b"\x00\x00\x00wq\x84h\x0fh\x10K\x00\x85q\x85h\x16\x87q\x86Rq\x87(K\x01K\x01\x85q\x88h\x1d\x89h\x12X\t"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc3\xb0?q\x89h\x14\x86q\x8aRq\x8btq\x8cbX\n\x00\x00\x00_max_byt"
    b"esq\x8dJ\x00\x00\x00\x10X\x0c\x00\x00\x00n_backgroundq\x8eK\x01X\x0b\x00\x00\x00n_base_rowsq\x8fK"
    b"\x01X\x07\x00\x00\x00factorsq\x90h\x0fh\x10K\x00\x85q\x91h\x16\x87q\x92Rq\x93(K\x01K\x01K\x01K\x01"
    b"\x87q\x94h\x1d\x89h\x12X\x0c\x00\x00\x00\n\xc2\x96o\xc3\xbc\xc2\xb2h\xc3\xa3?q\x95h\x14\x86q\x96Rq"
    b"\x97tq\x98bX\x08\x00\x00\x00productsq\x99h\x0fh\x10K\x00\x85q\x9ah\x16\x87q\x9bRq\x9c(K\x01K\x01\x85"
    b"q\x9dh\x1d\x89h\x12X\x0c\x00\x00\x00\n\xc2\x96o\xc3\xbc\xc2\xb2h\xc3\xa3?q\x9eh\x14\x86q\x9fRq\xa0tq"
    b"\xa1bubhjNhkNh\x84h\x87heK\x01hfK\x01X\x02\x00\x00\x00nbq\xa2K\x01h\x8fK\x01hgK\x01hhK\x01hiK\x01ub"
    b"\x86q\xa3."
)


def _defined(module) -> set[str]:
    """The names a module defines at top level (not those it imports)."""
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    out = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    out |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return out


@pytest.mark.parametrize("name", OLD_NAMES)
def test_every_name_is_imported_from_product_games_and_is_its_homes_object(name):
    obj = getattr(product_games, name)
    homes = [m for m in HOMES if name in _defined(m)]
    assert len(homes) == 1, f"product_games.{name} has {len(homes)} homes"
    assert getattr(homes[0], name) is obj


def test_the_public_names_are_unchanged():
    assert sorted(product_games.__all__) == sorted(n for n in OLD_NAMES if not n.startswith("_"))


@pytest.mark.parametrize("module", [product_games, *HOMES], ids=lambda m: m.__name__)
def test_each_module_stays_within_its_bound(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("module", HOMES, ids=lambda m: m.__name__)
def test_the_siblings_never_import_the_face(module):
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.module for a in n.names}
    assert not any("product_games" in (m or "") for m in imported)


def test_games_pickled_under_the_old_path_still_load():
    functional, interventional = pickle.loads(OLD_GAMES)
    assert type(functional) is product_games.FunctionalGame
    assert type(interventional) is product_games.InterventionalGame
    assert type(interventional.background) is product_games.BackgroundFactors
    em = kx.KernelExpansion(np.zeros((1, 1)), [1.0], kx.kernels.RBF(1.0))
    bg = product_games.BackgroundFactors(em, np.ones((1, 1)), np.ones(1))
    np.testing.assert_array_equal(interventional.background.factors, bg.factors)
    fresh = (
        product_games.FunctionalGame(em, np.full((1, 1), 2.0)),
        product_games.InterventionalGame(em, np.full((1, 1), 2.0), bg),
    )
    for old, new in zip((functional, interventional), fresh):
        a, b = solve_product_game(old), solve_product_game(new)
        np.testing.assert_array_equal(a.values, b.values)
        np.testing.assert_array_equal(a.v_empty, b.v_empty)
    # and pickles made now name a path that resolves
    for cls in (product_games.FunctionalGame, product_games.BackgroundFactors, product_games.InterventionalGame):
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
    again = pickle.loads(pickle.dumps(interventional))
    np.testing.assert_array_equal(solve_product_game(again).values, solve_product_game(interventional).values)


def test_a_fitted_explainer_pickles_with_its_background():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    em = kx.KernelExpansion(X, rng.normal(size=20), kx.kernels.RBF(1.0))
    e = kx.ProductKernelExplainer(em, background=X[:5])
    e2 = pickle.loads(pickle.dumps(e))
    np.testing.assert_array_equal(e2.explain(X[:3]).values, e.explain(X[:3]).values)
