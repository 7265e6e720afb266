"""``python -m kexplain``: the same as the ``kexplain`` command (for environments without its script)."""

import sys

from kexplain.cli import main

if __name__ == "__main__":
    sys.exit(main())
