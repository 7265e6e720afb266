"""The cost model that chooses between the two exact solvers of an interventional product game.

A product game whose absent factors average over background rows can be solved two ways:

- ``"quadrature"`` (:func:`kexplain.shapley.solve_product_game`): Gauss-Legendre quadrature over
  every (row, background row) pair, n_background * d * ceil(d / 2) steps per explained point and row;
- ``"subsets"`` (:class:`kexplain.shapley.SubsetGame`): the absent-set table tabulated once over
  the background, then 2^d steps per explained point and row.

The constants below are the one copy of the budget: the product-kernel explainer, the
preference games and GP-SHAP's per-point tables read them here.  The solvers themselves never
look at them (a solver only solves what it is given).
"""

from __future__ import annotations

from .quadrature import nodes_for_degree

__all__ = [
    "BACKGROUND_TABLE_BYTES",
    "MAX_SUBSET_FEATURES",
    "ROUTES",
    "choose_route",
    "cheaper_route",
    "subset_table_fits",
]

#: tables that depend only on the model and the background (the background factors of the
#: quadrature route, the absent-set table of the subset route, GP-SHAP's per-point tables) are
#: kept when they take at most this many bytes; larger ones are recomputed per block, and the
#: subset route is not taken when its table would be larger
BACKGROUND_TABLE_BYTES = 256 * 2**20

#: the subset route is used up to this many players (features), when its estimated cost is lower
MAX_SUBSET_FEATURES = 12

#: measured cost of one (row, subset) step of the subset route relative to one (row, background
#: row, feature, node) step of the quadrature (numpy fallback, compiled kernel)
_SUBSET_COST = 1.2
_SUBSET_COST_COMPILED = 0.5

#: the exact routes of an interventional product game
ROUTES = ("quadrature", "subsets")


def subset_table_fits(n_features: int, n_rows: int, n_tables: int = 1) -> bool:
    """Whether the subset route may be taken: at most ``MAX_SUBSET_FEATURES`` players and
    ``n_tables`` absent-set tables of ``n_rows`` x 2^d float64 within ``BACKGROUND_TABLE_BYTES``.

    Parameters
    ----------
    n_features : int
        d, the number of players.
    n_rows : int
        Rows of the game.
    n_tables : int
        Tables of that size kept at once (one per output plus one, for an explainer's model).

    Returns
    -------
    bool

    Examples
    --------
    >>> from kexplain.shapley.routes import subset_table_fits
    >>> subset_table_fits(6, 200), subset_table_fits(13, 1)
    (True, False)
    """
    d = int(n_features)
    return d <= MAX_SUBSET_FEATURES and 8 * int(n_tables) * int(n_rows) * 2**d <= BACKGROUND_TABLE_BYTES


def cheaper_route(n_features: int, n_background: int, *, compiled: bool) -> str:
    """The route with the lower estimated cost per explained point and row, ignoring memory.

    The subset route costs 2^d steps (1.2 each in numpy, 0.5 compiled); the quadrature
    ``n_background * d * ceil(d / 2)``.

    Parameters
    ----------
    n_features : int
        d, the number of players.
    n_background : int
        Background rows (or combinations of them) the quadrature averages over.
    compiled : bool
        Whether the subset route's compiled kernel is available.

    Returns
    -------
    str
        "subsets" or "quadrature".

    Examples
    --------
    >>> from kexplain.shapley.routes import cheaper_route
    >>> cheaper_route(6, 50, compiled=True), cheaper_route(6, 1, compiled=True)
    ('subsets', 'quadrature')
    """
    d = int(n_features)
    subsets = 2**d * (_SUBSET_COST_COMPILED if compiled else _SUBSET_COST)
    quadrature = int(n_background) * d * nodes_for_degree(d - 1)
    return "subsets" if subsets < quadrature else "quadrature"


def choose_route(
    n_features: int,
    n_rows: int,
    n_background: int,
    n_outputs: int = 1,
    *,
    max_block_bytes: int,
    compiled: bool,
) -> str:
    """The cheaper exact route of an interventional product game: "quadrature" or "subsets".

    The subset route costs about 2^d steps per explained point and row (its absent-set table is
    built once, at construction, and amortised over every explained point); the quadrature costs
    n_background * d * ceil(d / 2) steps.  The subset route is considered only up to
    ``MAX_SUBSET_FEATURES`` features, when one explained point's subset table fits in
    ``max_block_bytes`` and its background table in ``BACKGROUND_TABLE_BYTES``.

    Parameters
    ----------
    n_features : int
        d, the number of players.
    n_rows : int
        Rows of the model's expansion (kernel terms x support points).
    n_background : int
        Background rows (1 for the baseline game).
    n_outputs : int
        Outputs of the model.
    max_block_bytes : int
        The explainer's bound on the work arrays of one block.
    compiled : bool
        Whether the subset route's compiled kernel is available (it is about twice as fast).

    Returns
    -------
    str
        "subsets" or "quadrature".

    Examples
    --------
    >>> from kexplain.shapley.routes import choose_route
    >>> choose_route(6, 200, 50, max_block_bytes=2**25, compiled=True)
    'subsets'
    >>> choose_route(6, 200, 1, max_block_bytes=2**25, compiled=True)      # one baseline row
    'quadrature'
    """
    d, R, o = int(n_features), int(n_rows), int(n_outputs)
    if not subset_table_fits(d, R, o + 1) or 16 * R * 2**d > max_block_bytes:
        return "quadrature"
    return cheaper_route(d, n_background, compiled=compiled)
