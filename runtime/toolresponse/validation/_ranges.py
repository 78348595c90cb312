"""Byte ranges of a JSON-lines file read by the worker that checks them, and inputs beyond local files.

A file is cut at nominal offsets (``split_ranges``: every ``block`` bytes); the
worker that checks a range finds the real boundaries itself, so nobody reads
the file twice and no line is sent between processes:

- a range holds the lines that *start* at or after its nominal start and
  before its nominal end (a line starts at byte 0 or just after a ``\\n``);
- so each line belongs to exactly one range, however the offsets fall, and
  a range may hold no line at all (its first line start is past its end);
- the worker numbers its lines from 1 and counts them (``RangeResult.lines``):
  the one who puts the ranges back in order adds the lines of the ranges
  before (``renumber`` in the bulk API), so its records are those of one process.

Lines are split on ``\\n`` exactly as the single-process reader splits them
(``readlines``), and read in pieces of about ``piece_bytes`` so that memory
stays flat whatever the range's size.

``open_input`` opens what the bulk API reads: a local file with ``open``; a
URL (``s3://``, ``gs://``, ``https://``, ``memory://``, ...) or a compressed file
(``.gz``, ``.zst``) through fsspec, which the ``dask`` extra installs; without it
the error names the extra. A compressed file cannot be cut (``splittable``).
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Generic, NamedTuple, TypeVar

from ._ijson import BINARY_SNIFF_BYTES

__all__ = [
    "COMPRESSIONS",
    "EXTRA",
    "LineRange",
    "RangeResult",
    "input_size",
    "is_url",
    "open_input",
    "read_range",
    "split_ranges",
    "splittable",
    "without_compression",
]

T = TypeVar("T")

COMPRESSIONS = {".gz": "gzip", ".zst": "zstd"}
"""The compressed files read (through fsspec), by extension."""
EXTRA = "pip install 'toolresponse[dask]'"
"""What installs fsspec and zstandard."""
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class LineRange(NamedTuple):
    """The lines of ``path`` that start in ``[start, end)`` (``end`` None: up to the end of the file)."""

    path: str
    """What to open (a local path or a URL)."""
    name: str
    """How to show it."""
    start: int
    end: int | None


class RangeResult(NamedTuple, Generic[T]):
    """What a worker found in one range: its checker's answers, and how many lines it read."""

    parts: list[T]
    lines: int
    rest: LineRange | None = None
    """The lines of the range left unread when the reader stopped early (it may hold none), or None."""


def is_url(path: str) -> bool:
    """Whether ``path`` names its storage (``scheme://...``) rather than a local file."""
    return _URL.match(path) is not None and not path.startswith("file://")


def _compression(path: str) -> str | None:
    return COMPRESSIONS.get(os.path.splitext(path)[1].lower())


def without_compression(path: str) -> str:
    """``path`` without its compression extension: ``logs.jsonl.gz`` is read as ``logs.jsonl``."""
    root, extension = os.path.splitext(path)
    return root if extension.lower() in COMPRESSIONS else path


def splittable(path: str) -> bool:
    """Whether a file can be cut into byte ranges: not compressed, and not standard input."""
    return path != "-" and _compression(path) is None


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError:
        raise OSError(f"reading URLs and compressed files needs fsspec: {EXTRA}") from None
    return fsspec


def _storage_error(path: str, error: Exception) -> OSError:
    """An fsspec failure that is not an ``OSError`` (an unknown protocol, a missing backend) as one."""
    return OSError(f"cannot open {path} through fsspec: {error}")


class _Prefixed(io.RawIOBase):
    """A file descriptor's bytes after ``head``, bytes already read from it."""

    def __init__(self, fd: int, head: bytes) -> None:
        super().__init__()
        self._fd = fd
        self._head = head

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        return os.readv(self._fd, [buffer])

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


NO_WRITER = (
    "a FIFO that no process has open for writing (it is read only while its writer runs;"
    " pipe the responses into - instead)"
)


def open_local(path: str) -> IO[bytes]:
    """``path`` opened for reading, never waiting: a FIFO without a writer is an ``OSError``."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            try:
                head = os.read(fd, BINARY_SNIFF_BYTES)
            except BlockingIOError:
                head = b""  # a writer is there, with nothing written yet: wait for it
            else:
                if not head:
                    raise OSError(errno.ENXIO, NO_WRITER)
            os.set_blocking(fd, True)
            return io.BufferedReader(_Prefixed(fd, head))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@contextmanager
def open_input(path: str) -> Iterator[IO[bytes]]:
    """``path`` open for reading bytes: local files directly, URLs and compressed files through fsspec.

    Every failure is an ``OSError`` with a reason a report can show."""
    compression = _compression(path)
    if compression is None and not is_url(path):
        with open_local(path) as stream:
            yield stream
        return
    fsspec = _fsspec()
    try:
        opened = fsspec.open(path, "rb", compression=compression)
        stream = opened.open()
    except OSError:
        raise
    except (ImportError, ValueError, RuntimeError) as error:
        raise _storage_error(path, error) from None
    try:
        # The bulk reader peeks at the first bytes (the binary-file rule): give every stream a buffer.
        yield stream if hasattr(stream, "peek") else io.BufferedReader(stream)
    finally:
        opened.close()


def input_size(path: str) -> int | None:
    """The size in bytes of a local file or a stored object, None if it cannot be known."""
    try:
        if not is_url(path):
            return os.stat(path).st_size
        fs, located = _fsspec().core.url_to_fs(path)
        size = fs.size(located)
    except (OSError, ImportError, ValueError):
        return None
    return size if isinstance(size, int) else None


def split_ranges(path: str, name: str, size: int, block: int) -> list[LineRange]:
    """``path`` (``size`` bytes when listed) as ranges of about ``block`` bytes; the last reads to the end."""
    if block < 1:
        raise ValueError(f"a range must be at least one byte, not {block}")
    starts = range(0, max(size, 1), block)
    return [LineRange(path, name, start, start + block if start + block < size else None) for start in starts]


def _line_start(stream: IO[bytes], offset: int) -> int:
    """The first line start at or after ``offset``: byte 0, or the byte after a ``\\n``."""
    if offset <= 0:
        return 0
    stream.seek(offset - 1)
    stream.readline()
    return stream.tell()


def read_range(stream: IO[bytes], start: int, end: int | None, piece_bytes: int) -> Iterator[list[bytes]]:
    """The lines of ``stream`` that start in ``[start, end)``, in pieces of about ``piece_bytes``."""
    begin = _line_start(stream, start)
    stop = None if end is None else _line_start(stream, end)
    stream.seek(begin)
    remaining = None if stop is None else stop - begin
    while remaining is None or remaining > 0:
        # readlines(hint) may read one line more once the lines reach ``hint`` exactly (io does),
        # so it is asked for one byte less than the range holds, and a last line alone is read alone.
        hint = piece_bytes if remaining is None else min(piece_bytes, remaining - 1)
        lines = stream.readlines(hint) if hint > 0 else [stream.readline()]
        if not lines[-1:] or not lines[-1]:
            return
        if remaining is not None:
            # The range ends at a line start, so whole lines never run past it.
            remaining -= sum(map(len, lines))
        yield lines
