"""File writes that never leave a half-written config, and errors a person can act on."""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path


def real_path(path: Path) -> Path:
    """Write through symlinks (dotfile managers link configs), never replace the link."""
    return path.resolve() if path.is_symlink() else path


def missing_dirs(path: Path) -> list[Path]:
    """The ancestors of `path` that do not exist yet, deepest first."""
    out = []
    d = path.parent
    while not d.exists() and d != d.parent:
        out.append(d)
        d = d.parent
    return out


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> list[Path]:
    """Write `data` to `path` through a temp file + rename; returns the dirs it had to create.

    An existing file keeps its permission bits; `mode` applies to a new one.
    """
    target = real_path(path)
    created = missing_dirs(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        mode = target.stat().st_mode & 0o7777
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        fd = open_new(tmp, mode)
        if fd is not None:
            break
    try:
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return created


def open_new(path: Path, mode: int) -> int | None:
    """A new file of ours, with its final mode from the first moment; None if `path` exists.

    Client configs hold other servers' secrets: never a world-readable moment (a temp file, then
    chmod), never through a link someone planted (O_NOFOLLOW), never someone else's file
    (O_EXCL)."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(path, flags, mode & 0o777)
    except FileExistsError:
        return None
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)  # the exact bits, whatever the umask took away (it only takes)
    return fd


def remove_empty_dirs(dirs: list[str]) -> None:
    """Remove dirs we created (deepest first) as long as they are empty."""
    for d in dirs:
        try:
            os.rmdir(d)
        except OSError:
            return


def backup(path: Path, backup_dir: Path, label: str) -> Path:
    """Copy `path` into `backup_dir` (private: 0700, files 0600) under a name no earlier backup
    uses."""
    backup_dir.parent.mkdir(parents=True, exist_ok=True)
    for d in (backup_dir.parent, backup_dir):  # the backups folder and this run's, both private
        d.mkdir(mode=0o700, exist_ok=True)
        os.chmod(d, 0o700)
    data = real_path(path).read_bytes()
    base = f"{label}-{path.name}"
    dest, n = backup_dir / base, 1
    while (fd := open_new(dest, 0o600)) is None:
        dest = backup_dir / f"{base}.{n}"
        n += 1
    try:
        with open(fd, "wb") as f:
            f.write(data)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return dest


def remove_backups(paths: list[str], backups_root: Path) -> None:
    """Delete backups we made (they hold other servers' secrets), then their dirs once empty."""
    for p in paths:
        Path(p).unlink(missing_ok=True)
    dirs = {str(Path(p).parent) for p in paths} | {str(backups_root)}
    for d in sorted(dirs, key=lambda d: -len(Path(d).parts)):
        remove_empty_dirs([d])


def explain(e: OSError, path: Path) -> str:
    """One sentence on why `path` could not be written, and what to do about it."""
    if isinstance(e, PermissionError) or e.errno in (errno.EACCES, errno.EPERM):
        where = next((p for p in [path, *path.parents] if p.exists()), path)
        return (f"permission denied writing {path} ({where} is read-only or belongs to another "
                f"user). Fix: make {where} writable for you, or skip this target.")
    if e.errno == errno.EROFS:
        return f"{path} is on a read-only file system. Fix: skip this target."
    if isinstance(e, NotADirectoryError | FileExistsError) or e.errno in (errno.ENOTDIR,
                                                                         errno.EEXIST):
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            return (f"cannot create {path}: {blocker} is a file where a folder is needed. "
                    f"Fix: move {blocker} out of the way.")
    return f"cannot write {path}: {e.strerror or e}."
