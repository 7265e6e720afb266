"""kexplain's own games: the rows of the games table, one :class:`~kexplain.games.Game` each.

The records are declared here in the table's order (the order :func:`kexplain.games.games` gives
and ``docs/which_game.rst`` shows); :mod:`kexplain._game_registry` registers them when it is first
imported.  A new capability's game is one more record here.  Only the standard library is imported.
"""

from __future__ import annotations

from ._game_record import SHAP_BASE_LABEL, Game

_PKEX = "Mohammadi, Chau & Muandet (2025), PKeX-Shapley"
_RKHS_SHAP = "Chau, Hu, Gonzalez & Sejdinovic (2022), RKHS-SHAP"
_OAK = "Exact Shapley Value for Local and Global Explanation of Additive Gaussian Processes"
_PREF = "Chau (2023), thesis, chapter 7 (PREF-SHAP), section 7.3"
_GP_SHAP = "Chau, Muandet & Sejdinovic (2023), stochastic Shapley values (GP-SHAP), section 3"
_UNCERTAIN = f"explain(X, uncertainty=True) gives its stochastic Shapley values ({_GP_SHAP})."

_TABLE: tuple[Game, ...] = (
    Game(
        "functional",
        "functional baseline (PKeX): an absent feature is integrated out of the kernel (its "
        "kernel factor is set to 1); base value = sum of the coefficients + intercept.",
        "v(S) = sum_i alpha_i prod_{j in S} k_j(x_j, X_ij) + b",
        "v(∅) = sum of the coefficients + intercept",
        "v(\\emptyset)",
        f"{_PKEX}, section 3.1",
        ("kexplain.ProductKernelExplainer(model)",),
        title="functional-baseline game",
        label="functional baseline",
    ),
    Game(
        "interventional",
        "interventional SHAP: an absent feature takes the values of the background rows, "
        "averaged over them; base value = mean prediction over the background.",
        "v(S) = sum_z w_z f(x_S, z_notS) over the background rows z",
        "E[f(X)] = mean prediction over the background",
        SHAP_BASE_LABEL,
        f"{_RKHS_SHAP}, section 3, Propositions 2-3 (interventional value functional); "
        "Dubé & Marchand (2024), STAR-SHAP, Theorem 3.1, for STAR models",
        (
            "kexplain.ProductKernelExplainer(model, background)",
            "kexplain.RKHSExplainer(model, background, game='interventional')",
            "kexplain.star.StarExplainer(model, background)",
            "kexplain.gp.OAKExplainer(gp, background)",
        ),
        title="interventional game",
        notes=_UNCERTAIN,
    ),
    Game(
        "interventional (summarised background)",
        "interventional SHAP over a weighted k-means summary of the background; base value = "
        "weighted mean prediction over the summary centres.",
        "v(S) = sum_c w_c f(x_S, c_notS) over the summary centres c",
        "E[f(X)] over the summary centres",
        "\\hat{E}[f(X)]",
        f"{_RKHS_SHAP}, section 3 (interventional value functional), on a summarised background",
        ("kexplain.ProductKernelExplainer(model, background, background_summary=k)",),
        notes=_UNCERTAIN,
        title="interventional game on a summarised background",
        label="interventional (summary)",
    ),
    Game(
        "baseline",
        "baseline Shapley: an absent feature takes its value in one reference row; "
        "base value = prediction at that row.",
        "v(S) = f(x_S, z_notS) for one reference row z",
        "f(baseline) = prediction at the reference row",
        "f(\\mathrm{baseline})",
        "Sundararajan & Najmi (2020), The many Shapley values for model explanation (Baseline Shapley)",
        ("kexplain.ProductKernelExplainer(model, baseline=z)",),
        notes=_UNCERTAIN,
        title="baseline Shapley",
    ),
    Game(
        "anova",
        "functional ANOVA of an orthogonal additive GP: an absent feature's components are dropped; "
        "base value = the constant component f_0.",
        "v(S) = sum of the components f_T with T a subset of S",
        "f_0 = the constant component",
        "f_0",
        f"{_OAK}, section 3, Lemma 1",
        ("kexplain.gp.OAKExplainer(gp)",),
        notes=_UNCERTAIN,
        title="functional-ANOVA game",
        label="functional ANOVA",
    ),
    Game(
        "observational",
        "observational SHAP: the conditional expectation of the prediction given the present "
        "features, by conditional mean embeddings; base value = mean prediction over the background.",
        "v(S) = E[f(X) | X_S = x_S], estimated from the background rows",
        "E[f(X)] = mean prediction over the background",
        SHAP_BASE_LABEL,
        f"{_RKHS_SHAP}, section 3, Propositions 2-3 (observational value functional)",
        (
            "kexplain.RKHSExplainer(model, background)",
            "kexplain.RKHSExplainer(model, background, game='observational')",
        ),
        title="observational game",
        notes=_UNCERTAIN,
    ),
    Game(
        "preferential item (interventional)",
        "PREF-SHAP on items: an absent item feature of both sides of a duel takes the values of the "
        "item background rows; base value = 0 up to rounding (the preference of an item over itself).",
        "v(S) = E_z g(x_S, z_notS ; x'_S, z_notS) over the item background",
        "0 (an item against itself)",
        "0",
        f"{_PREF}, Proposition 7.3.1",
        ("kexplain.preference.PrefShapExplainer(model, background, level='item')",),
        title="preferential item game (interventional)",
        label="item (interventional)",
    ),
    Game(
        "preferential item (observational)",
        "PREF-SHAP on items, observational: absent item features are conditioned on the present ones "
        "by conditional mean embeddings; base value = 0 up to rounding.",
        "v(S) = E[g(X, X') | X_S = x_S, X'_S = x'_S]",
        "0 (an item against itself)",
        "0",
        f"{_PREF}, Proposition 7.3.3",
        ("kexplain.preference.PrefShapExplainer(model, background, level='item', game='observational')",),
        title="preferential item game (observational)",
        label="item (observational)",
    ),
    Game(
        "preferential context (interventional)",
        "PREF-SHAP on contexts: an absent context feature takes the values of the context background "
        "rows; base value = E_U g, the mean preference over the context background.",
        "v(S) = E_u g(x, x' ; c_S, u_notS) over the context background",
        "E_U[g] = mean preference over the context background",
        "E_U[g]",
        f"{_PREF}, Proposition 7.3.2",
        ("kexplain.preference.PrefShapExplainer(model, level='context', context_background=U)",),
        title="preferential context game (interventional)",
        label="context (interventional)",
    ),
    Game(
        "preferential context (observational)",
        "PREF-SHAP on contexts, observational: absent context features are conditioned on the present "
        "ones by conditional mean embeddings; base value = E_U g.",
        "v(S) = E[g(x, x' ; C) | C_S = c_S]",
        "E_U[g] = mean preference over the context background",
        "E_U[g]",
        f"{_PREF}, Proposition 7.3.4",
        ("kexplain.preference.PrefShapExplainer(model, level='context', game='observational', context_background=U)",),
        title="preferential context game (observational)",
        label="context (observational)",
    ),
    Game(
        "preferential joint (interventional)",
        "PREF-SHAP on items and contexts together, interventional; base value = 0 up to rounding.",
        "v(S) = E_{z,u} g(x_S, z ; x'_S, z ; c_S, u) over both backgrounds",
        "0 (an item against itself)",
        "0",
        f"{_PREF}, Propositions 7.3.1-7.3.2",
        ("kexplain.preference.PrefShapExplainer(model, background, level='joint', context_background=U)",),
        title="preferential joint game (interventional)",
        label="joint (interventional)",
    ),
    Game(
        "MMD^2",
        "the squared maximum mean discrepancy of two samples with the kernel restricted to the present "
        "features; the empty coalition is 0 and the values sum to MMD^2.",
        "v(S) = MMD^2(P_S, Q_S) with the product kernel over the features in S",
        "0 (MMD^2 of no feature)",
        "0",
        f"{_PKEX}, section 4.1 (explaining the MMD)",
        ("kexplain.stats.mmd_shapley", "kexplain.stats.mmd_test", "kexplain.stats.mmd_interactions"),
        title="MMD^2 game",
        result="GlobalAttribution and Explanation",
    ),
    Game(
        "HSIC",
        "the Hilbert-Schmidt independence criterion with one side's kernel restricted to the present "
        "features; the empty coalition is 0 and the values sum to HSIC.",
        "v(S) = HSIC(X_S, Y) with the product kernel over the features in S",
        "0 (HSIC of no feature)",
        "0",
        f"{_PKEX}, section 4.2 and appendix G (multivariate HSIC)",
        ("kexplain.stats.hsic_shapley", "kexplain.stats.hsic_test", "kexplain.stats.hsic_interactions"),
        title="HSIC game",
        result="GlobalAttribution",
    ),
    Game(
        "variance",
        "closed Sobol index: the variance of the model's conditional mean given the present features "
        "under the input measure; the empty coalition is 0 and the values (Shapley effects) sum to Var f(X).",
        "v(S) = Var(E[f(X) | X_S]) under independent inputs",
        "0 (no feature explains no variance)",
        "0",
        f"Owen (2014); Song, Nelson & Staum (2016), Shapley effects; {_OAK}, section 4, Theorem 1",
        (
            "kexplain.sensitivity.SensitivityAnalysis(model, ...).shapley_effects()",
            "kexplain.sensitivity.sobol_indices(model, ...)",
            "kexplain.gp.OAKRegressor(...).global_importance()",
            "kexplain.gp.OAKRegressor(...).global_interactions(interactions)",
        ),
        title="variance (Sobol) game",
        label="variance",
        result="GlobalAttribution",
    ),
    Game(
        "expected variance",
        "the posterior expectation of the closed Sobol index of a Gaussian-process model; the empty "
        "coalition is 0 and the values sum to E_f Var f(X).",
        "v(S) = E_f Var(E[f(X) | X_S]) under the GP posterior",
        "0 (no feature explains no variance)",
        "0",
        "Owen (2014) and Song, Nelson & Staum (2016), Shapley effects, taken in posterior expectation "
        "(design notes, kexplain.sensitivity)",
        (
            "kexplain.sensitivity.SensitivityAnalysis(gp, ..., target='posterior_expectation').shapley_effects()",
            "kexplain.sensitivity.sobol_indices(gp, ..., target='posterior_expectation')",
        ),
        title="expected-variance game",
        result="GlobalAttribution",
    ),
    Game(
        "posterior variance (interventional)",
        "the posterior variance of a Gaussian-process model with the absent features taken from the "
        "background rows, averaged; base value = mean posterior variance over the background.",
        "v(S) = sum_z w_z Var[f(x_S, z_notS) | data]",
        "E[Var f(X)] = mean posterior variance over the background",
        "E[\\sigma^2(X)]",
        f"{_GP_SHAP}, applied to the posterior variance (design notes, explain(X, target='variance'))",
        ("kexplain.ProductKernelExplainer(gp, background).explain(X, target='variance')",),
        title="posterior-variance game (interventional)",
        label="posterior variance (interventional)",
    ),
    Game(
        "posterior variance (summarised background)",
        "the posterior variance of a Gaussian-process model with the absent features taken from the "
        "summary centres of the background, weighted; base value = their weighted mean posterior variance.",
        "v(S) = sum_c w_c Var[f(x_S, c_notS) | data] over the summary centres c",
        "E[Var f(X)] over the summary centres",
        "\\hat{E}[\\sigma^2(X)]",
        f"{_GP_SHAP}, applied to the posterior variance (design notes, explain(X, target='variance'))",
        ("kexplain.ProductKernelExplainer(gp, background, background_summary=k).explain(X, target='variance')",),
        title="posterior-variance game (summarised background)",
        label="posterior variance (summary)",
    ),
    Game(
        "posterior variance (baseline)",
        "the posterior variance of a Gaussian-process model with the absent features taken from one "
        "reference row; base value = posterior variance at that row.",
        "v(S) = Var[f(x_S, z_notS) | data] for one reference row z",
        "Var f(baseline) = posterior variance at the reference row",
        "\\sigma^2(\\mathrm{baseline})",
        f"{_GP_SHAP}, applied to the posterior variance (design notes, explain(X, target='variance'))",
        ("kexplain.ProductKernelExplainer(gp, baseline=z).explain(X, target='variance')",),
        title="posterior-variance game (baseline)",
        label="posterior variance (baseline)",
    ),
)
