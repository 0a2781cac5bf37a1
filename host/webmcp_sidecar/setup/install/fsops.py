"""File writes that never leave a half-written config, and errors a person can act on."""

from __future__ import annotations

import errno
import os
import shutil
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
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return created


def remove_empty_dirs(dirs: list[str]) -> None:
    """Remove dirs we created (deepest first) as long as they are empty."""
    for d in dirs:
        try:
            os.rmdir(d)
        except OSError:
            return


def backup(path: Path, backup_dir: Path, label: str) -> Path:
    """Copy `path` into `backup_dir` under a name no earlier backup uses."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    base = f"{label}-{path.name}"
    dest = backup_dir / base
    n = 1
    while dest.exists():
        dest = backup_dir / f"{base}.{n}"
        n += 1
    shutil.copy2(real_path(path), dest)
    return dest


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
