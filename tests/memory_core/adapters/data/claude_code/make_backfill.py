"""Writes the `backfill/` fixture: two long Claude Code sessions of a made-up project.

- `-home-sam-code-fxledger/3f6c1d2a-....jsonl`: a 4.5-hour autonomous session. Its first
  request runs through a subagent report, failing and passing test runs, four commits and an
  automatic compaction in the middle; the second request is compacted too and ends
  interrupted ("Let me remove them." and a rejected edit); a third, short one closes the
  session. The two compaction summaries use two versions' headings (`1. Primary Request and
  Intent:` with nested `- Fix:` bullets; `## 1. ...` with `**Errors and Fixes:**` and inline
  ` - Fix:`), and the second carries items over from the first.
- `.../3f6c1d2a-.../subagents/agent-7c2e9f1.jsonl`: the Explore subagent of the first request.
- `-home-sam-code-fxledger/8a41e07b-....jsonl`: the session that carried on the next day: it
  starts with a compaction summary (bold headings) and work with no request before it, then
  a manual `/compact` whose summary has no headings, then one more request.

Names, paths, hashes and numbers are invented. The tests read the files this writes; run it
only to change the fixture:

    python tests/memory_core/adapters/data/claude_code/make_backfill.py
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from backfill_writer import HAIKU, Writer, pytest_run  # noqa: E402

FOLDER = Path(__file__).parent / "backfill" / "-home-sam-code-fxledger"
LONG = "3f6c1d2a-9b4e-4c7d-8a15-6e2f0b9c4d11"
NEXT = "8a41e07b-2c5d-4f19-b3a6-0d7e9c1f5a22"
AGENT = "7c2e9f1"

REQUEST_1 = (
    "Add multi-currency support to the ledger: store each transaction's currency, convert to "
    "the account's base currency with daily ECB reference rates, and show converted totals in "
    "`fxledger report`. Work autonomously: run the tests and commit as you go, and don't stop "
    "until it's done.")
EXPLORE = (
    "In /home/sam/code/fxledger, find where transaction amounts are parsed, stored and summed "
    "(models, importers, report). For each, give the file, the function and the type used for "
    "money. Do not change anything.")
REPORT = (
    "Money in fxledger:\n"
    "- parsed in `fxledger/importers/csv.py:parse_amount` as `Decimal` (strips thousands "
    "separators)\n"
    "- stored in `fxledger/models.py:Transaction.amount` as `float` (SQLite REAL), no currency "
    "field\n"
    "- summed in `fxledger/report.py:account_totals` with `sum()` over floats, rounded with "
    "`round(x, 2)` at the end\n"
    "Migrations are numbered SQL files in `fxledger/migrations/` (latest: 0006_tags.sql).")

COMPACTION_1 = """Analysis:
Let me chronologically analyze the conversation:

1. The user asked for multi-currency support in fxledger: a currency per transaction, \
conversion to the account's base currency with daily ECB reference rates, and converted totals \
in `fxledger report`, working autonomously, running the tests and committing as I go.
2. An Explore agent mapped where money is parsed (Decimal), stored (float) and summed (float).
3. I added the currency column (migration 0007), a `Money` type and `fxledger/rates.py`.
4. Tests failed on a one-cent rounding difference and on the migration; both fixed. Weekend \
dates then raised KeyError; fixed with a fallback to the previous business day.
5. Commits: a41c9e2 (schema, rates), 5be07d1 (report --base), 9d03f6b (weekend fallback). I \
had just read `fxledger/fetch.py` to add a retry.

Summary:
1. Primary Request and Intent:
   The user asked to add multi-currency support to fxledger: store each transaction's \
currency, convert amounts to the account's base currency with daily ECB reference rates, and \
show converted totals in `fxledger report`. Work autonomously, run the tests and commit as I \
go, and keep going until it is done.

2. Key Technical Concepts:
   - ECB euro foreign exchange reference rates (daily XML feed, EUR base; cross rates \
computed through EUR)
   - `decimal.Decimal` with ROUND_HALF_EVEN for money; rates stored as Decimal strings rather \
