"""The seed papers' experiments, run again with kexplain: our number beside theirs.

Each experiment is declared once, in a module of :mod:`reproduce.experiments`, as an
:class:`~reproduce.framework.Experiment`: which paper, which table or figure, what data, and a
``run(size, seed)`` function returning :class:`~reproduce.framework.Row` objects (one per number
compared: the paper's, ours, a verdict and why).  Experiments that cannot run here are declared
too, with ``blocked=`` saying why, so the page has a row for every experiment of the five papers.

``python -m reproduce`` (``make reproduce``) runs them at full size, writes one JSON record per
experiment into ``reproduce/records/`` and renders ``docs/reproduction.rst`` from the records;
``python -m reproduce --size quick`` runs the small versions the test-suite also runs.
"""
