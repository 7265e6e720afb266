"""What every part of :class:`~kexplain.Explanation` reads: its attributes and ``info``.

``Explanation`` (``explanation.py``) is assembled from mix-ins, one module per idea, each inheriting
:class:`ExplanationFields`, which declares the attributes ``Explanation.__init__`` sets:

- ``_explanation_rows.py``: rows, features and outputs picked (``ex[rows, features, output]``)
  and explanations stacked (``Explanation.concatenate``);
- ``_explanation_uncertainty.py``: the posterior covariance of the values (``std``, ``interval``);
- ``_explanation_draws.py``: draws from that posterior (``sample``, ``sample_values``);
- ``_explanation_convert.py``: ``to_shap`` and ``to_frame``.

Here too: :class:`ExplanationInfo`, the dict of the explainer's extras, whose old keys lead to the
typed attributes they became (``PROMOTED_INFO_KEYS``, set through ``_set_promoted``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

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

    # every pickled Explanation holds its info: pickles name the module the class was written in
    # before explanation.py was split (and re-exports it), so they load in older and newer versions
    __module__ = "kexplain.explanation"

    def __init__(self, owner: ExplanationFields | None = None, data: Mapping[str, Any] | None = None) -> None:
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


class ExplanationFields:
    """What the mix-ins of Explanation read: its attributes (set by its constructor) and its shape."""

    values: np.ndarray
    base_values: np.ndarray
    data: Any
    feature_names: list[str]
    output_names: list[str]
    interactions: np.ndarray | None
    standard_errors: np.ndarray | None
    covariance: np.ndarray | None
    joint_covariance: np.ndarray | None
    base_variance: np.ndarray | None
    prediction_variance: np.ndarray | None
    index: list[Any] | None
    game: str
    output: str
    info: ExplanationInfo
    v_full: np.ndarray | None
    interaction_index: str | None
    efficiency_error: float | None
    kernel_error_bound: float | np.ndarray | None
    _scalar_row: bool
    _scalar_feature: bool
    _feature_subset: bool
    #: the class that selections and stacks build: kexplain.Explanation itself, for its subclasses too
    #: (InteractionExplanation wraps what they return in its own type).  explanation.py sets it: the
    #: mix-ins cannot import the class that is assembled from them.
    _result_class: ClassVar[type[Any]]

    if TYPE_CHECKING:  # Explanation.__init__: the mix-ins build explanations through cls and _result_class

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

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
