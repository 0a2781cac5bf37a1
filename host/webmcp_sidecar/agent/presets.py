"""Provider presets: where each provider lives, its default model, and its known quirks.

Quirk flags (what the adapters must do differently):
- `parallel_flag`: the API accepts `parallel_tool_calls: false` (others reject unknown fields,
  and several return parallel calls unreliably: the loop runs calls one at a time anyway).
- `tool_choice_auto`: the API accepts `tool_choice: "auto"`; we never force a tool (GLM, DeepSeek
  reasoning models and Ollama accept only "auto" or nothing), so we send it only where accepted.
- `needs_key`: Ollama serves without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Preset:
    id: str
    label: str
    kind: Literal["openai", "anthropic"]
    base_url: str
    model: str
    needs_key: bool = True
    parallel_flag: bool = False
    tool_choice_auto: bool = True
    note: str = ""


PRESETS: dict[str, Preset] = {
    p.id: p
    for p in [
        Preset("deepseek", "DeepSeek", "openai", "https://api.deepseek.com/v1", "deepseek-chat",
               note="Key from platform.deepseek.com."),
        Preset("qwen", "Qwen (DashScope)", "openai",
               "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus",
               note="DashScope compatible mode; key from the Model Studio console."),
        Preset("glm", "GLM (Zhipu)", "openai", "https://open.bigmodel.cn/api/paas/v4", "glm-4-plus",
               note="Key from open.bigmodel.cn."),
        Preset("moonshot", "Moonshot / Kimi", "openai", "https://api.moonshot.cn/v1",
               "kimi-k2-0905-preview", note="Key from platform.moonshot.cn."),
        Preset("openai", "OpenAI", "openai", "https://api.openai.com/v1", "gpt-4.1-mini",
               parallel_flag=True),
        Preset("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com",
               "claude-sonnet-4-5"),
        Preset("openrouter", "OpenRouter", "openai", "https://openrouter.ai/api/v1",
               "deepseek/deepseek-chat", parallel_flag=True),
        Preset("ollama", "Ollama (local)", "openai", "http://localhost:11434/v1", "qwen2.5:7b",
               needs_key=False, tool_choice_auto=False,
               note="Runs on this computer; no key. Start it with `ollama serve`."),
        Preset("custom", "Custom (OpenAI-compatible)", "openai", "", "", needs_key=False,
               tool_choice_auto=False,
               note="Any OpenAI-compatible server: set its base URL and model; a key if it needs one."),
    ]
}
