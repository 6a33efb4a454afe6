"""What the chat server keeps for its life, in one object built from the settings (``build_parts``): the element
store, this instance's upload folder and the lock that marks it alive, the revoked sign-ins, the login throttle, the
message limits, the uploads in progress, the background tasks held until done, the services of the server's own
work and its turn workers.

``chat_app/app.py`` builds it once, when Chainlit loads the app, and keeps it on the web app's state
(``chainlit_app.state.parts``): the chat layer's composition root. No chat module keeps anything of its own, so a
test builds the parts of a data directory without starting a server, and two builds share nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

from chat_app.files_dir import InstanceFiles, use_instance_files_directory
from chat_app.limits import MessageLimits
from chat_app.sessions import LoginThrottle, RevokedTokens
from chat_app.storage import LocalStorageClient
from chat_app.uploads import Uploads
from foundation.config import Settings, app_secret
from orchestration.services import Services, build_services
from orchestration.turn_pool import TurnPool


@dataclass
class ServerParts:
    settings: Settings
    services: Services  # of the server's own work: commands, the document library, uploads, turns without workers
    elements: LocalStorageClient  # the files of answers' elements, served by the element route
    files: InstanceFiles  # this instance's upload folder, locked while the process lives
    revoked: RevokedTokens
    throttle: LoginThrottle
    limits: MessageLimits
    uploads: Uploads  # in progress, by cancel token
    started_at: str  # uploads pending since before this were cut short by the previous server
    background: set[asyncio.Task[None]] = field(default_factory=set)  # held until done (the loop keeps weak refs)
    turn_pool: TurnPool | None = None  # started with the app (``on_startup``), not when the module loads


def build_parts(settings: Settings) -> ServerParts:
    """The parts over ``settings``: cheap, nothing slow is loaded (the services build what is slow on first use)."""
    services = build_services(settings)
    secret = app_secret(settings)
    return ServerParts(settings=settings, services=services,
                       elements=LocalStorageClient(settings.elements_path, secret),
                       files=use_instance_files_directory(settings.data_dir),
                       revoked=RevokedTokens(services.memory), throttle=LoginThrottle(services.memory, secret),
                       limits=MessageLimits(),
                       uploads=Uploads(), started_at=datetime.now(UTC).isoformat())
