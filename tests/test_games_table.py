"""The games table (kexplain.games) is the one place games are declared (issue 22, item 3).

- The table: every record complete, names unique, an unknown name refused with the known ones,
  registration of a new game, the documentation page equal to ``games_table()``.
- Producers: every game string the package puts on a result is a name of the table (read from
  the source, and from the results of every explainer and statistic).
- Readers: plots, report and command line carry no game texts of their own.
- The facts that rode in ``Explanation.info`` are typed attributes, sliced, stacked and pickled
  with the values; the old ``info`` reads still work and warn.
"""

from __future__ import annotations

import ast
import copy
import importlib
import pathlib
import pickle
import warnings

import numpy as np
import pytest

import kexplain as kx
from kexplain import games

SRC = pathlib.Path(kx.__file__).parent
DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "which_game.rst"
BEGIN, END = ".. games-table-begin", ".. games-table-end"


# -- the table ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game", games.games(), ids=lambda g: g.name)
def test_every_record_is_complete(game):
    for attr in ("name", "description", "value_function", "base_label", "base_label_math", "paper", "title", "label"):
        assert isinstance(getattr(game, attr), str) and getattr(game, attr).strip(), f"{game.name}: {attr} is empty"
    assert game.given_by, f"{game.name} names no explainer or function that gives it"
    assert game.result in ("Explanation", "GlobalAttribution", "GlobalAttribution and Explanation")
    # every explainer or function named exists under that name
    for where in game.given_by:
        parts = where.split("(")[0].split(".")
        assert parts[0] == "kexplain", f"{game.name}: {where!r} is not a kexplain name"
        obj = importlib.import_module("kexplain")
        for part in parts[1:]:
            obj = getattr(obj, part)


def test_names_and_aliases_are_unique_and_found():
    names = games.game_names()
    assert len(names) == len(set(names)) == len(games.games())
    for g in games.games():
        assert games.get_game(g.name) is g and games.is_game(g.name)
        for alias in g.aliases:
            assert games.get_game(alias) is g
    # the games the issue lists are all there
    for name in ("functional", "interventional", "baseline", "anova", "observational", "MMD^2", "HSIC", "variance"):
        assert name in names
    assert sum(n.startswith("preferential") for n in names) == 5


def test_unknown_name_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown game 'witness'") as err:
        games.get_game("witness")
    for name in games.game_names():
        assert repr(name) in str(err.value)
    with pytest.raises(ValueError, match="Did you mean 'interventional'"):
        games.get_game("interventinal")
    with pytest.raises(TypeError, match="string"):
        games.get_game(3)  # type: ignore[arg-type]


def test_register_a_new_game():
    g = games.Game("witness", "MMD witness.", "v(S) = w_S(x)", "0", "0", "notes", ("kexplain.stats.mmd",))
    try:
        assert games.register_game(g) is g
        assert games.get_game("witness") is g and "witness" in games.game_names()
        ex = kx.Explanation(np.ones((1, 2)), 0.0, game="witness")
        assert ex.game_record is g and kx.plots.base_label("witness") == "0"
        with pytest.raises(ValueError, match="already in the table"):
            games.register_game(g)
        assert games.register_game(g, replace=True) is g
    finally:
        games.unregister_game("witness")
    assert not games.is_game("witness")
    with pytest.raises(ValueError, match="reserved"):
        games.register_game(games.Game("custom", "x", "x", "x", "x", "x", ("x",)))
    with pytest.raises(ValueError, match="already in the table"):
        games.register_game(games.Game("f", "x", "x", "x", "x", "x", ("x",), aliases=("functional",)))
    with pytest.raises(ValueError, match="description must be a non-empty string"):
        games.Game("g", "", "x", "x", "x", "x", ("x",))
    with pytest.raises(TypeError, match="game must be a kexplain.games.Game"):
        games.register_game("functional")  # type: ignore[arg-type]


def test_docs_table_is_what_the_code_answers():
    text = DOCS.read_text()
    assert BEGIN in text and END in text
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert block.strip() == games.games_table().strip(), (
        "docs/which_game.rst is stale: paste the output of "
        "`python -c 'import kexplain; print(kexplain.games.games_table())'` between the markers"
    )


