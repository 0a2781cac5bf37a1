"""doctor's browser links: manifest found (file or registry key), valid, allowing our extension,
naming a program that exists, runs without the shell's environment, and answers a ping."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from webmcp_sidecar import EXTENSION_ID, GECKO_ID, HOST_NAME
from webmcp_sidecar.extension_ids import chromium_ids
from webmcp_sidecar.setup.doctor.checks import EXITED, FORBIDDEN, NOT_FOUND, Check, DoctorOptions
from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install.engine import Context
from webmcp_sidecar.setup.install.manifest import is_gecko_id


def _install_fix(t: br.Target, extra: str = "") -> str:
    if t.custom:
        where = f"--browser {t.browser.key} --user-data-dir {t.manifest.parent.parent}"
    else:
        where = f"--browser {t.browser.key}"
    return f"webmcp-sidecar install {where}{extra}"


def _doctor_targets(ctx: Context, opts: DoctorOptions) -> list[br.Target]:
    env = ctx.env
    chosen = [br.by_key(n) for n in opts.browsers]
    if opts.user_data_dir is not None:
        return [br.custom_target(chosen[0] if chosen else br.by_key("chromium"),
                                 opts.user_data_dir, env)]
    if chosen:
        return br.dedupe([t for b in chosen for t in br.targets(b, env, opts.system)])
    found = []
    for b in br.BROWSERS:
        ts = br.targets(b, env, opts.system)
        if b.detected(env) or any(t.manifest.exists() for t in ts):
            found += ts
    known = {t.manifest for t in found}
    for rec in ctx.state.files:  # custom profiles install recorded, while they exist
        f = Path(rec.path)
        if f.name == br.manifest_name() and f not in known and f.exists():
            found.append(br.Target(br.by_key("chromium"), f, custom=True))
    return br.dedupe(found)


def _stale_profiles(ctx: Context, opts: DoctorOptions) -> list[Check]:
    """Custom profiles install recorded whose manifest has gone with the profile folder."""
    if opts.browsers or opts.user_data_dir is not None:
        return []
    known = {t.manifest for b in br.BROWSERS for system in (False, True)
             for t in br.targets(b, ctx.env, system)}
    out = []
    for rec in ctx.state.files:
        f = Path(rec.path)
        if f.name == br.manifest_name() and f not in known and not f.exists():
            profile = f.parent.parent
            gone = "folder is gone" if not profile.exists() else "manifest is gone"
            out.append(Check(
                id=f"browser:stale:{profile}", status="warn", title="custom profile (stale)",
                detail=f"install registered the host for {profile}, but that profile's {gone}",
                fix="webmcp-sidecar install (or uninstall) forgets it"))
    return out


def check_browsers(ctx: Context, opts: DoctorOptions) -> list[Check]:
    try:
        targets = _doctor_targets(ctx, opts)
    except KeyError as e:
        return [Check(id="browsers", status="fail", title="browser", detail=str(e.args[0]))]
    if any(t.custom and t.browser.family == "firefox" for t in targets):
        return [Check(id="browsers", status="fail", title="browser",
                      detail=br.FIREFOX_NO_PROFILE_DIR)]
    return _check_targets(ctx, opts, targets) + _stale_profiles(ctx, opts)


def _check_targets(ctx: Context, opts: DoctorOptions, targets: list[br.Target]) -> list[Check]:
    if not targets:
        return [Check(id="browsers", status="fail", title="Browsers",
                      detail="no supported browser (Chromium family or Firefox) found for this "
                             "user",
                      fix="install Chrome, Chromium, Edge, Brave, Vivaldi or Firefox, or name "
                          "yours: "
                          "webmcp-sidecar doctor --browser NAME / --user-data-dir DIR")]
    ids = list(dict.fromkeys([*chromium_ids(), *ctx.state.extension_ids, *opts.extension_ids]))
    launched: dict[str, Check] = {}
    per_target = [_check_target(ctx, t, ids, opts, launched) for t in targets]
    any_ok = any(all(c.status != "fail" for c in cs) for cs in per_target)
    out: list[Check] = []
    for t, cs in zip(targets, per_target, strict=True):
        # A browser the user did not set up while another works is a note, not a breakage.
        missing = len(cs) == 1 and cs[0].id.endswith(":manifest") and cs[0].status == "fail"
        if missing and any_ok and not opts.browsers and not t.custom:
            cs[0].status = "warn"
        out += cs
    return out


def _check_target(ctx: Context, t: br.Target, ids: list[str], opts: DoctorOptions,
                  launched: dict[str, Check]) -> list[Check]:
    name = t.label
    cid = f"browser:{t.browser.key}" + (":custom" if t.custom else "")
    checks: list[Check] = []
    manifest_path = t.manifest
    if t.reg is not None:
        hive, key = t.reg
        value = ctx.registry.get(hive, key) if ctx.registry else None
        if value is None:
            return [Check(id=f"{cid}:manifest", status="fail", title=f"{name}: registry key",
                          detail=f"{hive}\\{key} is missing: {NOT_FOUND}", fix=_install_fix(t))]
        checks.append(Check(id=f"{cid}:registry", status="ok", title=f"{name}: registry key",
                            detail=f"{hive}\\{key} -> {value}"))
        manifest_path = Path(value)
    try:
        data = manifest_path.read_bytes()
    except FileNotFoundError:
        return [*checks, Check(id=f"{cid}:manifest", status="fail", title=f"{name}: manifest",
                               detail=f"{manifest_path} is missing: {NOT_FOUND}",
                               fix=_install_fix(t))]
    except OSError as e:
        return [*checks, Check(id=f"{cid}:manifest", status="fail", title=f"{name}: manifest",
                               detail=f"cannot read {manifest_path}: {e.strerror}",
                               fix=f"make {manifest_path} readable, or {_install_fix(t)}")]
    checks.append(Check(id=f"{cid}:manifest", status="ok", title=f"{name}: manifest",
                        detail=str(manifest_path)))
    m, problem = _parse_manifest(data, t.browser.family)
    if m is None:
        checks.append(Check(id=f"{cid}:json", status="fail", title=f"{name}: manifest content",
                            detail=f"{problem}: {NOT_FOUND}", fix=_install_fix(t)))
        return checks
    checks.append(Check(id=f"{cid}:json", status="ok", title=f"{name}: manifest content",
                        detail=f"valid, name {HOST_NAME}, type stdio"))
    checks.append(_check_origins(cid, name, m, ids, t))
    path_check = _check_path(cid, name, m["path"], t)
    checks.append(path_check)
    if t.browser.sandbox == "flatpak":
        checks.append(_check_flatpak(ctx, cid, t.browser))
    if path_check.status == "fail":
        return checks
    if not opts.launch:
        checks.append(Check(id=f"{cid}:starts", status="skip", title=f"{name}: host starts",
                            detail="skipped (--no-launch)"))
    elif t.browser.sandbox == "flatpak":
        checks.append(Check(id=f"{cid}:starts", status="skip", title=f"{name}: host starts",
                            detail="not tried: the wrapper only works inside the sandbox"))
    else:
        key = f'{m["path"]}\n{t.browser.family}'
        if key not in launched:
            launched[key] = _check_launch(Path(m["path"]), opts.timeout, t.browser.family,
                                          manifest_path)
        c = launched[key].model_copy()
        c.id, c.title = f"{cid}:starts", f"{name}: host starts"
        if c.status == "fail":
            c.fix = c.fix or _install_fix(t)
        checks.append(c)
    return checks


def _parse_manifest(data: bytes, family: br.Family = "chromium"
                    ) -> tuple[dict[str, Any] | None, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        return None, "the manifest starts with a byte-order mark, which Chrome rejects"
    try:
        m = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return None, f"the manifest is not valid JSON ({e})"
    if not isinstance(m, dict):
        return None, "the manifest is not a JSON object"
    if m.get("name") != HOST_NAME:
        return None, f"the manifest's name is {m.get('name')!r}, not {HOST_NAME!r}"
    if m.get("type") != "stdio":
        return None, "the manifest's type is not \"stdio\""
    if not isinstance(m.get("path"), str) or not m["path"]:
        return None, "the manifest has no path"
    allowed = "allowed_extensions" if family == "firefox" else "allowed_origins"
    if not isinstance(m.get(allowed), list):
        return None, f"the manifest has no {allowed} list"
    return m, ""


def _check_origins(cid: str, name: str, m: dict[str, Any], ids: list[str],
                   t: br.Target) -> Check:
    if t.browser.family == "firefox":
        # Firefox allows add-on ids: ours and the `--extension-id`s of Firefox's form.
        ids = [GECKO_ID, *[i for i in ids if is_gecko_id(i) and i != GECKO_ID]]
        allowed = set(m["allowed_extensions"])
        missing = [i for i in ids if i not in allowed]
    else:
        ids = [i for i in ids if not is_gecko_id(i)]
        allowed = set(m["allowed_origins"])
        missing = [i for i in ids if f"chrome-extension://{i}/" not in allowed]
    if missing:
        extra = "".join(f" --extension-id {i}" for i in missing
                        if i not in (*chromium_ids(), GECKO_ID))
        return Check(id=f"{cid}:origins", status="fail", title=f"{name}: allowed origins",
                     detail=f"extension id(s) {', '.join(missing)} not allowed: {FORBIDDEN}",
                     fix=_install_fix(t, extra))
    return Check(id=f"{cid}:origins", status="ok", title=f"{name}: allowed origins",
                 detail=f"allows {', '.join(ids)}")


_LAUNCHER_TARGET = re.compile(r'(?:exec |flatpak-spawn --host |^)"([^"]+)"', re.M)


def _check_path(cid: str, name: str, raw: str, t: br.Target) -> Check:
    title = f"{name}: host path"
    path = Path(raw)
    if not path.is_absolute():
        return Check(id=f"{cid}:path", status="fail", title=title,
                     detail=f"{raw} is not absolute; browsers do not search PATH: {EXITED}",
                     fix=_install_fix(t))
    if not path.is_file():
        return Check(id=f"{cid}:path", status="fail", title=title,
                     detail=f"{raw} does not exist: {EXITED}", fix=_install_fix(t))
    if os.name != "nt" and not os.access(path, os.X_OK):
        return Check(id=f"{cid}:path", status="fail", title=title,
                     detail=f"{raw} is not executable: {EXITED}", fix=f"chmod +x '{raw}'")
    # A launcher or wrapper names another program: a removed venv is the classic breakage.
    if path.stat().st_size < 4096:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        for named in _LAUNCHER_TARGET.findall(text):
            if not Path(named).exists():
                return Check(id=f"{cid}:path", status="fail", title=title,
                             detail=f"{raw} runs {named}, which no longer exists (a removed "
                                    f"virtualenv or an upgraded Python?): {EXITED}",
                             fix=_install_fix(t))
    return Check(id=f"{cid}:path", status="ok", title=title, detail=f"{raw} (executable)")


def _check_flatpak(ctx: Context, cid: str, b: br.Browser) -> Check:
    override = ctx.env.home / ".local" / "share" / "flatpak" / "overrides" / b.flatpak_id
    try:
        ok = "org.freedesktop.Flatpak=talk" in override.read_text(encoding="utf-8")
    except OSError:
        ok = False
    if ok:
        return Check(id=f"{cid}:sandbox", status="ok", title=f"{b.name}: sandbox",
                     detail="may start the host outside the sandbox")
    return Check(id=f"{cid}:sandbox", status="fail", title=f"{b.name}: sandbox",
                 detail=f"the flatpak may not run flatpak-spawn: {EXITED}",
                 fix=f"flatpak override --user --talk-name=org.freedesktop.Flatpak {b.flatpak_id}")


def browser_env() -> dict[str, str]:
    """An environment like the one a desktop-started browser gives its hosts: no shell PATH."""
    if os.name == "nt":
        return dict(os.environ)
    keep = ("HOME", "USER", "LOGNAME", "LANG", "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_DISPLAY",
            "DBUS_SESSION_BUS_ADDRESS", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({k: v for k, v in os.environ.items() if k.startswith("WEBMCP_SIDECAR_")})
    env["PATH"] = "/usr/bin:/bin"
    return env


def _check_launch(path: Path, timeout: float, family: br.Family = "chromium",
                  manifest_path: Path | None = None) -> Check:
    """Start the host as the browser does, ping it, close stdin: it must answer and exit 0."""
    from webmcp_sidecar.wire.codec import encode_frame, header

    if family == "firefox":
        args = [str(path), str(manifest_path or br.manifest_name()), GECKO_ID]
    else:
        args = [str(path), f"chrome-extension://{EXTENSION_ID}/"]
        if os.name == "nt":
            args.append("--parent-window=0")
    title = "host starts"
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=browser_env())
    except OSError as e:
        return Check(id="starts", status="fail", title=title,
                     detail=f"cannot run {path}: {e.strerror or e}: {EXITED}")
    assert proc.stdin and proc.stdout and proc.stderr
    got: list[bytes] = []

    def read() -> None:
        assert proc.stdout
        head = proc.stdout.read(4)
        if len(head) == 4:
            got.append(proc.stdout.read(header().unpack(head)[0]))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.stdin.write(encode_frame(b'{"type":"ping","id":"doctor"}'))
        proc.stdin.flush()
    except OSError:
        pass
    reader.join(timeout)
    answered_ms = (time.perf_counter() - t0) * 1000
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return Check(id="starts", status="fail", title=title,
                     detail=f"{path} did not exit when stdin closed (the browser would leak it)")
    err = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
    tail = f" Last error line: {err[-1]}" if err else ""
    pong = got and b'"pong"' in got[0]
    if not pong:
        return Check(id="starts", status="fail", title=title,
                     detail=f"{path} exited with status {code} without answering a ping: "
                            f"{EXITED}{tail}",
                     fix="see the host log (webmcp-sidecar's user log dir), then re-run install")
    if code != 0:
        return Check(id="starts", status="fail", title=title,
                     detail=f"{path} answered but exited with status {code}.{tail}")
    return Check(id="starts", status="ok", title=title,
                 detail=f"answered a ping in {answered_ms:.0f} ms and exited cleanly")
