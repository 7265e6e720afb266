"""Sphinx configuration of the kexplain documentation site.

Build with ``make docs`` (every gallery example runs at its default size) or ``make docs-quick``
(environment variable ``KEXPLAIN_QUICK=1``, as CI does: every example runs at its quick size).
Warnings are errors in both.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # the gallery and plot directives draw off-screen

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))  # a source checkout builds without installing
sys.path.insert(0, str(HERE / "_ext"))  # this site's own extensions

import kexplain

# -- project -------------------------------------------------------------------------------------
project = "kexplain"
author = "the kexplain developers"
copyright = "the kexplain developers"
release = kexplain.__version__
version = ".".join(release.split(".")[:2])

# -- extensions ----------------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "matplotlib.sphinxext.plot_directive",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "external_links",  # numpy/scipy/scikit-learn/pandas/shap/joblib links without intersphinx (offline)
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb", "auto_examples/*.py"]
# `Name` in prose links to the API page of that object when it is one (ProductKernelExplainer,
# Explanation.to_shap, ...) and is shown as code otherwise (unresolved names do not warn)
default_role = "py:obj"

# -- autodoc / autosummary / numpydoc ------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
# classes assembled from kexplain mix-ins (each holds part of the class's methods in a module of its
# own): their pages also list the members inherited from kexplain's classes, not scikit-learn's
autosummary_context = {
    "mixin_classes": [
        "kexplain.Explanation",
        "kexplain.InteractionExplanation",
        "kexplain.gp.OAKRegressor",
        "kexplain.embeddings.ConditionalMeanEmbedding",
        "kexplain.embeddings.DeconditionalGPRegressor",
        "kexplain.kernels.Kernel",
        "kexplain.kernels.SumKernel",
        "kexplain.models.GPPosterior",
        "kexplain.ProductKernelExplainer",
        "kexplain.RKHSExplainer",
        "kexplain.sensitivity.SensitivityAnalysis",
    ]
}
# members come from the class template (docs/_templates/autosummary/class.rst); a default of
# {"members": False} here would override it and leave every class page without its methods
autodoc_default_options = {"member-order": "groupwise"}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autoclass_content = "class"
add_module_names = False

numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
# numpydoc's docstring validation stays off for the build: tests/test_docstrings.py runs it over every
# public object (with an allow-list that only shrinks), ruff's pydocstyle rules (numpy convention, the D
# rules pyproject.toml selects) check the layout, and the doctests run the examples; a malformed section
# still fails the build as a warning.
numpydoc_validation_checks: set[str] = set()

myst_heading_anchors = 3

# -- API reference, written from each module's ``__all__`` -------------------------------------
# docs/api/ is generated at every build (and gitignored), so the reference lists every public
# name the code exports and nothing else.  A name re-exported by several modules is documented
# once, under the first module below that exports it.
API_MODULES = [
    ("kexplain", "Top level", "The explainer contract, the result family, the generic solvers and models."),
    ("kexplain.games", "Games", "The table of every game kexplain solves: names, base values, papers, explainers."),
    ("kexplain.kernels", "Kernels", "Per-feature kernels, their products and sums, and conversion from scikit-learn."),
    ("kexplain.models", "Models", "Kernel expansions and adapters from fitted scikit-learn estimators."),
    ("kexplain.shapley", "Solvers", "Shapley solvers: product games, additive games, enumeration, sampling."),
    ("kexplain.stats", "Kernel tests", "MMD and HSIC, their exact Shapley attributions and permutation tests."),
    ("kexplain.gp", "Orthogonal additive GPs", "OAK regression and its exact local and global Shapley values."),
    ("kexplain.star", "STAR-SHAP and RKHS Weightings", "Structured additive models and their exact values."),
    ("kexplain.explainers", "Explainers", "The product-kernel explainer and the model-agnostic one for any callable."),
    ("kexplain.rkhs", "RKHS-SHAP", "Observational values through conditional mean embeddings; the regulariser."),
    ("kexplain.preference", "Preferences and PREF-SHAP", "Preferential GPs, duel data and exact PREF-SHAP values."),
    ("kexplain.embeddings", "Kernel mean embeddings", "Conditional and Bayesian embeddings; the deconditional GP."),
    ("kexplain.causal", "Interventional mean processes", "BayesIMP: E[T | do(x)] with uncertainty from two data sets."),
    ("kexplain.sensitivity", "Global sensitivity", "Exact Sobol indices and Shapley effects; a GP's variance."),
    ("kexplain.report", "Reports", "HTML reports of exact Shapley values for your own model."),
    ("kexplain.plots", "Plots", "shap's plots titled with output and game; credible intervals; comparisons."),
]


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_") and getattr(obj, "__module__", None) == module.__name__ and callable(obj)
        ]
    return [n for n in names if not n.startswith("_")]


def _write_api_reference() -> None:
    import importlib
    import inspect

    out = HERE / "api"
    out.mkdir(exist_ok=True)
    seen: dict[int, str] = {}
    lines = [
        ".. This file is written by docs/conf.py at every build; edit the modules' __all__ instead.",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of kexplain, module by module, as exported by the modules' ``__all__``.",
        "A name that several modules export is documented once, where it first appears below.",
        "",
    ]
    for modname, title, blurb in API_MODULES:
        module = importlib.import_module(modname)
        documented, also = [], []
        for name in _public_names(module):
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            key = id(obj)
            if key in seen:
                also.append(f":obj:`{name} <{seen[key]}>`")
                continue
            seen[key] = f"{modname}.{name}"
            documented.append(name)
        lines += [title, "-" * len(title), "", f".. currentmodule:: {modname}", "", f"``{modname}``: {blurb}", ""]
        if documented:
            lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in documented] + [""]
        if also:
            lines += ["Also exported here: " + ", ".join(also) + ".", ""]
    text = "\n".join(lines)
    target = out / "index.rst"
    if not target.exists() or target.read_text() != text:  # keep the mtime, so Sphinx rebuilds less
        target.write_text(text)


def _write_cli_help() -> None:
    import subprocess

    out = HERE / "api"
    out.mkdir(exist_ok=True)
    code = "import sys; from kexplain.cli import main; sys.exit(main(sys.argv[1:]))"
    parts = []
    for argv in (["--help"], *([c, "--help"] for c in ("explain", "report", "mmd", "hsic", "oak", "star", "demo"))):
        res = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"}
        )
        parts.append("$ kexplain " + " ".join(argv) + "\n" + res.stdout.rstrip() + "\n")
    (out / "cli_help.txt").write_text("\n".join(parts))


_write_api_reference()
_write_cli_help()

# -- sphinx-gallery ------------------------------------------------------------------------------
# Every example runs in both builds; KEXPLAIN_QUICK=1 (``make docs-quick``, CI) makes each one run
# at its quick size (a few seconds), ``make docs`` at its default size.  The convention an example
# follows is in CONTRIBUTING.md ("How to write an example") and tests/test_examples.py checks it.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/.*\.py$",
    "ignore_pattern": r"(__init__|_common)\.py$",
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "show_memory": False,
    "plot_gallery": "True",
    "only_warn_on_example_error": False,
    "abort_on_example_error": False,
    "capture_repr": ("_repr_html_", "__repr__"),
    "reset_modules": ("matplotlib",),
}

# Several examples save figures or tables into the working directory, which sphinx-gallery sets
# to examples/ while it runs them; the gallery takes its figures from matplotlib directly, so the
# files an example writes during the build are removed afterwards (only those that did not exist
# before the build).
EXAMPLES_DIR = ROOT / "examples"
_EXAMPLE_FILES_BEFORE = {p.name for p in EXAMPLES_DIR.iterdir()} if EXAMPLES_DIR.is_dir() else set()
_BY_PRODUCTS = {".png", ".csv", ".pdf", ".svg", ".html", ".parquet", ".joblib"}


def _remove_example_by_products(app: object, exception: object) -> None:
    if not EXAMPLES_DIR.is_dir():
        return
    for path in EXAMPLES_DIR.iterdir():
        if path.is_file() and path.suffix in _BY_PRODUCTS and path.name not in _EXAMPLE_FILES_BEFORE:
            path.unlink()


def _skip_metadata_requests(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    # scikit-learn writes set_fit_request & co. onto every estimator class; they are its metadata
    # routing API, documented (with references into its own glossary) on its site, not ours
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return None


def setup(app: Any) -> None:
    """Sphinx hook of this configuration."""
    app.connect("build-finished", _remove_example_by_products)
    app.connect("autodoc-skip-member", _skip_metadata_requests)


# -- HTML ----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"kexplain {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_context = {"default_mode": "light"}

# -- matplotlib's plot directive -----------------------------------------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.max_open_warning": 0}
