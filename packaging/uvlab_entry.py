"""Entry point of the PyInstaller bundle: the ``uvlab`` console script."""

from __future__ import annotations

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from uvlab.app.cli import main

    sys.exit(main())
