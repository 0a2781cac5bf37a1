"""`webmcp-sidecar keys set|list|delete PROVIDER`: the keyring entries, from a terminal."""

from __future__ import annotations

import argparse
import getpass
import sys

# The provider profiles (presets.PRESETS; a unit test keeps them in step). Spelled out so that
# building the CLI's parser imports nothing of the agent.
PROVIDERS = ("deepseek", "qwen", "glm", "moonshot", "openai", "anthropic", "openrouter", "ollama", "custom")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = sub.add_parser("keys", help="API keys of the side panel's providers (in the OS keyring)")
    ksub = keys.add_subparsers(dest="keys_cmd", required=True)
    names = ", ".join(PROVIDERS)
    s = ksub.add_parser("set", help="store or replace a key (read from stdin when it is not a terminal)")
    s.add_argument("provider", help=f"one of: {names}")
    ksub.add_parser("list", help="which providers have a key (never the key)")
    d = ksub.add_parser("delete", help="delete a provider's key")
    d.add_argument("provider", help=f"one of: {names}")


def run(args: argparse.Namespace) -> int:
    from webmcp_sidecar.agent import keys
    from webmcp_sidecar.agent.presets import PRESETS

    try:
        if args.keys_cmd == "list":
            have = keys.which()
            for p, preset in PRESETS.items():
                state = "set" if have[p] else ("not needed" if not preset.needs_key else "not set")
                print(f"{p:<11} {state}")
            return 0
        keys.check_provider(args.provider)
        if args.keys_cmd == "set":
            keys.backend()  # say "no keyring" before asking for the key
            if sys.stdin.isatty():
                key = getpass.getpass(f"API key for {PRESETS[args.provider].label} (not shown): ")
            else:
                key = sys.stdin.read()
            keys.set_key(args.provider, key)
            print(f"Stored the key for {args.provider} in the OS keyring.")
            return 0
        if args.keys_cmd == "delete":
            if keys.delete_key(args.provider):
                print(f"Deleted the key for {args.provider}.")
            else:
                print(f"No key was stored for {args.provider}.")
            return 0
    except (keys.KeyringUnavailable, ValueError) as e:
        print(f"webmcp-sidecar keys: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    return 2
