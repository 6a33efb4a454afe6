"""The Chainlit chat app: a thin layer that streams ``orchestration.runtime`` turns as steps.

Loading the app starts the turn workers' fork server first (``orchestration/fork_server.py``), so that its
imports of torch and sentence-transformers overlap this process's imports of Chainlit's and the app's modules.
"""

from orchestration.fork_server import start_for_chainlit

start_for_chainlit()
