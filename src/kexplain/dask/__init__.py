"""Scale out on a Dask cluster: the ordinary functions with their blocks on the workers, and lazy explanations.

Needs the optional ``dask`` extra (``pip install 'kexplain[dask]'``, which installs
``dask[distributed]``); importing this package without dask raises an ImportError saying so.

- :func:`on`: ``with kexplain.dask.on(client):`` runs the pair tiles of the kernel statistics of
  :mod:`kexplain.stats` and the row blocks of every explainer's ``explain`` on ``client``'s
  workers; same arguments, same results.
- :func:`explain_dask` explains a dask array or dask DataFrame with any kexplain explainer,
  one ``explain`` call per row block, the explainer shipped to the workers once; the result
  (:class:`DaskExplanation`) holds the values and base values as dask collections.
- ``mmd``, ``mmd_shapley``, ``mmd_test``, ``hsic``, ``hsic_shapley`` and ``hsic_test`` with a
  ``client=`` argument are deprecated aliases of the :mod:`kexplain.stats` functions inside ``on``.

See the "Running at scale" page of the documentation for which option to use when.
"""

from __future__ import annotations

try:
    import dask  # noqa: F401
except ImportError as exc:
    raise ImportError("kexplain.dask needs the optional package 'dask': pip install 'kexplain[dask]'") from exc

from .context import on  # noqa: E402
from .explain import explain_dask  # noqa: E402
from .result import DaskExplanation  # noqa: E402
from .stats import hsic, hsic_shapley, hsic_test, mmd, mmd_shapley, mmd_test  # noqa: E402, F401 (deprecated)

__all__ = ["DaskExplanation", "explain_dask", "on"]
