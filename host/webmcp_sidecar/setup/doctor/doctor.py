"""`webmcp-sidecar doctor`: check each link from browser to MCP client, and say how to fix it.

The chain: the browser finds our manifest (file, or registry key on Windows) -> the manifest is
valid and allows our extension -> its `path` runs without the user's shell environment and
answers native messaging -> a live host is on the local socket with the extension connected ->
each MCP client's config names a command that exists. Plus the keyring and the log dir.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

from webmcp_sidecar.extension_ids import describe_origin
from webmcp_sidecar.setup.doctor.browsers import check_browsers
from webmcp_sidecar.setup.doctor.checks import Check, DoctorOptions, DoctorReport
from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install.engine import Context
from webmcp_sidecar.setup.install.state import sha256

# Callers import these from here too (`doctor.DoctorReport`, `doctor.DoctorOptions`).
__all__ = ["Check", "DoctorOptions", "DoctorReport", "check_clients", "check_hosts",
           "check_keyring", "check_log_dir", "run_doctor"]


def run_doctor(ctx: Context, opts: DoctorOptions) -> DoctorReport:
    connected = extension_ever_connected()
    checks: list[Check] = []
    checks += check_browsers(ctx, opts)
    checks += check_hosts(opts.timeout)
    checks += check_clients(ctx)
    checks.append(check_keyring())
    checks.append(check_log_dir())
    return DoctorReport(ok=not any(c.status == "fail" for c in checks), checks=checks,
                        missing=_missing(checks, connected))


_CONNECTED = re.compile(rb" INFO extension \S* connected \(")


def extension_ever_connected() -> bool:
    """Whether a host has logged the extension's hello (app.py's "extension ... connected"),
    in the host log or its rotated copies. A host doctor itself starts never gets one."""
    from webmcp_sidecar.paths import log_dir

    for p in log_dir().glob("host.log*"):
        try:
            if _CONNECTED.search(p.read_bytes()):
                return True
        except OSError:
            continue
    return False


def _missing(checks: list[Check], connected: bool) -> list[str]:
    """What stands between this machine and a working setup though no check failed."""
    out = []
    for c in checks:
        # A browser's default profile without our manifest (a warning while another works).
        if (c.id.startswith("browser:") and c.id.endswith(":manifest")
                and ":custom" not in c.id and c.status == "warn"):
            name = c.title.rsplit(": ", 1)[0]
            out.append(f"{name}'s default profile has no host manifest: {name} started the "
                       f"usual way cannot start the host (fix: {c.fix})")
    live = any(c.id.startswith("host:") and c.status == "ok" for c in checks)
    if not live and not connected:
        out.append("no host has ever run for the extension: it has never connected here (load "
                   "it in the browser, as install printed, or reload it)")
    return out


# --- hosts on the local socket ------------------------------------------------------------


async def _probe(timeout: float) -> list[tuple[Any, dict[str, Any] | None, str]]:
    from webmcp_sidecar.wire import localsock
    from webmcp_sidecar.wire.codec import dumps
    from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

    out: list[tuple[Any, dict[str, Any] | None, str]] = []
    for ep in localsock.list_endpoints():
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await localsock.connect(ep)
                hello = {"type": "entry_hello", "protocol": PROTOCOL_VERSION, "client": "doctor",
                         "pid": os.getpid(),
                         "token": ep.token}
                writer.write(localsock.frame(dumps(hello)))
                await writer.drain()
                payload = await localsock.read_frame(reader)
                writer.close()
            msg = json.loads(payload) if payload else None
            if not isinstance(msg, dict) or msg.get("type") != "welcome":
                out.append((ep, None, "closed the connection without a welcome"))
            else:
                out.append((ep, msg, ""))
        except (OSError, TimeoutError, ValueError) as e:
            why = "timed out" if isinstance(e, TimeoutError) else (
                getattr(e, "strerror", None) or str(e) or type(e).__name__)
            out.append((ep, None, why))
    return out


def check_hosts(timeout: float = 3.0) -> list[Check]:
    from webmcp_sidecar.paths import socket_dir
    from webmcp_sidecar.wire import localsock

    results = asyncio.run(_probe(min(timeout, 3.0)))
    checks = []
    live = [(ep, w) for ep, w, _ in results if w is not None]
    for ep, w, why in results:
        if w is None:
            stale = not localsock.pid_alive(ep.pid)
            checks.append(Check(
                id=f"host:{ep.pid}", status="warn", title="host socket",
                detail=f"{ep.path}: {why}" + (" (its host is gone: a stale file)" if stale else ""),
                fix=f"remove {ep.path}" if stale else "restart the browser"))
    for ep, w in live:
        assert w is not None
        origin = str(w.get("extension_origin") or "")
        who = f"host {w.get('pid')} for {origin or '?'}"
        browser = w.get("browser") or "browser not yet known"
        if w.get("extension_connected"):
            detail = (f"host {w.get('pid')} ({browser}): extension {w.get('extension_version')} "
                      f"connected: {describe_origin(origin)}; "
                      f"{len(w.get('sites') or {})} site(s) with tools")
            checks.append(Check(id=f"host:{ep.pid}", status="ok", title="host reachable",
                                detail=detail))
        else:
            checks.append(Check(id=f"host:{ep.pid}", status="warn", title="host reachable",
                                detail=f"{who}: running, but the extension has not said hello",
                                fix="reload the extension in chrome://extensions"))
    refused = localsock.scan()[1]  # the socket dir is another user's, a symlink, or open
    if refused:
        checks.append(Check(id="host", status="fail", title="host socket dir", detail=refused))
    elif not live:
        checks.append(Check(
            id="host", status="warn", title="host reachable",
            detail=f"no live host in {socket_dir()}: the browser starts one when the extension "
                   "connects",
            fix="open the browser with the extension loaded; if no host appears, open the "
                "extension's service worker console (chrome://extensions > Inspect) for the "
                "native messaging error"))
    return checks


# --- MCP clients --------------------------------------------------------------------------


def check_clients(ctx: Context) -> list[Check]:
    env = ctx.env
    wanted = {c.key: c for c in cl.detect(env)}
    for rec in ctx.state.clients:
        try:
            wanted.setdefault(rec.client, cl.by_key(rec.client))
        except KeyError:
            continue
    if not wanted:
        return [Check(id="clients", status="skip", title="MCP clients",
                      detail="no MCP client config found")]
    return [_check_client(ctx, c) for c in wanted.values()]


def _check_client(ctx: Context, c: cl.Client) -> Check:
    path = c.config_path(ctx.env)
    title = f"{c.name}: MCP entry"
    cid = f"client:{c.key}"
    fix = f"webmcp-sidecar install --clients {c.key}"
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return Check(id=cid, status="warn", title=title, detail=f"{path} does not exist", fix=fix)
    except (OSError, UnicodeDecodeError) as e:
        return Check(id=cid, status="fail", title=title, detail=f"cannot read {path}: {e}",
                     fix=f"fix {path}, then {fix}")
    try:
        entry = c.get(text)
    except ValueError as e:
        return Check(id=cid, status="fail", title=title,
                     detail=f"{path} is not valid {c.fmt.upper()} ({e}); {c.name} cannot read it "
                            "either",
                     fix=f"fix {path}, then {fix}")
    if entry is None:
        return Check(id=cid, status="warn", title=title,
                     detail=f"no {c.container}.{cl.SERVER_NAME} in {path}", fix=fix)
    command = cl.run_of(entry)[0]  # nested for the Cline CLI, {"path": ...} in older Zed
    if not command:
        return Check(id=cid, status="fail", title=title, detail=f"the entry in {path} has no "
                     "command", fix=fix)
    exe = Path(command)
    if not exe.is_absolute():
        return Check(id=cid, status="warn", title=title,
                     detail=f"command {command!r} relies on PATH, which apps started from the "
                            "desktop may not have", fix=fix)
    if not exe.is_file() or (os.name != "nt" and not os.access(exe, os.X_OK)):
        return Check(id=cid, status="fail", title=title,
                     detail=f"command {command} does not exist or is not executable", fix=fix)
    rec = ctx.state.client(c.key, path)
    changed = rec is not None and rec.written_sha256 not in ("", sha256(text.encode()))
    return Check(id=cid, status="ok", title=title,
                 detail=f"{path}: {command}" + (" (file edited since install)" if changed else ""))


# --- keyring and logs ---------------------------------------------------------------------


def check_keyring() -> Check:
    title = "keyring"
    try:
        import keyring

        kr = keyring.get_keyring()
        name = f"{type(kr).__module__}.{type(kr).__name__}"
        priority = float(getattr(kr, "priority", 1))
    except Exception as e:  # a broken backend must not break doctor
        return Check(id="keyring", status="warn", title=title,
                     detail=f"no usable keyring backend ({type(e).__name__}: {e})",
                     fix=_keyring_fix())
    if "fail" in name.lower() or "null" in name.lower() or priority <= 0:
        return Check(id="keyring", status="warn", title=title,
                     detail=f"no usable keyring backend ({name}): model API keys cannot be "
                            "stored", fix=_keyring_fix())
    return Check(id="keyring", status="ok", title=title, detail=name)


def _keyring_fix() -> str:
    if os.name == "nt" or os.uname().sysname == "Darwin":
        return "the system keychain should be available; check `python -m keyring diagnose`"
    return ("run a Secret Service provider (gnome-keyring or KWallet) in your desktop "
            "session; on a headless machine start one with dbus-run-session")


def check_log_dir() -> Check:
    from webmcp_sidecar.paths import log_dir
    from webmcp_sidecar.setup.install.fsops import explain

    d = log_dir()
    probe = d / f".doctor-{os.getpid()}"
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as e:
        return Check(id="logs", status="fail", title="log dir", detail=explain(e, probe),
                     fix=f"make {d} writable, or set WEBMCP_SIDECAR_LOG_DIR")
    return Check(id="logs", status="ok", title="log dir", detail=f"{d} (writable)")
