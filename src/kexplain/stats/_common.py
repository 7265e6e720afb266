"""Argument checks, permutation p-values and the block loop shared by the MMD and HSIC attributions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._validation import check_bool

ESTIMATORS = ("unbiased", "biased")


def check_estimator_name(estimator: Any) -> str:
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be 'unbiased' or 'biased', got {estimator!r}.")
    return str(estimator)


def check_n_permutations(n_permutations: Any) -> int:
    check_param(n_permutations, "n_permutations", Integer(1))
    return int(n_permutations)


def check_n_pairs(n_pairs: Any, minimum: int = 8) -> int | None:
    return check_param(
        n_pairs,
        "n_pairs",
        None,
        Integer(minimum),
        what=f"None (all pairs: the complete statistic) or an integer >= {minimum} (the number of randomly "
        "drawn pairs of an incomplete U-statistic)",
    )


def check_max_block_bytes(max_block_bytes: Any) -> int:
    return int(check_param(max_block_bytes, "max_block_bytes", Integer(1)))


def seed_entropy(rng: np.random.Generator) -> tuple[int, ...]:
    """Root entropy of the independent random streams (``SeedSequence(entropy, spawn_key=...)``)."""
    return tuple(int(x) for x in rng.integers(0, 2**63, size=4))


def physical_memory() -> int | None:
    """Bytes of physical memory, or None where the platform does not say."""
    try:
        import os

        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return None


def check_permutation_memory(n_permutations: int, n_rows: int, d: int, relabel_bytes: int) -> None:
    """Refuse up front a permutation test whose relabellings and null results cannot fit in memory.

    The test keeps every relabelling (``relabel_bytes`` per row and permutation) and the null
    statistic and null attribution of each ((d + 1) floats), so its memory grows with
    ``n_permutations``; a number that cannot fit is an error, not a MemoryError half way.
    """
    need = (n_permutations + 1) * (n_rows * relabel_bytes + 8 * (d + 2))
    limit = physical_memory()
    if limit is None:
        limit = 2**40
    if need > limit // 2:
        raise ValueError(
            f"n_permutations={n_permutations} needs about {need / 2**30:.1f} GiB for the relabellings and the "
            f"null statistics and attributions ({n_rows} rows, {d} features), more than half of this machine's "
            f"memory ({limit / 2**30:.1f} GiB); use fewer permutations (1,000 to 10,000 give p-values to "
            "about 0.001 to 0.0001)."
        )


def check_progress(progress: Any) -> bool:
    return check_bool(progress, "progress")


def progress_bar(total: int, enabled: bool, desc: str) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="pair")


def permutation_p_values(observed: Any, null: Any) -> Any:
    """(1 + #{null >= observed}) / (1 + P), elementwise over trailing axes; ``null`` is (P, ...).

    A relabelling equal to the observed one (or a symmetric one) reproduces the observed value
    only up to summation order, so ties are counted with a relative tolerance of 1e-12.
    """
    null = np.asarray(null)
    observed = np.asarray(observed)
    return (1.0 + np.sum(null >= observed[None] - 1e-12 * np.abs(observed), axis=0)) / (1.0 + null.shape[0])
