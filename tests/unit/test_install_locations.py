"""Where install looks and writes, per OS (all three layouts are tested on any OS)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.unit.test_install_helpers import install, make_env, snapshot, uninstall
from webmcp_sidecar import EXTENSION_ID, HOST_NAME
from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install.winregistry import MemoryRegistry
from webmcp_sidecar.setup.textedit import jsonc

NMH = "NativeMessagingHosts/io.webmcp.sidecar.json"

LINUX_USER = {
    "chrome": ".config/google-chrome", "chrome-beta": ".config/google-chrome-beta",
    "chrome-dev": ".config/google-chrome-unstable", "chrome-canary": ".config/google-chrome-canary",
    "chromium": ".config/chromium", "chromium-snap": "snap/chromium/common/chromium",
    "chromium-flatpak": ".var/app/org.chromium.Chromium/config/chromium",
    "chrome-flatpak": ".var/app/com.google.Chrome/config/google-chrome",
    "edge": ".config/microsoft-edge", "edge-beta": ".config/microsoft-edge-beta",
    "edge-dev": ".config/microsoft-edge-dev",
    "edge-flatpak": ".var/app/com.microsoft.Edge/config/microsoft-edge",
    "brave": ".config/BraveSoftware/Brave-Browser",
    "brave-beta": ".config/BraveSoftware/Brave-Browser-Beta",
    "brave-nightly": ".config/BraveSoftware/Brave-Browser-Nightly",
    "brave-flatpak": ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser",
    "vivaldi": ".config/vivaldi", "vivaldi-snapshot": ".config/vivaldi-snapshot",
}
AS = "Library/Application Support"
MAC_USER = {
    "chrome": f"{AS}/Google/Chrome", "chrome-beta": f"{AS}/Google/Chrome Beta",
    "chrome-dev": f"{AS}/Google/Chrome Dev", "chrome-canary": f"{AS}/Google/Chrome Canary",
    "chromium": f"{AS}/Chromium", "edge": f"{AS}/Microsoft Edge",
    "edge-beta": f"{AS}/Microsoft Edge Beta", "edge-dev": f"{AS}/Microsoft Edge Dev",
    "edge-canary": f"{AS}/Microsoft Edge Canary", "brave": f"{AS}/BraveSoftware/Brave-Browser",
    "brave-beta": f"{AS}/BraveSoftware/Brave-Browser-Beta",
    "brave-nightly": f"{AS}/BraveSoftware/Brave-Browser-Nightly",
    "vivaldi": f"{AS}/Vivaldi", "vivaldi-snapshot": f"{AS}/Vivaldi Snapshot",
}
LAD = "AppData/Local"
WIN_USER = {
    "chrome": f"{LAD}/Google/Chrome/User Data", "chrome-beta": f"{LAD}/Google/Chrome Beta/User Data",
    "chrome-dev": f"{LAD}/Google/Chrome Dev/User Data",
    "chrome-canary": f"{LAD}/Google/Chrome SxS/User Data", "chromium": f"{LAD}/Chromium/User Data",
    "edge": f"{LAD}/Microsoft/Edge/User Data", "edge-beta": f"{LAD}/Microsoft/Edge Beta/User Data",
    "edge-dev": f"{LAD}/Microsoft/Edge Dev/User Data",
    "edge-canary": f"{LAD}/Microsoft/Edge SxS/User Data",
    "brave": f"{LAD}/BraveSoftware/Brave-Browser/User Data",
    "brave-beta": f"{LAD}/BraveSoftware/Brave-Browser-Beta/User Data",
    "brave-nightly": f"{LAD}/BraveSoftware/Brave-Browser-Nightly/User Data",
    "vivaldi": f"{LAD}/Vivaldi/User Data", "vivaldi-snapshot": f"{LAD}/Vivaldi Snapshot/User Data",
}
CHROME_REG = r"Software\Google\Chrome\NativeMessagingHosts"
WIN_REG = {k: (CHROME_REG, "Google-Chrome") for k in WIN_USER}
WIN_REG["chromium"] = (r"Software\Chromium\NativeMessagingHosts", "Chromium")
for _k in ("edge", "edge-beta", "edge-dev", "edge-canary"):
    WIN_REG[_k] = (r"Software\Microsoft\Edge\NativeMessagingHosts", "Microsoft-Edge")

LINUX_SYSTEM = {
    "chrome": ["etc/opt/chrome/native-messaging-hosts"],
    "chromium": ["etc/chromium/native-messaging-hosts"],
    "edge": ["etc/opt/edge/native-messaging-hosts"],
    "brave": ["etc/opt/chrome/native-messaging-hosts", "etc/opt/brave/native-messaging-hosts"],
    "vivaldi": ["etc/vivaldi/native-messaging-hosts", "etc/chromium/native-messaging-hosts"],
}
MAC_SYSTEM = {
    "chrome": ["Library/Google/Chrome/NativeMessagingHosts"],
    "chrome-canary": ["Library/Google/Chrome/NativeMessagingHosts"],
    "chromium": ["Library/Application Support/Chromium/NativeMessagingHosts"],
    "edge": ["Library/Microsoft/Edge/NativeMessagingHosts"],
}
USER_TABLES = {"linux": LINUX_USER, "darwin": MAC_USER, "win32": WIN_USER}


def _cases() -> list[tuple[str, str, str]]:
    return [(os_name, key, rel) for os_name, table in USER_TABLES.items()
            for key, rel in table.items()]


def test_tables_cover_every_browser() -> None:
    every = {b.key for b in br.BROWSERS} - {"firefox"}  # test_install_firefox.py
    assert set(LINUX_USER) == every - {"edge-canary"}  # no Edge Canary on Linux
    assert set(MAC_USER) == {b.key for b in br.BROWSERS if b.sandbox is None} - {"firefox"}
    assert set(WIN_USER) == set(MAC_USER)


@pytest.mark.parametrize(("os_name", "key", "rel"), _cases())
def test_user_level_location(tmp_path: Path, os_name: str, key: str, rel: str) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    b = br.by_key(key)
    (env.home / rel).mkdir(parents=True)
    assert b.detected(env)
    [t] = br.targets(b, env)
    if os_name == "win32":
        reg_key, slug = WIN_REG[key]
        assert t.reg == ("HKCU", f"{reg_key}\\{HOST_NAME}")
        assert t.manifest == env.data_dir / "NativeMessagingHosts" / slug / f"{HOST_NAME}.json"
    else:
        assert t.manifest == env.home / rel / NMH
        assert t.reg is None


@pytest.mark.parametrize(("os_name", "key", "rel"), _cases())
def test_install_writes_there(tmp_path: Path, os_name: str, key: str, rel: str) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    (env.home / rel).mkdir(parents=True)
    reg = MemoryRegistry()
    plan, failures, _ = install(env, reg, no_clients=True)
    assert failures == [] and plan.problems == []
    assert [b.key for b in plan.browsers] == [key]
    if os_name == "win32":
        reg_key, slug = WIN_REG[key]
        manifest_path = env.data_dir / "NativeMessagingHosts" / slug / f"{HOST_NAME}.json"
        assert reg.get("HKCU", f"{reg_key}\\{HOST_NAME}") == str(manifest_path)
    else:
        manifest_path = env.home / rel / NMH
        assert reg.log == []
    data = manifest_path.read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf")
    m = json.loads(data)
    assert m["name"] == HOST_NAME and m["type"] == "stdio"
    assert m["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/"]
    host = Path(m["path"])
    assert host.is_absolute() and host.is_file()
    if br.by_key(key).sandbox == "flatpak":
        assert "flatpak-spawn --host" in host.read_text()
        assert ".var/app/" in str(host)
    elif os_name == "win32":
        assert host.suffix == ".bat" and b"\r\n" in host.read_bytes()
    else:
        assert host == env.data_dir / "bin" / "webmcp-sidecar-host"


def test_detection_needs_a_trace(tmp_path: Path) -> None:
    for os_name in ("linux", "darwin", "win32"):
        assert br.detect(make_env(tmp_path / os_name, os_name)) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(("os_name", "probe", "key"), [
    ("linux", "root/opt/google/chrome/chrome", "chrome"),
    ("linux", "root/usr/bin/chromium", "chromium"),
    ("linux", "root/snap/bin/chromium", "chromium-snap"),
    ("linux", "root/var/lib/flatpak/app/org.chromium.Chromium", "chromium-flatpak"),
    ("linux", "home/.local/share/flatpak/app/com.brave.Browser", "brave-flatpak"),
    ("linux", "root/opt/microsoft/msedge-beta/msedge", "edge-beta"),
    ("linux", "root/opt/brave.com/brave/brave", "brave"),
    ("linux", "root/opt/vivaldi/vivaldi", "vivaldi"),
    ("darwin", "root/Applications/Google Chrome Canary.app", "chrome-canary"),
    ("darwin", "home/Applications/Brave Browser.app", "brave"),
    ("win32", "root/Program Files/Google/Chrome/Application/chrome.exe", "chrome"),
    ("win32", "root/Program Files (x86)/Microsoft/Edge/Application/msedge.exe", "edge"),
    ("win32", "home/AppData/Local/Vivaldi/Application/vivaldi.exe", "vivaldi"),
])
def test_detected_by_installed_program(tmp_path: Path, os_name: str, probe: str,
                                       key: str) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    p = tmp_path / probe
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"")
    assert [b.key for b in br.detect(env)] == [key]


def test_xdg_config_home_and_appdata_are_honoured(tmp_path: Path) -> None:
    env = make_env(tmp_path, "linux", XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    assert br.targets(br.by_key("chrome"), env)[0].manifest == (
        tmp_path / "xdg/google-chrome" / NMH)
    assert cl.by_key("zed").config_path(env) == tmp_path / "xdg/zed/settings.json"
    env = make_env(tmp_path, "win32", APPDATA=str(tmp_path / "roam"),
                   LOCALAPPDATA=str(tmp_path / "local"))
    assert br.by_key("edge").user_data_dir(env) == tmp_path / "local/Microsoft/Edge/User Data"
    assert cl.by_key("claude-desktop").config_path(env) == (
        tmp_path / "roam/Claude/claude_desktop_config.json")


@pytest.mark.parametrize(("os_name", "table"), [("linux", LINUX_SYSTEM), ("darwin", MAC_SYSTEM)])
def test_system_locations(tmp_path: Path, os_name: str, table: dict[str, list[str]]) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    for key, dirs in table.items():
        got = [t.manifest for t in br.targets(br.by_key(key), env, system=True)]
        assert got == [env.root / d / f"{HOST_NAME}.json" for d in dirs]


def test_system_install_linux_writes_etc(tmp_path: Path) -> None:
    env = make_env(tmp_path, "linux")
    (env.root / "opt/google/chrome").mkdir(parents=True)
    (env.root / "opt/google/chrome/chrome").write_bytes(b"")
    plan, failures, _ = install(env, system=True, no_clients=True)
    assert failures == [] and plan.problems == []
    assert (env.root / "etc/opt/chrome/native-messaging-hosts" / f"{HOST_NAME}.json").is_file()
    assert not (env.home / ".config").exists()


def test_windows_system_uses_hklm_and_programdata(tmp_path: Path) -> None:
    env = make_env(tmp_path, "win32")
    reg = MemoryRegistry()
    _plan, failures, _ = install(env, reg, browsers=["edge"], system=True, no_clients=True)
    assert failures == []
    key = rf"Software\Microsoft\Edge\NativeMessagingHosts\{HOST_NAME}"
    value = reg.get("HKLM", key)
    assert value == str(env.root / "ProgramData/webmcp-sidecar/NativeMessagingHosts/"
                        f"Microsoft-Edge/{HOST_NAME}.json")
    assert Path(value).is_file()
    assert reg.get("HKCU", key) is None


def test_windows_registry_round_trip(tmp_path: Path) -> None:
    """Chrome, Chromium and Edge get their own keys; Brave and Vivaldi read Chrome's."""
    env = make_env(tmp_path, "win32")
    for rel in ("Google/Chrome/User Data", "Chromium/User Data", "Microsoft/Edge/User Data",
                "BraveSoftware/Brave-Browser/User Data", "Vivaldi/User Data"):
        (env.home / LAD / rel).mkdir(parents=True)
    reg = MemoryRegistry()
    reg.set("HKCU", r"Software\Other\Thing", "keep me")
    _plan, failures, _ = install(env, reg, no_clients=True)
    assert failures == []
    sets = [(op, hive, key) for op, hive, key, _ in reg.log if op == "set"]
    assert sets[1:] == [
        ("set", "HKCU", rf"{CHROME_REG}\{HOST_NAME}"),
        ("set", "HKCU", rf"Software\Chromium\NativeMessagingHosts\{HOST_NAME}"),
        ("set", "HKCU", rf"Software\Microsoft\Edge\NativeMessagingHosts\{HOST_NAME}"),
    ]
    again, failures, _ = install(env, reg, no_clients=True)
    assert again.steps == [] and failures == []
    uninstall(env, reg)
    assert reg.values == {("HKCU", r"software\other\thing"): "keep me"}
    assert not (env.data_dir / "NativeMessagingHosts").exists()


