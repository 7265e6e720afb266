"""Rows, features and outputs of an :class:`~kexplain.Explanation`: picked as shap's ``Explanation``
is indexed (``ex[rows, features, output]``), and explanations of the same model stacked along the
rows (``Explanation.concatenate``).  Every per-point attribute follows the rows picked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from ._explanation_fields import ExplanationFields

_E = TypeVar("_E", bound="ExplanationRows")


class ExplanationRows(ExplanationFields):
    """Indexing and stacking of explanations (a mix-in of Explanation)."""

    def __getitem__(self: _E, item: Any) -> _E:
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

    def _select_features(self: _E, feats: Any) -> _E:
        pos, alone = self._feature_positions(feats)
        sub = (slice(None), pos)
        data = None if self.data is None else np.asarray(self.data)[:, pos]
        inter = None if self.interactions is None else self.interactions[:, pos][:, :, pos]
        cov = None if self.covariance is None else self.covariance[:, pos][:, :, pos]
        joint = None if self.joint_covariance is None else self.joint_covariance[:, pos][:, :, :, pos]
        ex = self._result_class(
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

    def _select_rows_and_output(self: _E, item: Any, out: Any) -> _E:
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
        ex = self._result_class(
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
    def concatenate(cls: type[_E], explanations: Sequence[Any]) -> _E:
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
        if not parts or not all(isinstance(e, cls._result_class) for e in parts):
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
            efficiency_error=None if any(e is None for e in errors) else max(errors),
        )
        bounds = [e.kernel_error_bound for e in parts]
        if all(b is not None for b in bounds):
            out.kernel_error_bound = np.max(np.asarray(bounds, dtype=np.float64), axis=0)
            if np.ndim(out.kernel_error_bound) == 0:
                out.kernel_error_bound = float(out.kernel_error_bound)
        return out
