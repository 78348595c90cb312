"""Opening an input for reading bytes: a local file (a FIFO without a writer refused, never
waited on), a URL through fsspec, decompressed (``.gz``, ``.zst``). Every failure, when the input
is opened or read, is an ``OSError`` a report can show.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import IO, Any

from ._ijson import BINARY_SNIFF_BYTES

COMPRESSIONS = {".gz": "gzip", ".zst": "zstd"}
EXTRA = "pip install 'toolresponse[dask]'"


def compression_of(path: str) -> str | None:
    """``gzip``, ``zstd``, or None, by the name's last extension."""
    return COMPRESSIONS.get(os.path.splitext(path)[1].lower())


def is_url(path: str) -> bool:
    """Whether ``path`` names its storage (``scheme://...``) rather than a local file."""
    return re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", path) is not None and not path.startswith("file://")


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


_NO_WRITER = "a FIFO that no process has open for writing (it is read only while its writer runs"
NO_WRITER = _NO_WRITER + "; pipe the responses into - instead)"
NO_WRITER_OF_FILE = _NO_WRITER + ")"
"""The same, for a command that reads files only (no standard input to pipe into)."""


def open_local(path: str, *, no_writer: str = NO_WRITER) -> IO[bytes]:
    """``path`` opened for reading, never waiting: a FIFO without a writer is an ``OSError``
    (its reason ``no_writer``)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            try:
                head = os.read(fd, BINARY_SNIFF_BYTES)
            except BlockingIOError:
                head = b""  # a writer is there, with nothing written yet: wait for it
            else:
                if not head:
                    raise OSError(errno.ENXIO, no_writer)
            os.set_blocking(fd, True)
            return io.BufferedReader(_Prefixed(fd, head))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError:
        raise OSError(f"reading URLs needs fsspec: {EXTRA}") from None
    return fsspec


_COMPRESSED_PIECE = 1 << 8
"""Compressed bytes decompressed at once: they expand to at most 8 MiB (a zstd block of 4 bytes gives
128 KiB; gzip expands some 1,000 times), far below ``MAX_LINE_BYTES``."""


def _decompressor(compression: str) -> Callable[[], Any]:
    if compression == "gzip":
        return partial(zlib.decompressobj, 16 + zlib.MAX_WBITS)
    try:
        import zstandard
    except ImportError:
        raise OSError(f"reading .zst files needs zstandard: {EXTRA}") from None
    return zstandard.ZstdDecompressor().decompressobj


class _Decompressed(io.RawIOBase):
    """The bytes that the gzip members or zstd frames of ``raw`` hold, one after another. Bytes
    that are not of the format, or a stream that ends inside a member or frame (a file cut short),
    are an ``OSError`` saying so, never an end of input."""

    def __init__(self, raw: IO[bytes], compression: str) -> None:
        super().__init__()
        self._raw = raw
        self._compression = compression
        self._new = _decompressor(compression)
        self._decoder = self._new()
        self._fed = False  # whether the current member or frame has begun
        self._empty = True  # no byte read: an empty file holds no member or frame
        self._out = memoryview(b"")  # decompressed bytes not yet read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._out:
            if self._decoder.eof:
                data = self._decoder.unused_data or self._raw.read(_COMPRESSED_PIECE)
                self._decoder, self._fed = self._new(), False
            else:
                data = self._raw.read(_COMPRESSED_PIECE)
            if not data:
                if self._empty or (self._fed and not self._decoder.eof):
                    unit = "member" if self._compression == "gzip" else "frame"
                    where = f"before its first {unit}" if self._empty else f"inside a {unit}"
                    raise OSError(f"truncated: the {self._compression} data ends {where}")
                return 0
            self._empty = False
            try:
                self._out = memoryview(self._decoder.decompress(data))
            except Exception as error:  # zlib.error, zstandard.ZstdError: the bytes are not of the format
                raise OSError(f"not {self._compression} data, or damaged: {error}") from None
            self._fed = True
        count = min(len(buffer), len(self._out))
        buffer[:count] = self._out[:count]
        self._out = self._out[count:]
        return count


@contextmanager
def open_input(path: str) -> Iterator[IO[bytes]]:
    """``path`` open for reading bytes, decompressed (``.gz``, ``.zst``); every failure, when it is
    opened or read, is an ``OSError`` a report can show."""
    compression = compression_of(path)
    with _open_raw(path) as raw:
        yield raw if compression is None else io.BufferedReader(_Decompressed(raw, compression))


@contextmanager
def _open_raw(path: str) -> Iterator[IO[bytes]]:
    if not is_url(path):
        with open_local(path) as stream:
            yield stream
        return
    try:
        opened = _fsspec().open(path, "rb")
        stream = opened.open()
    except (ImportError, ValueError, RuntimeError) as error:  # an unknown protocol, a missing backend
        raise OSError(f"cannot open {path} through fsspec: {error}") from None
    try:  # the reader peeks at the first bytes (the binary-file rule): every stream gets a buffer
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
