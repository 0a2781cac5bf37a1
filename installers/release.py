"""Builds a release into dist/ (run by scripts/release.sh; docs/STORE.md says what each file is).

    webmcp-sidecar-V-chrome/             the extension for "Load unpacked" (development id, all
                                         permissions; also loads in Firefox as a temporary add-on)
    webmcp-sidecar-V-chrome.zip          that folder, zipped, for the download
    webmcp-sidecar-V-chrome-store.zip    the Chrome Web Store upload: no `key` (the store assigns
                                         the id), no `debugger` (Chrome cannot ask for it later,
                                         so the store build goes without), no Firefox keys
    webmcp-sidecar-V-firefox.xpi         the Firefox add-on, unsigned (AMO signs it), no Chrome keys
    webmcp-sidecar-V-linux-x86_64.tar.gz the host bundle with install.sh beside it
    SHA256SUMS
    screenshots/                         the store's screenshots (installers/screenshots.py)

The version comes from pyproject.toml; the build stops when extension/manifest.json or the
package's __version__ says another. Stdlib only, so it runs with any Python 3.11.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import platform
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Development-only files in extension/: the type checker's config.
DEV_ONLY = {"tsconfig.json"}
# Manifest keys only one browser family reads (the other warns about them).
FIREFOX_ONLY = ("browser_specific_settings", "sidebar_action")
CHROME_ONLY = ("key", "minimum_chrome_version", "side_panel")
# Permissions Chrome cannot make optional (measured: Chromium 156 drops `debugger` from
# optional_permissions and permissions.request() refuses it), so the store build leaves them out.
STORE_LEFT_OUT = ("debugger",)
FIREFOX_LEFT_OUT = ("debugger", "sidePanel", "offscreen")  # APIs Firefox does not have
# A fixed time for every archive entry, so the same tree gives the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def project_version(root: Path = ROOT) -> str:
    return str(tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"])


def version_problems(root: Path = ROOT) -> list[str]:
    """Where the version differs from pyproject's (the one place it is set)."""
    want = project_version(root)
    out = []
    manifest = json.loads((root / "extension" / "manifest.json").read_text())
    if manifest.get("version") != want:
        out.append(f"extension/manifest.json says {manifest.get('version')}, pyproject {want}")
    init = (root / "host" / "webmcp_sidecar" / "__init__.py").read_text()
    if f'__version__ = "{want}"' not in init:
        out.append(f"host/webmcp_sidecar/__init__.py's __version__ is not {want}")
    return out


def extension_files(src: Path) -> list[Path]:
    """The extension's files as shipped (relative, sorted): all but the development-only ones."""
    return sorted(p.relative_to(src) for p in src.rglob("*")
                  if p.is_file() and p.name not in DEV_ONLY)


def store_manifest(m: dict[str, Any]) -> dict[str, Any]:
    """The Chrome Web Store build's manifest."""
    out = {k: v for k, v in m.items() if k not in (*FIREFOX_ONLY, "key")}
    out["permissions"] = [p for p in m.get("permissions", []) if p not in STORE_LEFT_OUT]
    out["background"] = {k: v for k, v in m["background"].items() if k != "scripts"}
    return out


def firefox_manifest(m: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in m.items() if k not in CHROME_ONLY}
    out["permissions"] = [p for p in m.get("permissions", []) if p not in FIREFOX_LEFT_OUT]
    out["background"] = {k: v for k, v in m["background"].items() if k != "service_worker"}
    return out


def write_tree(src: Path, dst: Path, manifest: dict[str, Any]) -> Path:
    if dst.exists():
        shutil.rmtree(dst)
    for rel in extension_files(src):
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel.name == "manifest.json" and rel.parent == Path("."):
            (dst / rel).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        else:
            shutil.copy2(src / rel, dst / rel)
    return dst


def zip_tree(tree: Path, out: Path) -> Path:
    """A zip of the tree's contents (manifest.json at its top), same bytes for the same tree."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(tree.rglob("*")):
            if p.is_file():
                info = zipfile.ZipInfo(p.relative_to(tree).as_posix(), ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, p.read_bytes())
    return out


def platform_tag() -> str:
    system = {"Darwin": "macos"}.get(platform.system(), platform.system().lower())
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(),
                                                           platform.machine().lower())
    return f"{system}-{machine}"


def build_bundle() -> Path:
    """installers/build.sh's bundle folder (PyInstaller, about a minute)."""
    out = subprocess.run([str(ROOT / "installers" / "build.sh")], check=True, text=True,
                         stdout=subprocess.PIPE)
    return Path(out.stdout.strip().splitlines()[-1]).parent


def bundle_version(bundle: Path) -> str:
    out = subprocess.run([str(bundle / "webmcp-sidecar"), "--version"], check=True, text=True,
                         capture_output=True, timeout=60)
    return out.stdout.split()[-1]


