"""Model providers: OpenAI-compatible chat completions and Anthropic Messages, both streaming.

`make` builds the adapter for the settings; imported only when the panel is used (it loads the
SDKs).
"""

from __future__ import annotations

from ..presets import PRESETS
from ..settings import Settings
from .base import Provider, ProviderError


def make(settings: Settings, api_key: str | None, *, prompt_tools: bool) -> Provider:
    preset = PRESETS[settings.provider]
    base_url = settings.base_url()
    model = settings.model_name()
    if not base_url:
        raise ProviderError("config", "Set the base URL of your server in Settings (custom provider).")
    if not model:
        raise ProviderError("config", "Set the model name in Settings.")
    if preset.needs_key and not api_key:
        raise ProviderError(
            "missing_key",
            f"No API key is set for {preset.label}. Add it in Settings → API key "
            f"(or run `webmcp-sidecar keys set {preset.id}`).",
        )
    provider: Provider
    if preset.kind == "anthropic":
        from .anthropic_msgs import AnthropicMessages

        provider = AnthropicMessages(preset, base_url, model, api_key or "")
    else:
        from .openai_compat import OpenAICompat

        provider = OpenAICompat(preset, base_url, model, api_key or "")
    if prompt_tools:
        from .prompt_tools import PromptTools

        provider = PromptTools(provider)
    return provider


__all__ = ["Provider", "ProviderError", "make"]
