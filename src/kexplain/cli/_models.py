"""Loading a model file: joblib/pickle (runs code) or skops (the safe format)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._optional import require
from ._tables import CLIError, os_error

#: modules whose types a ``.skops`` file may hold beyond those skops trusts itself (scikit-learn's
#: estimators, numpy, scipy): scikit-learn's Gaussian processes (their kernels and the per-class
#: binary classifiers) and kexplain's own estimators
TRUSTED_MODULE_PREFIXES = ("sklearn.gaussian_process.", "kexplain.")

MODEL_WARNING = (
    "WARNING: a joblib or pickle model file is code: loading it runs code stored in it, before kexplain "
    "can check what it holds. kexplain refuses such files unless --allow-pickle is given: pass it only for "
    "files you trust. Prefer skops files (.skops), which kexplain loads without running code, trusting only "
    "the types it lists."
)


def pickle_refusal(path: Path) -> str:
    """The message refusing a pickle/joblib model file without ``--allow-pickle``."""
    return (
        f"--model {path}: is not a .skops file, so it would be loaded with pickle (joblib), which runs any code "
        "stored in the file before kexplain can check it. Save the model with skops instead "
        "(skops.io.dump(model, 'model.skops')), the safe format; or, only for a file you trust, pass "
        "--allow-pickle."
    )


def _load_skops(path: Path, trusted: Sequence[str]) -> Any:
    """Load a ``.skops`` file, trusting skops' defaults, the listed modules and ``trusted``."""
    sio = require("skops.io", "loading .skops model files")
    try:
        untrusted = list(sio.get_untrusted_types(file=path))
    except OSError as exc:
        raise os_error("--model", path, exc) from None
    except Exception as exc:
        raise CLIError(f"--model {path}: not a readable skops file ({type(exc).__name__}: {exc}).") from None
    allowed = [t for t in untrusted if t.startswith(TRUSTED_MODULE_PREFIXES) or t in trusted]
    refused = [t for t in untrusted if t not in allowed]
    if refused:
        shown = ", ".join(refused[:5]) + (", ..." if len(refused) > 5 else "")
        raise CLIError(
            f"--model {path}: holds types kexplain does not trust: {shown}. If you trust them, pass each "
            f"with --trust TYPE (e.g. --trust {refused[0]})."
        )
    try:
        return sio.load(path, trusted=allowed)
    except OSError as exc:
        raise os_error("--model", path, exc) from None
    except Exception as exc:
        raise CLIError(f"--model {path}: cannot load a model from it ({type(exc).__name__}: {exc}).") from None


def load_model(path: str | Path, trusted: Sequence[str] = (), allow_pickle: bool = False) -> Any:
    """Load a model file: ``.skops`` with skops (no code runs), anything else with joblib when allowed.

    .. warning::
       Loading a joblib or pickle file runs code stored in it, before anything can check what
       the file holds: such files are refused unless ``allow_pickle`` is true (the command
       line's ``--allow-pickle``); allow it only for files you trust.  Only the file named here is ever
       loaded (the command line never looks for models elsewhere).  A ``.skops`` file is loaded
       without running code: only types that skops trusts (scikit-learn's estimators, numpy),
       scikit-learn's Gaussian-process types, kexplain's own types and those listed in
       ``trusted`` are built; any other type is refused with its name.

    Parameters
    ----------
    path : str or Path
    trusted : sequence of str
        Further type names (``"module.Class"``) a ``.skops`` file may hold (``--trust``).
    allow_pickle : bool
        Load a file that is not ``.skops`` with joblib (pickle), which runs code stored in it
        (``--allow-pickle``).  Without it such a file is refused, naming the risk and skops.

    Returns
    -------
    object
        The loaded model.

    Raises
    ------
    CLIError
        When the file is missing, is a directory, cannot be read, does not load, (skops) holds
        a type that is not trusted, or is a pickle/joblib file without ``allow_pickle``.

    Examples
    --------
    >>> import tempfile, pathlib, joblib
    >>> import skops.io as sio
    >>> from sklearn.svm import SVR
    >>> from kexplain.cli._models import load_model
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = joblib.dump(SVR(C=2.0), folder / "m.joblib")
    >>> load_model(folder / "m.joblib")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kexplain.cli._tables.CLIError: --model ...m.joblib: is not a .skops file, ... pass --allow-pickle.
    >>> load_model(folder / "m.joblib", allow_pickle=True)
    SVR(C=2.0)
    >>> sio.dump(SVR(C=3.0), folder / "m.skops")
    >>> load_model(folder / "m.skops")
    SVR(C=3.0)
    """
    path = Path(path)
    if path.is_dir():
        raise CLIError(f"--model {path}: is a directory, not a file.")
    if not path.is_file():
        raise CLIError(f"--model {path}: file not found.")
    if path.name.lower().endswith(".skops"):
        return _load_skops(path, list(trusted))
    if not allow_pickle:
        raise CLIError(pickle_refusal(path))
    import joblib

    try:
        return joblib.load(path)
    except OSError as exc:
        raise os_error("--model", path, exc) from None
    except Exception as exc:  # unpickling can fail in many ways; all mean "not a usable model file"
        raise CLIError(f"--model {path}: cannot load a model from it ({type(exc).__name__}: {exc}).") from None
