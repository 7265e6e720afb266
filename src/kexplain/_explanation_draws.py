"""Draws from the Gaussian posterior of the Shapley values (a Gaussian-process model's):
``Explanation.sample`` (a list of explanations) and ``Explanation.sample_values`` (one array).

Their memory budgets, ``SAMPLE_BLOCK_BYTES`` and ``SAMPLE_LIST_BYTES``, are settings of
``kexplain.explanation`` (users and tests set them there): the draws read them, when a draw is
made, through ``_draw_budgets``, which ``explanation.py`` defines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np

from ._explanation_fields import ExplanationFields
from ._params import Integer, check_param
from ._typing import RandomStateLike

_E = TypeVar("_E", bound="ExplanationDraws")

#: measured memory of one small Explanation object (its dict, arrays and names), with margin
_EXPLANATION_OVERHEAD_BYTES = 2048


class ExplanationDraws(ExplanationFields):
    """Draws of the values from their Gaussian posterior (a mix-in of Explanation)."""

    if TYPE_CHECKING:  # defined by ExplanationUncertainty and by Explanation (explanation.py)

        def _need_covariance(self, what: str) -> np.ndarray: ...

        @staticmethod
        def _draw_budgets() -> tuple[int, int]: ...

    def sample(self: _E, k: int, random_state: RandomStateLike = None) -> list[_E]:
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
        _, list_bytes = self._draw_budgets()
        # k Explanation objects: a list this long is the memory, not the draws; refuse beyond a budget
        need = int(k) * (_EXPLANATION_OVERHEAD_BYTES + 8 * N * d)
        if need > list_bytes:
            raise ValueError(
                f"sample(k={k}) would build {k} Explanation objects, about {need / 2**20:.0f} MiB (the budget is "
                f"{list_bytes / 2**20:.0f} MiB, kexplain.explanation.SAMPLE_LIST_BYTES): use "
                "sample_values(k) for the draws as one array of shape (k, N, d), drawn in blocks."
            )
        draws = self.sample_values(int(k), random_state)
        return [
            self._result_class(
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
        block_bytes, _ = self._draw_budgets()
        out = np.empty((k, N, d))
        if self.joint_covariance is not None:
            root = _symmetric_root(self.joint_covariance.reshape(N * d, N * d))
            step = max(1, block_bytes // (16 * N * d))
            for a in range(0, k, step):
                b = min(k, a + step)
                out[a:b] = (rng.standard_normal((b - a, N * d)) @ root.T).reshape(b - a, N, d)
        else:
            step = max(1, block_bytes // (16 * d))
            for i in range(N):
                root = _symmetric_root(cov[i])
                # consecutive blocks of one generator give the numbers of a single call (same draws)
                for a in range(0, k, step):
                    b = min(k, a + step)
                    out[a:b, i] = rng.standard_normal((b - a, d)) @ root.T
        out += self.values[None]
        return out


def _symmetric_root(cov: np.ndarray) -> np.ndarray:
    """R with R R^T = cov (cov may be singular): a symmetric square root, negative rounding clipped."""
    evals, evecs = np.linalg.eigh(0.5 * (cov + cov.T))
    return np.asarray(evecs * np.sqrt(np.clip(evals, 0.0, None)))
