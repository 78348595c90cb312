"""``python -m toolresponse`` is the ``toolresponse`` command."""

from ._cli import main

raise SystemExit(main())
