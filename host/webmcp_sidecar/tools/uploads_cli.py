"""`webmcp-sidecar uploads allow|list|remove DIR`: the folders `browser_upload_file` may take
files from (see `tools/uploads.py`)."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    up = sub.add_parser("uploads", help="folders whose files browser tools may upload to pages "
                        "(none until you allow one)")
    usub = up.add_subparsers(dest="uploads_cmd", required=True)
    a = usub.add_parser("allow", help="allow uploads of the files in a folder and its subfolders")
    a.add_argument("folder")
    usub.add_parser("list", help="the allowed folders")
    r = usub.add_parser("remove", help="stop allowing a folder")
    r.add_argument("folder")


def run(args: argparse.Namespace) -> int:
    from webmcp_sidecar.tools import uploads

    try:
        if args.uploads_cmd == "allow":
            real = uploads.allow(args.folder)
            print(f"Allowed uploads from {real} and its subfolders (never dotfiles, hidden "
                  "folders, keys or browser data).")
            return 0
        if args.uploads_cmd == "list":
            folders = uploads.load()
            if not folders:
                print("No folder is allowed: uploads are off. Allow one with "
                      "`webmcp-sidecar uploads allow <folder>`.")
            for f in folders:
                print(f)
            return 0
        if args.uploads_cmd == "remove":
            gone = uploads.remove(args.folder)
            print(f"No longer allowed: {gone}" if gone else f"{args.folder} was not allowed.")
            return 0
    except (uploads.UploadRefused, OSError) as e:
        print(f"webmcp-sidecar uploads: {e}", file=sys.stderr)
        return 1
    return 2
