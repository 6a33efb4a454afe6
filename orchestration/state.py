"""The shared STATE of one turn (DESIGN §3) as pydantic models, plus the graph's reducers.

Who writes what: ``input`` is set by the runtime; ``intent`` and ``conversation`` by the Intent
Classifier; ``plan`` by the Planner, each task's ``status``/``outputs`` by that task's owner;
``mcp.tool_calls`` by agents that call tools; ``final`` by the Answer Composer; ``trace`` by the
runtime for every node. The contracts in ``contracts/agents/`` say the same as data, and
``orchestration.enforcement`` refuses any other write.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from assessment_engine.query import DataQuery
from foundation.vocabulary.scope import AnswerScope, Scope
from orchestration.outputs import TaskOutputs

IntentClass = Literal[
    "cbp_assessment",
    "cbp_expert_insights",
    "cbp_generic",
    "security_assessment",
    "unknown_or_needs_clarification",
]
Skill = Literal[
    "cbp_assessment",
    "cbp_expert_insights",
    "cbp_generic",
    "sec_assessment",
    "sec_expert_insights",
    "sec_generic",
]
MetaIntent = Literal[
    "new_topic",
    "followup_question",
    "clarification_request",
    "acknowledgement",
    "confirmation",
    "cancellation",
    "escalation",
]
EntityType = Literal[
    "site",
    "device",
    "device_type",
    "asset_target",
    "environment",
    "timeframe",
    "assessment_type",
    "assessment_id",
    "severity",
    "ip_address",
    "vlan",
    "output_format",
    "priority",
    "platform",
    "os_version",
]
NameStatus = Literal["exact", "corrected", "ambiguous", "unknown", "dropped"]
_S = TypeVar("_S", bound="StateModel")
TaskStatus = Literal["pending", "in_progress", "completed", "failed", "skipped"]
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "skipped"})


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class StateModel(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def evolve(self: _S, **changes: Any) -> _S:
        """A copy with ``changes`` applied and validated (``model_copy(update=…)`` would accept anything)."""
        return type(self).model_validate({**{k: getattr(self, k) for k in self.model_fields_set}, **changes})


# --- input -------------------------------------------------------------------------------------
class PastedLine(StateModel):
    """A configuration line pasted into the question and a check that judges it on its own ("is this ok: ip http
    server"), judged by the runtime before the prompt was masked; the line as shown, its secrets masked."""

    line: str
    rule_id: str
    fails: bool  # the rule forbids the line; else the line is one the rule requires
    under: str = ""  # the block or interface the rule looks for it in


class TurnInput(StateModel):
    """Written by the runtime before the graph starts."""

    user_prompt: str = ""  # secrets masked
    pasted_lines: list[PastedLine] = Field(default_factory=list)
    context_kv: dict[str, str] = Field(default_factory=dict)
    thread_id: str = "default"
    user_id: str = "local"


# --- intent ------------------------------------------------------------------------------------
class Entity(StateModel):
    type: EntityType
    value: str
    confidence: float = Field(ge=0.0, le=1.0)
    source: Literal["explicit", "inventory", "derived", "conversation", "unresolved"] = "explicit"


class NameResolution(StateModel):
    """How one name the user typed was read against the inventory (``orchestration/nlu/names.py``).

    ``exact`` and ``corrected`` (one clear fuzzy match) become entities; ``ambiguous`` and ``unknown``
    stop the turn with a clarification question listing ``candidates``; ``dropped`` is a member of a
    range ("stores 40-45") that is not in the inventory and was left out — said in the answer."""

    entity_type: EntityType
    mention: str
    status: NameStatus
    value: str | None = None
    candidates: list[str] = Field(default_factory=list)
    score: float = 0.0
    reason: str = ""  # why a corrected name reads as it does, said in the answer


class DomainDetails(StateModel):
    assessment_goal: str = ""
    skill: Skill | None = None
    scope: Scope = Field(default_factory=Scope)
    urgency: Literal["low", "normal", "high"] = "normal"
    presentation_requirement: str = "narrative"


class Facets(StateModel):
    """What the words of the request say about how to answer it (``orchestration/nlu/facets.py``), read once
    by the Intent Classifier; agents decide from these, never from the raw prompt."""

    tracking: Literal["unresolved", "persistent", "recurring"] | None = None  # open-issue questions
    change: bool = False  # change, trend or delta between assessments
    comparison_focus: Literal["assets", "changes", "overall"] = "overall"
    exceptions: bool = False
    asset_breakdown: bool = False
    technology_breakdown: bool = False
    focus_areas: list[str] = Field(default_factory=list)  # technologies named (aaa, snmp, ntp …)
    without_rules: list[str] = Field(default_factory=list)  # "devices without <topic>": the topic's rules
    inventory_count: bool = False  # "how many firewalls at HQ" (no issue words)
    failing: bool = False  # about what fails ("which spines fail anything?"), not what the inventory holds
    listing_column: str | None = None  # "which versions run at …": the ontology column asked about
    release_age: Literal["oldest", "newest"] | None = None  # "the oldest ios version we run": that end first
    chart_dimensions: list[str] = Field(default_factory=list)  # breakdowns asked for (severity, os …)
    export: bool = False
    evidence: bool = False  # the offending configuration lines asked for ("with evidence")
    # what else the words ask for (issue 52, answers in proportion; ``facets.asked_besides``): the fixes in order, the
    # findings behind a figure, a figure, the offending lines ("which line", "why")
    actions_asked: bool = False
    findings_asked: bool = False
    figure_asked: bool = False
    lines_asked: bool = False
    first_asked: bool = False  # "what should we fix first": the order of the fixes is the answer's lead
    when_assessed: bool = False  # "when was X last assessed?": the date of each device's latest run
    # "what got fixed on X since the previous run": the new failed checks, the resolved ones, or both
    changes_asked: list[Literal["new", "resolved"]] = Field(default_factory=list)
    rate: Literal["lowest", "highest"] | None = None  # a pass rate asked: groups ranked by it, this end first
    # "pass rate per site type": a row per group ("per site" only for a share: the analysis breaks failures down by site)
    group_by: Literal["site_type", "role", "environment", "sites"] | None = None
    mentions_pci: bool = False
    planner_conditions: list[str] = Field(default_factory=list)  # planner_rules.conditions that hold


Ask = Literal["summary", "list", "count", "share", "yes_no", "compare", "trend", "ranking", "explain", "fix", "policy",
              "exception", "not_answerable"]
Subject = Literal["devices", "findings", "rules", "sites", "exceptions", "signatures", "runs", "documents", "none"]
Cannot = Literal["live_state", "licensing", "action", "off_topic"]


class FrameFilters(StateModel):
    """Every value of every filter the words name; several values of one filter are OR'ed, never cut to one."""

    site: list[str] = Field(default_factory=list)
    site_type: list[str] = Field(default_factory=list)  # store, branch, datacenter, campus, hq, lab
    device_type: list[str] = Field(default_factory=list)
    platform: list[str] = Field(default_factory=list)
    os_version: list[str] = Field(default_factory=list)
    environment: list[str] = Field(default_factory=list)
    severity: list[str] = Field(default_factory=list)
    role: list[str] = Field(default_factory=list)
    topic: list[str] = Field(default_factory=list)  # rule technologies (snmp, telnet, aaa …)


class FrameTime(StateModel):
    """When: named runs, months (YYYY-MM), a start (``since``, YYYY-MM), the last N runs, date bounds
    (``after`` … ``before``, YYYY-MM-DD, for expiries), or a relative word."""

    runs: list[str] = Field(default_factory=list)
    months: list[str] = Field(default_factory=list)
    since: str | None = None
    last_n: int | None = None
    before: str | None = None
    after: str | None = None  # the first day of an expiry window ("run out in 2027"), YYYY-MM-DD
    relative: Literal["previous", "this_month", "last_month"] | None = None

    @property
    def names_runs(self) -> bool:
        """Whether a run, month, start, last N runs or relative word is said (an expiry bound is not a run)."""
        return bool(self.months or self.runs or self.since or self.relative or self.last_n)

    @property
    def several_runs(self) -> bool:
        """A range over runs: since a month, the last N (N > 1) or three months or more."""
        return bool(self.since or (self.last_n or 0) > 1 or len(self.months) > 2)


class FrameTargets(StateModel):
    """The named things the question is about, as typed or resolved (devices by the inventory)."""

    device: list[str] = Field(default_factory=list)
    rule: list[str] = Field(default_factory=list)
    exception: list[str] = Field(default_factory=list)
    cve: list[str] = Field(default_factory=list)
    signature: list[str] = Field(default_factory=list)
    document: list[str] = Field(default_factory=list)


class QuestionFrame(StateModel):
    """What the user wants back (DESIGN §4a), read once per turn by the Intent Classifier
    (``orchestration/nlu/frame.py``): the ask and its subject from a reader fitted on a labelled corpus, the
    filters, time, targets and limit from the words. ``cannot`` says why a ``not_answerable`` ask is one."""

    ask: Ask = "summary"
    subject: Subject = "findings"
    cannot: Cannot | None = None
    filters: FrameFilters = Field(default_factory=FrameFilters)
    time: FrameTime = Field(default_factory=FrameTime)
    targets: FrameTargets = Field(default_factory=FrameTargets)
    limit: int | None = None
    checks: list[str] = Field(default_factory=list)  # the rules whose failures it counts (orchestration/nlu/checks.py)
    direction: Literal["worse", "better"] | None = None  # "which devices got worse"
    expiring: Literal["first", "last"] | None = None  # "which exception expires first" / "… last"
    # put as a yes/no question whatever is asked ("did Branch-05 get better since october?": a trend, answered Yes/No)
    polar: bool = False
    # a yes/no asks whether checks pass ("compliant") or fail; a list or count "passes" asks for what fails nothing
    polarity: Literal["passes", "fails"] | None = None
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)  # of the ask
    margin: float = Field(default=0.0, ge=0.0, le=1.0)  # the ask's lead over the runner-up ask

    def describe(self) -> str:
        """One line for the trace: ``list devices · site=HQ · since 2026-08``."""
        parts = [f"{self.ask} {self.subject}" + (f" ({self.cannot})" if self.cannot else "")]
        for group in (self.filters, self.targets):
            parts += [f"{k}={','.join(v) if len(v) <= 5 else f'{len(v)} values'}"
                      for k, v in group.model_dump().items() if v]
        time = {k: v for k, v in self.time.model_dump().items() if v}
        parts += [f"{k} {','.join(v) if isinstance(v, list) else v}" for k, v in time.items()]
        if self.limit:
            parts.append(f"limit {self.limit}")
        if self.checks and self.checks != self.targets.rule:
            parts.append("checks " + ",".join(self.checks))
        return " · ".join(parts)


