"""install / uninstall for Firefox, per OS (all three layouts on any OS), and how the host knows
Firefox's launch arguments. doctor's Firefox checks are in test_doctor.py (they start the host)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.test_install_helpers import install, make_env, uninstall
from webmcp_sidecar import EXTENSION_ID, GECKO_ID, HOST_NAME
from webmcp_sidecar.native_host.launch import Launch, browser_launch, moz_origin
from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install.manifest import manifest
from webmcp_sidecar.setup.install.winregistry import MemoryRegistry

FX = br.by_key("firefox")
MOZ_REG = rf"Software\Mozilla\NativeMessagingHosts\{HOST_NAME}"
UUID = "1dc79572-a92b-44ee-8188-f1ea72c6bad4"

# Where Firefox reads the user's host manifests (not per profile), and a trace of Firefox.
USER = {
    "linux": (".mozilla/native-messaging-hosts", ".mozilla/firefox"),
    "darwin": ("Library/Application Support/Mozilla/NativeMessagingHosts",
               "Library/Application Support/Firefox"),
}


@pytest.mark.parametrize("os_name", ["linux", "darwin"])
def test_user_level_location_and_manifest(tmp_path: Path, os_name: str) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    nm, profiles = USER[os_name]
    (env.home / profiles).mkdir(parents=True)
    assert [b.key for b in br.detect(env)] == ["firefox"]
    [t] = br.targets(FX, env)
    assert t.manifest == env.home / nm / f"{HOST_NAME}.json" and t.reg is None
    plan, failures, _ = install(env, no_clients=True)
    assert failures == [] and plan.problems == [] and [b.key for b in plan.browsers] == ["firefox"]
    m = json.loads(t.manifest.read_bytes())
    assert m["allowed_extensions"] == [GECKO_ID] and "allowed_origins" not in m
    assert m["name"] == HOST_NAME and m["type"] == "stdio"
    assert Path(m["path"]) == env.data_dir / "bin" / "webmcp-sidecar-host"
    uninstall(env)
    assert not t.manifest.exists()


def test_windows_registry_key_under_mozilla(tmp_path: Path) -> None:
    env = make_env(tmp_path, "win32")
    (env.home / "AppData/Roaming/Mozilla/Firefox").mkdir(parents=True)
    reg = MemoryRegistry()
    plan, failures, _ = install(env, reg, no_clients=True)
    assert failures == [] and [b.key for b in plan.browsers] == ["firefox"]
    manifest_path = env.data_dir / "NativeMessagingHosts" / "Mozilla" / f"{HOST_NAME}.json"
    assert reg.get("HKCU", MOZ_REG) == str(manifest_path)
    m = json.loads(manifest_path.read_bytes())
    assert m["allowed_extensions"] == [GECKO_ID] and Path(m["path"]).suffix == ".bat"
    uninstall(env, reg)
    assert reg.values == {} and not manifest_path.exists()


def test_windows_system_install_uses_hklm(tmp_path: Path) -> None:
    env = make_env(tmp_path, "win32")
    reg = MemoryRegistry()
    _plan, failures, _ = install(env, reg, browsers=["firefox"], system=True, no_clients=True)
    assert failures == []
    assert reg.get("HKLM", MOZ_REG) == str(
        env.root / "ProgramData/webmcp-sidecar/NativeMessagingHosts/Mozilla" / f"{HOST_NAME}.json")
    assert reg.get("HKCU", MOZ_REG) is None


@pytest.mark.parametrize(("os_name", "dirs"), [
    ("linux", ["usr/lib/mozilla/native-messaging-hosts", "usr/lib64/mozilla/native-messaging-hosts"]),
    ("darwin", ["Library/Application Support/Mozilla/NativeMessagingHosts"]),
])
def test_system_locations(tmp_path: Path, os_name: str, dirs: list[str]) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    got = [t.manifest for t in br.targets(FX, env, system=True)]
    assert got == [env.root / d / f"{HOST_NAME}.json" for d in dirs]


@pytest.mark.parametrize(("os_name", "probe"), [
    ("linux", "root/usr/bin/firefox-esr"),
    ("linux", "root/snap/bin/firefox"),
    ("linux", "home/.config/mozilla/firefox"),  # Firefox 147+ profiles under XDG_CONFIG_HOME
    ("darwin", "root/Applications/Firefox.app"),
    ("win32", "root/Program Files/Mozilla Firefox/firefox.exe"),
])
def test_detected_by_installed_program(tmp_path: Path, os_name: str, probe: str) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    p = tmp_path / probe
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"")
    assert [b.key for b in br.detect(env)] == ["firefox"]


def test_chrome_and_firefox_side_by_side_each_get_their_form(tmp_path: Path) -> None:
    env = make_env(tmp_path, "linux")
    (env.home / ".config/chromium").mkdir(parents=True)
    (env.home / ".mozilla/firefox").mkdir(parents=True)
    other = "b" * 32
    plan, failures, _ = install(env, no_clients=True, extension_ids=[other, "mine@example.org"])
    assert failures == [] and {b.key for b in plan.browsers} == {"chromium", "firefox"}
    chromium = json.loads((env.home / ".config/chromium/NativeMessagingHosts" /
                           f"{HOST_NAME}.json").read_bytes())
    firefox = json.loads((env.home / ".mozilla/native-messaging-hosts" /
                          f"{HOST_NAME}.json").read_bytes())
    assert chromium["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/",
                                           f"chrome-extension://{other}/"]
    assert firefox["allowed_extensions"] == [GECKO_ID, "mine@example.org"]


def test_a_profile_dir_is_refused_for_firefox(tmp_path: Path) -> None:
    env = make_env(tmp_path, "linux")
    plan, failures, _ = install(env, browsers=["firefox"], user_data_dir=tmp_path / "p",
                                no_clients=True)
    assert plan.steps == [] and failures == []
    assert plan.problems == [br.FIREFOX_NO_PROFILE_DIR]
    assert not (tmp_path / "p").exists()


def test_aliases() -> None:
    assert br.by_key("firefox-esr") is FX and FX.family == "firefox"


def test_manifest_forms() -> None:
    host = Path("/x/host")
    assert manifest(host, ["{12345678-1234-1234-1234-123456789abc}"], "firefox")[
        "allowed_extensions"] == [GECKO_ID, "{12345678-1234-1234-1234-123456789abc}"]
    assert manifest(host, [GECKO_ID, EXTENSION_ID])["allowed_origins"] == [
        f"chrome-extension://{EXTENSION_ID}/"]


# --- the host's launch arguments ------------------------------------------------------------

@pytest.mark.parametrize(("argv", "expected"), [
    (["chrome-extension://abc/"], Launch(origin="chrome-extension://abc/")),
    (["chrome-extension://abc/", "--parent-window=0"], Launch(origin="chrome-extension://abc/")),
    (["/home/u/.mozilla/native-messaging-hosts/io.webmcp.sidecar.json", GECKO_ID],
     Launch(addon_id=GECKO_ID)),
    ([r"C:\Users\u\AppData\io.webmcp.sidecar.JSON", "{12345678-1234-1234-1234-123456789abc}"],
     Launch(addon_id="{12345678-1234-1234-1234-123456789abc}")),
    (["mcp"], None),
    (["doctor", "--json"], None),
    (["x.json", "not an id"], None),
    (["x.json", GECKO_ID, "more"], None),
    (["x.txt", GECKO_ID], None),
    (["x.json", "a" * 80 + "@b"], None),
])
def test_browser_launch(argv: list[str], expected: Launch | None) -> None:
    assert browser_launch(argv) == expected


def test_launch_says_where_the_origin_comes_from() -> None:
    assert Launch(addon_id=GECKO_ID).origin_from_hello
    assert not Launch(origin="chrome-extension://abc/").origin_from_hello
    assert not Launch().origin_from_hello  # a hand-started host learns nothing from a hello


@pytest.mark.parametrize(("value", "expected"), [
    (f"moz-extension://{UUID}/", f"moz-extension://{UUID}/"),
    (f"moz-extension://{UUID}", f"moz-extension://{UUID}/"),
    (f"moz-extension://{UUID.upper()}/", ""),
    (f"moz-extension://{UUID}/x", ""),
    (f"moz-extension://{UUID}/\n", ""),
    ("chrome-extension://fafdbggbcpipbkecmkjnkpdagfobdohc/", ""),
    ("http://127.0.0.1/", ""),
    ("*", ""),
    ("", ""),
    (None, ""),
    (["moz-extension://x/"], ""),
])
def test_moz_origin_takes_exactly_one_well_formed_origin(value: object, expected: str) -> None:
    assert moz_origin(value) == expected
