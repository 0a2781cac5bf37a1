"""Settings of the MCP entry (command-line flags, or environment variables)."""

from __future__ import annotations

import os

from pydantic import BaseModel, Field


class EntryConfig(BaseModel):
    timeout_s: float = Field(60.0, gt=0, description="How long a page tool may take.")
    max_result_bytes: int = Field(16 * 1024 * 1024, gt=0, description="Largest result accepted.")

    @classmethod
    def from_env(cls) -> EntryConfig:
        data: dict[str, str] = {}
        if v := os.environ.get("WEBMCP_SIDECAR_TIMEOUT"):
            data["timeout_s"] = v
        if v := os.environ.get("WEBMCP_SIDECAR_MAX_RESULT_BYTES"):
            data["max_result_bytes"] = v
        return cls.model_validate(data)
