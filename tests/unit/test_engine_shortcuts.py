"""The engine's shortcuts give the answers of the plain way, on every configuration at hand: the real captures and
this repository's own (tests/fixtures/ownconfigs), and the demo network's latest configurations (every platform).

Each shortcut was added for speed (issue 32: uploads assessed at 300 a second): a pattern tried only on the lines
whose first word it can match, a line-anchored pattern searched from a newline, a line passed over when it names
no reference, a configuration lowered before its trigger words are found, libyaml for the product's YAML files.
A shortcut that answered differently would change verdicts, evidence or masking silently; these tests compare
each with the plain way it replaced.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
import yaml

from assessment_engine.checks import config_parser, rule_engine
from assessment_engine.checks.config_parser import ParsedConfig, literal_start, parse_config
from assessment_engine.checks.judgement import judge
from foundation.config import PROJECT_ROOT
from foundation.secrets import mask_config
from foundation.yaml_files import load_yaml
from tests.catalog import RULES
from tests.conftest import FIXTURES

CORPUS = PROJECT_ROOT.parent / "shared" / "realconfigs"
OWN = FIXTURES / "ownconfigs"


def _texts(demo_warehouse: Path | None = None) -> list[tuple[str, str]]:
    files = [p for folder in (CORPUS, OWN) if folder.is_dir() for p in sorted(folder.rglob("*")) if p.is_file()
             and p.suffix in (".cfg", ".txt", ".conf")]
    out = [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in files]
    if demo_warehouse is not None:
        con = duckdb.connect(str(demo_warehouse), read_only=True)
        try:
            out += con.execute("SELECT asset_id, config_text FROM configs WHERE assessment_id = (SELECT assessment_id "
                               "FROM assessments WHERE collection = 'fleet' ORDER BY started_at DESC LIMIT 1) "
                               "ORDER BY asset_id").fetchall()
        finally:
            con.close()
    return out


def test_a_pattern_finds_on_its_first_words_lines_what_it_finds_on_every_line(
        demo_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pattern the rules and signatures ask of every configuration, through the first-word index and over
    every line: the same lines, in the same order, top level and all."""
    asked: list[tuple[ParsedConfig, re.Pattern[str], bool]] = []
    find = ParsedConfig.find

    def recording(self: ParsedConfig, pattern: re.Pattern[str], top_level: bool = False) -> list[config_parser.Line]:
        asked.append((self, pattern, top_level))
        return find(self, pattern, top_level)

    monkeypatch.setattr(ParsedConfig, "find", recording)
    texts = _texts(demo_warehouse)
    for name, text in texts:
        judge(name, text, RULES)
    assert len(texts) > 150 and len({p for _, p, _ in asked}) > 60
    shortened = 0
    for cfg, pattern, top_level in asked:
        pool = cfg.top if top_level else cfg.lines
        assert find(cfg, pattern, top_level) == [line for line in pool if pattern.search(line.text)], pattern.pattern
        shortened += bool(literal_start(pattern))
    assert shortened > len(asked) * 0.8  # the shortcut is taken: nearly every pattern starts with words


def test_the_first_word_index_keeps_case_and_unicode_rules() -> None:
    cfg = parse_config("hostname R1\nSNMP-Server community a RO\n\u017fnmp-server community b RO\n"
                       "snmp-server community c RO\nsnmp-servers x\ninterface Gi1\n description snmp-server\n")
    ignoring = re.compile(r"^snmp-server community", re.I)  # 'ſ' (long s) is an 's' to re under IGNORECASE
    assert [ln.text[-4:] for ln in cfg.find(ignoring)] == ["a RO", "b RO", "c RO"]
    assert [ln.text for ln in cfg.find(re.compile(r"^snmp-server"))] == ["snmp-server community c RO",
                                                                         "snmp-servers x"]
    assert [ln.text for ln in cfg.find(re.compile(r"^snmp-server "), top_level=True)] == [
        "snmp-server community c RO"]
    assert [ln.text for ln in cfg.find(re.compile(r"^(snmp|host)"))] == [
        "hostname R1", "snmp-server community c RO", "snmp-servers x"]  # no literal start: every line is tried
    assert (literal_start(re.compile(r"^logging (host )?\d")), literal_start(re.compile(r"^ab*c")),
            literal_start(re.compile(r"^a|^b")), literal_start(re.compile(r"x^")),
            literal_start(re.compile("^caf\u00e9"))) == ("logging ", "a", "", "", "")


def test_a_line_anchored_pattern_searched_from_a_newline_matches_as_itself(demo_warehouse: Path) -> None:
    patterns = [evidence for _, evidence in config_parser._OTHER_PLATFORMS] + [
        config_parser._IOS_XR, config_parser._ASA, config_parser._VERSION, config_parser._XE_HINTS]
    assert sum(p._lined is not None for p in patterns) >= len(patterns) - 1  # all but VyOS's unanchored mark
    samples = [text[:20000] for _, text in _texts(demo_warehouse)] + [
        "sysname X\nreturn", "x sysname X", " sysname X\n", "version 15.2\n", "hostname a\nversion 17.3\n",
        "ltm virtual v1 {\n}", "!! IOS XR Configuration 7.3", "interface GigabitEthernet0/0/0/1\n", ""]
    for text in samples:
        for p in patterns:
            fast, plain = p.search(text), p.pattern.search(text)
            assert (fast is None) == (plain is None), (p.pattern.pattern, text[:80])
            if fast and plain:
                assert fast.groups() == plain.groups() and fast.group(0).lstrip("\n") == plain.group(0)


def test_lines_that_name_no_reference_are_passed_over_without_changing_what_is_undefined(
        demo_warehouse: Path) -> None:
    def plain(cfg: ParsedConfig) -> list[tuple[int, str, str]]:
        defined = {(kind, m.group("name")) for ln in cfg.top for kind, rx in rule_engine._DEFINITIONS
                   if (m := rx.match(ln.text))}
        out = []
        for ln in cfg.lines:
            for kind, rx in rule_engine._REFERENCES:
                m = rx.match(ln.text)
                if m and (kind, m.group("name")) not in defined:
                    out.append((ln.number, kind, m.group("name")))
                    break
        return out

    found = 0
    for _, text in _texts(demo_warehouse):
        cfg = parse_config(text)
        assert [(ln.number, kind, name) for ln, kind, name in rule_engine.undefined_references(cfg)] == plain(cfg)
        found += bool(plain(cfg))
    assert found  # iosxe_undefined_route_map and the demo's planted ones


def test_a_configuration_with_other_than_ascii_text_is_masked_as_an_ascii_one() -> None:
    """ASCII text is lowered before its trigger words are found (the offsets stay); any other is searched ignoring
    case as before. Both mask the same lines."""
    config = ("hostname R1\nSNMP-SERVER COMMUNITY Zq9Secret RO\nusername admin secret 5 $1$abc$xyz\n"
              "interface Gi1\n description {}\n ip ospf message-digest-key 1 md5 0 OspfKey9\n")
    ascii_masked, other_masked = mask_config(config.format("uplink")), mask_config(config.format("Zürich uplink"))
    assert ascii_masked.replace("uplink", "Zürich uplink") == other_masked
    assert not any(secret in ascii_masked + other_masked for secret in ("Zq9Secret", "$1$abc$xyz", "OspfKey9"))


def test_the_products_yaml_files_read_with_libyaml_are_the_same_data() -> None:
    files = [p for folder in ("contracts", "knowledge_base", "orchestration") for p in (PROJECT_ROOT / folder).rglob("*.yaml")]
    assert len(files) > 15
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert load_yaml(text) == yaml.safe_load(text), path