than floats
   - SQLite schema migrations (numbered SQL files in `fxledger/migrations/`)
   - Click CLI (`fxledger report --base EUR`)

3. Files and Code Sections:
   - `fxledger/models.py`
      - Added `currency: str` to `Transaction` (ISO 4217 code, default "EUR") and a `Money` \
value type.
      ```python
      @dataclass(frozen=True)
      class Money:
          amount: Decimal
          currency: str
      ```
   - `fxledger/rates.py` (new)
      - `load_ecb_rates(xml) -> dict[date, dict[str, Decimal]]` and `convert(money, to, on)`.
   - `fxledger/migrations/0007_currency.sql` (new)
      - `ALTER TABLE transactions ADD COLUMN currency TEXT NOT NULL DEFAULT 'EUR'`
   - `fxledger/report.py`
      - Totals are converted per transaction on its booking date, then summed.

4. Errors and fixes:
   - **Converted totals off by one cent**: `test_report_totals_in_base_currency` expected \
1234.57 and got 1234.56, because amounts were converted as floats and summed before rounding.
      - Fix: convert with `Decimal`, quantize each converted amount to 0.01 with \
ROUND_HALF_EVEN, then sum.
   - **Migration 0007 failed on existing databases**: `sqlite3.OperationalError: Cannot add a \
NOT NULL column with default value NULL`, because the first draft had no DEFAULT.
      - Fix: declare the column with `DEFAULT 'EUR'`; every existing row is in euros.
      - Found by `test_migrations_apply_to_v6_fixture`, not by the user.
   - **No ECB rate on weekends**: `KeyError: datetime.date(2025, 3, 8)` when converting a \
Saturday transaction; the feed has no rates on weekends and TARGET holidays.
      - Fix: `convert` falls back to the latest earlier date with rates (at most 7 days back), \
else raises `MissingRateError` naming the currency and the date.

5. Problem Solving:
   - Decided to convert each transaction on its booking date rather than converting monthly \
totals at a month-end rate, so that reports match the bank statements.
   - Cross rates (USD to GBP) go through EUR, since the ECB publishes EUR-based rates only.
   - The Explore agent's map showed `parse_amount` already returns Decimal, so only the model, \
the migration and the report needed changes.

6. All user messages:
   - "Add multi-currency support to the ledger: store each transaction's currency, convert to \
the account's base currency with daily ECB reference rates, and show converted totals in \
`fxledger report`. Work autonomously: run the tests and commit as you go, and don't stop until \
it's done."

7. Pending Tasks:
   - Add retry with backoff to the ECB rate fetcher (`fxledger/fetch.py`).
   - Document the `--base` option of `fxledger report` in README.md.

8. Current Work:
   Immediately before this summary I had read `fxledger/fetch.py`: `fetch_daily_rates` calls \
the ECB endpoint once with `urllib.request.urlopen` and has no retry.

9. Optional Next Step:
   Add retry with exponential backoff to `fetch_daily_rates`, run the tests and commit."""

COMPACTION_2 = """Analysis:
Going through the conversation in order. The first request (multi-currency support) is done \
and committed; its last open item is the README. The second request came after the nightly \
fetch failed with HTTP 429: honour Retry-After and cache the last good rates. That is \
implemented and committed (3e8b5a1); a stub-server run confirmed it. I was tidying up.

Summary:
## 1. Primary Request and Intent
- Earlier, done: multi-currency support in fxledger (commits a41c9e2, 5be07d1, 9d03f6b, \
0c7d2e4).
- Current: the nightly rate fetch failed with HTTP 429 from the ECB endpoint. The user asked \
to make the fetcher honour Retry-After and to cache the last good rates so that reports still \
work offline.

