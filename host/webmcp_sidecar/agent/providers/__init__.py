"""Model providers: OpenAI-compatible chat completions and Anthropic Messages, both streaming.

`make` builds the adapter for the settings; imported only when the panel is used (it loads the
SDKs).
"""

from __future__ import annotations

from webmcp_sidecar.agent.presets import PRESETS
from webmcp_sidecar.agent.providers.base import Provider, ProviderError
from webmcp_sidecar.agent.settings import Settings


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
        from webmcp_sidecar.agent.providers.anthropic_msgs import AnthropicMessages

        provider = AnthropicMessages(preset, base_url, model, api_key or "")
    else:
        from webmcp_sidecar.agent.providers.openai_compat import OpenAICompat

        provider = OpenAICompat(preset, base_url, model, api_key or "")
    if prompt_tools:
        from webmcp_sidecar.agent.providers.prompt_tools import PromptTools

        provider = PromptTools(provider)
    return provider


__all__ = ["Provider", "ProviderError", "make"]
