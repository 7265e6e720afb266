"""``python -m kexplain.cli``: the same as the ``kexplain`` command."""

import sys

from kexplain.cli import main

if __name__ == "__main__":
    sys.exit(main())
