"""Output files written safely: checked before any work, written whole or not at all.

Every command of the command line and every file the report writes goes through here, so that
they all behave the same way:

- a path that exists, or is a symbolic link (even a dangling one), is refused unless the caller
  allows replacing it (``--force``): a link is never followed without that;
- the file is written to a temporary name in the same folder and renamed over the path only when
  complete (``os.replace``), so an interrupted or failed write (a full disk, SIGTERM, an
  exception) leaves no partial file posing as complete, and an earlier file stays intact;
- renaming replaces the link itself, never the file a symbolic link points to.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["OutputPathError", "check_new_file", "replace_atomically", "temporary_path", "write_atomically"]


class OutputPathError(ValueError):
    """An output path that cannot or may not be written (the message names the option).

    Examples
    --------
    >>> from kexplain._files import OutputPathError
    >>> isinstance(OutputPathError("--out v.csv: already exists"), ValueError)
    True
    """


def check_new_file(path: str | Path, option: str = "--out", force: bool = False) -> Path:
    """Check, before any work, that a file may be written at ``path``.

    Parameters
    ----------
    path : str or Path
        The file to write, in an existing folder.
    option : str
        The option the path came from, named in error messages.
    force : bool
        Whether an existing file or a symbolic link (which is then replaced, not followed) may be
        replaced.

    Returns
    -------
    Path

    Raises
    ------
    OutputPathError
        For a directory, a missing folder, or (without ``force``) an existing file or any
        symbolic link, dangling or not.

    Examples
    --------
    >>> import tempfile, pathlib, os
    >>> from kexplain._files import OutputPathError, check_new_file
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> os.symlink(folder / "elsewhere.csv", folder / "v.csv")  # a dangling link
    >>> try:
    ...     check_new_file(folder / "v.csv")
    ... except OutputPathError as exc:
    ...     print(str(exc).split(": ", 1)[1])
    is a symbolic link (to ...elsewhere.csv); pass --force to replace the link (its target is left alone).
    >>> check_new_file(folder / "v.csv", force=True).name
    'v.csv'
    """
    path = Path(path)
    if path.is_symlink():
        if not force:
            raise OutputPathError(
                f"{option} {path}: is a symbolic link (to ...{Path(os.readlink(path)).name}); pass --force to "
                "replace the link (its target is left alone)."
            )
        return path
    if path.is_dir():
        raise OutputPathError(f"{option} {path}: is a directory; give a file name.")
    if path.parent and not path.parent.is_dir():
        raise OutputPathError(f"{option} {path}: folder {path.parent} does not exist.")
    if path.exists() and not force:
        raise OutputPathError(f"{option} {path}: already exists; pass --force to overwrite it.")
    return path


def temporary_path(path: str | Path) -> Path:
    """The temporary name a file is written under before it is renamed to ``path``.

    It is in the same folder (so the rename is atomic), keeps the file's ending (pandas picks the
    format and compression from it) and starts with a dot, so that an interrupted run leaves
    nothing that looks like the output.

    Examples
    --------
    >>> from kexplain._files import temporary_path
    >>> temporary_path("out/values.csv.gz").name.startswith(".kexplain-tmp-")
    True
    """
    path = Path(path)
    return path.with_name(f".kexplain-tmp-{os.getpid()}-{path.name}")


@contextlib.contextmanager
def replace_atomically(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it over ``path`` when the block succeeds.

    When the block raises (SIGTERM included, where it is turned into an exception), the temporary
    file is removed and ``path`` is untouched.  A symbolic link at ``path`` is replaced by the
    file, its target is never written.

    Parameters
    ----------
    path : str or Path

    Yields
    ------
    Path
        Where to write.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kexplain._files import replace_atomically
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> with replace_atomically(path) as tmp:
    ...     _ = tmp.write_text("complete")
    >>> path.read_text()
    'complete'
    """
    path = Path(path)
    tmp = temporary_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists() or tmp.is_symlink():
            with contextlib.suppress(OSError):
                tmp.unlink()


def write_atomically(path: str | Path, write: Callable[[Path], Any]) -> Path:
    """Call ``write(tmp)`` on a temporary path next to ``path``, then rename it over ``path``.

    Parameters
    ----------
    path : str or Path
    write : callable
        Writes the whole file to the path it is given.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kexplain._files import write_atomically
    >>> path = write_atomically(pathlib.Path(tempfile.mkdtemp()) / "a.txt", lambda p: p.write_text("x"))
    >>> path.read_text()
    'x'
    """
    path = Path(path)
    with replace_atomically(path) as tmp:
        write(tmp)
    return path