def _imported(module: str) -> set[str]:
    tree = ast.parse((SRC / f"{module}.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    return imported


@pytest.mark.parametrize("module", ["_game_record", "_game_table", "_game_registry"])
def test_the_games_table_sits_at_the_lowest_floor(module):
    # its modules may import the standard library, kexplain.exceptions and one another only, so
    # every floor can read them
    allowed = {
        "__future__",
        "collections.abc",
        "difflib",
        "dataclasses",
        ".exceptions",
        "._game_record",
        "._game_table",
    }
    assert _imported(module) <= allowed, _imported(module)


def test_the_games_module_is_the_tables_face():
    # kexplain.games only hands on the names of the table's modules
    assert _imported("games") <= {"__future__", "._game_record", "._game_table", "._game_registry"}


def test_public_names_of_the_games_module_have_examples():
    for name in games.__all__:
        obj = getattr(games, name)
        if callable(obj) and not isinstance(obj, games.Game):
            doc = obj.__doc__ or ""
            assert "Examples" in doc and ">>>" in doc, f"kexplain.games.{name} has no doctested example"


# -- the explanation's game -----------------------------------------------------------------------
def test_explanation_validates_its_game():
    for name in games.game_names():
        assert kx.Explanation(np.zeros((1, 2)), 0.0, game=name).game_record is games.get_game(name)
    # a string of the user's own: kept, labelled as a custom game with base value v(empty set)
    ex = kx.Explanation(np.zeros((1, 2)), 0.0, game="my witness attribution")
    assert ex.game == "my witness attribution" and ex.game_record is games.CUSTOM
    assert kx.plots.base_label(ex.game) == "v(\\emptyset)" != games.SHAP_BASE_LABEL
    assert kx.Explanation(np.zeros((1, 2)), 0.0).game_record is games.CUSTOM
    # a near miss of a table name is a typo, not a game
    with pytest.raises(ValueError, match="Did you mean 'observational'"):
        kx.Explanation(np.zeros((1, 2)), 0.0, game="observatonal")
    with pytest.raises(ValueError, match="Did you mean 'HSIC'"):
        kx.GlobalAttribution([1.0], 1.0, game="hsic ")


def test_statistics_are_no_longer_labelled_as_a_mean_prediction():
    # MMD^2 attributions: base value 0, not E[f(X)]
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(12, 3)), rng.normal(size=(10, 3)) + 0.5
    ex = kx.stats.mmd_interactions(X, Z, interactions={"index": "Moebius", "max_order": 2})
    assert ex.game == "MMD^2" and kx.plots.base_label(ex.game) == "0"
    assert "maximum mean discrepancy" in kx.report.GAME_DESCRIPTIONS[ex.game]
    att = kx.stats.mmd_shapley(X, Z)
    assert att.game == "MMD^2" and games.get_game(att.game).base_label_math == "0"


# -- producers use the table's names ------------------------------------------------------------
_RESULTS = {"Explanation": 7, "InteractionExplanation": 5, "GlobalAttribution": None, "DaskExplanation": None}


def _string(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def game_strings(tree: ast.AST):
    """(line, kind, string or None for an f-string) of every game string a module puts on a result."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            for kw in node.keywords:
                if kw.arg == "game":
                    found.append((node.lineno, "game=", kw.value))
            pos = _RESULTS.get(name) if name in _RESULTS else None
            if pos is not None and len(node.args) > pos:
                found.append((node.lineno, f"{name} positional game", node.args[pos]))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                tname = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "")
                if tname == "game" or tname.endswith("_GAME"):
                    found.append((node.lineno, f"{tname} =", node.value))
                elif tname.endswith("_GAMES") and isinstance(node.value, ast.Dict):
                    found += [(node.lineno, f"{tname} value", v) for v in node.value.values]
    out = []
    for line, kind, value in found:
        if isinstance(value, ast.JoinedStr):
            out.append((line, kind, None))
        elif _string(value) is not None:
            out.append((line, kind, _string(value)))
    return out


def _preference_games():
    """Every name PrefShapExplainer builds: f"preferential {level} ({game of the values})"."""
    mod = importlib.import_module("kexplain.preference.explainer")
    levels = mod.LEVELS
    values = getattr(mod, "VALUES", None) or getattr(mod, "GAMES", None)  # the option's choices, by either name
    assert values, "kexplain.preference.explainer lost the tuple of its game choices (VALUES or GAMES)"
    # joint + observational is refused by the explainer
    return [f"preferential {lv} ({v})" for lv in levels for v in values if (lv, v) != ("joint", "observational")]


#: modules that build a game name from parts, and every name those parts can give
_BUILT = {"preference/explainer.py": _preference_games}


def _producer_modules():
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == "games.py":
            continue
        yield rel, ast.parse(path.read_text(), filename=str(path))


def test_every_game_string_of_a_producer_is_in_the_table():
    loose = []
    for rel, tree in _producer_modules():
        for line, kind, value in game_strings(tree):
            if value is None:
                if rel not in _BUILT:
                    loose.append(f"{rel}:{line} ({kind}) builds a game name with an f-string")
            elif value and not games.is_game(value):
                loose.append(f"{rel}:{line} ({kind}) uses {value!r}, not a name of kexplain.games")
    assert not loose, "game strings outside the table:\n" + "\n".join(loose)
    for rel, names in _BUILT.items():
        for name in names():
            assert games.is_game(name), f"{rel} can build the game name {name!r}, which is not in the table"


def test_the_producer_check_can_fail():
    tree = ast.parse(
        "ex = Explanation(v, b, game='MMD witness')\n"
        "self.game = f'preferential {level}'\n"
        "OTHER_GAME = 'interventional-ish'\n"
        "Explanation(v, b, None, None, None, None, None, 'toy')\n"
    )
    got = game_strings(tree)
    assert sorted((line, v or "") for line, _, v in got) == [
        (1, "MMD witness"),
        (2, ""),
        (3, "interventional-ish"),
        (4, "toy"),
    ]
    assert not any(games.is_game(v) for _, _, v in got if v)


@pytest.fixture(scope="module")
def fitted():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF
    from sklearn.svm import SVR

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    return X, y, SVR(gamma=0.5).fit(X, y), GaussianProcessRegressor(RBF(1.0), alpha=1e-2).fit(X, y)


def test_every_explainer_result_carries_a_game_of_the_table(fitted):
    X, y, svr, gpr = fitted
    B, P = X[:8], X[8:11]
    results = [
        kx.ProductKernelExplainer(svr).explain(P),
        kx.ProductKernelExplainer(svr, B).explain(P),
        kx.ProductKernelExplainer(svr, baseline=B[0]).explain(P),
        kx.ProductKernelExplainer(svr, X, background_summary=4).explain(P),
        kx.ProductKernelExplainer(gpr, B).explain(P, target="variance"),
        kx.ProductKernelExplainer(gpr, baseline=B[0]).explain(P, target="variance"),
        kx.ProductKernelExplainer(svr, B).explain(P, interactions={"index": "STII", "max_order": 2}),
        kx.RKHSExplainer(svr, B).explain(P),
        kx.stats.mmd_shapley(X[:15], X[15:] + 1.0),
        kx.stats.hsic_shapley(X, y),
    ]
    for res in results:
        assert games.is_game(res.game), f"{type(res).__name__} carries {res.game!r}, not a name of the table"
    assert [r.game for r in results[:6]] == [
        "functional",
        "interventional",
        "baseline",
        "interventional (summarised background)",
        "posterior variance (interventional)",
        "posterior variance (baseline)",
    ]
    # the posterior variance's base value is a variance, labelled as one
    assert kx.plots.base_label(results[4].game) == "E[\\sigma^2(X)]"


@pytest.mark.slow
def test_oak_star_and_sensitivity_results_carry_a_game_of_the_table(fitted):
    import scipy.stats as st

    from kexplain.star import RKHSWeightingRegressor, StarExplainer

    X, y, svr, _ = fitted
    gp = kx.gp.OAKRegressor(max_interaction_order=2, max_iter=5).fit(X, y)
    star = RKHSWeightingRegressor(n_parameters=20, interaction_order=2, random_state=0).fit(X, y)
    em = kx.models.as_kernel_expansion(svr)
    sa = kx.sensitivity.SensitivityAnalysis(em, distributions=[st.norm(0, 1)] * 3)
    results = {
        "anova": kx.gp.OAKExplainer(gp).explain(X[:2]),
        "interventional": kx.gp.OAKExplainer(gp, X[:5]).explain(X[:2]),
        "variance": gp.global_importance(),
    }
    results["star interventional"] = StarExplainer(star, X[:5]).explain(X[:2])
    results["sensitivity"] = sa.shapley_effects()
    assert [r.game for r in results.values()] == ["anova", "interventional", "variance", "interventional", "variance"]


# -- readers carry no game texts of their own ----------------------------------------------------
READERS = ("plots", "report", "cli")


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and _string(first.value) is not None:
                ids.add(id(first.value))
    return ids


def game_texts(source: str) -> list[str]:
    """What a module says about games that belongs in the table: a game's description, base
    label or title-led sentence written out, shap's base label, or a dict of texts keyed by game names."""
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            # {game: text}: a table of its own (a dict of explanations keyed by game is fine)
            pairs = [(_string(k), v) for k, v in zip(node.keys, node.values) if k is not None]
            hits = [k for k, v in pairs if k is not None and games.is_game(k) and _string(v) is not None]
            if len(hits) >= 2:
                found.append(f"line {node.lineno}: a dict keyed by game names {hits}")
        text = _string(node)
        if text is None or id(node) in docstrings:
            continue
        if games.SHAP_BASE_LABEL in text:
            found.append(f"line {node.lineno}: shap's base label {games.SHAP_BASE_LABEL!r} written out")
        for g in games.games():
            if g.description in text or (len(g.base_label) > 3 and g.base_label in text):
                found.append(f"line {node.lineno}: the text of the game {g.name!r}")
            if text.startswith(f"{g.title}:") or (len(g.base_label_math) > 3 and g.base_label_math == text):
                found.append(f"line {node.lineno}: {text[:50]!r} (the table's words for {g.name!r})")
    return found


@pytest.mark.parametrize("folder", READERS)
def test_plots_report_and_cli_carry_no_game_texts(folder):
    found = []
    for path in sorted((SRC / folder).rglob("*.py")):
        found += [f"{folder}/{path.name} {hit}" for hit in game_texts(path.read_text())]
    assert not found, "game texts outside kexplain.games:\n" + "\n".join(found)


def test_the_reader_check_can_fail():
    # what plots/_common.py, report/_numbers.py and cli/_common.py held before the table
    old = (
        '_SHAP_BASE = "E[f(X)]"\n'
        'BASE_LABELS = {"functional": "v(\\\\emptyset)", "baseline": "f(\\\\mathrm{baseline})", "anova": "f_0"}\n'
        "def why():\n"
        '    return "interventional game: a background was given"\n'
    )
    found = game_texts(old)
    assert any("shap's base label" in f for f in found)
    assert any("dict keyed by game names" in f for f in found)
    assert any("interventional game" in f for f in found)


# -- the facts that rode in info are attributes -------------------------------------------------
@pytest.fixture(scope="module")
def explained(fitted):
    X, _, svr, _ = fitted
    return kx.ProductKernelExplainer(svr, X[:8]).explain(X[8:14], interactions="stii")


def test_facts_are_typed_attributes(explained, fitted):
    X, _, svr, _ = fitted
    ex = explained
    assert ex.interaction_index == "stii"
    assert isinstance(ex.efficiency_error, float) and ex.efficiency_error < 1e-12
    np.testing.assert_allclose(np.ravel(ex.v_full), svr.predict(X[8:14]), rtol=1e-10, atol=1e-10)
    assert "v_full" not in dict(ex.info) and "route" in ex.info
    # the old reads: same objects, with a DeprecationWarning
    for key, attr in (("v_full", "v_full"), ("interaction_index", "interaction_index")):
        with pytest.warns(DeprecationWarning, match=f"read Explanation.{attr}"):
            assert ex.info[key] is getattr(ex, attr)
    with pytest.warns(DeprecationWarning):
        assert ex.info.get("efficiency_error") == ex.efficiency_error
    assert "v_full" in ex.info and ex.info.get("nothing", 5) == 5


def test_producers_built_on_info_fill_the_attributes():
    # an explainer that still passes the facts in info (or writes them there) fills the attributes
    ex = kx.Explanation(
        np.ones((2, 2)), 0.0, info={"v_full": np.array([2.0, 2.0]), "interaction_index": "sii", "solver": "x"}
    )
    assert ex.interaction_index == "sii" and np.array_equal(ex.v_full, [2.0, 2.0])
    assert sorted(ex.info) == ["solver"]
    ex.info["efficiency_error"] = 1e-16
    ex.info.update(v_full=np.array([3.0, 3.0]))
    assert ex.efficiency_error == 1e-16 and np.array_equal(ex.v_full, [3.0, 3.0])
    with pytest.raises(ValueError, match="v_full must have shape"):
        kx.Explanation(np.ones((2, 2)), 0.0, v_full=np.ones(3))
    with pytest.raises(TypeError, match="interaction_index must be a string"):
        kx.Explanation(np.ones((2, 2)), 0.0, interaction_index=True)
    with pytest.raises(TypeError, match="efficiency_error must be a number"):
        kx.Explanation(np.ones((2, 2)), 0.0, efficiency_error="small")


def test_attributes_follow_slicing_stacking_and_pickling(explained):
    ex = explained
    sub = ex[1:3]
    np.testing.assert_array_equal(sub.v_full, ex.v_full[1:3])
    assert sub.interaction_index == "stii" and sub.efficiency_error == ex.efficiency_error
    one = ex[2]
    np.testing.assert_array_equal(one.v_full, ex.v_full[[2]])
    feats = ex[:, ["x0", "x2"]]
    np.testing.assert_array_equal(feats.v_full, ex.v_full)
    both = kx.Explanation.concatenate([ex[:2], ex[2:]])
    np.testing.assert_array_equal(both.v_full, ex.v_full)
    assert both.efficiency_error == max(ex[:2].efficiency_error, ex[2:].efficiency_error)
    for copied in (pickle.loads(pickle.dumps(ex)), copy.deepcopy(ex)):
        np.testing.assert_array_equal(copied.v_full, ex.v_full)
        assert copied.interaction_index == "stii" and copied.efficiency_error == ex.efficiency_error
        assert sorted(copied.info) == sorted(ex.info) and copied.info["route"] == ex.info["route"]
        with pytest.warns(DeprecationWarning):
            assert copied.info["v_full"] is copied.v_full
    html = ex._repr_html_()
    assert "efficiency check" in html and "stii" in html
    assert "(E[f(X)] = mean prediction over the background)" in html  # the base value, as the table says
    assert ">MMD^2</td>" in kx.GlobalAttribution([1.0], 1.0, game="MMD^2")._repr_html_()


def test_several_outputs_slice_v_full_by_output():
    em = kx.KernelExpansion(np.zeros((2, 2)), np.array([[1.0, 2.0], [0.5, -1.0]]), kx.kernels.RBF(1.0))
    ex = kx.ProductKernelExplainer(em).explain(np.ones((3, 2)))
    assert ex.v_full.shape == (3, 2)
    np.testing.assert_array_equal(ex[:, 1].v_full, ex.v_full[:, 1])
    np.testing.assert_allclose(ex[:, 1].predictions, ex.v_full[:, 1], atol=1e-12)


def test_interaction_explanation_attributes(fitted):
    X, _, svr, _ = fitted
    explainer = kx.ProductKernelExplainer(svr, X[:6])
    kstii = explainer.explain(X[6:8], interactions={"index": "k-SII", "max_order": 3})
    assert kstii.interaction_index == "k-SII" and kstii.efficiency_error < 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        float(kstii.efficiency_error)  # reading the number does not warn
    with pytest.warns(DeprecationWarning, match="drop the call parentheses"):
        assert kstii.efficiency_error() == kstii.efficiency_error
    # SII has no efficiency: the number is the Shapley values' gap, the old call still gives None
    sii = explainer.explain(X[6:8], interactions={"index": "SII", "max_order": 2})
    assert sii.efficiency_error is not None and sii.efficiency_error < 1e-12
    with pytest.warns(DeprecationWarning):
        assert sii.efficiency_error() is None
    back = pickle.loads(pickle.dumps(kstii))
    assert back.efficiency_error == kstii.efficiency_error and back.interaction_index == "k-SII"
    assert kstii[1].interaction_index == "k-SII" and kstii[1].efficiency_error < 1e-12
