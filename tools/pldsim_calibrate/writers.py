"""The files pldsim-calibrate writes (a fit record, a model file,
validate's tables): each tried before any point runs, and written whole
or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile

from .readers import Refused


def check_writable(path: str, what: str) -> None:
    """Refuses, before any point runs, a FILE that write_file() could not
    replace: a directory, a device, a missing directory, one where no
    file can be created.  Creating one is the test: os.access() says yes
    to root on a read-only file system."""
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise Refused(f"{path}: is a directory; expected a file to write {what} in")
    if os.path.exists(target) and not os.path.isfile(target):
        raise Refused(f"{path}: not a regular file; expected a file to write {what} in")
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".pldsim-calibrate-")
    except OSError as e:
        raise Refused(f"{path}: cannot create a file in {os.path.dirname(target)}: "
                      f"{e.strerror}; expected a file to write {what} in") from None
    os.close(fd)
    os.unlink(tmp)


def write_file(path: str, text: str) -> None:
    """Writes `text` into `path` through a temporary file in its directory,
    renamed over it: a failed or interrupted write leaves the old file
    whole.  The new file keeps the old one's mode (or the umask's)."""
    target = os.path.realpath(path)  # a symbolic link keeps pointing at the file
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".pldsim-calibrate-")
    except OSError as e:
        raise Refused(f"{path}: cannot write it: {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", newline="") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as e:  # an interrupt too: no stray temporary file
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise Refused(f"{path}: cannot write it: {e.strerror}") from None
        raise
