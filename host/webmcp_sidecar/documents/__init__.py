"""User documents (skills, chat-site adapters, ...): one kind declaration each (kind.py), one
store over their text files and on/off state (store.py), one CLI factory (cli.py); the host's
side is native_host/doc_link.py. docs/DOCUMENTS.md shows how a new kind is added."""
