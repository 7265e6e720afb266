"""An :class:`~kexplain.Explanation` in other libraries' types: ``to_shap`` (a ``shap.Explanation``
for shap's plots) and ``to_frame`` (a pandas DataFrame, wide or long).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._explanation_fields import ExplanationFields
from ._optional import require
from ._params import Boolean, check_param

#: name of the base-value column of ``Explanation.to_frame``
BASE_COLUMN = "base_value"


class ExplanationConversions(ExplanationFields):
    """Conversions to shap and pandas (a mix-in of Explanation)."""

    if TYPE_CHECKING:  # defined by the other mix-ins of Explanation

        @property
        def std(self) -> np.ndarray: ...

        def __getitem__(self, item: Any) -> Any: ...

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
