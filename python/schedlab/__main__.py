"""``python -m schedlab ARGS…``: the ``schedlab`` command line (see ``schedlab._cli``)."""

import sys

from ._cli import main

sys.exit(main())