def test_custom_profile_on_windows_also_registers(tmp_path: Path) -> None:
    env = make_env(tmp_path, "win32")
    reg = MemoryRegistry()
    profile = tmp_path / "profile"
    install(env, reg, browsers=["chromium"], user_data_dir=profile)
    assert reg.get("HKCU", rf"Software\Chromium\NativeMessagingHosts\{HOST_NAME}") == str(
        profile / NMH)


# --- MCP clients --------------------------------------------------------------------------

CLIENT_PATHS = {
    "linux": {
        "claude-desktop": ".config/Claude/claude_desktop_config.json",
        "vscode": ".config/Code/User/mcp.json", "zed": ".config/zed/settings.json",
        "cline": ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
                 "cline_mcp_settings.json",
    },
    "darwin": {
        "claude-desktop": f"{AS}/Claude/claude_desktop_config.json",
        "vscode": f"{AS}/Code/User/mcp.json", "zed": ".config/zed/settings.json",
        "cline": f"{AS}/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
                 "cline_mcp_settings.json",
    },
    "win32": {
        "claude-desktop": "AppData/Roaming/Claude/claude_desktop_config.json",
        "vscode": "AppData/Roaming/Code/User/mcp.json", "zed": "AppData/Roaming/Zed/settings.json",
        "cline": "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
                 "cline_mcp_settings.json",
    },
}
SAME_EVERYWHERE = {
    "claude-code": ".claude.json", "cursor": ".cursor/mcp.json",
    "windsurf": ".codeium/windsurf/mcp_config.json", "codex": ".codex/config.toml",
    "gemini": ".gemini/settings.json", "cline-cli": ".cline/data/settings/cline_mcp_settings.json",
}
EXPECTED_ENTRY = {
    "claude-desktop": ("mcpServers", {"command": "CMD", "args": ["mcp"]}),
    "claude-code": ("mcpServers", {"type": "stdio", "command": "CMD", "args": ["mcp"], "env": {}}),
    "cursor": ("mcpServers", {"command": "CMD", "args": ["mcp"]}),
    "vscode": ("servers", {"type": "stdio", "command": "CMD", "args": ["mcp"]}),
    "windsurf": ("mcpServers", {"command": "CMD", "args": ["mcp"]}),
    "codex": ("mcp_servers", {"command": "CMD", "args": ["mcp"]}),
    "gemini": ("mcpServers", {"command": "CMD", "args": ["mcp"]}),
    "zed": ("context_servers", {"source": "custom", "command": "CMD", "args": ["mcp"],
                                "env": {}}),
    "cline": ("mcpServers", {"command": "CMD", "args": ["mcp"], "disabled": False}),
    "cline-cli": ("mcpServers", {"transport": {"type": "stdio", "command": "CMD", "args": ["mcp"]}}),
}


