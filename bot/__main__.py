"""`python -m bot` is the `digestbot` command."""

import sys

from bot.cli import main

sys.exit(main())