## 2. Key Technical Concepts
- HTTP 429 and the `Retry-After` header (seconds or an HTTP date)
- Exponential backoff with jitter: base 2 s, cap 60 s, 5 attempts
- Rate cache as JSON in `$XDG_CACHE_HOME/fxledger/rates.json`

## 3. Files and Code Sections
- `fxledger/fetch.py`: `fetch_daily_rates(*, attempts=5, sleep=time.sleep)`; honours \
`Retry-After`.
- `fxledger/cache.py` (new): `save_rates` / `load_rates`, written atomically.
- `tests/test_cache.py` (new), `tests/test_fetch.py`: a stub server returning 429 twice.

**Errors and Fixes:**
- **Converted totals off by one cent**: `test_report_totals_in_base_currency` expected \
1234.57 and got 1234.56, because amounts were converted as floats and summed before rounding. \
- Fix: convert with `Decimal`, quantize each converted amount to 0.01 with ROUND_HALF_EVEN, \
then sum.
- **Retry tests took 62 s**: `test_fetch_retries_on_429` really slept through the backoff. - \
Fix: `fetch_daily_rates` takes a `sleep` callable; the tests pass a fake that records the \
delays.
- **Report read a half-written cache**: `json.decoder.JSONDecodeError` in `load_rates` when a \
report ran while the fetch was writing `rates.json`. - Fix: write to a temporary file in the \
same directory, then `os.replace` it over `rates.json`.

## 5. Problem Solving
- Chose to honour `Retry-After` when the server sends it and to fall back to exponential \
backoff when it does not.
- Reports read the cache only when the fetch fails, and print the date the rates are from.

## 7. Pending Tasks
- Document the `--base` option of `fxledger report` in README.md.
- Add an `--offline` flag to `fxledger report` that skips the fetch and uses the cache.

## 8. Current Work
Tidying `fxledger/fetch.py` after the stub-server run: two debug `print` calls are left in \
`fetch_daily_rates`.

## 9. Optional Next Step
Remove the debug prints, run the full suite and commit."""

COMPACTION_3 = """Analysis:
The user came back to the branch to finish the open items of the previous session.

Summary:
**Primary Request and Intent:**
Finish `feat/multi-currency`: add an `--offline` flag to `fxledger report` that skips the rate \
fetch and uses the cached rates, and document `--base` and `--offline` in README.md.

**Key Technical Concepts:**
- Click boolean flags (`--offline/--online`)
- The rate cache of `fxledger/cache.py` and `MissingRateError`

**Files and Code Sections:**
- `fxledger/cli.py`: the `report` command, where the flag goes.
- `fxledger/cache.py`: `load_rates()` reads `rates.json`.

**Errors and Fixes:**
- `test_report_offline_without_cache` failed with `FileNotFoundError` when no cache existed \
yet.
  - Fix: `load_rates` raises `MissingRateError("no cached rates yet; run once without \
--offline")` instead.

**Pending Tasks:**
- None.

