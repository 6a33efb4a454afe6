"""Say plainly when the scope a question names holds no device at all ("aaa accounting on hq core switches":
HQ has no core switches; "anything still on 15.x?": no device runs 15.x), instead of "no device fails" or "the
assessment holds no results".

Read from the inventory rows the Data Query Agent fetched for the named sites or devices: the question's
type, role, platform, version and environment filters are applied to them here. Nothing is said when the
inventory was not fetched for a named place or was cut at its row limit (the absence would not be proven).
"""

from __future__ import annotations

from collections import Counter

from foundation.vocabulary.scope import TRAIN_SUFFIX
from foundation.vocabulary.text import plural
from orchestration.nlu.names import NO_RELEASE
from orchestration.outputs import AssessmentContext, DomainOutputs, InventoryRow
from orchestration.state import Intent, QuestionFrame
from orchestration.tools.inventory_tool import INVENTORY_LIMIT
from orchestration.tools.results import InventoryResult, result_of

FILTERS = ("device_type", "role", "platform", "os_version", "environment")


def _matches(row: InventoryRow, frame: QuestionFrame) -> bool:
    """Whether the row is in the scope asked; a version matches by its start ("17.9" is 17.9.4), so that a looser
    reading can only keep a device in scope, never claim that none is."""
    def ok(field: str) -> bool:
        wanted, value = getattr(frame.filters, field), getattr(row, field) or ""
        return not wanted or any(value == w or (field == "os_version" and value.startswith(w.removesuffix(TRAIN_SUFFIX)))
                                 for w in wanted)
    return all(ok(f) for f in FILTERS)


def _kind(role: str | None, device_type: str | None, n: int) -> str:
    noun = plural((device_type or "device").replace("_", " "), n)
    return f"{n} {role + ' ' if role and role != device_type else ''}{noun}"


def _asked(frame: QuestionFrame) -> str:
    f = frame.filters
    types = " or ".join(plural(t.replace("_", " ")) for t in f.device_type) or "devices"
    return " ".join([*f.environment, *f.role, *f.platform, types, *(f"on {v}" for v in f.os_version)])


def _named_like(frame: QuestionFrame, rows: list[InventoryRow]) -> str:
    """Devices whose name carries a role asked about but whose inventory role is another ("SW-HQ-CORE-1" is a
    distribution switch): said, so that the engineer who knows the box by its name sees why it is not counted."""
    named = [(r, role) for r in rows for role in frame.filters.role
             if role.upper() in r.asset_id.upper().split("-") and r.role != role]
    if not named:
        return ""
    ids = ", ".join(r.asset_id for r, _ in named[:6]) + (" …" if len(named) > 6 else "")
    roles = sorted({r.role or "unknown" for r, _ in named})
    return (f" ({ids} {'is' if len(named) == 1 else 'are'} named {named[0][1]} but {'has' if len(named) == 1 else 'have'} "
            f"the {' or '.join(roles)} role in the inventory; ask about {' or '.join(roles)} switches to include "
            f"{'it' if len(named) == 1 else 'them'}.)")


def no_device_outputs(frame: QuestionFrame, context: AssessmentContext | None) -> DomainOutputs | None:
    """The answer when no device of the inventory is in the scope asked, with what the named places do hold;
    None when some device is, or when the inventory cannot prove it."""
    if context is None or not any(getattr(frame.filters, f) for f in FILTERS):
        return None
    inventory = context.assets.inventory
    fetched = result_of(context.report_data, InventoryResult)
    if not inventory or len(inventory) >= (fetched.limit if fetched else INVENTORY_LIMIT) or frame.targets.device:
        return None
    sites = sorted({r.site for r in inventory if r.site})
    if frame.filters.site and set(frame.filters.site) != set(sites):
        return None  # the inventory fetched is not the place asked about
    if any(_matches(r, frame) for r in inventory):
        return None
    same_type = [r for r in inventory if not frame.filters.device_type or r.device_type in frame.filters.device_type]
    held = Counter((r.role, r.device_type) for r in (same_type or inventory))
    ordered = sorted(held.items(), key=lambda kv: (-kv[1], kv[0][1] or "", kv[0][0] or ""))
    there = ", ".join(_kind(role, kind, n) for (role, kind), n in ordered)
    place = " and ".join(sites)
    # "is there a core switch at HQ?" asks whether such devices exist, "any of those at DataCenter-1?" whether any of
    # them is there: its answer is No
    exists = frame.ask == "yes_no"
    summary = (f"**No** — the inventory has no {_asked(frame)} at {place}. {place} has {there}." if exists else
               f"**No device matches** — the inventory has no {_asked(frame)} at {place}, so there is nothing to "
               f"judge. {place} has {there}.") + _named_like(frame, same_type or inventory)
    return DomainOutputs(summary=summary, statistics={"devices_in_scope": 0},
                         assumptions=["Read from the inventory of the site(s) named; the question's type, role, "
                                      "platform, version and environment applied to it."])


def train_not_run(intent: Intent) -> DomainOutputs | None:
    """The answer when the question names a train no device runs; None otherwise — and when it excludes that train
    ("switches not on 15.x": every device is the answer, not none)."""
    release = intent.query.condition("release") if intent.query is not None else None
    if release is not None and release.negated:
        return None
    missing = [r for r in intent.name_resolutions if r.entity_type == "os_version" and r.value
               and r.value.endswith(TRAIN_SUFFIX) and (r.reason or "").startswith(NO_RELEASE)]
    if not missing:
        return None
    trains = " or ".join(r.value or "" for r in missing)
    runs = missing[0].candidates
    said = f"no device runs {trains}" + (f" — the inventory runs {', '.join(runs)}" if runs else "")
    lead = {"yes_no": "**No** — ", "count": "**0 devices** — ", "list": "**None** — "}.get(intent.frame.ask, "")
    return DomainOutputs(summary=f"{lead}{said[0].upper() + said[1:] if not lead else said}.",
                         statistics={"row_count": 0, "releases_in_inventory": len(runs)})