class Intent(StateModel):
    """Written by the Intent Classifier."""

    intent_class: IntentClass = "unknown_or_needs_clarification"
    meta_intent: MetaIntent = "new_topic"
    domain_details: DomainDetails = Field(default_factory=DomainDetails)
    entities: list[Entity] = Field(default_factory=list)
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    clarification_question: str | None = None
    name_resolutions: list[NameResolution] = Field(default_factory=list)
    route_scores: dict[str, float] = Field(default_factory=dict)
    signals: list[str] = Field(default_factory=list)
    facets: Facets = Field(default_factory=Facets)
    frame: QuestionFrame = Field(default_factory=QuestionFrame)
    # a question about figures or lists of the warehouse, as what executes (issue 52; orchestration/nlu/query_reader.py)
    query: DataQuery | None = None
    query_notes: list[str] = Field(default_factory=list)  # what the words asked that the query could not hold
    # the question as a query whoever answers it (the assessment tools keep some shapes): the next turn edits it
    asked_query: DataQuery | None = None

    def entity(self, entity_type: str) -> str | None:
        """The first value of an entity type, or None."""
        return next((e.value for e in self.entities if e.type == entity_type), None)


# --- plan --------------------------------------------------------------------------------------
class RequiredData(StateModel):
    data_path: str
    skill: str
    provider: str | None = None  # the agent whose task delivers it (None in turns stored before it was recorded)
    min_count: int = 0
    priority: int = 1
    required: bool = True