**Current Work:**
Adding the `--offline` flag to `fxledger report`."""

COMPACTION_4 = (
    "The branch feat/multi-currency is complete: transactions carry a currency, reports "
    "convert with ECB reference rates per booking date, the fetcher honours Retry-After with "
    "backoff, the last good rates are cached and `fxledger report --offline` uses them. The "
    "README documents --base and --offline. All 164 tests pass and everything is committed "
    "(last commit 6f1a9c3). The user wants a pull request description next.")


def subagent(start: str) -> Writer:
    sub = Writer(LONG, start, agent=AGENT, pace=3)
    sub.user(EXPLORE, seconds=0)
    sub.act(None, "Grep", {"pattern": "amount", "path": "/home/sam/code/fxledger/fxledger",
                           "output_mode": "files_with_matches"},
            "fxledger/models.py\nfxledger/importers/csv.py\nfxledger/report.py", model=HAIKU)
    sub.read("fxledger/importers/csv.py", "def parse_amount(text: str) -> Decimal:\n"
             "    return Decimal(text.replace(',', ''))")
    sub.read("fxledger/models.py", "@dataclass\nclass Transaction:\n    account: str\n"
             "    booked: date\n    amount: float")
    sub.read("fxledger/report.py", "def account_totals(rows):\n"
             "    return {a: round(sum(r.amount for r in rs), 2) for a, rs in rows.items()}")
    sub.say(REPORT, model=HAIKU)
    return sub


def first_request(w: Writer) -> str:
    """The first request's lines; returns when its subagent started."""
    w.user(REQUEST_1, seconds=31, thinkingMetadata={"level": "high", "disabled": False,
                                                     "triggers": []}, todos=[])
    w.act("I'll map the code first, then change the model, the rates and the report in that "
          "order.", "TodoWrite", {"todos": [
              {"content": "Map money handling", "status": "in_progress",
               "activeForm": "Mapping money handling"},
              {"content": "Currency column and rates", "status": "pending",
               "activeForm": "Adding the currency column and rates"},
              {"content": "Converted totals in report", "status": "pending",
               "activeForm": "Converting report totals"}]},
          "Todos have been modified successfully.")
    started = (w.clock + timedelta(seconds=5)).isoformat(timespec="milliseconds")[:23]
    w.act(None, "Task", {"description": "Map money handling", "prompt": EXPLORE,
                         "subagent_type": "Explore"},
          [{"type": "text", "text": REPORT}], took=52,
          tool_result={"status": "completed", "prompt": EXPLORE, "agentId": AGENT,
                       "content": [{"type": "text", "text": REPORT}],
                       "totalDurationMs": 48211, "totalTokens": 18230,
                       "totalToolUseCount": 4})
    w.read("fxledger/models.py", "@dataclass\nclass Transaction:\n    account: str\n"
           "    booked: date\n    amount: float",
           "The map: amounts are parsed as Decimal but stored as float, with no currency, and "
           "the report sums floats. Starting with the model.")
    w.bash("ls fxledger/migrations", "0001_init.sql\n0002_accounts.sql\n0003_budgets.sql\n"
           "0004_rules.sql\n0005_indexes.sql\n0006_tags.sql")
    w.edit("fxledger/models.py", "    amount: float", "    amount: Decimal\n"
           "    currency: str = \"EUR\"")
    w.write("fxledger/migrations/0007_currency.sql",
            "ALTER TABLE transactions ADD COLUMN currency TEXT NOT NULL;\n")
    w.write("fxledger/rates.py", "def load_ecb_rates(xml): ...\ndef convert(money, to, on): ...",
            "Now the ECB loader and the converter.")
    w.write("tests/test_rates.py", "def test_convert_through_eur(): ...")
    w.bash("uv run pytest -q", "Exit code 1\n" + pytest_run(
        146, ("test_report.py::test_report_totals_in_base_currency",
              "test_migrations.py::test_migrations_apply_to_v6_fixture")), error=True,
           description="Run the test suite", took=14)
    w.read("fxledger/report.py", "def account_totals(rows): ...",
           "Two failures: the converted total is a cent off because floats are summed before "
           "rounding, and migration 0007 fails on an old database because the new NOT NULL "
           "column has no default.")
    w.edit("fxledger/report.py", "round(sum(r.amount for r in rs), 2)",
           "sum(convert(r.money, base, r.booked).quantize(CENT, ROUND_HALF_EVEN) for r in rs)")
    w.edit("fxledger/migrations/0007_currency.sql", "TEXT NOT NULL;",
           "TEXT NOT NULL DEFAULT 'EUR';")
    w.bash("uv run pytest -q", pytest_run(148), description="Run the test suite", took=13)
    w.bash("git add -A && git commit -m 'Currency per transaction, ECB rates, Decimal totals'",
           "[feat/multi-currency a41c9e2] Currency per transaction, ECB rates, Decimal totals\n"
           " 6 files changed, 214 insertions(+), 9 deletions(-)",
           "All 148 tests pass: totals are converted in Decimal and rounded per transaction, "
           "and the migration defaults old rows to EUR. Committing.")
    w.read("fxledger/cli.py", "@cli.command()\ndef report(month): ...",
           "Committed a41c9e2. Next: converted totals in `fxledger report`.")
    w.edit("fxledger/cli.py", "def report(month):",
           "@click.option('--base', default=None, help='Currency to convert totals to')\n"
           "def report(month, base):")
    w.edit("fxledger/report.py", "def account_totals(rows):", "def account_totals(rows, base):")
    w.bash("uv run fxledger report --month 2025-03 --base EUR",
           "checking   EUR   1,234.57\nsavings    EUR   8,020.00\ntravel     EUR     412.18",
           description="Try the report")
    w.write("tests/test_report_cli.py", "def test_report_base_option(): ...")
    w.bash("uv run pytest -q", pytest_run(151), description="Run the test suite", took=13)
    w.bash("git commit -am 'report: --base converts totals to one currency'",
           "[feat/multi-currency 5be07d1] report: --base converts totals to one currency\n"
           " 3 files changed, 58 insertions(+), 6 deletions(-)",
           "151 passed. `fxledger report --base EUR` prints each account's total converted on "
           "each transaction's booking date. Committing.")
    w.bash("uv run fxledger report --month 2025-03 --base USD",
           "Exit code 1\nTraceback (most recent call last):\n  ...\n"
           "KeyError: datetime.date(2025, 3, 8)", error=True,
           why="Committed 5be07d1. Checking a month with weekend transactions.")
    w.edit("fxledger/rates.py", "    return rates[on][to]",
           "    return rates[latest_on_or_before(rates, on, days=7)][to]",
           "Saturday transactions have no ECB rate: the feed skips weekends and TARGET "
           "holidays. `convert` should fall back to the latest earlier date with rates.")
    w.edit("tests/test_rates.py", "def test_convert_through_eur(): ...",
           "def test_convert_through_eur(): ...\ndef test_weekend_uses_friday_rate(): ...")
    w.bash("uv run pytest -q", pytest_run(153), description="Run the test suite", took=13)
    w.bash("git commit -am 'rates: weekends and holidays use the previous business day'",
           "[feat/multi-currency 9d03f6b] rates: weekends and holidays use the previous "
           "business day\n 2 files changed, 31 insertions(+), 2 deletions(-)",
           "153 passed; weekend and holiday dates now use the latest earlier rate, at most 7 "
           "days back, else MissingRateError names the currency and the date. Committing.")
    w.read("fxledger/fetch.py", "def fetch_daily_rates():\n    return urlopen(ECB_URL).read()",
           "Committed 9d03f6b. Last item: the rate fetcher calls the ECB once, with no retry.")
    w.lines.append({"parentUuid": w.parent, "isSidechain": False, "userType": "external",
                    "cwd": "/home/sam/code/fxledger", "sessionId": LONG, "version": "2.0.62",
                    "gitBranch": "feat/multi-currency", "type": "progress",
                    "data": {"type": "hook_progress", "hookEvent": "PreCompact",
                             "hookName": "PreCompact", "command": "~/.claude/hooks/log.sh"},
                    "uuid": "5d1c0e9a-1111-4a2b-9c3d-7e8f9a0b1c2d",
                    "timestamp": w.tick(2)})
    w.compact(COMPACTION_1, "auto", 157311)
    w.read("fxledger/fetch.py", "def fetch_daily_rates():\n    return urlopen(ECB_URL).read()",
           "Picking up `fxledger/fetch.py`: adding retry with exponential backoff to "
           "`fetch_daily_rates`.")
    w.edit("fxledger/fetch.py", "    return urlopen(ECB_URL).read()",
           "    for attempt in range(attempts):\n        try:\n"
           "            return urlopen(ECB_URL).read()\n        except HTTPError: ...")
    w.write("tests/test_fetch.py", "def test_fetch_retries_on_429(stub_server): ...")
    w.bash("uv run pytest -q tests/test_fetch.py", pytest_run(3, seconds=62.41),
           description="Run the fetch tests", took=64)
    w.edit("fxledger/fetch.py", "def fetch_daily_rates(*, attempts=5):",
           "def fetch_daily_rates(*, attempts=5, sleep=time.sleep):",
           "The retry tests pass, but in 62 s: they really sleep through the backoff. The "
           "fetcher should take the sleep function so tests can pass a fake.")
    w.edit("tests/test_fetch.py", "def test_fetch_retries_on_429(stub_server):",
           "def test_fetch_retries_on_429(stub_server, fake_sleep):")
    w.bash("uv run pytest -q", pytest_run(156, seconds=12.07), description="Run the test suite",
           took=14)
    w.bash("git commit -am 'fetch: retry with exponential backoff'",
           "[feat/multi-currency 0c7d2e4] fetch: retry with exponential backoff\n"
           " 2 files changed, 47 insertions(+), 3 deletions(-)",
           "156 passed in 12 s. Committing the retry.")
    w.say("Multi-currency support is in, in four commits on `feat/multi-currency`:\n"
          "- a41c9e2: a currency per transaction (migration 0007, default EUR), ECB reference "
          "rates, Decimal totals rounded per transaction\n"
          "- 5be07d1: `fxledger report --base CUR` converts each transaction on its booking "
          "date\n"
          "- 9d03f6b: weekends and TARGET holidays use the latest earlier rate\n"
          "- 0c7d2e4: the fetcher retries with exponential backoff\n"
          "Not done yet: documenting `--base` in README.md.", seconds=9)
    return started


