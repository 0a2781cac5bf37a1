"""What every doctor check returns, the report they make up, and the options they read.

Kept apart from `doctor.py` (which runs the checks) so the browser checks in `browsers.py` can
use these without importing the module that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from webmcp_sidecar.setup.install.engine import TargetOptions

Status = Literal["ok", "warn", "fail", "skip"]

# What the extension reports for each broken link, so a check's detail names the symptom the
# user has seen.
NOT_FOUND = 'the extension sees "Specified native messaging host not found."'
FORBIDDEN = 'the extension sees "Access to the specified native messaging host is forbidden."'
EXITED = 'the extension sees "Native host has exited."'


class Check(BaseModel):
    id: str
    status: Status
    title: str
    detail: str = ""
    fix: str = ""


class DoctorReport(BaseModel):
    ok: bool
    checks: list[Check] = Field(default_factory=list)
    # What is not set up yet though nothing is broken, in plain words (the verdict says these
    # instead of "everything needed works").
    missing: list[str] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {"ok": 0, "warn": 0, "fail": 0, "skip": 0}
        for c in self.checks:
            out[c.status] += 1
        return out


@dataclass
class DoctorOptions(TargetOptions):
    launch: bool = True
    timeout: float = 10.0
