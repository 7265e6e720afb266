"""Scale out on a Dask cluster: lazy explanations and pair-blocked kernel statistics.

Needs the optional ``dask`` extra (``pip install 'kexplain[dask]'``, which installs
``dask[distributed]``); importing this package without dask raises an ImportError saying so.

- :func:`explain_dask` explains a dask array or dask DataFrame with any kexplain explainer,
  one ``explain`` call per row block, the explainer shipped to the workers once; the result
  (:class:`DaskExplanation`) holds the values and base values as dask collections.
- ``mmd``, ``mmd_shapley``, ``mmd_test``, ``hsic``, ``hsic_shapley`` and ``hsic_test`` compute the
  kernel statistics of :mod:`kexplain.stats` over dask arrays, splitting sample pairs into blocks
  across workers and adding partial sums.

See the "Running at scale" page of the documentation for which option to use when.
"""

from __future__ import annotations

from pathlib import Path

try:
    import dask  # noqa: F401
except ImportError as exc:
    raise ImportError("kexplain.dask needs the optional package 'dask': pip install 'kexplain[dask]'") from exc

from .explain import DaskExplanation, explain_dask  # noqa: E402

__all__ = ["DaskExplanation", "explain_dask"]

# the statistics live in stats.py; until it exists the package still gives the explanations
if (Path(__file__).parent / "stats.py").exists():
    from .stats import hsic, hsic_shapley, hsic_test, mmd, mmd_shapley, mmd_test  # noqa: E402

    __all__ += ["hsic", "hsic_shapley", "hsic_test", "mmd", "mmd_shapley", "mmd_test"]
