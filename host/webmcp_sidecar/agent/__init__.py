"""The side panel's agent: providers, the loop, keys, conversations and settings.

Everything here runs in the host (keys never leave it). `hook.install` registers the panel's
message handlers with the host and imports the rest (and the provider SDKs) only on first use,
so the host's cold start does not pay for them.
"""