def test_client_tables_cover_every_client() -> None:
    assert set(CLIENT_PATHS["linux"]) | set(SAME_EVERYWHERE) == {c.key for c in cl.CLIENTS}
    assert set(EXPECTED_ENTRY) == {c.key for c in cl.CLIENTS}


@pytest.mark.parametrize("os_name", ["linux", "darwin", "win32"])
def test_every_client_location_and_entry(tmp_path: Path, os_name: str) -> None:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    paths = {**CLIENT_PATHS[os_name], **SAME_EVERYWHERE}
    for key in paths:
        c = cl.by_key(key)
        assert c.config_path(env) == env.home / paths[key]
        env.expand(c.detect[os_name]).mkdir(parents=True, exist_ok=True)
    assert {c.key for c in cl.detect(env)} == set(paths)
    (env.home / ".config/chromium").mkdir(parents=True, exist_ok=True)
    (env.home / "AppData/Local/Chromium/User Data").mkdir(parents=True, exist_ok=True)
    (env.home / AS / "Chromium").mkdir(parents=True, exist_ok=True)
    before = snapshot(env.home)
    reg = MemoryRegistry()
    plan, failures, ctx = install(env, reg, browsers=["chromium"])
    assert failures == [] and plan.problems == []
    command = ctx.mcp[0]
    for key, rel in paths.items():
        text = (env.home / rel).read_text()
        data = tomllib.loads(text) if rel.endswith(".toml") else jsonc.loads(text)
        container, entry = EXPECTED_ENTRY[key]
        wanted = json.loads(json.dumps(entry).replace('"CMD"', json.dumps(command)))
        assert data[container]["webmcp-sidecar"] == wanted, key
    again, failures, _ = install(env, reg, browsers=["chromium"])
    assert again.steps == [] and failures == []
    _, failures, _ = uninstall(env, reg)
    assert failures == [] and reg.values == {}
    assert snapshot(env.home) == before


