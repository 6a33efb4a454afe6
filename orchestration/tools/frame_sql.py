"""SQL-path plans from the question frame (DESIGN §4a, §6.2): the statements that answer a question in its own
form when the assessment tools would only summarise — every device a condition selects (a list, a count, a
ranking), the sites or groups side by side (a ranking, a comparison), the series over the runs asked (a trend),
the approved exceptions and their expiry, and one device's verdicts on the rules asked about (yes/no).

Each plan is one read-only SELECT over the ontology, run by the ``sql_path`` tool (guarded, viewer-scoped, values
bound). The rows are complete up to the SQL path's row cap; ``total`` (a window count) says how many there are
in all, so a capped list still states its true size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from orchestration.state import FrameTime, QuestionFrame
from orchestration.tools.scope import FLEET, scope_conditions, values_of
from orchestration.tools.sql_plan import SqlPlan

FRAME_TEMPLATES = ("device_list", "group_compare", "run_series", "exception_list", "device_rules", "signature_matches",
                   "inventory_share", "rule_changes", "last_assessed")
# the part of a population a share asks about: the most specific filter named ("switches on 17.9.4": the version)
SHARE_PARTS = ("os_version", "platform", "role", "environment", "device_type", "site_type", "sites")
RANKING_DEFAULT = 10
# compared groups: the scope key whose several values name the sides, and its column
GROUP_COLUMNS = ("sites", "site_type", "device_type", "platform", "os_version", "environment", "role", "devices")


@dataclass(frozen=True)
class Condition:
    """Which failed checks count: severities and rules (a topic's rules, or named ones); empty = every check."""

    severities: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    failing: bool = False  # any failed check counts ("which spine switches fail anything?")

    def sql(self, alias: str = "r") -> tuple[str, list[Any]]:
        parts: list[str] = []
        params: list[Any] = []
        if self.severities:
            parts.append(f"{alias}.severity IN ({', '.join('?' for _ in self.severities)})")
            params += list(self.severities)
        if self.rules:
            parts.append(f"{alias}.rule_id IN ({', '.join('?' for _ in self.rules)})")
            params += list(self.rules)
        return " AND ".join(parts) or "1 = 1", params

    def __bool__(self) -> bool:
        return bool(self.severities or self.rules or self.failing)

    @property
    def narrow(self) -> bool:
        """Some checks, not every one: severities or rules."""
        return bool(self.severities or self.rules)

    def words(self) -> str:
        bits = [" or ".join(self.severities)] if self.severities else []
        bits += [", ".join(self.rules)] if self.rules else []
        return " ".join(bits) or "any"


def _where(scope: dict[str, Any]) -> tuple[str, list[Any]]:
    parts, params = scope_conditions(scope)
    return " AND ".join(parts) or "1 = 1", params


def _checks_in_scope(scope: dict[str, Any], extra: str = "") -> tuple[str, list[Any]]:
    """A CTE ``x`` of one run's results in scope (its assessment id the statement's first parameter), so the
    conditions written after it bind in order."""
    where, params = _where(scope)
    return ("WITH x AS (SELECT a.asset_id, a.site, a.device_type, a.platform, a.os_version, a.environment, a.role, "
            f"r.rule_id, r.status, r.severity{extra} FROM results r JOIN assets a ON a.asset_id = r.asset_id "
            f"WHERE r.assessment_id = ? AND {where}) "), params


def device_list(frame: QuestionFrame, scope: dict[str, Any], condition: Condition, collection: str = FLEET) -> SqlPlan:
    """Every device in scope with its failed checks (those the condition selects): with a condition only the
    devices failing it (the list asked for), else every device of the inventory in scope — those the run did not
    assess included, with no checks (``checks`` = 0); a ranking keeps the top N. A question about the devices
    *without* failures (``clean``: "which switches have no critical findings") keeps those judged on the checks
    the condition selects that fail none of them."""
    clean = wants_clean(frame)
    if condition or clean:
        cte, params = _checks_in_scope(scope)
    else:  # "which asas are on 9.8(4)?" is asked of the inventory, not of one run's results
        where, scope_params = _where(scope)
        cte = ("WITH x AS (SELECT a.asset_id, a.site, a.device_type, a.platform, a.os_version, a.environment, a.role, "
               "r.rule_id, r.status, r.severity FROM assets a LEFT JOIN results r ON r.asset_id = a.asset_id "
               f"AND r.assessment_id = ? WHERE a.collection = ? AND {where}) ")
        params = [collection, *scope_params]
    match, match_params = condition.sql("x")
    judged = condition.sql("j")[0]  # the devices with a verdict on the checks asked: a rule applies to some only
    failing = f"x.status = 'fail' AND {match}"
    sql = (
        cte + "SELECT x.asset_id, x.site, x.device_type, x.platform, x.os_version, x.environment, "
        f"COUNT(CASE WHEN {failing} THEN 1 END) AS failed, "
        f"COUNT(CASE WHEN {failing} AND x.severity = 'critical' THEN 1 END) AS critical, "
        f"COUNT(CASE WHEN {failing} AND x.severity = 'high' THEN 1 END) AS high, "
        f"LISTAGG(DISTINCT CASE WHEN {failing} THEN x.rule_id END, ', ') AS failing_rules, "
        "COUNT(x.rule_id) AS checks, COUNT(*) OVER () AS total, "
        "(SELECT COUNT(DISTINCT j.asset_id) FROM x AS j WHERE j.rule_id IS NOT NULL) AS assessed, "
        f"(SELECT COUNT(DISTINCT j.asset_id) FROM x AS j WHERE j.rule_id IS NOT NULL AND {judged}) AS judged "
        "FROM x GROUP BY x.asset_id, x.site, x.device_type, x.platform, x.os_version, x.environment "
        + (f"HAVING COUNT(CASE WHEN {failing} THEN 1 END) = 0 AND COUNT(CASE WHEN {match} THEN 1 END) > 0 "
           if clean else f"HAVING COUNT(CASE WHEN {failing} THEN 1 END) > 0 " if condition else "")
        + ("ORDER BY x.asset_id" if clean else "ORDER BY failed DESC, critical DESC, x.asset_id" if condition
           else "ORDER BY critical DESC, high DESC, failed DESC, x.asset_id")
        + (f" LIMIT {frame.limit or RANKING_DEFAULT}" if frame.ask == "ranking" else ""))
    bound = [*params, *match_params * (7 if clean else 6 if condition else 5)]
    what = (f"devices failing no {condition.words() if condition.narrow else ''} check".replace("  ", " ") if clean
            else f"devices failing {condition.words()} checks" if condition else "devices of the inventory")
    scope_sql = (cte + "SELECT COUNT(DISTINCT x.asset_id) AS assessed, "
                 f"COUNT(DISTINCT CASE WHEN {condition.sql('x')[0]} THEN x.asset_id END) AS judged "
                 "FROM x WHERE x.rule_id IS NOT NULL") if condition or clean else None
    return SqlPlan("device_list", sql, bound, f"{what} in {{assessment_id}}", assessment_id="latest",
                   scope_sql=scope_sql, scope_params=[*params, *match_params] if scope_sql else None)


def inventory_share(scope: dict[str, Any], collection: str = FLEET) -> SqlPlan | None:
    """"What % of switches are on 17.9.4": the devices of the inventory with the most specific filter named, of
    those with the others. None when the scope names fewer than one filter (no part to take a share of)."""
    part = next((k for k in SHARE_PARTS if scope.get(k)), None)
    if part is None:
        return None
    population = {k: v for k, v in scope.items() if k != part}
    num, num_params = _where({part: scope[part]})
    where, params = _where(population)
    sql = (f"SELECT COUNT(CASE WHEN {num} THEN 1 END) AS part, COUNT(*) AS population FROM assets a "
           f"WHERE a.collection = ? AND {where}")
    label = {"sites": "site", "site_type": "kind of site", "os_version": "software version",
             "device_type": "device type"}.get(part, part)
    said = " or ".join(values_of(scope[part]))
    return SqlPlan("inventory_share", sql, [*num_params, collection, *params], f"{label} {said}")


def group_compare(scope: dict[str, Any], key: str, condition: Condition, limit: int | None = None,
                  clean: bool = False, by_rate: str | None = None) -> SqlPlan:
    """One row per group (site, kind of site, device type, platform, version …): devices, checks, failures and the
    pass rate, side by side; ordered by failed checks (a ranking of groups). ``clean``: only the groups with no
    failed check of the condition ("the sites with no critical findings")."""
    cte, params = _checks_in_scope(scope, ", s.site_type") if key == "site_type" else _checks_in_scope(scope)
    if key == "site_type":
        cte = cte.replace("JOIN assets a ON a.asset_id = r.asset_id", "JOIN assets a ON a.asset_id = r.asset_id "
                          "JOIN sites s ON s.site = a.site")
    column = "x." + {"sites": "site", "devices": "asset_id"}.get(key, key)
    match, match_params = condition.sql("x")
    failing = f"x.status = 'fail' AND {match}"
    sql = (
        cte + f"SELECT {column} AS group_key, COUNT(DISTINCT x.asset_id) AS devices, "
        f"COUNT(CASE WHEN {match} THEN 1 END) AS checks, COUNT(CASE WHEN {failing} THEN 1 END) AS failed, "
        f"COUNT(CASE WHEN x.status = 'pass' AND {match} THEN 1 END) AS passed, "
        f"COUNT(CASE WHEN {failing} AND x.severity = 'critical' THEN 1 END) AS critical, "
        f"COUNT(DISTINCT CASE WHEN {failing} THEN x.asset_id END) AS devices_failing, COUNT(*) OVER () AS total "
        f"FROM x GROUP BY {column} "
        + (f"HAVING COUNT(CASE WHEN {failing} THEN 1 END) = 0 AND COUNT(CASE WHEN {match} THEN 1 END) > 0 "
           if clean else "")  # judged on the checks asked, and failing none of them
        # "which role has the worst pass rate": the lowest rate first (a ranking keeps the worst N by it)
        + ("ORDER BY COUNT(CASE WHEN x.status = 'pass' AND " + match + " THEN 1 END) * 1.0 / "
           "NULLIF(COUNT(CASE WHEN " + match + " THEN 1 END), 0)" + (" DESC" if by_rate == "highest" else "")
           + ", failed DESC, group_key" if by_rate
           else "ORDER BY failed DESC, group_key")
        + (f" LIMIT {limit}" if limit else ""))
    # the condition is written five times after the CTE (seven with the HAVING of ``clean``, two more to order by rate)
    bound = [*params, *match_params * ((7 if clean else 5) + (2 if by_rate else 0))]
    label = {"sites": "site", "site_type": "kind of site", "os_version": "software version",
             "device_type": "device type", "devices": "device"}.get(key, key)
    clean_words = f" without failed {condition.words()} checks" if clean else ""
    order = f" by {by_rate} pass rate" if by_rate else ""
    return SqlPlan("group_compare", sql, bound, f"per {label}{clean_words}{order} in {{assessment_id}}",
                   assessment_id="latest", group=key)


def wants_clean(frame: QuestionFrame) -> bool:
    """A list or count of what fails nothing ("sites with no critical findings", "devices without telnet
    failures"): the frame's polarity on a question that is not a yes/no."""
    return frame.ask in ("list", "count") and frame.polarity == "passes"


def _month_bounds(month: str) -> tuple[str, str]:
    year, m = (int(x) for x in month.split("-"))
    end = date(year + (m == 12), m % 12 + 1, 1)
    return f"{year:04d}-{m:02d}-01", end.isoformat()


def run_series(frame: QuestionFrame, scope: dict[str, Any], condition: Condition, collection: str) -> SqlPlan:
    """One row per assessment run in the time asked (since a month, named months, the last N, else every run):
    devices, checks, failures, pass rate — the series a trend question asks for."""
    match, match_params = condition.sql()
    where, params = _where(scope)
    failing = f"r.status = 'fail' AND {match}"
    time_parts, time_params = _time_of_runs(frame)
    sql = (
        "SELECT m.assessment_id, m.started_at, COUNT(DISTINCT a.asset_id) AS devices, "
        f"COUNT(CASE WHEN {match} THEN 1 END) AS checks, COUNT(CASE WHEN {failing} THEN 1 END) AS failed, "
        f"COUNT(CASE WHEN r.status = 'pass' AND {match} THEN 1 END) AS passed, "
        f"COUNT(CASE WHEN {failing} AND r.severity = 'critical' THEN 1 END) AS critical, "
        f"COUNT(CASE WHEN {failing} AND r.severity = 'high' THEN 1 END) AS high, "
        f"COUNT(DISTINCT CASE WHEN {failing} THEN a.asset_id END) AS devices_failing "
        "FROM assessments m JOIN results r ON r.assessment_id = m.assessment_id "
        "JOIN assets a ON a.asset_id = r.asset_id "
        f"WHERE m.collection = ? AND {' AND '.join([where, *time_parts])} "
        "GROUP BY m.assessment_id, m.started_at ORDER BY m.started_at DESC"
        + (f" LIMIT {frame.time.last_n}" if frame.time.last_n else ""))
    bound = [*match_params * 6, collection, *params, *time_params]
    return SqlPlan("run_series", sql, bound, "failed checks per assessment run")


GROUP_COLUMNS_OF_RUNS = {"sites": "a.site", "site_type": "s.site_type", "role": "a.role", "environment": "a.environment"}


def group_series(frame: QuestionFrame, scope: dict[str, Any], condition: Condition, collection: str,
                 key: str) -> SqlPlan:
    """One row per group (role, kind of site, environment, site) and run in the time asked: the series of each
    group, side by side ("failed checks per role since august")."""
    match, match_params = condition.sql()
    where, params = _where(scope)
    time_parts, time_params = _time_of_runs(frame)
    column = GROUP_COLUMNS_OF_RUNS[key]
    last = ("m.assessment_id IN (SELECT z.assessment_id FROM assessments z WHERE z.collection = ? "
            f"ORDER BY z.started_at DESC LIMIT {frame.time.last_n})") if frame.time.last_n else ""
    sql = (
        f"SELECT {column} AS group_key, m.assessment_id, m.started_at, COUNT(DISTINCT a.asset_id) AS devices, "
        f"COUNT(CASE WHEN {match} THEN 1 END) AS checks, "
        f"COUNT(CASE WHEN r.status = 'fail' AND {match} THEN 1 END) AS failed, "
        f"COUNT(CASE WHEN r.status = 'pass' AND {match} THEN 1 END) AS passed "
        "FROM assessments m JOIN results r ON r.assessment_id = m.assessment_id "
        "JOIN assets a ON a.asset_id = r.asset_id" + (" JOIN sites s ON s.site = a.site" if key == "site_type" else "")
        + f" WHERE m.collection = ? AND {' AND '.join([where, *time_parts, *([last] if last else [])])} "
        f"GROUP BY {column}, m.assessment_id, m.started_at ORDER BY group_key, m.started_at")
    bound = [*match_params * 3, collection, *params, *time_params, *([collection] if last else [])]
    label = {"sites": "site", "site_type": "kind of site"}.get(key, key)
    return SqlPlan("group_series", sql, bound, f"failed checks per {label} and assessment run", group=key)


def last_assessed(scope: dict[str, Any], collection: str = FLEET) -> SqlPlan:
    """Each device of the inventory in scope with the latest run of its collection that assessed it (none: never
    assessed), and when the collection's latest run started: "when was RTR-CORE-1 last assessed?"."""
    where, params = _where(scope)
    sql = (
        "SELECT a.asset_id, a.site, n.assessment_id, l.started_at, "
        "(SELECT MAX(z.started_at) FROM assessments z WHERE z.collection = ?) AS latest_run_at "
        "FROM assets a LEFT JOIN (SELECT r.asset_id, MAX(m.started_at) AS started_at FROM results r "
        "JOIN assessments m ON m.assessment_id = r.assessment_id WHERE m.collection = ? GROUP BY r.asset_id) AS l "
        "ON l.asset_id = a.asset_id LEFT JOIN assessments n ON n.collection = ? AND n.started_at = l.started_at "
        f"WHERE a.collection = ? AND {where} ORDER BY l.started_at DESC NULLS LAST, a.asset_id")
    return SqlPlan("last_assessed", sql, [collection] * 4 + params, "when each device was last assessed")


def _time_of_runs(frame: QuestionFrame) -> tuple[list[str], list[Any]]:
    """Conditions on the runs ``m`` the frame's time names (since a month, named months, named runs); none = all."""
    parts: list[str] = []
    params: list[Any] = []
    if frame.time.since:
        parts.append("m.started_at >= CAST(? AS TIMESTAMP)")
        params.append(_month_bounds(frame.time.since)[0])
    if frame.time.months and not frame.time.since:
        spans = [_month_bounds(m) for m in frame.time.months]
        parts.append("(" + " OR ".join("(m.started_at >= CAST(? AS TIMESTAMP) AND m.started_at < CAST(? AS "
                                        "TIMESTAMP))" for _ in spans) + ")")
        params += [x for span in spans for x in span]
    if frame.time.runs:
        parts.append(f"m.assessment_id IN ({', '.join('?' for _ in frame.time.runs)})")
        params += frame.time.runs
    return parts, params


FIRST_AND_LAST = ("ends AS (SELECT MIN(started_at) AS first_at, MAX(started_at) AS last_at FROM m), "
                  "pair AS (SELECT (SELECT assessment_id FROM m, ends WHERE m.started_at = ends.first_at) AS first_run, "
                  "(SELECT assessment_id FROM m, ends WHERE m.started_at = ends.last_at) AS last_run, "
                  "CAST(ends.first_at AS DATE) AS first_date, CAST(ends.last_at AS DATE) AS last_date FROM ends)")


def _first_and_last(frame: QuestionFrame) -> tuple[str, list[Any]]:
    """The CTEs ``m`` (the runs of the time asked: the latest two when none is named, or the last N), ``ends`` and
    ``pair`` (its first and last run), and their parameters after the collection's."""
    time_parts, time_params = _time_of_runs(frame)
    last_n = frame.time.last_n or (2 if not time_parts else None)
    runs = ("SELECT m.assessment_id, m.started_at FROM assessments m WHERE m.collection = ?"
            + "".join(f" AND {p}" for p in time_parts) + " ORDER BY m.started_at DESC"
            + (f" LIMIT {last_n}" if last_n else ""))
    return f"WITH m AS ({runs}), {FIRST_AND_LAST}, ", time_params


def rule_changes(frame: QuestionFrame, scope: dict[str, Any], condition: Condition, collection: str) -> SqlPlan:
    """Per rule, the devices failing it in the first and in the last run of the time asked (the latest two runs
    when no time is named, or the last N): the checks that got worse or better ("which checks got worse at the
    stores since october"), only those the direction asks for, largest change first."""
    where, params = _where(scope)
    match, match_params = condition.sql()
    pair, time_params = _first_and_last(frame)
    change = "after_devices - before_devices"
    keep = {"worse": f"{change} > 0", "better": f"{change} < 0"}.get(frame.direction or "", f"{change} <> 0")
    sql = (
        pair + "per_rule AS (SELECT r.rule_id, p.first_run, p.last_run, p.first_date, p.last_date, "
        "COUNT(DISTINCT CASE WHEN r.assessment_id = p.first_run AND r.status = 'fail' THEN r.asset_id END) "
        "AS before_devices, "
        "COUNT(DISTINCT CASE WHEN r.assessment_id = p.last_run AND r.status = 'fail' THEN r.asset_id END) "
        "AS after_devices "
        "FROM results r JOIN assets a ON a.asset_id = r.asset_id CROSS JOIN pair p "
        f"WHERE p.first_run <> p.last_run AND r.assessment_id IN (p.first_run, p.last_run) AND {where} AND {match} "
        "GROUP BY r.rule_id, p.first_run, p.last_run, p.first_date, p.last_date) "
        "SELECT x.rule_id, x.first_run, x.last_run, x.first_date, x.last_date, x.before_devices, x.after_devices, "
        f"ru.title, ru.severity, {change} AS change, COUNT(*) OVER () AS total "
        f"FROM per_rule x JOIN rules ru ON ru.rule_id = x.rule_id WHERE {keep} "
        f"ORDER BY ABS({change}) DESC, x.rule_id")
    bound = [collection, *time_params, *params, *match_params]
    said = {"worse": "that got worse", "better": "that got better"}.get(frame.direction or "", "that changed")
    return SqlPlan("rule_changes", sql, bound, f"checks {said}, by failing devices")


def site_changes(frame: QuestionFrame, scope: dict[str, Any], condition: Condition, collection: str) -> SqlPlan:
    """Per site, the failed checks and the pass rate in the first and in the last run of the time asked (the latest
    two runs when no time is named): the sites that got worse or better ("which sites got worse since september",
    "which branch improved the most"), only those the direction asks for, the largest change first. The change is
    the pass rate's — sites differ in size — or, for checks narrowed by severity or name, the failed checks'."""
    where, params = _where(scope)
    match, match_params = condition.sql()
    pair, time_params = _first_and_last(frame)
    # better is a higher pass rate, or fewer failed checks of the kind asked
    gain = "(x.before_failed - x.after_failed)" if condition.narrow else \
        "(ROUND(100.0 * x.after_passed / x.after_checks, 1) - ROUND(100.0 * x.before_passed / x.before_checks, 1))"
    keep = {"worse": f"{gain} < 0", "better": f"{gain} > 0"}.get(frame.direction or "", f"{gain} <> 0")
    order = {"worse": f"{gain} ASC", "better": f"{gain} DESC"}.get(frame.direction or "", f"ABS({gain}) DESC")

    def counted(run: str, status: str | None) -> str:
        return (f"COUNT(CASE WHEN r.assessment_id = p.{run}" + (f" AND r.status = '{status}'" if status else "")
                + " THEN 1 END)")

    sql = (
        pair + "x AS (SELECT a.site, p.first_run, p.last_run, p.first_date, p.last_date, "
        f"{counted('first_run', 'fail')} AS before_failed, {counted('last_run', 'fail')} AS after_failed, "
        f"{counted('first_run', 'pass')} AS before_passed, {counted('last_run', 'pass')} AS after_passed, "
        f"{counted('first_run', None)} AS before_checks, {counted('last_run', None)} AS after_checks "
        "FROM results r JOIN assets a ON a.asset_id = r.asset_id CROSS JOIN pair p "
        f"WHERE p.first_run <> p.last_run AND r.assessment_id IN (p.first_run, p.last_run) AND {where} AND {match} "
        "GROUP BY a.site, p.first_run, p.last_run, p.first_date, p.last_date) "
        "SELECT x.site, x.first_run, x.last_run, x.first_date, x.last_date, x.before_failed, x.after_failed, "
        "ROUND(100.0 * x.before_passed / x.before_checks, 1) AS before_rate, "
        "ROUND(100.0 * x.after_passed / x.after_checks, 1) AS after_rate, "
        f"x.after_failed - x.before_failed AS change, COUNT(*) OVER () AS total "
        f"FROM x WHERE x.before_checks > 0 AND x.after_checks > 0 AND {keep} ORDER BY {order}, x.site")
    bound = [collection, *time_params, *params, *match_params]
    said = {"worse": "that got worse", "better": "that got better"}.get(frame.direction or "", "that changed")
    measure = "failed checks" if condition.narrow else "pass rate"
    return SqlPlan("site_changes", sql, bound, f"sites {said}, by {measure}")


def expiring(time: FrameTime) -> str:
    """The expiry window asked, as the answer says it: " expiring 2027-01-01 to 2027-12-31", " expiring by …"."""
    if time.after and time.before:
        return f" expiring {time.after} to {time.before}"
    return f" expiring by {time.before}" if time.before else f" expiring from {time.after}" if time.after else ""


def exception_list(frame: QuestionFrame, scope: dict[str, Any], rules: tuple[str, ...]) -> SqlPlan:
    """The approved exceptions (expiring before a date when asked), with the devices each covers in the latest
    run of the scope."""
    where, params = _where(scope)
    parts: list[str] = []
    bound: list[Any] = [*params]
    if frame.time.before:
        parts.append("e.expires_on <= CAST(? AS DATE)")
        bound.append(frame.time.before)
    if frame.time.after:
        parts.append("e.expires_on >= CAST(? AS DATE)")
        bound.append(frame.time.after)
    if frame.targets.exception:
        parts.append(f"e.exception_id IN ({', '.join('?' for _ in frame.targets.exception)})")
        bound += frame.targets.exception
    if rules:
        parts.append(f"e.rule_id IN ({', '.join('?' for _ in rules)})")
        bound += list(rules)
    sites = list(scope.get("sites") or [])
    if sites:
        parts.append("(" + " OR ".join("(',' || e.sites || ',') LIKE ?" for _ in sites) + ")")
        bound += [f"%,{s},%" for s in sites]
    kinds = values_of(scope.get("site_type"))
    if kinds:  # "the exceptions for the datacenters": those naming a site of that kind
        parts.append("EXISTS (SELECT 1 FROM sites st WHERE st.site_type IN (" + ", ".join("?" for _ in kinds) + ") "
                     "AND (',' || e.sites || ',') LIKE '%,' || st.site || ',%')")
        bound += kinds
    types = values_of(scope.get("device_type"))
    if types:  # an exception for every device type ('any') covers the type asked
        parts.append("e.device_type IN (" + ", ".join("?" for _ in types) + ", 'any')")
        bound += types
    of_devices = {k: scope[k] for k in ("environment", "platform", "os_version", "role") if scope.get(k)}
    if of_devices:  # "the exceptions for the lab": those naming a site where a device of the scope is, of its type
        devices_where, devices_params = _where(of_devices)
        parts.append(f"EXISTS (SELECT 1 FROM assets a WHERE {devices_where} AND (',' || e.sites || ',') LIKE "
                     "'%,' || a.site || ',%' AND e.device_type IN (a.device_type, 'any'))")
        bound += devices_params
    sql = (
        "SELECT e.exception_id, e.rule_id, ru.title, e.sites, e.device_type, e.expires_on, e.approved_by, "
        "e.reason, e.source_document, COUNT(DISTINCT c.asset_id) AS devices_covered, "
        "LISTAGG(DISTINCT c.asset_id, ', ') AS covered_devices, COUNT(*) OVER () AS total "
        "FROM exceptions e JOIN rules ru ON ru.rule_id = e.rule_id LEFT JOIN ("
        "SELECT r.asset_id, r.exception_id FROM results r JOIN assets a ON a.asset_id = r.asset_id "
        f"WHERE r.assessment_id = ? AND r.status = 'exception' AND {where}) c ON c.exception_id = e.exception_id "
        + (f"WHERE {' AND '.join(parts)} " if parts else "")
        + "GROUP BY e.exception_id, e.rule_id, ru.title, e.sites, e.device_type, e.expires_on, e.approved_by, e.reason, "
        "e.source_document ORDER BY e.expires_on, e.exception_id")
    what = "approved exceptions" + expiring(frame.time)
    return SqlPlan("exception_list", sql, bound, what + " (devices covered in {assessment_id})", assessment_id="latest")


NOT_PASSED = "every check it does not pass"  # device_rules with no rule named: what it fails or has excepted


def device_rules(scope: dict[str, Any], rules: tuple[str, ...]) -> SqlPlan:
    """The named device's verdict on each rule asked about: status, evidence, and the exception that covers it. With
    no rule named ("is any of that covered by an exception?" about a device), every check it does not pass."""
    where, params = _where(scope)
    which = f"r.rule_id IN ({', '.join('?' for _ in rules)})" if rules else "r.status <> 'pass'"
    sql = (
        "SELECT a.asset_id, a.platform, r.rule_id, ru.title, r.status, r.severity, r.evidence, r.exception_id, e.expires_on, "
        "e.reason AS exception_reason FROM results r JOIN assets a ON a.asset_id = r.asset_id "
        "JOIN rules ru ON ru.rule_id = r.rule_id LEFT JOIN exceptions e ON e.exception_id = r.exception_id "
        f"WHERE r.assessment_id = ? AND {which} AND {where} "
        "ORDER BY a.asset_id, r.rule_id")
    return SqlPlan("device_rules", sql, [*rules, *params],
                   "verdicts on " + (", ".join(rules) or f"{NOT_PASSED} of {scope['device']}") + " in {assessment_id}",
                   assessment_id="latest")


def signature_matches(frame: QuestionFrame, scope: dict[str, Any], collection: str, months: list[str]) -> SqlPlan:
    """The devices the named SLIC signatures (or any, when none is named) matched, in the runs of the months asked
    ("this month") or else in the latest run."""
    where, params = _where(scope)
    sigs = frame.targets.signature
    parts = [f"s.signature_id IN ({', '.join('?' for _ in sigs)})"] if sigs else []
    bound: list[Any] = [collection, *params, *sigs]
    if months:
        spans = [_month_bounds(m) for m in months]
        parts.append("(" + " OR ".join("(m.started_at >= CAST(? AS TIMESTAMP) AND m.started_at < CAST(? AS TIMESTAMP))"
                                        for _ in spans) + ")")
        bound += [x for span in spans for x in span]
    else:
        parts.append("m.started_at = (SELECT MAX(started_at) FROM assessments WHERE collection = ?)")
        bound.append(collection)
    sql = ("SELECT s.signature_id, s.title, s.kind, s.severity, s.asset_id, a.site, a.device_type, s.evidence, "
           "m.assessment_id, m.started_at, COUNT(*) OVER () AS total FROM slic_results s "
           "JOIN assessments m ON m.assessment_id = s.assessment_id JOIN assets a ON a.asset_id = s.asset_id "
           f"WHERE m.collection = ? AND {where} AND {' AND '.join(parts)} "
           "ORDER BY s.signature_id, m.started_at DESC, s.asset_id")
    when = f"runs of {', '.join(months)}" if months else "the latest run"
    return SqlPlan("signature_matches", sql, bound, f"SLIC matches in {when}")


def compared_key(scope: dict[str, Any]) -> str | None:
    """The filter whose several values are the sides of a comparison ("HQ vs Site-A", "9.3(8) vs 10.2(5)")."""
    for key in GROUP_COLUMNS:
        if len(values_of(scope.get(key))) >= 2:
            return key
    return None


def clean_rules(scope: dict[str, Any], condition: Condition) -> SqlPlan:
    """The checks no device in scope fails ("which checks pass everywhere at the stores"), each with the devices
    judged on it — a check none of them is judged on is not listed (it passes nowhere either)."""
    cte, params = _checks_in_scope(scope)
    match, match_params = condition.sql("x")
    sql = (cte + "SELECT x.rule_id, ru.title, ru.severity, COUNT(DISTINCT x.asset_id) AS judged, "
           "COUNT(*) OVER () AS total, (SELECT COUNT(DISTINCT rule_id) FROM x) AS rules_judged "
           f"FROM x JOIN rules ru ON ru.rule_id = x.rule_id WHERE {match} GROUP BY x.rule_id, ru.title, ru.severity "
           "HAVING COUNT(CASE WHEN x.status = 'fail' THEN 1 END) = 0 "
           "ORDER BY CASE ru.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, "
           "x.rule_id")
    return SqlPlan("clean_rules", sql, [*params, *match_params], "checks no device in scope fails in {assessment_id}",
                   assessment_id="latest")


def plan_frame(frame: QuestionFrame, scope: dict[str, Any], condition: Condition, collection: str = FLEET,
               today: date | None = None, group_by: str | None = None, by_rate: str | None = None) -> SqlPlan | None:
    """The frame's SQL plan when its ask needs one of the forms above, else None (the assessment tools answer).
    ``group_by``: a column the question asks a row per value of ("pass rate per site type")."""
    ask, subject = frame.ask, frame.subject
    device = scope.get("device")
    if (subject == "signatures" or frame.targets.signature) and ask in ("list", "count", "yes_no", "summary"):
        today = today or date.today()
        months = list(frame.time.months)
        if frame.time.relative == "this_month":
            months = []  # the latest run, said as such: a month with no run yet ("this month" on the 1st) is no "No"
        elif frame.time.relative == "last_month":
            months = [f"{today.year - (today.month == 1):04d}-{(today.month - 2) % 12 + 1:02d}"]
        return signature_matches(frame, scope, collection, months)
    if device and condition.rules and ask in ("yes_no", "exception", "fix", "explain"):
        return device_rules(scope, condition.rules)
    if device and ask == "exception":  # "is any of that covered by an exception?": each check it does not pass
        return device_rules(scope, ())
    untimed = not frame.time.months and not frame.time.relative and not frame.time.runs
    if group_by and untimed and not device and ask in ("share", "count", "compare", "ranking", "summary", "list") \
            and subject in ("findings", "devices", "sites", "rules") and (group_by != "sites" or ask == "share"):
        # "how many aaa failures per site type": a row per group, before any list of devices
        return group_compare(scope, group_by, condition, frame.limit if ask == "ranking" else None,
                             by_rate=by_rate if ask == "ranking" else "lowest" if ask == "share" else None)
    if ask in ("fix", "count", "yes_no", "share") and condition.rules and not device:
        # "remediation for smart install?": the devices failing it and the fix; "how many of them fail ntp auth?",
        # "is aaa new-model on everywhere at the branches?": the rules asked, not their topic
        return device_list(frame, scope, condition, collection)
    # "which ASA-TLS deviations remain given our exceptions" is about the rule's deviations: the analysis tool's
    # exceptions view answers it; "is there an exception for ASA-MGMT-ANY" asks for the exceptions of that check
    named_rules = frame.targets.rule and not frame.time.before and ask not in ("exception", "yes_no")
    if subject == "exceptions" and not device and not named_rules and ask in ("list", "count", "exception", "yes_no",
                                                                             "summary"):
        return exception_list(frame, scope, condition.rules)
    if subject == "rules" and not device and ask in ("list", "count") and frame.polarity == "passes" and untimed \
            and not frame.direction:
        return clean_rules(scope, condition)  # "which checks does every device pass?"
    if subject == "rules" and not device and (frame.direction or ask in ("trend", "compare")) and (
            frame.direction or frame.time.since or frame.time.months or frame.time.runs or frame.time.last_n
            or frame.time.relative):
        # "which checks got worse at the stores since october": per check, its failing devices then and now
        return rule_changes(frame, scope, condition, collection)
    if subject == "sites" and not device and (frame.direction or (ask in ("trend", "compare") and not untimed)):
        # "which sites got worse since september", "which branch improved the most": per site, then and now
        return site_changes(frame, scope, condition, collection)
    if ask == "trend" and group_by in GROUP_COLUMNS_OF_RUNS and not device:
        return group_series(frame, scope, condition, collection, group_by)  # "failed checks per role since august"
    if ask == "trend" and (frame.time.since or frame.time.last_n or len(frame.time.months) > 2
                           or not (frame.time.relative or frame.time.months)):
        return run_series(frame, scope, condition, collection)
    if ask == "yes_no" and frame.direction and (frame.time.since or frame.time.last_n) and subject in ("findings", "runs"):
        return run_series(frame, scope, condition, collection)  # "did site-b get worse since the september run?"
    if frame.time.several_runs and not device and (ask in ("count", "summary") or (ask == "list" and subject in ("findings", "runs"))):
        return run_series(frame, scope, condition, collection)  # "failed checks at Site-B over the last 3 runs"
    key = compared_key(scope)
    if key and untimed and (ask == "compare" or (ask == "count" and subject == "findings")):
        # "how many critical findings in prod vs staging": the count of each side, side by side
        return group_compare(scope, key, condition)
    if subject == "sites" and ask in ("ranking", "list", "compare", "count"):
        return group_compare(scope, "sites", condition, frame.limit if ask == "ranking" else None,
                             by_rate=by_rate if ask == "ranking" else None,
                             clean=wants_clean(frame))
    # a share of the inventory, not of failures (nor of the devices passing: "what share of devices at HQ pass every
    # check" is the run's)
    if ask == "share" and subject == "devices" and not condition and not device and not frame.polarity:
        plan = inventory_share(scope, collection)
        if plan is not None:
            return plan
    if subject == "devices" and not device and (ask in ("list", "ranking") or (ask in ("count", "yes_no")
                                                                               and condition.narrow)
                                                or (ask == "yes_no" and not condition) or wants_clean(frame)):
        # "any store firewalls on 9.8(4)?" asks whether such devices exist: the inventory's devices in scope
        return device_list(frame, scope, condition, collection)  # a bare count is the analysis' (failing and at-risk devices)
    return None
