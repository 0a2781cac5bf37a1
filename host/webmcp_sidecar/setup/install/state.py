"""What `install` added, kept in the data dir so `uninstall` removes exactly that."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from webmcp_sidecar.setup.install.fsops import write_atomic

STATE_FILE = "install-state.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FileRecord(BaseModel):
    """A file we wrote whole (manifest, launcher, flatpak wrapper)."""

    path: str
    what: str
    sha256: str
    created_dirs: list[str] = Field(default_factory=list)  # deepest first; removed when empty


class RegistryRecord(BaseModel):
    hive: str
    key: str
    value: str
    previous: str | None = None


EntryAction = Literal["added", "changed", "kept"]


class ClientRecord(BaseModel):
    """Our entry in an MCP client's config file.

    `entry` says what install did to it: "added" (there was none: uninstall removes it),
    "changed" (the user's entry was there and install repointed its stale command: uninstall
    puts the entry from `baseline` back), "kept" (the user's entry was there and install left
    it: uninstall leaves it too). `written_run` names what the entry ran when install wrote it
    (`clients.run_digest`): an entry that runs something else since is the user's again.
    """

    client: str
    path: str
    entry: EntryAction = "added"
    written_run: str = ""
    created_file: bool = False
    created_container: bool = False
    created_dirs: list[str] = Field(default_factory=list)
    # A copy of the file as it was before our first edit (None: there was no file). While
    # nobody else has changed the file since (`restorable`, and it still hashes to
    # `written_sha256`), uninstall puts that copy back byte for byte; otherwise it removes our
    # entry by text editing.
    baseline: str | None = None
    restorable: bool = True
    written_sha256: str = ""
    # Every backup install made of this file (the baseline first): uninstall deletes them, as
    # they hold whatever secrets the client's other servers keep in it.
    backups: list[str] = Field(default_factory=list)

    def all_backups(self) -> list[str]:
        return list(dict.fromkeys([*([self.baseline] if self.baseline else []), *self.backups]))


class InstallState(BaseModel):
    version: int = 1
    files: list[FileRecord] = Field(default_factory=list)
    registry: list[RegistryRecord] = Field(default_factory=list)
    clients: list[ClientRecord] = Field(default_factory=list)
    extension_ids: list[str] = Field(default_factory=list)
    # Folders above the data dir that the first install created (deepest first): uninstall
    # removes them once the data dir has gone.
    created_dirs: list[str] = Field(default_factory=list)

    def empty(self) -> bool:
        return not (self.files or self.registry or self.clients)

    def file(self, path: Path | str) -> FileRecord | None:
        return next((f for f in self.files if f.path == str(path)), None)

    def client(self, key: str, path: Path | str) -> ClientRecord | None:
        return next((c for c in self.clients if c.client == key and c.path == str(path)), None)

    def put_file(self, rec: FileRecord) -> None:
        old = self.file(rec.path)
        if old is not None:
            rec.created_dirs = rec.created_dirs or old.created_dirs
            self.files.remove(old)
        self.files.append(rec)

    def put_registry(self, rec: RegistryRecord) -> None:
        old = next((r for r in self.registry if (r.hive, r.key.lower()) ==
                    (rec.hive, rec.key.lower())), None)
        if old is not None:
            rec.previous = old.previous
            self.registry.remove(old)
        self.registry.append(rec)


def state_path(data_dir: Path) -> Path:
    return data_dir / STATE_FILE


def load(data_dir: Path) -> tuple[InstallState, str | None]:
    """The state, and a warning when the file exists but cannot be read."""
    p = state_path(data_dir)
    try:
        return InstallState.model_validate_json(p.read_bytes()), None
    except FileNotFoundError:
        return InstallState(), None
    except (OSError, ValidationError, ValueError) as e:
        return InstallState(), f"could not read {p} ({type(e).__name__}); ignoring it"


def save(data_dir: Path, state: InstallState) -> None:
    p = state_path(data_dir)
    if state.empty():
        p.unlink(missing_ok=True)
        return
    # Private: it names every config file we touched and where their backups are.
    write_atomic(p, (json.dumps(state.model_dump(), indent=2) + "\n").encode("utf-8"), 0o600)
