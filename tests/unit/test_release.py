"""The release's pieces that need no browser: one version everywhere, the store and Firefox
manifests, and the extension ids the host lets in (tests/e2e/test_release.py runs a release)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from webmcp_sidecar import EXTENSION_ID, GECKO_ID, extension_ids
from webmcp_sidecar.setup.install.manifest import manifest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("release", ROOT / "installers" / "release.py")
assert _spec and _spec.loader
release = importlib.util.module_from_spec(_spec)
sys.modules["release"] = release
_spec.loader.exec_module(release)

SOURCE = json.loads((ROOT / "extension" / "manifest.json").read_text())
STORE_ID = "abcdefghijklmnopabcdefghijklmnop"


def test_the_version_is_the_same_in_pyproject_the_manifest_and_the_package():
    assert release.version_problems(ROOT) == []


def test_a_version_that_differs_is_named(tmp_path: Path):
    for rel in ("pyproject.toml", "extension/manifest.json", "host/webmcp_sidecar/__init__.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    m = json.loads((tmp_path / "extension/manifest.json").read_text())
    m["version"] = "9.9.9"
    (tmp_path / "extension/manifest.json").write_text(json.dumps(m))
    [problem] = release.version_problems(tmp_path)
    assert problem.startswith("extension/manifest.json says 9.9.9, pyproject ")


def test_the_store_build_has_no_key_no_debugger_and_no_firefox_keys():
    m = release.store_manifest(SOURCE)
    assert "key" not in m and "debugger" not in m["permissions"]
    assert "browser_specific_settings" not in m and "sidebar_action" not in m
    assert m["background"] == {"service_worker": "background/service-worker.js", "type": "module"}
    # Everything else is the source's.
    assert [p for p in SOURCE["permissions"] if p != "debugger"] == m["permissions"]
    assert m["content_scripts"] == SOURCE["content_scripts"] and m["version"] == SOURCE["version"]


def test_the_firefox_build_has_no_chrome_keys():
    m = release.firefox_manifest(SOURCE)
    for key in ("key", "minimum_chrome_version", "side_panel"):
        assert key not in m
    assert not {"debugger", "sidePanel", "offscreen"} & set(m["permissions"])
    assert m["background"] == {"scripts": ["background/service-worker.js"], "type": "module"}
    assert m["browser_specific_settings"]["gecko"]["id"] == GECKO_ID


def test_the_zip_holds_the_tree_without_development_files_and_is_reproducible(tmp_path: Path):
    tree = release.write_tree(ROOT / "extension", tmp_path / "t", release.store_manifest(SOURCE))
    a = release.zip_tree(tree, tmp_path / "a.zip")
    b = release.zip_tree(tree, tmp_path / "b.zip")
    assert a.read_bytes() == b.read_bytes()
    names = zipfile.ZipFile(a).namelist()
    assert "manifest.json" in names and "background/service-worker.js" in names
    assert not [n for n in names if n.endswith("tsconfig.json")]
    assert "key" not in json.loads(zipfile.ZipFile(a).read("manifest.json"))


def test_host_manifests_allow_the_store_id_once_it_is_known(monkeypatch: pytest.MonkeyPatch):
    assert manifest(Path("/x"))["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/"]
    monkeypatch.setattr(extension_ids, "STORE_EXTENSION_ID", STORE_ID)
    assert manifest(Path("/x"), [STORE_ID])["allowed_origins"] == [
        f"chrome-extension://{EXTENSION_ID}/", f"chrome-extension://{STORE_ID}/"]
    assert manifest(Path("/x"), family="firefox")["allowed_extensions"] == [GECKO_ID]


def test_ids_from_the_environment_are_checked():
    env = {extension_ids.ENV_VAR: f" {STORE_ID}, me@example.org "}
    assert extension_ids.from_env(env) == [STORE_ID, "me@example.org"]
    with pytest.raises(ValueError, match="'chrome-extension://x' is not an extension id"):
        extension_ids.from_env({extension_ids.ENV_VAR: "chrome-extension://x"})
    assert extension_ids.from_env({}) == []


def test_doctor_names_the_build_that_connected(monkeypatch: pytest.MonkeyPatch):
    d = extension_ids.describe_origin
    assert d(f"chrome-extension://{EXTENSION_ID}/").startswith("the development build")
    assert d(f"chrome-extension://{STORE_ID}/").startswith("an extension id of your own")
    monkeypatch.setattr(extension_ids, "STORE_EXTENSION_ID", STORE_ID)
    assert d(f"chrome-extension://{STORE_ID}/").startswith("the Chrome Web Store build")
    assert d("moz-extension://0b6c1f3e-aaaa-bbbb-cccc-123456789abc/").startswith(
        "the Firefox add-on")
    assert d("").startswith("an unknown extension")