def host_tarball(bundle: Path, unpacked: Path, out: Path, top: str, version: str) -> Path:
    """`top/install.sh` and `top/webmcp-sidecar/` (the bundle, its extension folder replaced by
    the release's unpacked tree, so `install` points the user at what was released)."""
    def add_tree(t: tarfile.TarFile, base: Path, arc: str, skip: Path | None = None) -> None:
        for p in sorted(base.rglob("*")):
            if skip is not None and (p == skip or skip in p.parents):
                continue
            info = t.gettarinfo(str(p), f"{arc}/{p.relative_to(base).as_posix()}")
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 1577836800
            if p.is_file() and not p.is_symlink():
                with open(p, "rb") as f:
                    t.addfile(info, f)
            else:
                t.addfile(info)

    internal = bundle / "_internal"
    # gzip's own default level (6): 1% larger than 9 here (26.3 MB rather than 26.1), in a
    # quarter of the CPU time (~3 s rather than ~12 s for the ~93 MB bundle).
    with tarfile.open(out, "w:gz", compresslevel=6) as t:
        install = t.gettarinfo(str(ROOT / "installers" / "install.sh"), f"{top}/install.sh")
        install.uid = install.gid = 0
        install.uname = install.gname = ""
        install.mode = 0o755
        with open(ROOT / "installers" / "install.sh", "rb") as f:
            t.addfile(install, f)
        add_tree(t, bundle, f"{top}/webmcp-sidecar", skip=internal / "extension")
        add_tree(t, unpacked, f"{top}/webmcp-sidecar/_internal/extension")
        readme = (f"WebMCP Sidecar {version}\n\n"
                  "Run ./install.sh to install (./install.sh --uninstall removes it), then load\n"
                  "the extension as install.sh says. More: docs/INSTALL.md in the source.\n").encode()
        info = tarfile.TarInfo(f"{top}/README.txt")
        info.size, info.mtime, info.mode = len(readme), 1577836800, 0o644
        t.addfile(info, io.BytesIO(readme))
    return out


# The only warnings the Firefox build may get: code that reaches Chrome-only APIs behind feature
# checks (lib/browser-support.js), which Firefox never runs. Its manifest has no Chrome-only key.
LINT_ALLOWED = (
    ("UNSUPPORTED_API", "background/cdp.js", "debugger."),
    ("UNSUPPORTED_API", "background/panel-bridge.js", "sidePanel."),
)


def lint_firefox(tree: Path) -> list[str]:
    """`web-ext lint` (npm dev dependency) on the Firefox tree: its errors, notices and any
    warning not in LINT_ALLOWED, one a line (none: clean)."""
    out = subprocess.run(
        [str(ROOT / "node_modules" / ".bin" / "web-ext"), "lint", "--source-dir", str(tree),
         "--output", "json", "--no-input"], capture_output=True, text=True, timeout=300)
    report = json.loads(out.stdout)
    found = report["errors"] + report["notices"] + [
        w for w in report["warnings"]
        if not any(w["code"] == code and w.get("file") == file and what in w["message"]
                   for code, file, what in LINT_ALLOWED)]
    return [f"{w['code']} {w.get('file', '')}: {w['message']}" for w in found]


def sha256sums(files: list[Path], out: Path) -> Path:
    lines = []
    for f in sorted(files):
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        lines.append(f"{digest}  {f.name}\n")
    out.write_text("".join(lines))
    return out


def build(dist: Path, bundle: Path | None, screenshots: bool) -> list[Path]:
    problems = version_problems()
    if problems:
        raise SystemExit("release: the versions differ: " + "; ".join(problems))
    version = project_version()
    name = f"webmcp-sidecar-{version}"
    dist.mkdir(parents=True, exist_ok=True)
    src = ROOT / "extension"
    source = json.loads((src / "manifest.json").read_text())

    unpacked = write_tree(src, dist / f"{name}-chrome", source)
    artifacts = [zip_tree(unpacked, dist / f"{name}-chrome.zip")]
    stage = dist / "stage"
    store = write_tree(src, stage / "chrome-store", store_manifest(source))
    artifacts.append(zip_tree(store, dist / f"{name}-chrome-store.zip"))
    firefox = write_tree(src, stage / "firefox", firefox_manifest(source))
    artifacts.append(zip_tree(firefox, dist / f"{name}-firefox.xpi"))
    problems = lint_firefox(firefox)
    if problems:
        raise SystemExit("release: web-ext lint on the Firefox build:\n" + "\n".join(problems))

    bundle = bundle or build_bundle()
    got = bundle_version(bundle)
    if got != version:
        raise SystemExit(f"release: the bundle {bundle} is version {got}, not {version}: "
                         "rebuild it (installers/build.sh)")
    artifacts.append(host_tarball(bundle, unpacked, dist / f"{name}-{platform_tag()}.tar.gz",
                                  name, version))
    sha256sums(artifacts, dist / "SHA256SUMS")
    if screenshots:
        from screenshots import take  # installers/screenshots.py (needs the venv's Playwright)

        take(unpacked, dist / "screenshots")
    shutil.rmtree(stage)
    return artifacts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Build a release into dist/.")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--bundle", type=Path, metavar="DIR",
                   help="use this bundle folder (installers/build.sh's) instead of building one")
    p.add_argument("--no-screenshots", action="store_true", help="skip the store screenshots")
    args = p.parse_args(argv)
    for a in build(args.dist.resolve(), args.bundle, not args.no_screenshots):
        print(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