def second_request(w: Writer) -> None:
    w.user("The nightly rate fetch failed with HTTP 429 from the ECB endpoint (log below). "
           "Make the fetcher honour Retry-After, and cache the last good rates so reports "
           "still work offline.\n\n```\n2025-11-18 02:00:04 ERROR fxledger.fetch: HTTP Error "
           "429: Too Many Requests (Retry-After: 30)\n```", seconds=90)
    w.meta("<system-reminder>The user opened the file fxledger/fetch.py in the IDE."
           "</system-reminder>")
    w.read("fxledger/fetch.py", "def fetch_daily_rates(*, attempts=5, sleep=time.sleep): ...",
           "429 is the server asking us to slow down; it says for how long in Retry-After. "
           "I'll read the fetcher again.")
    w.act(None, "Grep", {"pattern": "Retry-After", "path": "/home/sam/code/fxledger"},
          "No matches found")
    w.edit("fxledger/fetch.py", "        except HTTPError: ...",
           "        except HTTPError as error:\n            sleep(retry_after(error) or "
           "backoff(attempt))")
    w.write("fxledger/cache.py", "def save_rates(rates): ...\ndef load_rates(): ...")
    w.edit("fxledger/report.py", "rates = fetch_daily_rates()",
           "try:\n    rates = fetch_daily_rates()\nexcept FetchError:\n"
           "    rates = load_rates()")
    w.write("tests/test_cache.py", "def test_report_reads_cache_during_write(): ...")
    w.bash("uv run pytest -q", "Exit code 1\n" + pytest_run(
        160, ("test_cache.py::test_report_reads_cache_during_write",)), error=True,
           description="Run the test suite", took=14)
    w.edit("fxledger/cache.py", "    path.write_text(json.dumps(rates))",
           "    tmp = path.with_suffix('.tmp')\n    tmp.write_text(json.dumps(rates))\n"
           "    os.replace(tmp, path)",
           "The cache test fails with JSONDecodeError: a report read `rates.json` while the "
           "fetch was writing it. Writing to a temporary file and `os.replace`-ing it makes "
           "the switch atomic.")
    w.bash("uv run pytest -q", pytest_run(161), description="Run the test suite", took=13)
    w.bash("git commit -am 'fetch: honour Retry-After; cache the last good rates'",
           "[feat/multi-currency 3e8b5a1] fetch: honour Retry-After; cache the last good "
           "rates\n 5 files changed, 122 insertions(+), 11 deletions(-)",
           "161 passed. Committing the Retry-After handling and the rate cache.")
    w.bash("uv run python scripts/stub_ecb.py --fail 2 &", "stub ECB on :8765",
           why="Committed 3e8b5a1. Checking the whole flow against a stub server that answers "
           "429 twice.")
    w.bash("FXLEDGER_ECB_URL=http://localhost:8765 uv run fxledger fetch",
           "waiting 30 s (Retry-After)\nwaiting 30 s (Retry-After)\nfetched 31 rates for "
           "2025-11-18\ncached to ~/.cache/fxledger/rates.json", took=62)
    w.bash("head -c 120 ~/.cache/fxledger/rates.json",
           '{"date": "2025-11-18", "rates": {"USD": "1.0583", "GBP": "0.8811", ...',
           "The stub run retried twice, waited the 30 s the server asked for each time, and "
           "cached the rates.")
    w.compact(COMPACTION_2, "auto", 155902)
    w.act("Back in `fxledger/fetch.py` after the stub run, to tidy it up.", "Grep",
          {"pattern": "print\\(", "path": "/home/sam/code/fxledger/fxledger/fetch.py",
           "output_mode": "content", "-n": True},
          "48:    print('attempt', attempt)\n61:    print('cached', path)")
    w.read("fxledger/fetch.py", "def fetch_daily_rates(...): ...",
           "Found two leftover debug `print` calls in `fetch_daily_rates` (lines 48 and 61), "
           "from the stub run; the rest of the module is as committed.")
    w.act("Let me remove them.", "Edit", {
        "file_path": "/home/sam/code/fxledger/fxledger/fetch.py",
        "old_string": "    print('attempt', attempt)\n", "new_string": ""},
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
        "if it was a file edit, the new_string was NOT written to the file). STOP what you "
        "are doing and wait for the user to tell you how to proceed.", error=True, took=9)
    w.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}],
           seconds=0.2)


