"""Product games built from a KernelExpansion, for either exact route.

Rows of the functional-baseline game (Mohammadi, Chau & Muandet, 2025, section 3.1) are the
expansion's (term, support point) pairs; rows of the interventional game are (term, reference
point, background row) triples.  Both build dense blocks on demand, so the engine's chunking
bounds memory (design notes, docs/design.md section 1, table of instances).

What depends only on the model and the background is built once, by the explainer's
constructor, and shared by every ``explain`` call:

- :class:`BackgroundFactors`: the per-feature kernel factors k_ij(z_j) of every support point i
  against every background row z, used by the quadrature route of the interventional game;
- :func:`subset_game`: for few features and many background rows, the interventional value
  factorises per support point i into a part that depends on x and one that does not,

      v_x(S) = sum_i coef_i * prod_{j in S} k_ij(x_j) * B_i(complement of S),
      B_i(T) = sum_z w_z prod_{j in T} k_ij(z_j),

  so B_i is tabulated once for all 2^d sets T and each explained point costs O(n 2^d) instead of
  O(n n_b d^2 / 2) by quadrature (``kexplain.shapley.subsets``).

:func:`kexplain.shapley.routes.choose_route`, next to the solvers, is the cost model that decides
between the two; the solvers only solve.

This module is the games' public face; they live in private sibling modules, one idea each:
``_functional_game`` (:class:`FunctionalGame`), ``_background_factors`` (:class:`BackgroundFactors`,
``DEVICE_TABLE_BYTES`` and the fused kernel's layout ``_lay_out_rows``), ``_interventional_game``
(:class:`InterventionalGame`, :func:`present_factors`) and ``_subset_game`` (:func:`subset_game`).
Every name, private ones included, is imported from here.  The bounds are read in their home
modules: to change ``DEVICE_TABLE_BYTES`` (tests do) set it on ``_background_factors``.
"""

from __future__ import annotations

from ._background_factors import _KEEP_PAIR_INDEX as _KEEP_PAIR_INDEX
from ._background_factors import DEVICE_TABLE_BYTES, BackgroundFactors
from ._background_factors import _check_finite as _check_finite
from ._background_factors import _is_host as _is_host
from ._background_factors import _lay_out_rows as _lay_out_rows
from ._functional_game import FunctionalGame
from ._interventional_game import InterventionalGame, present_factors
from ._subset_game import subset_game

__all__ = [
    "DEVICE_TABLE_BYTES",
    "BackgroundFactors",
    "FunctionalGame",
    "InterventionalGame",
    "present_factors",
    "subset_game",
]
