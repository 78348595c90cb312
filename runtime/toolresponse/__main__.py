"""``python -m toolresponse`` is the ``toolresponse`` command."""

from .cli import main

raise SystemExit(main())
