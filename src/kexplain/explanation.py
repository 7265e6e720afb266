"""The Explanation result object, shaped like shap's so users can move between the two."""
from __future__ import annotations

import numpy as np

from ._optional import require


class Explanation:
    """Shapley values of a batch of explained points.

    Attributes
    ----------
    values : array (N, d) for one output, (N, d, n_outputs) for several
    base_values : array (N,) or (N, n_outputs): the value of the empty coalition
    data : array (N, d): the explained rows
    feature_names : list of d names
    output_names : list of output names
    interactions : array (N, d, d) or (N, d, d, n_outputs) in shap's convention (each row sums to
        the Shapley value of its feature), or None
    standard_errors : array like ``values`` for sampled estimates, else None
    game : str, which game was solved ("functional", "interventional", "baseline", ...)
    """

    def __init__(
        self,
        values,
        base_values,
        data=None,
        feature_names=None,
        output_names=None,
        interactions=None,
        standard_errors=None,
        game: str = "",
        info: dict | None = None,
    ):
        self.values = np.asarray(values, dtype=np.float64)
        if self.values.ndim not in (2, 3):
            raise ValueError(f"values must have shape (N, d) or (N, d, n_outputs), got {self.values.shape}.")
        N, d = self.values.shape[:2]
        self.base_values = np.asarray(base_values, dtype=np.float64)
        self.data = data
        self.feature_names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(d)]
        if len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        n_out = self.values.shape[2] if self.values.ndim == 3 else 1
        expected_base = (N,) if self.values.ndim == 2 else (N, n_out)
        try:   # a shared base value (scalar, or one per output) is spread over the rows
            self.base_values = np.broadcast_to(self.base_values, expected_base).copy()
        except ValueError:
            raise ValueError(
                f"base_values must have shape {expected_base} (or broadcast to it) to match values "
                f"of shape {self.values.shape}, got {self.base_values.shape}."
            ) from None
        self.output_names = list(output_names) if output_names is not None else (
            ["f(x)"] if n_out == 1 else [f"output {o}" for o in range(n_out)]
        )
        if len(self.output_names) != n_out:
            raise ValueError(f"output_names has {len(self.output_names)} names for {n_out} outputs.")
        self.interactions = None if interactions is None else np.asarray(interactions, dtype=np.float64)
        if self.interactions is not None:
            expected = (N, d, d) + self.values.shape[2:]
            if self.interactions.shape != expected:
                raise ValueError(f"interactions must have shape {expected}, got {self.interactions.shape}.")
        self.standard_errors = None if standard_errors is None else np.asarray(standard_errors)
        self.game = game
        self.info = dict(info or {})

    # -- shape and slicing -------------------------------------------------------------------
    @property
    def shape(self):
        return self.values.shape

    @property
    def n_outputs(self) -> int:
        return self.values.shape[2] if self.values.ndim == 3 else 1

    def __len__(self):
        return self.values.shape[0]

    def __getitem__(self, item):
        """Rows (int, slice, mask or indices) or, with a pair, rows and one output by index or name."""
        out = None
        if isinstance(item, tuple):
            if len(item) != 2:
                raise IndexError("index with rows, or with (rows, output)")
            item, out = item
        rows = np.arange(len(self))[item]
        scalar_row = np.ndim(rows) == 0
        rows = np.atleast_1d(rows)
        vals, base, inter, se = self.values[rows], self.base_values[rows], self.interactions, self.standard_errors
        inter = None if inter is None else inter[rows]
        se = None if se is None else se[rows]
        names = self.output_names
        if out is not None:
            if self.values.ndim != 3:
                raise IndexError("this explanation has a single output; index it by rows only")
            o = self._output_index(out)
            vals, base = vals[:, :, o], base[:, o]
            inter = None if inter is None else inter[..., o]
            se = None if se is None else se[..., o]
            names = [names[o]]
        data = None if self.data is None else np.asarray(self.data)[rows]
        # per-point extras (such as v_full) follow the rows and the output that were picked
        info = {}
        for key, val in self.info.items():
            if isinstance(val, np.ndarray) and val.ndim >= 1 and val.shape[0] == len(self):
                val = val[rows]
                if out is not None and val.ndim == 2 and val.shape[1] == self.n_outputs:
                    val = val[:, o]
            info[key] = val
        ex = Explanation(vals, base, data, self.feature_names, names, inter, se, self.game, info)
        if scalar_row:
            ex._scalar_row = True
        return ex

    def _output_index(self, out) -> int:
        if isinstance(out, str):
            if out not in self.output_names:
                raise KeyError(f"output {out!r} is not one of {self.output_names}.")
            return self.output_names.index(out)
        if isinstance(out, (bool, np.bool_)) or not isinstance(out, (int, np.integer)):
            raise IndexError(f"an output is picked by name or integer index, got {out!r}.")
        if not -self.n_outputs <= out < self.n_outputs:
            raise IndexError(f"output index {out} is out of range for {self.n_outputs} outputs {self.output_names}.")
        return int(out) % self.n_outputs

    # -- derived quantities ------------------------------------------------------------------
    @property
    def predictions(self) -> np.ndarray:
        """base_values + the sum of the values over features (equal to the model output)."""
        return self.base_values + self.values.sum(axis=1)

    def mean_abs(self) -> np.ndarray:
        """Global importance: mean |value| per feature (and output)."""
        return np.abs(self.values).mean(axis=0)

    # -- conversions -------------------------------------------------------------------------
    def to_shap(self, output=None):
        """A ``shap.Explanation`` (for shap's plots). With several outputs pick one by index or name,
        or leave ``output=None`` for shap's multi-output form."""
        shap = require("shap", "Explanation.to_shap")
        ex = self if output is None else self[:, output]
        data = None if ex.data is None else np.asarray(ex.data)
        if data is not None and data.dtype == object:
            try:
                data = data.astype(np.float64)
            except (TypeError, ValueError):
                pass
        kwargs = dict(
            values=ex.values,
            base_values=ex.base_values,
            data=data,
            feature_names=list(ex.feature_names),
        )
        if ex.values.ndim == 3:
            kwargs["output_names"] = list(ex.output_names)
        sh = shap.Explanation(**kwargs)
        if getattr(ex, "_scalar_row", False):
            sh = sh[0]
        return sh

    def to_frame(self, kind: str = "wide"):
        """A pandas DataFrame.

        ``kind="wide"``: one row per explained point, one column per feature (a column MultiIndex
        (output, feature) with several outputs) and a ``base_value`` column.
        ``kind="long"``: one row per (point, output, feature) with the value and the feature value.
        """
        pd = require("pandas", "Explanation.to_frame")
        if kind not in ("wide", "long"):
            raise ValueError(f"kind must be 'wide' or 'long', got {kind!r}.")
        N, d = self.values.shape[:2]
        vals = self.values if self.values.ndim == 3 else self.values[:, :, None]
        base = self.base_values if self.base_values.ndim == 2 else self.base_values[:, None]
        if kind == "wide":
            if self.n_outputs == 1:
                df = pd.DataFrame(vals[:, :, 0], columns=self.feature_names)
                df["base_value"] = base[:, 0]
                return df
            cols = pd.MultiIndex.from_product([self.output_names, self.feature_names + ["base_value"]],
                                              names=["output", "feature"])
            block = np.concatenate([np.concatenate([vals[:, :, o], base[:, o:o + 1]], axis=1)
                                    for o in range(self.n_outputs)], axis=1)
            return pd.DataFrame(block, columns=cols)
        rows = np.repeat(np.arange(N), d * self.n_outputs)
        outs = np.tile(np.repeat(np.arange(self.n_outputs), d), N)
        feats = np.tile(np.arange(d), N * self.n_outputs)
        frame = {
            "row": rows,
            "output": np.asarray(self.output_names, dtype=object)[outs],
            "feature": np.asarray(self.feature_names, dtype=object)[feats],
            "value": vals.transpose(0, 2, 1).reshape(-1),
        }
        if self.data is not None:
            frame["feature_value"] = np.asarray(self.data, dtype=object)[rows, feats]
        return pd.DataFrame(frame)

    def __repr__(self):
        extra = ", with interactions" if self.interactions is not None else ""
        return (f"kexplain.Explanation(game={self.game!r}, values shape={self.values.shape}, "
                f"outputs={self.output_names}{extra})")
