"""``python -m uvlab.app``: the ``uvlab`` command line.

A Ctrl-C or SIGTERM while the command line itself is imported (before
:func:`uvlab.app.cli.main` installs its handlers) is one line and 130, not a
traceback.
"""

import sys

try:
    from uvlab.app.cli import main
except KeyboardInterrupt:
    print("uvlab: interrupted (SIGINT) before it started; nothing was written", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
