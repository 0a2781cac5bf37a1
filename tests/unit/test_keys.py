"""Keys in a real Secret Service (gnome-keyring-daemon on a private D-Bus, fresh HOME), through
the real CLI; and the refusal to use anything that is not a real keyring."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.keyring_env import secret_service
from webmcp_sidecar.agent import keys
from webmcp_sidecar.agent.keys_cli import PROVIDERS
from webmcp_sidecar.agent.presets import PRESETS

KEY = "sk-unit-4f1c9e2b7d"


@pytest.fixture(scope="module")
def keyring_env(tmp_path_factory):
    with secret_service(tmp_path_factory.mktemp("keyring")) as env:
        yield env


def cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webmcp_sidecar", "keys", *args], input=stdin,
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=60)


def test_set_list_delete_through_the_cli(keyring_env):
    r = cli(keyring_env, "set", "deepseek", stdin=KEY + "\n")
    assert r.returncode == 0, r.stderr
    assert "Stored the key for deepseek" in r.stdout and KEY not in r.stdout + r.stderr
    # It really is in the Secret Service, under our service name and the profile.
    looked = subprocess.run(["secret-tool", "lookup", "service", "webmcp-sidecar", "username", "deepseek"],
                            capture_output=True, text=True, env={**os.environ, **keyring_env})
    assert looked.stdout.strip() == KEY
    r = cli(keyring_env, "list")
    assert r.returncode == 0 and KEY not in r.stdout
    lines = dict(line.split(None, 1) for line in r.stdout.strip().splitlines())
    assert lines["deepseek"] == "set" and lines["qwen"] == "not set" and lines["ollama"] == "not needed"
    r = cli(keyring_env, "set", "deepseek", stdin="sk-replaced-1\n")
    assert r.returncode == 0
    r = cli(keyring_env, "delete", "deepseek")
    assert r.returncode == 0 and "Deleted the key for deepseek" in r.stdout
    assert "No key was stored" in cli(keyring_env, "delete", "deepseek").stdout
    assert "deepseek    not set" in cli(keyring_env, "list").stdout


def test_bad_input_is_refused_plainly(keyring_env):
    r = cli(keyring_env, "set", "nosuch", stdin=KEY)
    assert r.returncode == 1 and "Unknown provider 'nosuch'" in r.stderr and KEY not in r.stderr
    r = cli(keyring_env, "set", "qwen", stdin="   \n")
    assert r.returncode == 1 and "empty" in r.stderr
    assert "qwen        not set" in cli(keyring_env, "list").stdout


def test_no_usable_backend_says_what_to_install(tmp_path):
    env = {"HOME": str(tmp_path), "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/none",
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    r = cli(env, "set", "deepseek", stdin=KEY)
    assert r.returncode == 1
    assert "No OS keyring is available" in r.stderr and "gnome-keyring" in r.stderr
    assert "never stores keys in a plain file" in r.stderr and KEY not in r.stderr
    assert not any(KEY in p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file())
    r = cli({**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}, "list")
    assert r.returncode == 1 and "No OS keyring" in r.stderr


def test_plaintext_backends_are_refused(monkeypatch):
    """keyrings.alt's file backends would write the key to a file: never used."""
    import keyring.backend

    stored: dict[tuple[str, str], str] = {}

    class PlaintextKeyring(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def get_password(self, service, username):
            return stored.get((service, username))

        def set_password(self, service, username, password):
            stored[(service, username)] = password

        def delete_password(self, service, username):
            stored.pop((service, username), None)

    PlaintextKeyring.__module__ = "keyrings.alt.file"
    monkeypatch.setattr(keyring, "get_keyring", lambda: PlaintextKeyring())
    with pytest.raises(keys.KeyringUnavailable, match="never stores keys in a plain file"):
        keys.set_key("openai", KEY)
    assert stored == {}


def test_cli_provider_list_matches_presets():
    assert tuple(PRESETS) == PROVIDERS
