"""Provider failures mapped to plain language, with what to do about them."""

from __future__ import annotations

import json
import re
from typing import Any

from webmcp_sidecar.agent.providers.base import ProviderError

_CONTEXT = re.compile(
    r"context[_ ]length|maximum context|context window|too many tokens|prompt is too long|"
    r"input is too long|reduce the length|exceeds? the (?:model'?s? )?(?:maximum|context)|"
    r"range of input length",
    re.I,
)
_TOOLS = re.compile(
    r"does not support tools|tools? (?:is|are) not supported|(?:not|n't) support(?:ed)? (?:for )?"
    r"(?:tools?|function)|function[_ ]?call(?:ing)? (?:is )?not|tool use is not supported|"
    r"tool[_ ]choice.*(?:not supported|unsupported|invalid)",
    re.I,
)
_QUOTA = re.compile(r"quota|insufficient|balance|billing|credit|arrear", re.I)


def body_message(body: Any, fallback: str = "") -> str:
    """The human part of an error body: {"error": {"message"}}, {"message"}, or text."""
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except ValueError:
            return str(body if isinstance(body, str) else body.decode(errors="replace"))[:500]
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("msg") or err.get("type")
            if msg:
                return str(msg)[:500]
        elif isinstance(err, str):
            return err[:500]
        if body.get("message"):
            return str(body["message"])[:500]
    return fallback[:500]


def explain(status: int | None, detail: str, *, label: str, provider_id: str, model: str,
            base_url: str) -> ProviderError:
    """An HTTP status (None: no answer at all) and the provider's message -> ProviderError."""
    said = f" The provider said: “{detail.strip()}”" if detail.strip() else ""
    keys_hint = f"Settings → API key (or `webmcp-sidecar keys set {provider_id}`)"
    if status is None:
        extra = " Is Ollama running (`ollama serve`)?" if provider_id == "ollama" else ""
        return ProviderError(
            "network",
            f"Could not reach {label} at {base_url}.{extra} Check your network connection, any proxy, "
            f"and the base URL in Settings.{said}",
        )
    if status == 401:
        return ProviderError(
            "auth", f"{label} refused the API key (401). Check it and set it again in {keys_hint}.{said}"
        )
    if status == 402 or (status in (403, 429) and _QUOTA.search(detail)):
        return ProviderError(
            "quota", f"{label} says the account is out of credit or quota ({status}). Top up or check "
            f"your plan on the provider's site, then try again.{said}"
        )
    if status == 403:
        return ProviderError(
            "forbidden", f"{label} refused access ({status}): the key may not be allowed to use "
            f"“{model}”, or the service is not available in your region.{said}"
        )
    if status == 429:
        return ProviderError(
            "rate_limit", f"{label} is rate-limiting requests (429). Wait a few seconds and send again; "
            f"if it keeps happening, check your plan's limits.{said}"
        )
    if status == 404:
        return ProviderError(
            "not_found", f"{label} does not know the model “{model}” (or the base URL {base_url} is "
            f"wrong) (404). Check the model name and base URL in Settings.{said}"
        )
    if status in (400, 413, 422) and _CONTEXT.search(detail):
        return ProviderError(
            "context_too_long", f"The conversation is too long for “{model}”. Start a new "
            f"conversation, or choose a model with a longer context.{said}"
        )
    if status in (400, 404, 422, 501) and _TOOLS.search(detail):
        return ProviderError(
            "tools_unsupported", f"“{model}” does not support tool calling. Set Settings → Tool "
            f"calling to “In the prompt” (or “Automatic”), or choose a model with tool calling.{said}"
        )
    if status >= 500:
        return ProviderError(
            "server", f"{label} had a server error ({status}). Try again in a moment.{said}"
        )
    return ProviderError("bad_request", f"{label} rejected the request ({status}).{said}")


# Error `type`s of in-stream error events (Anthropic's names; OpenAI-compatible servers vary).
_TYPE_STATUS = {
    "authentication_error": 401, "permission_error": 403, "not_found_error": 404,
    "rate_limit_error": 429, "invalid_request_error": 400, "request_too_large": 413,
    "overloaded_error": 529, "api_error": 500, "server_error": 500,
}


def _error_type(body: Any) -> str:
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("type") or "")
    return ""


def from_exception(e: BaseException, *, label: str, provider_id: str, model: str,
                   base_url: str) -> ProviderError:
    """Map an SDK exception (openai or anthropic: same shapes) to a ProviderError."""
    if isinstance(e, ProviderError):
        return e
    name = type(e).__name__
    ctx = dict(label=label, provider_id=provider_id, model=model, base_url=base_url)
    if name in ("APITimeoutError", "ReadTimeout", "ConnectTimeout", "TimeoutException"):
        return ProviderError(
            "timeout", f"{label} did not answer in time. Try again; if it persists the service may be "
            "overloaded."
        )
    status = getattr(e, "status_code", None)
    if isinstance(status, int) and status < 400:
        status = None  # an error event inside a 200 stream: judged by its body below
    if isinstance(status, int):
        body = getattr(e, "body", None)
        return explain(status, body_message(body, str(getattr(e, "message", "") or e)), **ctx)
    if name in ("APIConnectionError", "ConnectError", "RemoteProtocolError", "ReadError"):
        cause = e.__cause__ or e.__context__
        return explain(None, str(cause or "")[:200], **ctx)
    # An error event inside the stream (the SDKs raise APIError with the event's body).
    body = getattr(e, "body", None)
    if body is not None or (name.endswith("Error") and hasattr(e, "message")):
        detail = body_message(body, str(getattr(e, "message", "") or e))
        kind = _error_type(body)
        status_guess = _TYPE_STATUS.get(kind, 0) or (
            400 if (_CONTEXT.search(detail) or _TOOLS.search(detail)) else 500)
        return explain(status_guess, detail, **ctx)
    return ProviderError("protocol", f"{label} sent something unexpected ({name}: {str(e)[:200]}).")


class SdkProvider:
    """What the SDK-backed providers share: where they talk to, closing their client, and
    turning the SDK's exceptions into a plain ProviderError."""

    client: Any  # the SDK's async client, set by the subclass

    def __init__(self, preset: Any, base_url: str, model: str) -> None:
        self.preset = preset
        self.label = preset.label
        self.base_url = base_url
        self.model = model

    async def aclose(self) -> None:
        await self.client.close()

    def _error(self, e: BaseException) -> Exception:
        return from_exception(e, label=self.label, provider_id=self.preset.id, model=self.model,
                              base_url=self.base_url)
