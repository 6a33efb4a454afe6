"""The Chainlit chat app: a thin layer that streams ``orchestration.runtime`` turns as steps.

Loading the app starts the turn workers' fork server first (``orchestration/fork_server.py``), so that its
imports of torch and sentence-transformers overlap this process's imports of Chainlit's and the app's modules.
"""

import os

from foundation.config import get_settings
from orchestration.fork_server import start

# the chat server of 'assess serve' (which sets CHAINLIT_APP_ROOT) with turn workers: tests importing chat_app start none
if os.environ.get("CHAINLIT_APP_ROOT") and (settings := get_settings()).turn_worker_count > 0:
    start(settings)
