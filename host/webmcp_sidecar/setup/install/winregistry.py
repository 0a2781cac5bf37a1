"""The Windows registry, behind a three-call interface tests can observe.

Chrome finds a host on Windows through `HKCU|HKLM\\<key>\\<host name>`, whose default value is the
manifest's path. That is all we read or write.
"""

from __future__ import annotations

import sys
from typing import Protocol


class Registry(Protocol):
    def get(self, hive: str, key: str) -> str | None:
        """The key's default value, or None when the key does not exist."""
        ...

    def set(self, hive: str, key: str, value: str) -> None: ...

    def delete(self, hive: str, key: str) -> None: ...


class MemoryRegistry:
    """An in-memory registry: the Windows layout on other OSes, and what tests inspect."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], str] = {}
        self.log: list[tuple[str, str, str, str | None]] = []

    def get(self, hive: str, key: str) -> str | None:
        return self.values.get((hive, key.lower()))

    def set(self, hive: str, key: str, value: str) -> None:
        self.log.append(("set", hive, key, value))
        self.values[(hive, key.lower())] = value  # registry keys are case-insensitive

    def delete(self, hive: str, key: str) -> None:
        self.log.append(("delete", hive, key, None))
        self.values.pop((hive, key.lower()), None)


# Defined on Windows only: `winreg` exists there alone (and type checkers, run elsewhere, skip
# this block rather than flag every winreg call).
if sys.platform == "win32":

    class WinRegistry:  # pragma: no cover - Windows only
        def __init__(self) -> None:
            import winreg

            self._w = winreg

        def _hive(self, hive: str) -> int:
            w = self._w
            return {"HKCU": w.HKEY_CURRENT_USER, "HKLM": w.HKEY_LOCAL_MACHINE}[hive]

        def get(self, hive: str, key: str) -> str | None:
            try:
                with self._w.OpenKey(self._hive(hive), key) as k:
                    value, _kind = self._w.QueryValueEx(k, "")
                    return str(value)
            except FileNotFoundError:
                return None

        def set(self, hive: str, key: str, value: str) -> None:
            w = self._w
            with w.CreateKeyEx(self._hive(hive), key, 0, w.KEY_WRITE) as k:
                w.SetValueEx(k, "", 0, w.REG_SZ, value)

        def delete(self, hive: str, key: str) -> None:
            try:
                self._w.DeleteKey(self._hive(hive), key)
            except FileNotFoundError:
                pass


def system_registry() -> Registry | None:
    if sys.platform == "win32":
        return WinRegistry()
    return None
