"""The Chainlit chat app: a thin layer that streams ``orchestration.runtime`` turns as steps."""