class Task(StateModel):
    id: str
    description: str
    owner: str
    kind: Literal["core", "domain"] = "core"  # the owner's contract kind, stamped by the Planner
    skill: str
    depends_on: list[str] = Field(default_factory=list)
    required_data: list[RequiredData] = Field(default_factory=list)
    status: TaskStatus = "pending"
    outputs: TaskOutputs = Field(default_factory=TaskOutputs)
    started_at: str | None = None
    finished_at: str | None = None
    error: str | None = None
    # set by the Reflector's replan: the second run must answer in the question's form (the frame's template)
    directive: Literal["question_form"] | None = None


MAX_PLAN_ITERATIONS = 2  # the Planner's plan and at most one replan by the Reflector


class Plan(StateModel):
    """Written by the Planner (iteration 1) and the Reflector's replan (iteration 2); each task's status/outputs
    by the task's owner (merged by id)."""

    tasks: list[Task] = Field(default_factory=list)
    routing: list[str] = Field(default_factory=list)
    iteration: int = 0

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)

    def task_for(self, owner: str) -> Task | None:
        return next((t for t in self.tasks if t.owner == owner), None)

    def domain_task(self) -> Task | None:
        """The task of the domain agent (contract ``kind: domain``) that answers the question."""
        return next((t for t in self.tasks if t.kind == "domain"), None)


