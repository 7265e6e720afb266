"""Type aliases shared by the package's signatures (one name per idea).

Examples
--------
>>> import numpy as np
>>> from kexplain._typing import RandomStateLike
>>> isinstance(np.random.default_rng(0), RandomStateLike.__args__)
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["RandomStateLike"]

#: what every ``random_state`` argument accepts (``kexplain._validation.check_random_state`` and
#: ``check_legacy_random_state`` read it): None (fresh entropy), a non-negative int seed, or a numpy
#: SeedSequence, Generator or RandomState.  Docstrings write it as
#: "None, int, numpy Generator, RandomState or SeedSequence".
RandomStateLike = int | np.integer | np.random.Generator | np.random.RandomState | np.random.SeedSequence | None