def long_session() -> tuple[Writer, str]:
    w = Writer(LONG, "2025-11-18T09:01:40.118", pace=16)
    w.lines.append({"type": "file-history-snapshot", "messageId": "snapshot-0",
                    "snapshot": {"messageId": "snapshot-0", "trackedFileBackups": {},
                                 "timestamp": w.tick(0)}, "isSnapshotUpdate": False})
    w.meta("Caveat: The messages below were generated by the user while running local "
           "commands. DO NOT respond to these messages or otherwise consider them in your "
           "response unless the user explicitly asks you to.")
    w.user("<command-name>/model</command-name>\n            <command-message>model"
           "</command-message>\n            <command-args></command-args>", seconds=0.01)
    w.user("<local-command-stdout>Set model to \u001b[1mDefault (Sonnet 4.5)\u001b[22m"
           "</local-command-stdout>", seconds=0.01)
    started = first_request(w)
    second_request(w)
    w.user("Leave the prints, I'll take them out myself. What is left to do on this branch?",
           seconds=70)
    w.say("Left on `feat/multi-currency`:\n"
          "- document `--base` in README.md\n"
          "- an `--offline` flag for `fxledger report` that uses the cached rates\n"
          "- the two debug prints in `fxledger/fetch.py` (lines 48 and 61), which you are "
          "removing yourself\n"
          "Everything else is committed (a41c9e2, 5be07d1, 9d03f6b, 0c7d2e4, 3e8b5a1) and the "
          "suite passes (161 tests).", seconds=11)
    leaf = w.parent
    w.lines.insert(0, {"type": "summary", "summary": "Multi-currency support for fxledger",
                       "leafUuid": leaf})
    return w, started


