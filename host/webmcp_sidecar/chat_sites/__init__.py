"""Chat-site adapters (issue 13, docs/CHAT_SITES.md): how to bring tools into an AI chat website
(DeepSeek, Kimi, Qwen, Doubao, ChatGPT, Claude, Gemini): the model (`model.py`), the JSON path
syntax (`paths.py`), the store (`store.py`) and the CLI (`cli.py`)."""
