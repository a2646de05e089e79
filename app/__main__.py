import sys

from uvlab.app.cli import main

sys.exit(main())
