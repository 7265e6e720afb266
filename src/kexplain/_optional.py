"""Optional dependencies, imported on demand with an error that says how to get them."""
from __future__ import annotations

import importlib

_EXTRAS = {
    "shap": "plots",
    "matplotlib": "plots",
    "pandas": "io",
    "pyarrow": "io",
    "interpret": "star",
    "pyHSICLasso": "examples",
    "numba": "fast",
}


def require(module: str, purpose: str):
    """Import ``module`` or raise ImportError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = _EXTRAS.get(top)
        hint = f"pip install 'kexplain[{extra}]'" if extra else f"pip install {top}"
        raise ImportError(f"{purpose} needs the optional package '{top}': {hint}") from exc
