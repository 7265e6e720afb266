"""``python -m kexplain.cli``: the same as the ``kexplain`` command."""

import sys

from . import main

sys.exit(main())
