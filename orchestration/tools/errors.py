"""The one error a tool raises for a problem the user should read (unknown assessment, unknown site, …)."""

from __future__ import annotations


class ToolError(RuntimeError):
    """A tool could not answer; the message is for users and names what to ask instead."""
