"""The local result: :class:`Explanation`, Shapley values of a batch of explained points (N points x
d features, optionally several outputs), shaped like ``shap.Explanation`` so users move between the
two.  The global results (``GlobalAttribution``, ``PermutationTestResult``) are in
``kexplain.attribution``; together they are the result family every capability returns.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import games as _games
from ._optional import require
from ._params import Boolean, Integer, check_param
from ._real import _real
from ._typing import RandomStateLike

#: name of the base-value column of ``Explanation.to_frame``
BASE_COLUMN = "base_value"


def _check_covariance(cov: np.ndarray, name: str) -> None:
    """Refuse a covariance that is not symmetric or has negative variances (beyond rounding).

    ``cov`` is (N, d, d, ...) per point (axes 1 and 2 paired), or the (N * d, N * d) matrix of a
    joint covariance.
    """
    if cov.size == 0:
        return
    axes = (0, 1) if cov.ndim == 2 else (1, 2)
    tol = 1e-6 * float(np.max(np.abs(cov)))
    if float(np.max(np.abs(cov - np.swapaxes(cov, *axes)))) > tol:
        raise ValueError(f"{name} must be symmetric (a covariance matrix per point); got an asymmetric matrix.")
    smallest = float(np.min(np.diagonal(cov, axis1=axes[0], axis2=axes[1])))
    if smallest < -tol:
        raise ValueError(f"{name} has negative variances on its diagonal (smallest {smallest:.3g}).")


#: keys of ``Explanation.info`` that became typed attributes (old key -> attribute)
PROMOTED_INFO_KEYS = {
    "v_full": "v_full",
    "predictions": "v_full",
    "interaction_index": "interaction_index",
    "efficiency_error": "efficiency_error",
}


class ExplanationInfo(dict[str, Any]):
    """``Explanation.info``: a dict of the explainer's extras (solver, route, timings, ...).

    The facts users read became typed attributes of :class:`Explanation` (``v_full``,
    ``interaction_index``, ``efficiency_error``).  Reading them under their old keys
    (``info["v_full"]``, and ``info["predictions"]`` of the additive-GP explainer) still works for one
    release and warns (DeprecationWarning); writing them goes to the attribute.  They are not
    stored here, so iterating lists the extras only.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.ones((1, 2)), 0.0, v_full=[2.0], info={"route": "engine"})
    >>> sorted(ex.info), ex.info["route"]
    (['route'], 'engine')
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     ex.info["v_full"]
    array([2.])
    """

    def __init__(self, owner: Explanation | None = None, data: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self._owner = owner
        for key, value in (data or {}).items():
            self[key] = value

    def _promoted(self, key: Any) -> str | None:
        if isinstance(key, str) and key in PROMOTED_INFO_KEYS and not dict.__contains__(self, key):
            return PROMOTED_INFO_KEYS[key]
        return None

    def __getitem__(self, key: Any) -> Any:
        attr = self._promoted(key)
        owner = self.__dict__.get("_owner")
        if attr is not None and owner is not None and getattr(owner, attr, None) is not None:
            warnings.warn(
                f'Explanation.info["{key}"] is deprecated: read Explanation.{attr} instead.',
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(owner, attr)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        attr = self._promoted(key)
        owner = self.__dict__.get("_owner")
        if attr is not None and owner is not None:
            return getattr(owner, attr, None) is not None
        return dict.__contains__(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        attr = self._promoted(key)
        owner = self.__dict__.get("_owner")
        if attr is not None and owner is not None:
            owner._set_promoted(attr, value)
            return
        dict.__setitem__(self, key, value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def copy(self) -> dict[str, Any]:
        """A plain dict of the extras."""
        return dict(self)


class Explanation:
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
        _games.describe(self.game)  # refuses a near miss of a table name; anything else is a custom game
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
        self.info = ExplanationInfo(self, info)
        self._scalar_row = False
        self._scalar_feature = False
        self._feature_subset = False
        return self

    def _set_promoted(self, attr: str, value: Any) -> None:
        """Set one of the attributes that used to ride in ``info`` (checked like the constructor's)."""
        if value is None:
            setattr(self, attr, None)
        elif attr == "v_full":
            arr = np.asarray(value)
            if arr.ndim not in (1, 2) or arr.shape[0] != self.values.shape[0]:
                raise ValueError(
                    f"v_full must have shape ({self.values.shape[0]},) or ({self.values.shape[0]}, n_outputs), "
                    f"got {arr.shape}."
                )
            self.v_full = arr
        elif attr == "interaction_index":
            if not isinstance(value, str):
                raise TypeError(f"interaction_index must be a string such as 'sii' or 'stii', got {value!r}.")
            self.interaction_index = value
        else:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"efficiency_error must be a number, got {value!r}.")
            self.efficiency_error = float(value)

    @property
    def game_record(self) -> _games.Game:
        """The games-table record of ``game`` (:data:`kexplain.games.CUSTOM` for a game of your own).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> kx.Explanation(np.zeros((1, 2)), 0.0, game="baseline").game_record.base_label
        'f(baseline) = prediction at the reference row'
        """
        return _games.describe(self.game)

    # -- shape and slicing -------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``values``."""
        return self.values.shape

    @property
    def n_outputs(self) -> int:
        """Number of explained outputs (1 for a single-output model)."""
        return self.values.shape[2] if self.values.ndim == 3 else 1

    def __len__(self) -> int:
        return self.values.shape[0]

    @staticmethod
    def _per_row(x: Any, name: str, N: int) -> np.ndarray | None:
        if x is None:
            return None
        arr = _real(x, name)
        try:
            return np.broadcast_to(arr, (N,)).copy()
        except ValueError:
            raise ValueError(f"{name} must have shape ({N},) (one variance per row), got {arr.shape}.") from None

    # -- uncertainty -------------------------------------------------------------------------
    def _need_covariance(self, what: str) -> np.ndarray:
        if self.covariance is None:
            raise ValueError(
                f"{what} needs the covariance of the values: explain a Gaussian-process model with "
                "uncertainty=True (e.g. kx.ProductKernelExplainer(gpr, background).explain(X, uncertainty=True))."
            )
        if self.values.ndim != 2 or self.covariance.ndim != 3:
            raise ValueError(f"{what} is available for single-output explanations; pick one with ex[:, output].")
        return self.covariance

    @property
    def std(self) -> np.ndarray:
        """Posterior standard deviation of each value, shape (N, d) (needs ``covariance``).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, -0.5]]), 0.0, covariance=np.diag([4.0, 0.25])[None])
        >>> ex.std
        array([[2. , 0.5]])
        """
        cov = self._need_covariance("std")
        return np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None))

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Central credible interval of each value under its Gaussian posterior.

        Parameters
        ----------
        level : float
            Probability mass inside the interval, in (0, 1).

        Returns
        -------
        lower : ndarray of shape (N, d)
            ``values - z * std`` with z the (1 + level) / 2 quantile of the standard normal.
        upper : ndarray of shape (N, d)
            ``values + z * std``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, -0.5]]), 0.0, covariance=np.diag([1.0, 0.01])[None])
        >>> lower, upper = ex.interval(0.95)
        >>> np.round(lower, 3), np.round(upper, 3)
        (array([[-0.96 , -0.696]]), array([[ 2.96 , -0.304]]))
        """
        from scipy.stats import norm

        if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.integer, np.floating)):
            raise TypeError(f"level must be a number in (0, 1), got {level!r} of type {type(level).__name__}.")
        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level}.")
        z = float(norm.ppf(0.5 + level / 2.0))
        sd = self.std
        return self.values - z * sd, self.values + z * sd

    def sample(self, k: int, random_state: RandomStateLike = None) -> list[Explanation]:
        """``k`` explanations drawn from the Gaussian posterior of the values.

        With ``joint_covariance`` the draws are joint over all points (one draw of the function
        gives every point's values); otherwise each point is drawn independently of the others
        from its own ``covariance`` (correlations between points are then lost).  Each draw
        keeps the base values at their posterior mean (their covariance with the values is not
        stored), so ``base_values + values.sum(axis=1)`` of a draw is a draw of the explained
        output up to the base value's own uncertainty.

        Parameters
        ----------
        k : int
            Number of draws.
        random_state : None, int or numpy Generator
            Seeds the draws.

        Returns
        -------
        list of Explanation
            Each with the shape, names and game of this one, without covariances.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, -0.5]]), 0.0, covariance=np.diag([1.0, 0.01])[None])
        >>> draws = ex.sample(2000, random_state=0)
        >>> print(f"{np.std([e.values[0, 1] for e in draws]):.1f}")
        0.1
        """
        check_param(k, "k", Integer(1))
        self._need_covariance("sample")
        N, d = self.values.shape
        # k Explanation objects: a list this long is the memory, not the draws; refuse beyond a budget
        need = int(k) * (_EXPLANATION_OVERHEAD_BYTES + 8 * N * d)
        if need > SAMPLE_LIST_BYTES:
            raise ValueError(
                f"sample(k={k}) would build {k} Explanation objects, about {need / 2**20:.0f} MiB (the budget is "
                f"{SAMPLE_LIST_BYTES / 2**20:.0f} MiB, kexplain.explanation.SAMPLE_LIST_BYTES): use "
                "sample_values(k) for the draws as one array of shape (k, N, d), drawn in blocks."
            )
        draws = self.sample_values(int(k), random_state)
        return [
            Explanation(
                z,
                self.base_values,
                self.data,
                self.feature_names,
                self.output_names,
                game=self.game,
                info={"draw_of": "posterior of the values"},
                output=self.output,
                index=self.index,
            )
            for z in draws
        ]

    def sample_values(self, k: int, random_state: RandomStateLike = None) -> np.ndarray:
        """``k`` draws of the values from their Gaussian posterior, as one array of shape (k, N, d).

        The draws of :meth:`sample` (the same numbers for the same ``random_state``) without an
        Explanation per draw: the memory is the output plus blocks of at most
        ``SAMPLE_BLOCK_BYTES`` (16 MiB) of temporaries.

        Parameters
        ----------
        k : int
            Number of draws.
        random_state : None, int or numpy Generator
            Seeds the draws (the same numbers as :meth:`sample` for the same seed).

        Returns
        -------
        ndarray of shape (k, N, d)
            The draws of the values.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, -0.5]]), 0.0, covariance=np.diag([1.0, 0.01])[None])
        >>> draws = ex.sample_values(100_000, random_state=0)
        >>> draws.shape, np.round(draws[:, 0].std(axis=0), 2)
        ((100000, 1, 2), array([1. , 0.1]))
        """
        from ._validation import check_random_state

        cov = self._need_covariance("sample")
        check_param(k, "k", Integer(1))
        rng = check_random_state(random_state)
        N, d = self.values.shape
        k = int(k)
        out = np.empty((k, N, d))
        if self.joint_covariance is not None:
            root = _symmetric_root(self.joint_covariance.reshape(N * d, N * d))
            step = max(1, SAMPLE_BLOCK_BYTES // (16 * N * d))
            for a in range(0, k, step):
                b = min(k, a + step)
                out[a:b] = (rng.standard_normal((b - a, N * d)) @ root.T).reshape(b - a, N, d)
        else:
            step = max(1, SAMPLE_BLOCK_BYTES // (16 * d))
            for i in range(N):
                root = _symmetric_root(cov[i])
                # consecutive blocks of one generator give the numbers of a single call (same draws)
                for a in range(0, k, step):
                    b = min(k, a + step)
                    out[a:b, i] = rng.standard_normal((b - a, d)) @ root.T
        out += self.values[None]
        return out

    #: bound on ``|value - value for the model's own kernel|`` when the kernel was discretised (see above)
    kernel_error_bound: float | np.ndarray | None = None

    def __getitem__(self, item: Any) -> Explanation:
        """Rows, features and outputs, as shap's ``Explanation`` is indexed.

        ``ex[rows]``, ``ex[rows, features]`` and ``ex[rows, features, output]``: rows by integer,
        slice, boolean mask or indices; features by name (``ex[:, "bmi"]``), list of names,
        integer, slice, boolean mask or indices; one output of several by name or integer.  On an
        explanation with several outputs, ``ex[rows, key]`` with a key that names an output, or
        an integer, picks that output (kexplain's layout before feature indexing existed; write
        ``ex[rows, :, key]`` to be explicit).  A result restricted to some features no longer sums
        to the prediction, so its ``predictions`` refuse (take them from the full explanation).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.arange(6.0).reshape(2, 3), 0.0, feature_names=["age", "bmi", "bp"])
        >>> ex[:, "bmi"].values.ravel().tolist()
        [1.0, 4.0]
        >>> ex[1, ["bp", "age"]].values.tolist()
        [[5.0, 3.0]]
        """
        feats: Any = slice(None)
        out = None
        if isinstance(item, tuple):
            if len(item) == 3:
                item, feats, out = item
                if self.values.ndim != 3 and not (isinstance(out, slice) and out == slice(None)):
                    raise IndexError("this explanation has a single output; index it by rows and features only")
                if isinstance(out, slice) and out == slice(None):
                    out = None
            elif len(item) == 2:
                item, key = item
                if self.values.ndim == 3 and self._names_output(key):
                    out = key
                else:
                    feats = key
            else:
                raise IndexError("index with rows, (rows, features) or (rows, features, output)")
        ex = self._select_rows_and_output(item, out)
        if not (isinstance(feats, slice) and feats == slice(None)):
            ex = ex._select_features(feats)
        return ex

    def _names_output(self, key: Any) -> bool:
        """Whether the second index of a multi-output explanation picks an output (see __getitem__)."""
        if isinstance(key, str):
            return key not in self.feature_names  # an output's name (or neither: the error names both)
        return isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))

    def _feature_positions(self, feats: Any) -> tuple[np.ndarray, bool]:
        """Positions of the features picked by ``feats`` and whether one feature was named alone."""
        d = len(self.feature_names)

        def position(key: Any) -> int:
            if isinstance(key, str):
                if key not in self.feature_names:
                    where = (
                        "; this explanation has a single output"
                        if self.values.ndim == 2 and key in self.output_names
                        else ""
                    )
                    raise IndexError(f"{key!r} is not a feature name (features: {self.feature_names}){where}.")
                return self.feature_names.index(key)
            if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
                raise IndexError(f"features are picked by name, integer, slice, mask or a list of those, got {key!r}.")
            if not -d <= key < d:
                raise IndexError(f"feature index {key} is out of range for {d} features.")
            return int(key) % d

        if isinstance(feats, slice):
            return np.arange(d)[feats], False
        if isinstance(feats, (str, int, np.integer)):
            return np.array([position(feats)]), True
        arr = np.asarray(feats)
        if arr.dtype == bool:
            if arr.shape != (d,):
                raise IndexError(f"a boolean feature mask must have shape ({d},), got {arr.shape}.")
            return np.flatnonzero(arr), False
        return np.array([position(k.item() if isinstance(k, np.generic) else k) for k in arr.ravel()], dtype=int), False

    def _select_features(self, feats: Any) -> Explanation:
        pos, alone = self._feature_positions(feats)
        sub = (slice(None), pos)
        data = None if self.data is None else np.asarray(self.data)[:, pos]
        inter = None if self.interactions is None else self.interactions[:, pos][:, :, pos]
        cov = None if self.covariance is None else self.covariance[:, pos][:, :, pos]
        joint = None if self.joint_covariance is None else self.joint_covariance[:, pos][:, :, :, pos]
        ex = Explanation(
            self.values[sub],
            self.base_values,
            data,
            [self.feature_names[j] for j in pos],
            self.output_names,
            inter,
            None if self.standard_errors is None else self.standard_errors[sub],
            self.game,
            self.info,
            output=self.output,
            index=self.index,
            covariance=cov,
            joint_covariance=joint,
            base_variance=self.base_variance,
            prediction_variance=self.prediction_variance,
            v_full=self.v_full,
            interaction_index=self.interaction_index,
            efficiency_error=self.efficiency_error,
        )
        ex._scalar_row = self._scalar_row
        ex._scalar_feature = alone
        ex._feature_subset = len(pos) != len(self.feature_names) or self._feature_subset
        return ex

    def _select_rows_and_output(self, item: Any, out: Any) -> Explanation:
        rows = np.arange(len(self))[item]
        scalar_row = np.ndim(rows) == 0
        rows = np.atleast_1d(rows)
        vals, base = self.values[rows], self.base_values[rows]
        inter = None if self.interactions is None else self.interactions[rows]
        se = None if self.standard_errors is None else self.standard_errors[rows]
        cov = None if self.covariance is None else self.covariance[rows]
        joint = None if self.joint_covariance is None else self.joint_covariance[rows][:, :, rows]
        base_var = None if self.base_variance is None else self.base_variance[rows]
        pred_var = None if self.prediction_variance is None else self.prediction_variance[rows]
        names = self.output_names
        o = 0
        if out is not None:
            if self.values.ndim != 3:
                raise IndexError("this explanation has a single output; index it by rows only")
            o = self._output_index(out)
            vals, base = vals[:, :, o], base[:, o]
            inter = None if inter is None else inter[..., o]
            se = None if se is None else se[..., o]
            cov = None if cov is None or cov.ndim != 4 else cov[..., o]
            names = [names[o]]
        data = None if self.data is None else np.asarray(self.data)[rows]

        # per-point extras (v_full, and arrays in info) follow the rows and the output that were picked
        def pick(val: Any) -> Any:
            if isinstance(val, np.ndarray) and val.ndim >= 1 and val.shape[0] == len(self):
                val = val[rows]
                if out is not None and val.ndim == 2 and val.shape[1] == self.n_outputs:
                    val = val[:, o]
            return val

        info = {key: pick(val) for key, val in self.info.items()}
        index = None if self.index is None else [self.index[r] for r in rows]
        output = self.output if out is None or self.n_outputs == 1 else f"{self.output}, {names[0]}".lstrip(", ")
        ex = Explanation(
            vals,
            base,
            data,
            self.feature_names,
            names,
            inter,
            se,
            self.game,
            info,
            output=output,
            index=index,
            covariance=cov,
            joint_covariance=joint,
            base_variance=base_var,
            prediction_variance=pred_var,
            v_full=pick(self.v_full),
            interaction_index=self.interaction_index,
            efficiency_error=self.efficiency_error,
        )
        if scalar_row:
            ex._scalar_row = True
        bound = self.kernel_error_bound
        if out is not None and isinstance(bound, np.ndarray):
            bound = float(bound[o])
        ex.kernel_error_bound = bound
        ex._feature_subset = self._feature_subset
        return ex

    def _output_index(self, out: Any) -> int:
        if isinstance(out, str):
            if out not in self.output_names:
                raise KeyError(
                    f"output {out!r} is not one of {self.output_names}, nor is it a feature name "
                    f"(features: {self.feature_names})."
                )
            return self.output_names.index(out)
        if isinstance(out, (bool, np.bool_)) or not isinstance(out, (int, np.integer)):
            raise IndexError(f"an output is picked by name or integer index, got {out!r}.")
        if not -self.n_outputs <= out < self.n_outputs:
            raise IndexError(f"output index {out} is out of range for {self.n_outputs} outputs {self.output_names}.")
        return int(out) % self.n_outputs

    @classmethod
    def concatenate(cls, explanations: Sequence[Explanation]) -> Explanation:
        """Stack explanations of the same model and game along the rows.

        Parameters
        ----------
        explanations : sequence of Explanation
            Explanations with the same features, outputs and game.

        Returns
        -------
        Explanation
            Per-point covariances and variances are stacked when every part has them; a joint
            covariance is dropped (the covariance between points of different parts is not known).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> a = Explanation(np.ones((2, 3)), 0.0)
        >>> b = Explanation(np.zeros((1, 3)), 1.0)
        >>> Explanation.concatenate([a, b]).shape
        (3, 3)
        """
        parts = list(explanations)
        if not parts or not all(isinstance(e, Explanation) for e in parts):
            raise TypeError("explanations must be a non-empty sequence of kexplain.Explanation.")
        first = parts[0]
        for e in parts[1:]:
            if (
                e.feature_names != first.feature_names
                or e.output_names != first.output_names
                or e.game != first.game
                or e.values.shape[1:] != first.values.shape[1:]
            ):
                raise ValueError("explanations must share features, outputs and game to be concatenated.")

        def stack(attr: str) -> Any:
            arrs = [getattr(e, attr) for e in parts]
            if any(a is None for a in arrs):
                return None
            return np.concatenate([np.asarray(a) for a in arrs], axis=0)

        info: dict[str, Any] = {}
        for key, val in first.info.items():
            if isinstance(val, np.ndarray) and val.ndim >= 1 and val.shape[0] == len(first):
                vals = [e.info.get(key) for e in parts]
                arrays = [v for v in vals if isinstance(v, np.ndarray)]
                if len(arrays) == len(vals):
                    info[key] = np.concatenate(arrays, axis=0)
                    continue
            info[key] = val
        errors = [e.efficiency_error for e in parts]
        index = None
        if all(e.index is not None for e in parts):
            index = [lab for e in parts for lab in (e.index or [])]
        out = cls(
            stack("values"),
            stack("base_values"),
            stack("data"),
            first.feature_names,
            first.output_names,
            stack("interactions"),
            stack("standard_errors"),
            first.game,
            info,
            output=first.output,
            index=index,
            covariance=stack("covariance"),
            joint_covariance=parts[0].joint_covariance if len(parts) == 1 else None,
            base_variance=stack("base_variance"),
            prediction_variance=stack("prediction_variance"),
            v_full=stack("v_full"),
            interaction_index=first.interaction_index,
            # the largest gap of the parts (each part's is the largest over its rows)
            efficiency_error=None if any(e is None for e in errors) else max(errors),  # type: ignore[type-var]
        )
        bounds = [e.kernel_error_bound for e in parts]
        if all(b is not None for b in bounds):
            out.kernel_error_bound = np.max(np.asarray(bounds, dtype=np.float64), axis=0)
            if np.ndim(out.kernel_error_bound) == 0:
                out.kernel_error_bound = float(out.kernel_error_bound)
        return out

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

    # -- conversions -------------------------------------------------------------------------
    def to_shap(self, output: int | str | None = None, interactions: bool = False) -> Any:
        """A ``shap.Explanation`` for shap's plots.

        shap's ``Explanation`` has no field for interaction values beside the Shapley values: shap
        itself returns them *as* the values, with shape (N, d, d), from
        ``TreeExplainer(model)(X, interactions=True)``.  ``to_shap(interactions=True)`` does the
        same with this explanation's ``interactions`` (in the layout recorded in
        ``interaction_index``: shap TreeExplainer's for SII, shap ExactExplainer's for
        STII), so shap's plots that read interaction values take them as they are.

        Parameters
        ----------
        output : int or str, optional
            With several outputs, pick one by index or name; None keeps shap's multi-output form.
        interactions : bool, default False
            Return the interaction values (N, d, d) as the values, as shap does, instead of the
            Shapley values (N, d).

        Returns
        -------
        shap.Explanation
            Needs the optional ``shap`` package (extra ``plots``).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, 2.0]]), 0.5, interactions=np.array([[[1.0, 0.0], [0.0, 2.0]]]))
        >>> ex.to_shap().values.shape, ex.to_shap(interactions=True).values.shape  # doctest: +SKIP
        ((1, 2), (1, 2, 2))
        """
        shap = require("shap", "Explanation.to_shap")
        check_param(interactions, "interactions", Boolean())
        if interactions and self.interactions is None:
            raise ValueError("this explanation has no interactions: explain(X, interactions=True) computes them.")
        ex = self if output is None else self[:, :, output]
        data = None if ex.data is None else np.asarray(ex.data)
        if data is not None and data.dtype == object:
            try:
                data = data.astype(np.float64)
            except (TypeError, ValueError):
                pass
        kwargs: dict[str, Any] = dict(
            values=ex.interactions if interactions else ex.values,
            base_values=ex.base_values,
            data=data,
            feature_names=list(ex.feature_names),
        )
        if ex.values.ndim == 3:
            kwargs["output_names"] = list(ex.output_names)
        sh = shap.Explanation(**kwargs)
        if ex._scalar_feature and not interactions:
            sh = sh[:, 0]  # ex[:, "bmi"].to_shap() is shap's ex[:, "bmi"], as shap.plots.scatter takes
        if ex._scalar_row:
            sh = sh[0]
        return sh

    def base_column(self) -> str:
        """Name of the base-value column of ``to_frame``.

        ``"base_value"``, or with underscores appended while a feature already has that name.

        Returns
        -------
        str
            The column name.
        """
        name = BASE_COLUMN
        while name in self.feature_names:
            name += "_"
        return name

    def to_frame(self, kind: str = "wide") -> Any:
        """A pandas DataFrame (keeps the row labels of an explained DataFrame).

        Parameters
        ----------
        kind : {"wide", "long"}
            ``"wide"``: one row per explained point, one column per feature (a column MultiIndex
            (output, feature) with several outputs) and a ``base_value`` column (see
            ``base_column``).  ``"long"``: one row per (point, output, feature) with the value and
            the feature value, and a ``std`` column (the posterior standard deviation of the
            value) when the explanation has a single output and a ``covariance``.

        Returns
        -------
        pandas.DataFrame
            The values in the layout of ``kind``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, 2.0]]), 0.5, feature_names=["a", "b"], index=["row7"])
        >>> ex.to_frame()
                a    b  base_value
        row7  1.0  2.0         0.5
        """
        pd = require("pandas", "Explanation.to_frame")
        if kind not in ("wide", "long"):
            raise ValueError(f"kind must be 'wide' or 'long', got {kind!r}.")
        N, d = self.values.shape[:2]
        vals = self.values if self.values.ndim == 3 else self.values[:, :, None]
        base = self.base_values if self.base_values.ndim == 2 else self.base_values[:, None]
        index = None if self.index is None else pd.Index(self.index)
        bcol = self.base_column()
        if kind == "wide":
            if self.n_outputs == 1:
                df = pd.DataFrame(vals[:, :, 0], columns=self.feature_names, index=index)
                df[bcol] = base[:, 0]
                return df
            cols = pd.MultiIndex.from_product(
                [self.output_names, [*self.feature_names, bcol]], names=["output", "feature"]
            )
            block = np.concatenate(
                [np.concatenate([vals[:, :, o], base[:, o : o + 1]], axis=1) for o in range(self.n_outputs)], axis=1
            )
            return pd.DataFrame(block, columns=cols, index=index)
        rows = np.repeat(np.arange(N), d * self.n_outputs)
        outs = np.tile(np.repeat(np.arange(self.n_outputs), d), N)
        feats = np.tile(np.arange(d), N * self.n_outputs)
        frame: dict[str, Any] = {
            "row": rows if self.index is None else np.asarray(self.index, dtype=object)[rows],
            "output": np.asarray(self.output_names, dtype=object)[outs],
            "feature": np.asarray(self.feature_names, dtype=object)[feats],
            "value": vals.transpose(0, 2, 1).reshape(-1),
        }
        if self.data is not None:
            frame["feature_value"] = np.asarray(self.data, dtype=object)[rows, feats]
        if self.covariance is not None and self.values.ndim == 2 and self.covariance.ndim == 3:
            frame["std"] = self.std.reshape(-1)
        return pd.DataFrame(frame)

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
#: measured memory of one small Explanation object (its dict, arrays and names), with margin
_EXPLANATION_OVERHEAD_BYTES = 2048


def _symmetric_root(cov: np.ndarray) -> np.ndarray:
    """R with R R^T = cov (cov may be singular): a symmetric square root, negative rounding clipped."""
    evals, evecs = np.linalg.eigh(0.5 * (cov + cov.T))
    return np.asarray(evecs * np.sqrt(np.clip(evals, 0.0, None)))
