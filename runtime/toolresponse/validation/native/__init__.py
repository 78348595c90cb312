"""The validator's native scans: C extensions beside their Python twins.

- ``_jsonscan`` (``_jsonscan.c``): the duplicate-name scan of JSON text and the
  path at a position; its twins are in ``toolresponse.validation._ijson``.
- ``_projector`` (``_projector.c``): the projection that keys the explanation
  cache; its twin is ``Projection`` in ``toolresponse.validation._engine``.

Both are optional: a build made without a C compiler runs the twins, which
give the same answers (the test suite holds them to it).
"""