def test_claude_code_honours_claude_config_dir(tmp_path: Path) -> None:
    env = make_env(tmp_path, "linux", CLAUDE_CONFIG_DIR=str(tmp_path / "cc"))
    assert cl.by_key("claude-code").config_path(env) == tmp_path / "cc/.claude.json"
    env = make_env(tmp_path, "linux", CODEX_HOME=str(tmp_path / "cx"))
    assert cl.by_key("codex").config_path(env) == tmp_path / "cx/config.toml"


def test_cline_cli_honours_its_environment(tmp_path: Path) -> None:
    """As @cline/shared resolves the file: CLINE_MCP_SETTINGS_PATH, else CLINE_DATA_DIR, else
    CLINE_DIR, else ~/.cline."""
    c = cl.by_key("cline-cli")
    settings = "settings/cline_mcp_settings.json"
    assert c.config_path(make_env(tmp_path)) == tmp_path / "home/.cline/data" / settings
    env = make_env(tmp_path, "linux", CLINE_DIR=str(tmp_path / "cd"))
    assert c.config_path(env) == tmp_path / "cd/data" / settings
    assert env.expand(c.detect["linux"]) == tmp_path / "cd"
    env = make_env(tmp_path, "linux", CLINE_DIR=str(tmp_path / "cd"),
                   CLINE_DATA_DIR=str(tmp_path / "dd"))
    assert c.config_path(env) == tmp_path / "dd" / settings
    env = make_env(tmp_path, "win32", CLINE_MCP_SETTINGS_PATH=str(tmp_path / "m.json"))
    assert c.config_path(env) == tmp_path / "m.json"
