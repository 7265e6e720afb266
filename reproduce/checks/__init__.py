"""One-off checks behind the reasons of some "differs" rows whose full rerun does not fit this machine.

Each module reruns one experiment's setting with one thing changed and prints what it finds; its
docstring quotes the output the reason on the page rests on.  Run one as
``PYTHONPATH=src:. python -m reproduce.checks.<name>``.  The runner (``python -m reproduce``) does
not import this package.
"""