def merge_plan(current: Plan | None, update: Plan | None) -> Plan:
    """Reducer: tasks are merged by id so that parallel agents can each finish their own task."""
    if current is None:
        return update or Plan()
    if update is None:
        return current
    if update.iteration > current.iteration or not current.tasks:
        return update
    by_id = {t.id: t for t in current.tasks}
    for task in update.tasks:
        by_id[task.id] = task
    return current.evolve(tasks=[by_id[t.id] for t in current.tasks])


# --- tools -------------------------------------------------------------------------------------
class ToolCall(StateModel):
    tool_name: str
    input: dict[str, Any] = Field(default_factory=dict)
    status: Literal["ok", "empty", "error"] = "ok"
    row_count: int = 0
    duration_ms: float = 0.0
    error: str | None = None
    task_id: str | None = None
    cached: bool = False  # served from agent memory (same call on the same warehouse within its freshness)
    queries: list[str] = Field(default_factory=list)  # the statements it ran, as the engine received them
    query_params: list[list[Any]] = Field(default_factory=list)  # each statement's parameter values, in order


class Mcp(StateModel):
    """Every tool call of the turn, appended by the agents that call tools."""

    tool_calls: list[ToolCall] = Field(default_factory=list)


def append_mcp(current: Mcp | None, update: Mcp | None) -> Mcp:
    calls = (current.tool_calls if current else []) + (update.tool_calls if update else [])
    return Mcp(tool_calls=calls)


# --- trace -------------------------------------------------------------------------------------
class StateDelta(StateModel):
    node: str
    task_id: str | None = None
    fields_written: list[str] = Field(default_factory=list)
    summary: str = ""
    at: str = Field(default_factory=utc_now)
    duration_ms: float = 0.0


class Trace(StateModel):
    """Appended by the runtime after every node."""

    node_run_order: list[str] = Field(default_factory=list)
    state_deltas: list[StateDelta] = Field(default_factory=list)


def append_trace(current: Trace | None, update: Trace | None) -> Trace:
    a, b = current or Trace(), update or Trace()
    return Trace(
        node_run_order=a.node_run_order + b.node_run_order,
        state_deltas=a.state_deltas + b.state_deltas,
    )


# --- conversation & final ---------------------------------------------------------------------
class FindingDigest(StateModel):
    """What memory keeps of a finding, so that "explain the second one" or "fix CFG-003" can refer to it."""

    id: str | None = None
    rule_id: str | None = None
    title: str | None = None
    severity: str | None = None
    entities_referenced: list[str] = Field(default_factory=list)


class PastTurn(StateModel):
    """A recent turn of the thread as the memory store returns it (bounded window)."""

    turn_number: int
    prompt: str
    intent_class: str | None = None
    skill: str | None = None
    meta_intent: str | None = None
    entities: list[Entity] = Field(default_factory=list)
    findings: list[FindingDigest] = Field(default_factory=list)
    answer_excerpt: str = ""
    name_resolutions: list[NameResolution] = Field(default_factory=list)
    answer_devices: list[str] = Field(default_factory=list)  # a complete device list the answer enumerated
    frame: QuestionFrame | None = None  # what it asked: a follow-up keeps the filters it does not change
    query: DataQuery | None = None  # what it asked as a query: a follow-up edits it ("and in september?")
    answer_rows: list[str] = Field(default_factory=list)  # the keys of its rows, as shown ("the third one")
    # each row's figure (its query's first measure), beside its key: "the worse one" of a list that was not ranked
    answer_figures: list[float | None] = Field(default_factory=list)
    asked: str = ""  # the question its words stood for, read against the history ("sorry I meant X" → "summarize X")

    @property
    def question(self) -> str:
        """What the turn asked: the question its words stood for, else the words typed."""
        return self.asked or self.prompt

    @property
    def left_out(self) -> set[str]:
        """The values its question left out ("which are not on 10.2(5)"), lower-case: a follow-up that keeps its
        filters by name must not keep these — a name cannot say "not"."""
        return {v.lower() for c in (self.query.conditions if self.query else []) if c.negated for v in c.values}

    @property
    def devices_shown(self) -> list[str]:
        """The devices the answer showed in order: its complete list, or the rows of its ranking of devices (a
        ranking shows its rows without listing every device)."""
        if self.answer_devices:
            return list(self.answer_devices)
        return list(self.answer_rows) if self.query is not None and self.query.group_by == ["device"] else []


