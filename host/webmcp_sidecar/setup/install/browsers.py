"""Browsers and where each one looks for native-messaging host manifests.

Chromium family: Linux/macOS, a `NativeMessagingHosts` dir inside the browser's user data dir
(user level), or a fixed system dir. Windows: a registry key whose default value is the
manifest's path; Chrome's channels share `Software\\Google\\Chrome`, Edge's share
`Software\\Microsoft\\Edge`, and Brave and Vivaldi read Chrome's key.

Firefox (release, ESR, beta, nightly alike): one dir per user, not per profile: Linux
`~/.mozilla/native-messaging-hosts` (system: `/usr/lib/mozilla/...`, `/usr/lib64/mozilla/...`),
macOS `~/Library/Application Support/Mozilla/NativeMessagingHosts` (system: `/Library/
Application Support/Mozilla/NativeMessagingHosts`), Windows the key `Software\\Mozilla\\
NativeMessagingHosts\\<name>` (HKCU, then HKLM). Its manifest names add-on ids
(`allowed_extensions`) where Chrome's names origins (`allowed_origins`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from webmcp_sidecar import HOST_NAME
from webmcp_sidecar.setup.install.osenv import OsEnv, OsName

CHROME_KEY = r"Software\Google\Chrome\NativeMessagingHosts"
CHROMIUM_KEY = r"Software\Chromium\NativeMessagingHosts"
EDGE_KEY = r"Software\Microsoft\Edge\NativeMessagingHosts"
MOZILLA_KEY = r"Software\Mozilla\NativeMessagingHosts"

Sandbox = Literal["snap", "flatpak"]
Family = Literal["chromium", "firefox"]


@dataclass(frozen=True)
class Browser:
    key: str
    name: str
    # The browser's user data dir per OS (a template for OsEnv.expand).
    user_dir: dict[OsName, str]
    # System-wide manifest dirs (Linux/macOS; --system).
    system_dirs: dict[OsName, tuple[str, ...]] = field(default_factory=dict)
    reg_key: str | None = None  # Windows
    # Anything whose presence means the browser is installed, besides its user data dir.
    probes: dict[OsName, tuple[str, ...]] = field(default_factory=dict)
    sandbox: Sandbox | None = None
    flatpak_id: str = ""
    extensions_page: str = "chrome://extensions"
    family: Family = "chromium"
    # Where the user-level manifest dir is, when not `<user dir>/NativeMessagingHosts`.
    nm_dir: dict[OsName, str] = field(default_factory=dict)

    def supports(self, os_name: OsName) -> bool:
        return os_name in self.user_dir

    def user_data_dir(self, env: OsEnv) -> Path:
        return env.expand(self.user_dir[env.os])

    def user_manifest_dir(self, env: OsEnv) -> Path:
        if env.os in self.nm_dir:
            return env.expand(self.nm_dir[env.os])
        return self.user_data_dir(env) / "NativeMessagingHosts"

    def detected(self, env: OsEnv) -> bool:
        if not self.supports(env.os):
            return False
        if self.user_data_dir(env).is_dir():
            return True
        return any(env.expand(p).exists() for p in self.probes.get(env.os, ()))


def _mac_apps(app: str) -> tuple[str, ...]:
    return (f"/Applications/{app}.app", f"{{home}}/Applications/{app}.app")


def _flatpak(app_id: str) -> tuple[str, ...]:
    return (f"/var/lib/flatpak/app/{app_id}", f"{{home}}/.local/share/flatpak/app/{app_id}")


def _chrome(key: str, name: str, linux: str, mac: str, win: str, opt: str) -> Browser:
    return Browser(
        key, name,
        user_dir={"linux": f"{{config}}/{linux}", "darwin": f"{{appsupport}}/Google/{mac}",
                  "win32": f"{{localappdata}}/Google/{win}/User Data"},
        system_dirs={"linux": ("/etc/opt/chrome/native-messaging-hosts",),
                     "darwin": ("/Library/Google/Chrome/NativeMessagingHosts",)},
        reg_key=CHROME_KEY,
        probes={"linux": (f"/opt/google/{opt}/chrome", f"/usr/bin/{linux}"),
                "darwin": _mac_apps(f"Google {mac}"),
                "win32": (f"{{programfiles}}/Google/{win}/Application/chrome.exe",
                          f"{{programfilesx86}}/Google/{win}/Application/chrome.exe",
                          f"{{localappdata}}/Google/{win}/Application/chrome.exe")},
    )


def _edge(key: str, name: str, suffix: str, win: str, linux: bool = True) -> Browser:
    return Browser(
        key, name,
        user_dir={**({"linux": f"{{config}}/microsoft-edge{suffix.lower().replace(' ', '-')}"}
                     if linux else {}),
                  "darwin": f"{{appsupport}}/Microsoft Edge{suffix}",
                  "win32": f"{{localappdata}}/Microsoft/{win}/User Data"},
        system_dirs={"linux": ("/etc/opt/edge/native-messaging-hosts",),
                     "darwin": ("/Library/Microsoft/Edge/NativeMessagingHosts",)},
        reg_key=EDGE_KEY,
        probes={"linux": (f"/opt/microsoft/msedge{suffix.lower().replace(' ', '-')}/msedge",),
                "darwin": _mac_apps(f"Microsoft Edge{suffix}"),
                "win32": (f"{{programfilesx86}}/Microsoft/{win}/Application/msedge.exe",
                          f"{{programfiles}}/Microsoft/{win}/Application/msedge.exe",
                          f"{{localappdata}}/Microsoft/{win}/Application/msedge.exe")},
        extensions_page="edge://extensions",
    )


def _brave(key: str, name: str, suffix: str, opt: str) -> Browser:
    d = f"BraveSoftware/Brave-Browser{suffix}"
    return Browser(
        key, name,
        user_dir={"linux": f"{{config}}/{d}", "darwin": f"{{appsupport}}/{d}",
                  "win32": f"{{localappdata}}/{d}/User Data"},
        # Brave's own system dirs are not documented; it is known to read Chrome's.
        system_dirs={"linux": ("/etc/opt/chrome/native-messaging-hosts",
                               "/etc/opt/brave/native-messaging-hosts"),
                     "darwin": ("/Library/Google/Chrome/NativeMessagingHosts",)},
        reg_key=CHROME_KEY,
        probes={"linux": (f"/opt/brave.com/{opt}/brave", f"/usr/bin/{opt}-browser"),
                "darwin": _mac_apps(f"Brave Browser{suffix.replace('-', ' ')}"),
                "win32": (f"{{programfiles}}/{d}/Application/brave.exe",
                          f"{{localappdata}}/{d}/Application/brave.exe")},
        extensions_page="brave://extensions",
    )


def _vivaldi(key: str, name: str, dirname: str, mac: str) -> Browser:
    return Browser(
        key, name,
        user_dir={"linux": f"{{config}}/{dirname}", "darwin": f"{{appsupport}}/{mac}",
                  "win32": f"{{localappdata}}/{mac}/User Data"},
        system_dirs={"linux": ("/etc/vivaldi/native-messaging-hosts",
                               "/etc/chromium/native-messaging-hosts"),
                     "darwin": (f"/Library/Application Support/{mac}/NativeMessagingHosts",)},
        reg_key=CHROME_KEY,
        probes={"linux": (f"/opt/{dirname}/vivaldi", f"/usr/bin/{dirname}"),
                "darwin": _mac_apps(mac),
                "win32": (f"{{localappdata}}/{mac}/Application/vivaldi.exe",
                          f"{{programfiles}}/{mac}/Application/vivaldi.exe")},
        extensions_page="vivaldi://extensions",
    )


def _flatpak_browser(key: str, name: str, app_id: str, config_sub: str, page: str) -> Browser:
    return Browser(
        key, name,
        user_dir={"linux": f"{{home}}/.var/app/{app_id}/config/{config_sub}"},
        probes={"linux": _flatpak(app_id)},
        sandbox="flatpak", flatpak_id=app_id, extensions_page=page,
    )


BROWSERS: tuple[Browser, ...] = (
    _chrome("chrome", "Google Chrome", "google-chrome", "Chrome", "Chrome", "chrome"),
    _chrome("chrome-beta", "Google Chrome Beta", "google-chrome-beta", "Chrome Beta",
            "Chrome Beta", "chrome-beta"),
    _chrome("chrome-dev", "Google Chrome Dev", "google-chrome-unstable", "Chrome Dev",
            "Chrome Dev", "chrome-unstable"),
    _chrome("chrome-canary", "Google Chrome Canary", "google-chrome-canary", "Chrome Canary",
            "Chrome SxS", "chrome-canary"),
    Browser(
        "chromium", "Chromium",
        user_dir={"linux": "{config}/chromium", "darwin": "{appsupport}/Chromium",
                  "win32": "{localappdata}/Chromium/User Data"},
        system_dirs={"linux": ("/etc/chromium/native-messaging-hosts",),
                     "darwin": ("/Library/Application Support/Chromium/NativeMessagingHosts",)},
        reg_key=CHROMIUM_KEY,
        probes={"linux": ("/usr/bin/chromium", "/usr/bin/chromium-browser",
                          "/usr/lib/chromium/chromium"),
                "darwin": _mac_apps("Chromium"),
                "win32": ("{localappdata}/Chromium/Application/chrome.exe",
                          "{programfiles}/Chromium/Application/chrome.exe")},
    ),
    Browser(
        "chromium-snap", "Chromium (snap)",
        user_dir={"linux": "{home}/snap/chromium/common/chromium"},
        probes={"linux": ("/snap/bin/chromium", "/snap/chromium")},
        sandbox="snap",
    ),
    _flatpak_browser("chromium-flatpak", "Chromium (flatpak)", "org.chromium.Chromium",
                     "chromium", "chrome://extensions"),
    _flatpak_browser("chrome-flatpak", "Google Chrome (flatpak)", "com.google.Chrome",
                     "google-chrome", "chrome://extensions"),
    _edge("edge", "Microsoft Edge", "", "Edge"),
    _edge("edge-beta", "Microsoft Edge Beta", " Beta", "Edge Beta"),
    _edge("edge-dev", "Microsoft Edge Dev", " Dev", "Edge Dev"),
    _edge("edge-canary", "Microsoft Edge Canary", " Canary", "Edge SxS", linux=False),
    _flatpak_browser("edge-flatpak", "Microsoft Edge (flatpak)", "com.microsoft.Edge",
                     "microsoft-edge", "edge://extensions"),
    _brave("brave", "Brave", "", "brave"),
    _brave("brave-beta", "Brave Beta", "-Beta", "brave-beta"),
    _brave("brave-nightly", "Brave Nightly", "-Nightly", "brave-nightly"),
    _flatpak_browser("brave-flatpak", "Brave (flatpak)", "com.brave.Browser",
                     "BraveSoftware/Brave-Browser", "brave://extensions"),
    _vivaldi("vivaldi", "Vivaldi", "vivaldi", "Vivaldi"),
    _vivaldi("vivaldi-snapshot", "Vivaldi Snapshot", "vivaldi-snapshot", "Vivaldi Snapshot"),
    Browser(
        "firefox", "Firefox",
        # The profiles' dir (detection; Firefox 147+ makes new ones under XDG_CONFIG_HOME, but
        # still reads host manifests from ~/.mozilla alone, as measured on 153 ESR).
        user_dir={"linux": "{home}/.mozilla/firefox", "darwin": "{appsupport}/Firefox",
                  "win32": "{appdata}/Mozilla/Firefox"},
        nm_dir={"linux": "{home}/.mozilla/native-messaging-hosts",
                "darwin": "{appsupport}/Mozilla/NativeMessagingHosts"},
        system_dirs={"linux": ("/usr/lib/mozilla/native-messaging-hosts",
                               "/usr/lib64/mozilla/native-messaging-hosts"),
                     "darwin": ("/Library/Application Support/Mozilla/NativeMessagingHosts",)},
        reg_key=MOZILLA_KEY,
        probes={"linux": ("/usr/bin/firefox", "/usr/bin/firefox-esr", "/usr/lib/firefox/firefox",
                          "/usr/lib/firefox-esr/firefox-esr", "/snap/bin/firefox",
                          "{config}/mozilla/firefox"),
                "darwin": (*_mac_apps("Firefox"), *_mac_apps("Firefox Nightly"),
                           *_mac_apps("Firefox Developer Edition")),
                "win32": ("{programfiles}/Mozilla Firefox/firefox.exe",
                          "{programfilesx86}/Mozilla Firefox/firefox.exe",
                          "{localappdata}/Mozilla Firefox/firefox.exe")},
        extensions_page="about:debugging#/runtime/this-firefox",
        family="firefox",
    ),
)

ALIASES = {
    "google-chrome": "chrome", "google-chrome-stable": "chrome", "chrome-stable": "chrome",
    "google-chrome-beta": "chrome-beta", "chrome-unstable": "chrome-dev",
    "google-chrome-unstable": "chrome-dev", "chromium-browser": "chromium",
    "msedge": "edge", "microsoft-edge": "edge", "brave-browser": "brave",
    "firefox-esr": "firefox", "mozilla-firefox": "firefox",
}


def by_key(name: str) -> Browser:
    key = ALIASES.get(name.lower(), name.lower())
    for b in BROWSERS:
        if b.key == key:
            return b
    known = ", ".join(b.key for b in BROWSERS)
    raise KeyError(f"unknown browser {name!r}; known: {known}")


def detect(env: OsEnv) -> list[Browser]:
    return [b for b in BROWSERS if b.detected(env)]


@dataclass(frozen=True)
class Target:
    """One place a browser reads our manifest from."""

    browser: Browser
    manifest: Path
    reg: tuple[str, str] | None = None  # (hive, key) on Windows
    custom: bool = False  # a --user-data-dir profile

    @property
    def label(self) -> str:
        return self.browser.name + (" (custom profile)" if self.custom else "")


def manifest_name() -> str:
    return f"{HOST_NAME}.json"


def targets(browser: Browser, env: OsEnv, system: bool = False) -> list[Target]:
    """Where `browser` reads our manifest, per OS and scope."""
    if env.os == "win32":
        if browser.reg_key is None or not browser.supports("win32"):
            return []
        hive = "HKLM" if system else "HKCU"
        base = env.programdata / "webmcp-sidecar" if system else env.data_dir
        # One manifest per registry key: the channels sharing a key share the file too.
        slug = "-".join(browser.reg_key.split("\\")[1:-1])  # Google-Chrome, Microsoft-Edge, Mozilla
        path = base / "NativeMessagingHosts" / slug / manifest_name()
        return [Target(browser, path, (hive, f"{browser.reg_key}\\{HOST_NAME}"))]
    if system:
        return [Target(browser, env.expand(d) / manifest_name())
                for d in browser.system_dirs.get(env.os, ())]
    if not browser.supports(env.os):
        return []
    return [Target(browser, browser.user_manifest_dir(env) / manifest_name())]


FIREFOX_NO_PROFILE_DIR = (
    "Firefox reads host manifests from your home (~/.mozilla/native-messaging-hosts), not from "
    "a profile: leave out --user-data-dir (give a test or demo Firefox a HOME of its own).")


def custom_target(browser: Browser, user_data_dir: Path, env: OsEnv) -> Target:
    """A `--user-data-dir` profile reads `<dir>/NativeMessagingHosts` (Windows: the registry)."""
    path = user_data_dir.absolute() / "NativeMessagingHosts" / manifest_name()
    reg = None
    if env.os == "win32" and browser.reg_key:
        reg = ("HKCU", f"{browser.reg_key}\\{HOST_NAME}")
    return Target(browser, path, reg, custom=True)


def dedupe(items: list[Target]) -> list[Target]:
    seen: set[Path] = set()
    out = []
    for t in items:
        if t.manifest not in seen:
            seen.add(t.manifest)
            out.append(t)
    return out
