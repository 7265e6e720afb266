"""The hyperparameter check every kernel shares, and the codes of the statistics' compiled pair loop.

``_check_amplitude`` is how every kernel (and every product or multiple of one) refuses an
amplitude that is not a positive finite number; the ``PAIR_*`` codes and :data:`PairParams` are
what a kernel's ``pair_loop_params`` gives the compiled pair loop of ``kexplain.stats``.  Every
name is imported from :mod:`kexplain.kernels.kernel` and :mod:`kexplain.kernels.base`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import Real as RealNumber
from .._params import check_param

#: factor codes of the statistics' compiled pair loop (``stats/_pairs_numba.tile_factors``); a kernel
#: says which one it is through :meth:`Kernel.pair_loop_params` (None: the numpy pair path)
PAIR_RBF, PAIR_LAPLACE, PAIR_CAUCHY, PAIR_DELTA = 0, 1, 2, 3

#: (codes, inverse lengthscales, mismatches) per feature for the compiled pair loop
PairParams = tuple[np.ndarray, np.ndarray, np.ndarray]


def _check_amplitude(amplitude: Any) -> float:
    """``amplitude`` as a float, or a ValueError when it is not a positive finite number."""
    what = "a positive finite number"
    return float(check_param(amplitude, "amplitude", RealNumber(0, closed="neither"), what=what))
