"""``python -m hetdp_ui.cli``: the same as the ``hetdp`` command."""

import sys

from hetdp_ui.cli import main

sys.exit(main())