class Conversation(StateModel):
    """Loaded by the runtime from memory (history, summary, preferences, corrections), bounded by the
    Context Pruner, and resolved by the Intent Classifier (carryover, refinement, references)."""

    thread_id: str = "default"
    turn_number: int = 1
    history: list[PastTurn] = Field(default_factory=list)
    summary: str = ""
    preferences: dict[str, str] = Field(default_factory=dict)
    corrections: list[dict[str, str]] = Field(default_factory=list)
    carried_scope: Scope = Field(default_factory=Scope)
    carried_entities: list[Entity] = Field(default_factory=list)
    referenced_turns: list[int] = Field(default_factory=list)
    previous_intent: IntentClass | None = None
    resolution: str = "none"
    effective_prompt: str = ""
    referenced_finding: FindingDigest | None = None
    new_corrections: list[dict[str, str]] = Field(default_factory=list)
    new_preferences: dict[str, str] = Field(default_factory=dict)
    collection: str = "fleet"  # the collection of assessments this thread answers about (an upload switches it)
    new_collection: str | None = None  # this turn switched it ("back to the fleet", "use the lab-east configs")
    documents: list[str] = Field(default_factory=list)  # the only documents this thread may cite (empty: any)


class Citation(StateModel):
    number: int
    chunk_id: str
    source: str
    topic: str = ""
    relevance_score: float = 0.0
    excerpt: str = ""
    version: str = ""  # the document version quoted (knowledge documents keep their versions)
    page: str = ""  # the page of a PDF the chunk is on (PDFs are cut per page)
    content: str = ""  # the chunk's text, as it was retrieved (a message answering two questions is two turns' chunks)
    quoted: list[str] = Field(default_factory=list)  # the answer's words that cite it (highlighted where it is opened)

    @property
    def label(self) -> str:
        """How the answer names it under Sources, and the name of its chip: ``[2] manual.pdf p. 4``. A user's own
        upload (stored as ``<user>/<name>``; only its owner retrieves it) is named as they named it: ``[3] notes.md
        (yours)``."""
        return f"[{self.number}] {shown_document(self.source)}" + (f" p. {self.page}" if self.page else "")


def shown_document(source: str) -> str:
    """A stored document name as its reader knows it: ``notes.md (yours)`` for their own ``alice/notes.md`` (only
    its owner ever retrieves it), a shared document's name as it is."""
    owner, _, own_name = source.partition("/")
    return f"{own_name} (yours)" if owner and own_name else source


class Final(StateModel):
    """Written by the Answer Composer."""

    answer: str = ""
    scope: AnswerScope | None = None
    citations: list[Citation] = Field(default_factory=list)
    missing_inputs: list[str] = Field(default_factory=list)
    risk_of_error: Literal["low", "medium", "high"] = "low"
    partial: bool = False


# --- the whole STATE ---------------------------------------------------------------------------
class AssessmentState(StateModel):
    """One turn's STATE; LangGraph channels are its top-level fields (reducers where nodes run in parallel)."""

    input: TurnInput = Field(default_factory=TurnInput)
    intent: Intent = Field(default_factory=Intent)
    plan: Annotated[Plan, merge_plan] = Field(default_factory=Plan)
    mcp: Annotated[Mcp, append_mcp] = Field(default_factory=Mcp)
    trace: Annotated[Trace, append_trace] = Field(default_factory=Trace)
    conversation: Conversation = Field(default_factory=Conversation)
    final: Final = Field(default_factory=Final)

    @property
    def prompt(self) -> str:
        """The request the agents act on: the user's words, or the earlier request a follow-up re-runs."""
        return self.conversation.effective_prompt or self.input.user_prompt

    def task_outputs(self, owner: str) -> TaskOutputs:
        task = self.plan.task_for(owner)
        return task.outputs if task else TaskOutputs()


class StateUpdate(TypedDict, total=False):
    """What a node returns: the top-level STATE fields it changes (its contract's ``writes``)."""

    input: TurnInput
    intent: Intent
    plan: Plan
    mcp: Mcp
    trace: Trace
    conversation: Conversation
    final: Final
