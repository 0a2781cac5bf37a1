"""The agent's settings, kept by the host in the user data dir (never a key: that is keyring's)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from webmcp_sidecar.agent.presets import PRESETS
from webmcp_sidecar.paths import data_dir

log = logging.getLogger(__name__)


class ProviderConfig(BaseModel):
    """What the user changed for one provider profile; empty = the preset's default."""

    model_config = ConfigDict(extra="ignore")
    model: Annotated[str, Field(max_length=200)] = ""
    base_url: Annotated[str, Field(max_length=500)] = ""

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str) -> str:
        v = v.strip()
        if v and not v.startswith(("http://", "https://")):
            raise ValueError("the base URL must start with http:// or https://")
        return v.rstrip("/")


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore")
    provider: str = "deepseek"
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    # auto: run every call; confirm: calls to tools not marked read-only wait for Run / Deny.
    mode: Literal["auto", "confirm"] = "confirm"
    # native: the API's tool calling; prompt: tools described in the prompt (models without
    # tool calling); auto: native, falling back to prompt when the model refuses tools.
    tool_mode: Literal["auto", "native", "prompt"] = "auto"
    max_tool_calls: Annotated[int, Field(ge=1, le=100)] = 10
    call_timeout_s: Annotated[float, Field(ge=1, le=600)] = 10
    turn_timeout_s: Annotated[float, Field(ge=5, le=3600)] = 60

    @field_validator("provider")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in PRESETS:
            raise ValueError(f"unknown provider {v!r}; one of: {', '.join(PRESETS)}")
        return v

    def config(self, provider: str | None = None) -> ProviderConfig:
        return self.providers.get(provider or self.provider) or ProviderConfig()

    def model_name(self) -> str:
        return self.config().model or PRESETS[self.provider].model

    def base_url(self) -> str:
        return self.config().base_url or PRESETS[self.provider].base_url


def _path() -> Path:
    return data_dir() / "agent" / "settings.json"


def load() -> Settings:
    path = _path()
    try:
        return Settings.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return Settings()
    except (OSError, ValidationError, ValueError) as e:
        # A broken file must not lock the user out: keep it aside, start from defaults.
        log.warning("settings file %s unreadable (%s); using defaults", path, type(e).__name__)
        try:
            path.replace(path.with_suffix(".broken.json"))
        except OSError:
            pass
        return Settings()


def save(settings: Settings) -> None:
    write_json(_path(), settings.model_dump(mode="json"))


def write_json(path: Path, value: object) -> None:
    """Write atomically (temp file + rename), readable by this user only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)
    os.replace(tmp, path)