def next_session() -> Writer:
    w = Writer(NEXT, "2025-11-19T08:40:12.530", pace=4)
    w.compact(COMPACTION_3, "auto", 149877)
    w.read("fxledger/cli.py", "@click.option('--base', ...)\ndef report(month, base): ...",
           "Continuing with `--offline`: the report command should skip the fetch and read "
           "the cache.")
    w.edit("fxledger/cli.py", "def report(month, base):",
           "@click.option('--offline/--online', default=False)\n"
           "def report(month, base, offline):")
    w.edit("fxledger/report.py", "try:\n    rates = fetch_daily_rates()",
           "if offline:\n    rates = load_rates()\nelse:\n  try:\n    rates = "
           "fetch_daily_rates()")
    w.write("tests/test_report_offline.py", "def test_report_offline_without_cache(): ...")
    w.bash("uv run pytest -q", "Exit code 1\n" + pytest_run(
        163, ("test_report_offline.py::test_report_offline_without_cache",)), error=True,
           description="Run the test suite", took=14)
    w.edit("fxledger/cache.py", "    return json.loads(path.read_text())",
           "    if not path.exists():\n        raise MissingRateError('no cached rates yet; "
           "run once without --offline')\n    return json.loads(path.read_text())",
           "With no cache file yet, `--offline` crashes with FileNotFoundError. `load_rates` "
           "should raise MissingRateError with a hint instead.")
    w.bash("uv run pytest -q", pytest_run(164), description="Run the test suite", took=13)
    w.read("README.md", "## Reports\n\n    fxledger report --month 2025-03",
           "164 passed. Now the README section for `--base` and `--offline`.")
    w.edit("README.md", "    fxledger report --month 2025-03",
           "    fxledger report --month 2025-03 --base EUR\n    fxledger report --offline")
    w.bash("git commit -am 'report: --offline uses the cached rates; README'",
           "[feat/multi-currency 6f1a9c3] report: --offline uses the cached rates; README\n"
           " 5 files changed, 64 insertions(+), 4 deletions(-)")
    w.say("Committed 6f1a9c3: `fxledger report --offline` uses the cached rates and prints "
          "their date; without a cache it says to run once online. README.md documents "
          "`--base` and `--offline`.")
    w.user("<command-name>/compact</command-name>\n            <command-message>compact"
           "</command-message>\n            <command-args>keep the PR notes</command-args>",
           seconds=240)
    w.compact(COMPACTION_4, "manual", 61240)
    w.user("<local-command-stdout>\u001b[2mCompacted (ctrl+o to see full summary)\u001b[22m"
           "</local-command-stdout>", seconds=0.01)
    w.user("Write the PR description for feat/multi-currency.", seconds=45)
    w.bash("git log --oneline main..HEAD",
           "6f1a9c3 report: --offline uses the cached rates; README\n"
           "3e8b5a1 fetch: honour Retry-After; cache the last good rates\n"
           "0c7d2e4 fetch: retry with exponential backoff\n"
           "9d03f6b rates: weekends and holidays use the previous business day\n"
           "5be07d1 report: --base converts totals to one currency\n"
           "a41c9e2 Currency per transaction, ECB rates, Decimal totals")
    w.say("**Multi-currency ledger**\n\nTransactions carry an ISO 4217 currency (migration "
          "0007, existing rows EUR). `fxledger report --base CUR` converts each transaction "
          "with the ECB reference rate of its booking date (weekends and holidays: the latest "
          "earlier rate) and sums in Decimal, rounding per transaction. The fetcher honours "
          "Retry-After and backs off exponentially; the last good rates are cached atomically "
          "and `--offline` uses them.\n\nTests: 164 pass.")
    return w


def write_all(folder: Path) -> None:
    """Write the fixture under `folder` (the project folder)."""
    long, started = long_session()
    long.save(folder / f"{LONG}.jsonl")
    subagent(started).save(folder / LONG / "subagents" / f"agent-{AGENT}.jsonl")
    next_session().save(folder / f"{NEXT}.jsonl")
    for path in sorted(folder.rglob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        print(f"{path.relative_to(folder)}: {len(lines)} lines, "
              f"{len(json.dumps(lines))} bytes")


if __name__ == "__main__":
    write_all(FOLDER)
