"""The package users install: wheel and sdist contents, twine's check, and a core-only install.

These tests build the distributions the way ``make dist`` does and install the wheel into a fresh
virtual environment that has only kexplain's core dependencies (numpy, scipy, scikit-learn, joblib,
threadpoolctl, tqdm), so they need the package index (or a warm pip cache) and take about a
minute: they are marked slow, and CI runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("build", reason="the dev extra installs 'build'")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
    )
    wheel = next(out.glob("kexplain-*.whl"))
    sdist = next(out.glob("kexplain-*.tar.gz"))
    return {"wheel": wheel, "sdist": sdist}


def test_wheel_holds_license_templates_and_typing_marker(dists: dict[str, Path]) -> None:
    names = zipfile.ZipFile(dists["wheel"]).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "kexplain/py.typed" in names
    for template in ("report.html", "report.css", "report.js"):
        assert f"kexplain/templates/{template}" in names
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(dists["wheel"]).read(metadata).decode()
    assert "License-Expression: BSD-3-Clause" in text
    assert "Classifier: Programming Language :: Python :: 3" in text
    # the [torch] extra must not pin a build: a user's CUDA torch has to survive the install
    assert "torch==" not in text
    assert "Requires-Dist: torch>=" in text


def test_sdist_holds_license_templates_and_typing_marker(dists: dict[str, Path]) -> None:
    names = tarfile.open(dists["sdist"]).getnames()
    top = names[0].split("/")[0]
    assert f"{top}/LICENSE" in names
    assert f"{top}/src/kexplain/py.typed" in names
    assert f"{top}/src/kexplain/templates/report.html" in names


def test_twine_check_passes(dists: dict[str, Path]) -> None:
    pytest.importorskip("twine", reason="the dev extra installs 'twine'")
    res = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(dists["wheel"]), str(dists["sdist"])],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("PASSED") == 2


# Run inside the core-only environment: the README quick start's core part works, and every
# optional feature fails with an ImportError (or the CLI's exit status 2) naming the extra.
CORE_SCRIPT = textwrap.dedent(
    """
    import importlib.util, json, subprocess, sys
    import numpy as np
    import kexplain as kx
    from sklearn.datasets import load_diabetes
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    out = {"optional_present": [m for m in ("pandas", "matplotlib", "shap", "dask", "jinja2", "skops",
                                            "statsmodels", "torch", "numba")
                                if importlib.util.find_spec(m) is not None]}
    X, y = load_diabetes(return_X_y=True)
    model = make_pipeline(StandardScaler(), SVR(C=100, gamma=0.03)).fit(X[100:], y[100:])
    ex = kx.ProductKernelExplainer(model, background=X[100:200]).explain(X[:5])
    out["quick_start_error"] = float(np.max(np.abs(ex.predictions - model.predict(X[:5]))))

    def message(fn):
        try:
            fn()
        except ImportError as exc:
            return str(exc)
        return "no error"

    def dask():
        import kexplain.dask  # noqa: F401

    out["to_frame"] = message(ex.to_frame)
    out["to_shap"] = message(ex.to_shap)
    out["plots"] = message(lambda: kx.plots.bar(ex))
    out["dask"] = message(dask)
    out["modechoice"] = message(kx.preference.load_modechoice)
    cli = {}
    for argv in (["demo", "--out", "demo-out"], ["mmd", "--data", "x.csv", "--other", "y.csv"]):
        res = subprocess.run([sys.executable, "-m", "kexplain.cli", *argv], capture_output=True, text=True)
        cli[argv[0]] = [res.returncode, res.stderr.strip().splitlines()[-1] if res.stderr.strip() else ""]
    out["cli"] = cli
    print(json.dumps(out))
    """
)


def test_core_only_install_runs_and_names_extras(dists: dict[str, Path], tmp_path: Path) -> None:
    # the environment must see nothing of this checkout or of the test's own interpreter
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", str(dists["wheel"])], capture_output=True, text=True, env=env
    )
    assert install.returncode == 0, install.stderr[-2000:]
    for name in ("x.csv", "y.csv"):
        (tmp_path / name).write_text("a,b\n1,2\n3,4\n5,7\n")
    (tmp_path / "probe.py").write_text(CORE_SCRIPT)
    res = subprocess.run([str(py), "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    import json

    out = json.loads(res.stdout.strip().splitlines()[-1])
    # the core install really is the core: none of the extras came along with the wheel
    assert out["optional_present"] == [], out["optional_present"]
    assert out["quick_start_error"] < 1e-8
    assert "kexplain[io]" in out["to_frame"]
    assert "kexplain[plots]" in out["to_shap"]
    assert "kexplain[plots]" in out["plots"]
    assert "kexplain[dask]" in out["dask"]
    assert "kexplain[preference]" in out["modechoice"]
    demo_status, demo_line = out["cli"]["demo"]
    assert demo_status == 2 and "kexplain[report]" in demo_line, demo_line
    mmd_status, mmd_line = out["cli"]["mmd"]
    assert mmd_status == 2 and "kexplain[io]" in mmd_line, mmd_line
