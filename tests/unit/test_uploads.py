"""Which local files browser_upload_file may hand to a page (tools/uploads.py) and the
`webmcp-sidecar uploads` commands."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from webmcp_sidecar.cli import main
from webmcp_sidecar.tools import uploads
from webmcp_sidecar.tools.uploads import UploadRefused


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("WEBMCP_SIDECAR_DATA_DIR", raising=False)
    monkeypatch.delenv("WEBMCP_SIDECAR_LOG_DIR", raising=False)
    return h


@pytest.fixture
def up(home) -> Path:
    d = home / "Uploads"
    (d / "sub").mkdir(parents=True)
    (d / "cv.pdf").write_bytes(b"%PDF")
    (d / "sub" / "photo.jpg").write_bytes(b"\xff\xd8")
    uploads.allow(str(d))
    return d


def refused(path: Path | str, says: str) -> None:
    with pytest.raises(UploadRefused) as e:
        uploads.check([str(path)])
    assert says in str(e.value), str(e.value)


def test_nothing_is_allowed_until_the_user_allows_a_folder(home):
    f = home / "Documents" / "cv.pdf"
    f.parent.mkdir()
    f.write_bytes(b"%PDF")
    refused(f, "Uploads are off")
    refused(f, "webmcp-sidecar uploads allow <folder>")
    uploads.allow(str(f.parent))
    assert uploads.check([str(f)]) == [str(f)]


def test_files_in_allowed_folders_and_below_come_back_resolved(up, home):
    assert uploads.check([str(up / "cv.pdf"), str(up / "sub" / "photo.jpg")]) == [
        str(up / "cv.pdf"), str(up / "sub" / "photo.jpg")]
    (up / "link.pdf").symlink_to(up / "cv.pdf")
    assert uploads.check([str(up / "link.pdf")]) == [str(up / "cv.pdf")]
    outside = home / "other.txt"
    outside.write_text("x")
    refused(outside, "not in a folder the user allowed")
    refused(str(up / ".." / "other.txt"), "not in a folder the user allowed")
    (up / "out-link").symlink_to(outside)  # a link out of the folder does not widen it
    refused(up / "out-link", "not in a folder the user allowed")
    refused("Uploads/cv.pdf", "not an absolute path")


def test_dotfiles_key_dirs_and_browser_data_are_never_uploaded(up, home):
    ssh = home / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("KEY")
    for name in ("id_ed25519", ".env", "vault.kdbx", "Login Data", "Cookies"):
        (up / name).write_text("secret")
    refused(ssh / "id_rsa", "hidden (dot) folder")
    (up / "key").symlink_to(ssh / "id_rsa")  # a link to a key, inside the allowed folder
    refused(up / "key", "it leads to")
    (ssh / "config").write_text("Host *")
    (up / "ssh-dir").symlink_to(ssh, target_is_directory=True)  # a linked key folder
    refused(up / "ssh-dir" / "config", "hidden (dot) folder")
    refused(up / ".env", "hidden (dot) folder")
    for name in ("id_ed25519", "vault.kdbx", "Login Data", "Cookies"):
        refused(up / name, "looks like a key")
    for folder in ("Keychains", "google-chrome", "BraveSoftware", "User Data", ".gnupg", ".aws"):
        d = up / folder
        d.mkdir()
        (d / "file.txt").write_text("x")
        refused(d / "file.txt", "refused")
    # A home's Library (macOS) / AppData (Windows) holds every app's private data.
    lib = home / "Library" / "Mail"
    lib.mkdir(parents=True)
    (lib / "m.eml").write_text("x")
    uploads.allow(str(home))  # even with the whole home allowed
    refused(lib / "m.eml", "where apps keep private data")
    refused(ssh / "id_rsa", "hidden (dot) folder")


def test_only_regular_files(up):
    refused(up / "sub", "not a regular file")
    os.mkfifo(up / "pipe")
    refused(up / "pipe", "not a regular file")
    refused(up / "nope.pdf", "There is no file at")
    with pytest.raises(UploadRefused, match="At most 32"):
        uploads.check([str(up / "cv.pdf")] * 33)
    with pytest.raises(UploadRefused, match="full path"):
        uploads.check([str(up / "cv.pdf") + "\0"])


def test_what_can_be_allowed_and_where_the_list_lives(home, tmp_path):
    (home / ".config").mkdir()
    with pytest.raises(UploadRefused, match="hidden"):
        uploads.allow(str(home / ".config"))
    with pytest.raises(UploadRefused, match="too wide"):
        uploads.allow("/")
    with pytest.raises(UploadRefused, match="too wide"):
        uploads.allow(str(home.parent))
    with pytest.raises(UploadRefused, match="not a folder"):
        uploads.allow(str(home / "nope"))
    real = tmp_path / "real"
    real.mkdir()
    (home / "up").symlink_to(real, target_is_directory=True)
    assert uploads.allow(str(home / "up")) == real  # kept resolved
    f = uploads.config_file()
    assert f == home / ".config" / "webmcp-sidecar" / "uploads.json"  # from HOME alone
    assert stat.S_IMODE(f.stat().st_mode) == 0o600 and uploads.load() == [real]
    # A list others could have written is not trusted: uploads fail closed.
    f.chmod(0o622)
    assert uploads.load() == []
    f.chmod(0o600)
    f.write_text("{not json")
    assert uploads.load() == []


def test_the_cli_allows_lists_and_removes(home, capsys):
    d = home / "Uploads"
    d.mkdir()
    assert main(["uploads", "list"]) == 0
    assert "uploads are off" in capsys.readouterr().out
    assert main(["uploads", "allow", str(d)]) == 0
    assert f"Allowed uploads from {d}" in capsys.readouterr().out
    assert main(["uploads", "list"]) == 0
    assert capsys.readouterr().out.strip() == str(d)
    assert main(["uploads", "allow", str(home / ".ssh")]) == 1
    assert "not a folder" in capsys.readouterr().err
    assert main(["uploads", "remove", str(d)]) == 0
    assert "No longer allowed" in capsys.readouterr().out
    assert uploads.load() == []


def test_one_args_check_for_the_entry_the_host_and_the_agent(up):
    from webmcp_sidecar.tools.browser_tools import LOCAL_FILES

    assert LOCAL_FILES == {"upload_file"}
    link = up / "link.pdf"
    link.symlink_to(up / "cv.pdf")
    args = {"ref": "e3", "paths": [str(link)]}
    assert uploads.checked_args(args) == {"ref": "e3", "paths": [str((up / "cv.pdf").resolve())]}
    assert args["paths"] == [str(link)]  # the caller's args are left as they were
    for bad in (None, str(up / "cv.pdf"), {"0": str(up / "cv.pdf")}):
        with pytest.raises(UploadRefused, match="`paths`"):
            uploads.checked_args({"ref": "e3", "paths": bad})
