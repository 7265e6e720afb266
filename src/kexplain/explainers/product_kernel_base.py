"""What every explain path of :class:`~kexplain.ProductKernelExplainer` reads and shares.

:class:`ProductKernelBase` declares the state the constructor sets, reads a dense background or
baseline (``_init_dense``), builds the chosen route's background tables once (``_build_tables``,
where the cost model :func:`~kexplain.shapley.routes.choose_route` decides), validates the
explained rows, names the features and turns a solver's result into an Explanation.  The explain
paths build on it, one module each: dense rows (``product_kernel_dense``), the Gaussian-process
posterior (``product_kernel_posterior``), scipy sparse inputs (``product_kernel_sparse``) and
interactions of any order (``product_kernel_interactions``); ``product_kernel`` assembles the class.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_data, check_weights, feature_names_of, to_array
from ..base import Explainer
from ..explanation import Explanation
from ..kernels.mixture import ScaleMixtureKernel
from ..models.dot_product import PolynomialExpansion
from ..models.expansion import KernelExpansion
from ..shapley.monomials import MonomialGame
from ..shapley.product import efficiency_error
from ..shapley.result import ShapleyValues
from ..shapley.routes import choose_route
from ..shapley.subsets import SubsetGame, compiled_available
from .mixture_range import MixtureRange
from .polynomial_games import monomial_game, use_monomials
from .posterior_games import PosteriorCovariance, summarize_background
from .product_games import BackgroundFactors, subset_game
from .sparse_games import SparseProductGames

#: the game name of the interventional game over a k-means summary of the background
SUMMARISED_GAME = "interventional (summarised background)"


class ProductKernelBase(Explainer):
    """The state and the shared steps of :class:`~kexplain.ProductKernelExplainer` (its base class)."""

    # set by ProductKernelExplainer.__init__ and by _init_dense (here) or _init_sparse (product_kernel_sparse)
    expansion: KernelExpansion | PolynomialExpansion
    baseline: Any
    output: str
    route: str
    max_block_bytes: int
    kernel_tol: float
    expected_value: float | np.ndarray
    summary_centres: np.ndarray | None
    summary_weights: np.ndarray | None
    _summary_note: str
    _columns: Any
    _Z: np.ndarray | None
    _w: np.ndarray | None
    _background_factors: BackgroundFactors | None
    _subset_game: SubsetGame | None
    _monomial_game: MonomialGame | None
    _covariance: PosteriorCovariance | None
    _mixture: MixtureRange | None
    _sparse_games: SparseProductGames | None
    _sparse_argument: str

    def _init_dense(self, background: Any, background_weights: Any, baseline: Any, background_summary: Any) -> None:
        """A dense background, baseline or neither: the game, its rows and weights, the tables."""
        em = self.expansion
        Z: np.ndarray | None = None
        if background is not None:
            if not (
                hasattr(background, "columns")
                or (hasattr(background, "nnz") and hasattr(background, "toarray"))
                or to_array(background, "background").ndim == 2
            ):
                raise ValueError(
                    "background must be a 2-D array or DataFrame of rows (n_rows, n_features), got shape "
                    f"{np.shape(background)}."
                )
            Z = em.check_input(background, name="background", feature_names=self._columns)
            w = (
                np.full(Z.shape[0], 1.0 / Z.shape[0])
                if background_weights is None
                else check_weights(background_weights, Z.shape[0])
            )
            self.game = "interventional"
            if background_summary is not None:
                n_rows = Z.shape[0]
                Z, w = summarize_background(Z, w, background_summary)
                if Z.shape[0] < n_rows:
                    # a different game: say so in its name, and keep what it was solved over
                    self.game = SUMMARISED_GAME
                    self.summary_centres, self.summary_weights = Z, w
                    self._summary_note = f" summarised by {Z.shape[0]} k-means centres"
        elif baseline is not None:
            if hasattr(baseline, "columns") and len(baseline) == 1:
                z = baseline
            else:
                z = to_array(baseline, "baseline")
                if z.ndim == 1:
                    z = z[None, :]
                if z.ndim != 2 or z.shape[0] != 1:
                    raise ValueError(
                        f"baseline must be one row of shape (d,) or (1, d), got shape {np.shape(baseline)}."
                    )
            Z = em.check_input(z, name="baseline", feature_names=self._columns)
            w = np.ones(1)
            self.game = "baseline"
        else:
            self.game = "functional"
        if background_summary is not None and self.game not in ("interventional", SUMMARISED_GAME):
            raise ValueError("background_summary summarises a background: give background= too.")
        self._covariance: PosteriorCovariance | None = None
        # a Matérn or rational quadratic kernel: discretise it for the box of the support points
        # and the background (widened by explain when explained points fall outside)
        self._mixture: MixtureRange | None = None
        if isinstance(em.kernel, ScaleMixtureKernel):
            self._mixture = MixtureRange(self.kernel_tol, em.X_ref if Z is None else np.vstack([em.X_ref, Z]))
            self.expansion = em = self._mixture.refit_expansion(em)
        self._Z, self._w = Z, (w if Z is not None else None)
        self._build_tables()

    def _build_tables(self) -> None:
        """The background tables of the chosen route and the base value (from ``self.expansion``)."""
        em, Z, w = self.expansion, self._Z, self._w
        assert (Z is None) == (w is None)
        self._background_factors = None
        self._subset_game = None
        self._covariance = None
        self._monomial_game = None
        if Z is not None and w is not None:
            if isinstance(em, PolynomialExpansion):
                self.route = "polynomial"
                if use_monomials(em, Z.shape[0]):
                    self.route, self._monomial_game = "monomials", monomial_game(em, Z, w)
            elif em.n_rows:
                self.route = choose_route(
                    em.n_features,
                    em.n_rows,
                    Z.shape[0],
                    em.n_outputs,
                    max_block_bytes=self.max_block_bytes,
                    compiled=compiled_available(),
                )
                if self.route == "subsets":
                    self._subset_game = subset_game(em, Z, w, max_block_bytes=self.max_block_bytes)
                else:
                    self._background_factors = BackgroundFactors(em, Z, w)
            base = w @ em.predict(Z, validate=False).reshape(Z.shape[0], -1)
        elif isinstance(em, PolynomialExpansion):
            self.route = "polynomial"
            if use_monomials(em, 1):
                # the functional game of a dot-product kernel: absent features at the kernel's centre
                centre = np.broadcast_to(em.kernel.center, (1, em.n_features))
                self.route, self._monomial_game = "monomials", monomial_game(em, centre, np.ones(1))
            base = em.functional_base()
        else:
            base = em.term_weights.sum(axis=0) * em.coef.sum(axis=0) + em.intercept
        base = np.asarray(base, dtype=np.float64).reshape(em.n_outputs)
        self.expected_value = float(base[0]) if em.single_output else base

    def _names(self, X: Any, d: int) -> list[str]:
        return list(self._label_names(X))

    def _label_names(self, X: Any) -> Sequence[str]:
        """The feature names of the explanations of ``X`` (``player_names``), not copied: the
        names that do not depend on ``X`` are built once (an Explanation copies them)."""
        if self.feature_names is not None:
            return self.feature_names
        names = feature_names_of(X)
        if names is not None:
            return names
        fixed = self.__dict__.get("_fixed_names")
        if fixed is None:
            cols = self._columns
            d = self.expansion.n_features
            fixed = self._fixed_names = (
                tuple(str(c) for c in cols) if cols is not None else tuple(f"x{j}" for j in range(d))
            )
        return fixed

    def _check_X(self, X: Any) -> np.ndarray:
        """``self.expansion.check_input(X, name="X", feature_names=self._columns)``, with the
        expansion's numeric mask read once: all numeric is passed as None, which ``check_data``
        reads the same way, so that a float64 array takes its fast path."""
        em = self.expansion
        if not isinstance(em, KernelExpansion):
            return em.check_input(X, name="X", feature_names=self._columns)
        mask = em.numeric_mask
        cached = self.__dict__.get("_numeric_mask_of")
        if cached is None or cached[0] is not mask:
            cached = self._numeric_mask_of = (mask, None if mask is None or bool(np.all(mask)) else mask)
        if (
            type(X) is np.ndarray
            and X.dtype == np.float64
            and X.ndim == 2
            and cached[1] is None
            and X.shape[0] >= 1
            and X.shape[1] == em.n_features
        ):
            # check_data's own first step for such an array (its copy, returned when all finite),
            # without its call of two dozen options: a visible part of a one-point call.  All
            # finite when the sum of squares is (one call; a NaN or infinity makes it NaN or
            # infinite, and so do values past 1e154, which check_data then reads itself)
            out = X.astype(np.float64, copy=True)
            if math.isfinite(np.vdot(out, out)):
                return out
        return check_data(X, name="X", n_features=em.n_features, numeric_mask=cached[1], feature_names=self._columns)

    def _summary_info(self) -> dict[str, Any]:
        """``info["background_summary"]``: the centres, weights and original row count (a dict, not sliced by rows)."""
        if self.summary_centres is None:
            return {}
        return {
            "background_summary": {
                "centres": self.summary_centres,
                "weights": self.summary_weights,
                "n_background_rows": int(np.shape(self.background)[0]),
            }
        }

    def _to_explanation(
        self,
        res: ShapleyValues,
        Xv: np.ndarray,
        names: Sequence[str],
        index: list[Any] | None,
        *,
        route: str | None = None,
    ) -> Explanation:
        """The explanation of ``res`` (the points ``Xv``), its ``efficiency_error`` set."""
        em = self.expansion
        values = res.values
        one = self._one_point_explanation(res, Xv, names, index, route)
        if one is not None:
            return one
        base = res.v_empty + em.intercept[None, :]
        v_full = res.v_full + em.intercept[None, :]
        inter = res.interactions  # (N, d, d, o), already in shap's layout
        if em.single_output:
            values, base = values[:, :, 0], base[:, 0]
            inter = None if inter is None else inter[..., 0]
        # the gap of the explanation's own arrays, laid out as explain has always measured them
        # (the values of one output seen through a new axis: the same sums, in the same order)
        err = _efficiency_error(values[:, :, None] if em.single_output else values, v_full, base.reshape(v_full.shape))
        info = {"route": self.route if route is None else route, **self._summary_info()}
        if inter is None and type(values) is np.ndarray and values.dtype == np.float64 and math.isfinite(err):
            # finite: so are the values, base values and v_full; the checks of __init__ are made
            return Explanation._from_engine(
                values, base, Xv, names, em.output_names, self.game, info, self.output, index, v_full, err
            )
        return Explanation(
            values=values,
            base_values=base,
            data=Xv,
            feature_names=names,
            output_names=em.output_names,
            interactions=inter,
            game=self.game,
            info=info,
            output=self.output,
            index=index,
            v_full=v_full,
            interaction_index=res.interaction_index,
            efficiency_error=err,
        )

    def _one_point_explanation(
        self, res: ShapleyValues, Xv: np.ndarray, names: Sequence[str], index: list[Any] | None, route: str | None
    ) -> Explanation | None:
        """``_to_explanation`` of one point of a one-output model (a loop of one-point calls), or
        None where that does not apply or the gap is not finite (the general steps then run).

        The general steps' operations on the same numbers (the base value and v(all) plus the
        intercept as Python floats: the same IEEE additions as numpy's on one number;
        ``_efficiency_error``'s one-point formula on the values array it is given there), without
        their intermediate arrays and calls: the same Explanation at a fraction of a call.
        """
        em = self.expansion
        values = res.values
        if not (
            res.interactions is None
            and em.single_output
            and type(values) is np.ndarray
            and values.shape[0] == 1
            and values.dtype == res.v_full.dtype == res.v_empty.dtype == np.float64
            and self.summary_centres is None
        ):
            return None
        icpt = em.intercept.item(0)
        vf, ve = res.v_full.item(0) + icpt, res.v_empty.item(0) + icpt
        err = abs(float(np.add.reduce(values, axis=None)) - (vf - ve)) / max(abs(vf), abs(ve), 1e-300)
        if not math.isfinite(err):
            return None
        info = {"route": self.route if route is None else route}
        v_full = np.array([[vf]])
        return Explanation._from_engine(
            values[:, :, 0],
            np.array([ve]),
            Xv,
            names,
            em.output_names,
            self.game,
            info,
            self.output,
            index,
            v_full,
            err,
        )


def _efficiency_error(values: np.ndarray, v_full: np.ndarray, v_empty: np.ndarray) -> float:
    """:func:`~kexplain.shapley.product.efficiency_error` of numpy float64 arrays: its operations
    in its order (the same number), without its conversions to numpy and float64."""
    if not (values.dtype == v_full.dtype == v_empty.dtype == np.float64):
        return efficiency_error(values, v_full, v_empty)
    if v_full.size == 1 and values.shape[0] == 1:
        # one point, one output: numpy's sum of the values, the rest in Python floats (the same
        # IEEE operations; a NaN or infinity in any input still makes the gap, and so the result,
        # not finite); at one explained point each numpy call on a single number costs as much
        vf, ve = float(v_full.item(0)), float(v_empty.item(0))
        gap1 = abs(float(np.add.reduce(values, axis=None)) - (vf - ve))
        return gap1 / max(abs(vf), abs(ve), 1e-300)
    gap = np.abs(values.sum(axis=1, dtype=np.float64) - (v_full - v_empty))
    scale = np.maximum(np.maximum(np.abs(v_full), np.abs(v_empty)), 1e-300)
    return float(np.maximum.reduce(gap / scale, axis=None)) if gap.size else 0.0
