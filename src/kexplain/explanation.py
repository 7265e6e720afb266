"""The local result: :class:`Explanation`, Shapley values of a batch of explained points (N points x
d features, optionally several outputs), shaped like ``shap.Explanation`` so users move between the
two.  The global results (``GlobalAttribution``, ``PermutationTestResult``) are in
``kexplain.attribution``; together they are the result family every capability returns.

Here: how an Explanation is built (checked, or from an engine's own results), and the memory
budgets of its draws.  Its other methods come from mix-ins, one private module per idea, whose names
this module re-exports (see ``_explanation_fields.py``): indexing and stacking, the uncertainty of
the values, the draws from their posterior, the conversions to shap and pandas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import _game_record, _game_registry  # the games table's lowest floor (kexplain.games)
from ._explanation_convert import BASE_COLUMN as BASE_COLUMN  # kept importable from here
from ._explanation_convert import ExplanationConversions
from ._explanation_draws import _EXPLANATION_OVERHEAD_BYTES as _EXPLANATION_OVERHEAD_BYTES  # kept importable
from ._explanation_draws import ExplanationDraws
from ._explanation_draws import _symmetric_root as _symmetric_root  # kept importable from here
from ._explanation_fields import PROMOTED_INFO_KEYS, ExplanationInfo
from ._explanation_rows import ExplanationRows
from ._explanation_uncertainty import ExplanationUncertainty, _check_covariance
from ._real import _real


class Explanation(ExplanationRows, ExplanationUncertainty, ExplanationDraws, ExplanationConversions):
    """Shapley values of a batch of explained points.

    Every explainer of kexplain returns one (``ProductKernelExplainer``, ``RKHSExplainer``,
    ``StarExplainer``, the additive-GP explainer, ...).  ``base_values + values.sum(axis=1)`` is
    the explained output of the model at each point (efficiency).

    Parameters
    ----------
    values : array-like of shape (N, d) or (N, d, n_outputs)
        One Shapley value per point and feature (and output).
    base_values : array-like
        The value of the empty coalition, of shape (N,) or (N, n_outputs), or anything that
        broadcasts to it (one number shared by every row).
    data : array-like of shape (N, d), optional
        The explained rows.
    feature_names : sequence of str, optional
        Defaults to ``x0, x1, ...``.
    output_names : sequence of str, optional
        One name per output.
    interactions : array-like of shape (N, d, d) or (N, d, d, n_outputs), optional
        Pairwise Shapley interaction values in shap's convention: off the diagonal half the
        Shapley interaction index, on the diagonal the main effect, so each row sums to the
        Shapley value of its feature.
    standard_errors : array-like like ``values``, optional
        Standard errors of sampled estimates (None for exact values).
    game : str
        The game that was solved, a name of the games table (:mod:`kexplain.games`):
        ``"functional"``, ``"interventional"``, ``"baseline"``, ``"observational"``, ``"anova"``, ...
        Any other string is kept as the name of a game of your own: ``game_record`` is then
        ``kexplain.games.CUSTOM``, whose base value is labelled v(∅); a string one or two letters
        off a table name is refused as a typo.
    info : dict, optional
        Anything else the explainer records (solver, route, timings).  The keys ``"v_full"``,
        ``"interaction_index"`` and ``"efficiency_error"`` (and ``"predictions"``) given here fill
        the attributes of those names when they are not passed themselves.
    output : str
        What model output is explained, in words (``"predict"``,
        ``"decision_function"``, ``"latent mean of GaussianProcessClassifier"``).
    index : sequence, optional
        Row labels (the index of an explained DataFrame); ``to_frame`` keeps them.
    covariance : array-like of shape (N, d, d), optional
        Posterior covariance of the values of each point (stochastic Shapley values of a
        Gaussian-process model: the values are then the posterior means).
    joint_covariance : array-like of shape (N, d, N, d), optional
        Posterior covariance of the values of every pair of points (single output only); its
        diagonal blocks are ``covariance``.
    base_variance : array-like of shape (N,), optional
        Posterior variance of the base value (the background mean of the model).
    prediction_variance : array-like of shape (N,), optional
        Posterior variance of the explained output at each point.
    v_full : array-like of shape (N,) or (N, n_outputs), optional
        The value of the full coalition computed directly: the explained model output at each point.
    interaction_index : str, optional
        Which index ``interactions`` holds (``"sii"``: shap TreeExplainer's layout; ``"stii"``:
        shap ExactExplainer's).
    efficiency_error : float, optional
        Largest relative gap ``|sum of the values - (v_full - base value)|`` the explainer measured.

    Attributes
    ----------
    kernel_error_bound : float or ndarray of shape (n_outputs,) or None
        Set when the model's kernel was replaced by a discretisation within a measured uniform
        error eps (Matérn and rational quadratic kernels, ``kexplain.kernels.ScaleMixtureKernel``):
        every value (and base value) is within this bound, ``2 eps sum_i |c_i|``, of the value for the
        model's own kernel.  None when the values are exact.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain import Explanation
    >>> ex = Explanation(np.array([[1.0, -0.5], [0.25, 0.0]]), base_values=2.0,
    ...                  feature_names=["age", "bmi"], game="interventional")
    >>> ex.predictions
    array([2.5 , 2.25])
    >>> ex[0].values                                  # one row, still (N, d)
    array([[ 1. , -0.5]])
    """

    def __init__(
        self,
        values: Any,
        base_values: Any,
        data: Any = None,
        feature_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
        interactions: Any = None,
        standard_errors: Any = None,
        game: str = "",
        info: Mapping[str, Any] | None = None,
        *,
        output: str = "",
        index: Sequence[Any] | None = None,
        covariance: Any = None,
        joint_covariance: Any = None,
        base_variance: Any = None,
        prediction_variance: Any = None,
        v_full: Any = None,
        interaction_index: str | None = None,
        efficiency_error: float | None = None,
    ) -> None:
        self.values = _real(values, "values")
        if self.values.ndim not in (2, 3):
            raise ValueError(f"values must have shape (N, d) or (N, d, n_outputs), got {self.values.shape}.")
        N, d = self.values.shape[:2]
        base = _real(base_values, "base_values")
        self.data = data
        self.feature_names = (
            [str(n) for n in feature_names] if feature_names is not None else [f"x{j}" for j in range(d)]
        )
        if len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        n_out = self.values.shape[2] if self.values.ndim == 3 else 1
        expected_base = (N,) if self.values.ndim == 2 else (N, n_out)
        try:  # a shared base value (scalar, or one per output) is spread over the rows
            self.base_values = (
                base.copy() if base.shape == expected_base else np.broadcast_to(base, expected_base).copy()
            )
        except ValueError:
            raise ValueError(
                f"base_values must have shape {expected_base} (or broadcast to it) to match values "
                f"of shape {self.values.shape}, got {base.shape}."
            ) from None
        self.output_names = (
            [str(n) for n in output_names]
            if output_names is not None
            else (["f(x)"] if n_out == 1 else [f"output {o}" for o in range(n_out)])
        )
        if len(self.output_names) != n_out:
            raise ValueError(f"output_names has {len(self.output_names)} names for {n_out} outputs.")
        self.interactions = None if interactions is None else _real(interactions, "interactions")
        if self.interactions is not None:
            expected = (N, d, d) + self.values.shape[2:]
            if self.interactions.shape != expected:
                raise ValueError(f"interactions must have shape {expected}, got {self.interactions.shape}.")
        self.standard_errors = (
            None if standard_errors is None else _real(standard_errors, "standard_errors", allow_nan=True)
        )
        if self.standard_errors is not None and self.standard_errors.shape != self.values.shape:
            raise ValueError(
                f"standard_errors must have the shape of values {self.values.shape}, got {self.standard_errors.shape}."
            )
        self.covariance = None if covariance is None else _real(covariance, "covariance")
        if self.covariance is not None and self.covariance.shape[:3] != (N, d, d):
            raise ValueError(f"covariance must have shape ({N}, {d}, {d}[, ...]), got {self.covariance.shape}.")
        if self.covariance is not None:
            _check_covariance(self.covariance, "covariance")
        self.joint_covariance = None if joint_covariance is None else _real(joint_covariance, "joint_covariance")
        if self.joint_covariance is not None:
            if self.values.ndim != 2 or self.joint_covariance.shape != (N, d, N, d):
                raise ValueError(
                    f"joint_covariance must have shape ({N}, {d}, {N}, {d}) (single output), got "
                    f"{self.joint_covariance.shape}."
                )
            _check_covariance(self.joint_covariance.reshape(N * d, N * d), "joint_covariance")
            if self.covariance is None:
                self.covariance = self.joint_covariance[np.arange(N), :, np.arange(N), :]
        self.base_variance = self._per_row(base_variance, "base_variance", N)
        self.prediction_variance = self._per_row(prediction_variance, "prediction_variance", N)
        self.index = None if index is None else list(index)
        if self.index is not None and len(self.index) != N:
            raise ValueError(f"index has {len(self.index)} labels for {N} rows.")
        self.game = str(game)
        _game_registry.describe(self.game)  # refuses a near miss of a table name; anything else is a custom game
        self.output = str(output)
        extras = dict(info or {})
        given = {"v_full": v_full, "interaction_index": interaction_index, "efficiency_error": efficiency_error}
        # the facts that used to ride in info fill the typed attributes (producers built before them)
        for key, attr in PROMOTED_INFO_KEYS.items():
            if key in extras:
                value = extras.pop(key)
                if given[attr] is None:
                    given[attr] = value
        self.v_full: np.ndarray | None = None
        self.interaction_index: str | None = None
        self.efficiency_error: float | None = None
        for attr, value in given.items():
            self._set_promoted(attr, value)
        self.info = ExplanationInfo(self, extras)
        # set by ``ex[i]`` with an integer row: ``to_shap`` then returns one row, as shap does
        self._scalar_row = False
        # set by ``ex[:, "bmi"]`` (one feature named alone): ``to_shap`` then returns shap's 1-D form
        self._scalar_feature = False
        # set when features were left out by indexing: the values no longer sum to the prediction
        self._feature_subset = False

    @classmethod
    def _from_engine(
        cls,
        values: np.ndarray,
        base_values: np.ndarray,
        data: np.ndarray,
        feature_names: Sequence[str],
        output_names: Sequence[str] | None,
        game: str,
        info: dict[str, Any],
        output: str,
        index: Sequence[Any] | None,
        v_full: np.ndarray,
        efficiency_error: float,
    ) -> Explanation:
        """The explanation ``__init__`` builds from these arguments, without its checks.

        For an engine's own results only (``ProductKernelExplainer.explain``), whose checks it
        has already made: ``values`` a float64 array (N, d) or (N, d, o) and ``base_values`` a
        float64 array of shape (N,) or (N, o) to match, ``v_full`` of N rows, all finite (a finite
        ``efficiency_error`` computed from them proves it: a NaN or infinity in any of them makes
        it NaN or infinite), ``feature_names`` and ``output_names`` of the right lengths, ``game``
        a name of the games table and ``info`` without promoted keys.  At one explained point
        ``__init__``'s checks cost as much as the rest of the bookkeeping; the tests compare the
        two constructions attribute by attribute.
        """
        self = cls.__new__(cls)
        self.values = values
        self.data = data
        self.feature_names = [str(n) for n in feature_names]
        self.base_values = base_values.copy()
        n_out = values.shape[2] if values.ndim == 3 else 1
        self.output_names = (
            [str(n) for n in output_names]
            if output_names is not None
            else (["f(x)"] if n_out == 1 else [f"output {o}" for o in range(n_out)])
        )
        self.interactions = None
        self.standard_errors = None
        self.covariance = None
        self.joint_covariance = None
        self.base_variance = None
        self.prediction_variance = None
        self.index = None if index is None else list(index)
        self.game = game
        self.output = output
        self.v_full = v_full
        self.interaction_index = None
        self.efficiency_error = float(efficiency_error)
        # no promoted keys in ``info`` (the contract above): its entries are stored as given,
        # without ``__setitem__``'s per-key routing
        self.info = ExplanationInfo(self)
        dict.update(self.info, info)
        self._scalar_row = False
        self._scalar_feature = False
        self._feature_subset = False
        return self

    @property
    def game_record(self) -> _game_record.Game:
        """The games-table record of ``game`` (:data:`kexplain.games.CUSTOM` for a game of your own).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> kx.Explanation(np.zeros((1, 2)), 0.0, game="baseline").game_record.base_label
        'f(baseline) = prediction at the reference row'
        """
        return _game_registry.describe(self.game)

    @staticmethod
    def _per_row(x: Any, name: str, N: int) -> np.ndarray | None:
        if x is None:
            return None
        arr = _real(x, name)
        try:
            return np.broadcast_to(arr, (N,)).copy()
        except ValueError:
            raise ValueError(f"{name} must have shape ({N},) (one variance per row), got {arr.shape}.") from None

    @staticmethod
    def _draw_budgets() -> tuple[int, int]:
        # the draws (_explanation_draws.py) read the budgets here, when a draw is made: they are
        # settings of this module, which users and tests set (kexplain.explanation.SAMPLE_*_BYTES)
        return SAMPLE_BLOCK_BYTES, SAMPLE_LIST_BYTES

    #: bound on ``|value - value for the model's own kernel|`` when the kernel was discretised (see above)
    kernel_error_bound: float | np.ndarray | None = None

    # -- derived quantities ------------------------------------------------------------------
    @property
    def predictions(self) -> np.ndarray:
        """``base_values`` plus the sum of the values over features (equal to the model output)."""
        if self._feature_subset:
            raise ValueError(
                "this explanation holds only some of the features (picked by indexing), so its values "
                "do not sum to the prediction; take predictions from the explanation of all features."
            )
        return self.base_values + self.values.sum(axis=1)

    def mean_abs(self) -> np.ndarray:
        """Global importance: mean absolute value per feature (and output).

        Returns
        -------
        ndarray of shape (d,) or (d, n_outputs)
            The mean absolute value of each feature over the rows.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> Explanation(np.array([[1.0, -2.0], [-3.0, 0.0]]), 0.0).mean_abs()
        array([2., 1.])
        """
        return np.abs(self.values).mean(axis=0)

    def _repr_html_(self) -> str:
        """A compact table for notebooks: game, output, base value, top features, efficiency check."""
        from ._html_repr import explanation_html

        return explanation_html(self)

    def __repr__(self) -> str:
        extra = ", with interactions" if self.interactions is not None else ""
        out = f", output={self.output!r}" if self.output else ""
        return (
            f"kexplain.Explanation(game={self.game!r}{out}, values shape={self.values.shape}, "
            f"outputs={self.output_names}{extra})"
        )


#: bytes of temporaries of one block of ``Explanation.sample_values``
SAMPLE_BLOCK_BYTES = 16 * 2**20
#: largest estimated memory of the list ``Explanation.sample`` returns; beyond it, use sample_values
SAMPLE_LIST_BYTES = 256 * 2**20
# the mix-ins build their selections and stacks as this class (they cannot import it)
Explanation._result_class = Explanation
