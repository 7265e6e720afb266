"""Streaming ``kexplain explain``: the data file in blocks, each block's tables appended to the outputs.

With CSV data and outputs, memory is bounded by one block (its values, interactions and their
long-layout tables) plus the model and background, whatever the number of rows: the data are read
a block at a time and every output is appended to a temporary file renamed into place when
complete.  Parquet data (N x d numbers) are read whole and explained a block at a time; a Parquet
output is written a row group per block, so its memory is bounded by a block too.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._files import temporary_path
from .._optional import require
from ._tables import _CSV_SUFFIXES, CLIError, iter_csv_chunks, os_error, read_table

#: memory the default streaming aims at for one block's tables (values, interactions and their
#: long-layout frames, about 120 bytes per written cell)
BLOCK_BYTES = 64 * 2**20


def is_csv(path: str | Path) -> bool:
    """Whether ``path`` names a CSV file (``.csv``, ``.csv.gz``)."""
    return Path(path).name.lower().endswith(_CSV_SUFFIXES)


def block_rows(args: argparse.Namespace, d: int, n_outputs: int) -> int:
    """Rows per block: ``--chunk-size``, else a default that keeps a block's tables near
    :data:`BLOCK_BYTES` (between 256 and 100,000 rows).

    Examples
    --------
    >>> import argparse
    >>> from kexplain.cli._stream import block_rows
    >>> block_rows(argparse.Namespace(chunk_size=None, interactions="sii"), d=10, n_outputs=1)
    5084
    """
    if args.chunk_size is not None:
        return int(args.chunk_size)
    cells = (d + (d * d if args.interactions else 0)) * max(1, n_outputs)
    return int(min(100_000, max(256, BLOCK_BYTES // (120 * cells))))


def data_blocks(args: argparse.Namespace, rows: int) -> Iterator[Any]:
    """The data file as DataFrames of ``rows`` rows: CSV read a block at a time, Parquet read whole
    (its numbers) and cut into blocks."""
    if is_csv(args.data) or args.chunk_size is not None:  # --chunk-size streams CSV only (else: refused there)
        yield from iter_csv_chunks(args.data, "--data", rows)
        return
    frame = read_table(args.data, "--data")
    for start in range(0, max(len(frame), 1), rows):
        yield frame.iloc[start : start + rows]


class Appender:
    """Appends tables to a temporary file renamed into place at the end (no partial file).

    CSV outputs are appended block by block; Parquet outputs are written a row group per block
    through ``pyarrow.parquet.ParquetWriter``.  Either way the memory is bounded by a block.
    """

    def __init__(self, path: Path, option: str) -> None:
        self.path, self.option = path, option
        self.tmp = temporary_path(path)  # the same temporary name as every other output file
        self.started = False
        self.writer: Any = None

    def add(self, frame: Any) -> None:
        if not is_csv(self.path):
            self._add_parquet(frame)
            return
        try:
            frame.to_csv(self.tmp, mode="a" if self.started else "w", header=not self.started, index=False)
        except OSError as exc:
            self.discard()
            raise os_error(self.option, self.path, exc) from None
        self.started = True

    def _add_parquet(self, frame: Any) -> None:
        pa = require("pyarrow", "writing Parquet files")
        pq = require("pyarrow.parquet", "writing Parquet files")
        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, table.schema)
            elif not table.schema.equals(self.writer.schema, check_metadata=False):
                table = table.cast(self.writer.schema)  # a later block whose column types were inferred otherwise
            self.writer.write_table(table)
        except OSError as exc:
            self.discard()
            raise os_error(self.option, self.path, exc) from None
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            self.discard()
            raise CLIError(
                f"{self.option} {self.path}: a column's type differs between blocks of the data ({exc}); write a "
                ".csv output, or give the data as Parquet so that every block has the same column types."
            ) from None
        self.started = True

    def finish(self) -> None:
        try:
            if self.writer is not None:
                self.writer.close()
                self.writer = None
            os.replace(self.tmp, self.path)
        except OSError as exc:
            self.discard()
            raise os_error(self.option, self.path, exc) from None

    def discard(self) -> None:
        if self.writer is not None:
            try:
                self.writer.close()
            except OSError:
                pass
            self.writer = None
        if self.tmp.exists():
            self.tmp.unlink()
