"""The rephrasing matcher on the labelled dev pairs: representative rows of every kind, and
the targets (refuse >= 90 % of rewordings, falsely refuse <= 3 % of new asks) on the whole set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orbital.domain.rephrase import restated, same_intent

DEV = Path(__file__).parent / "data" / "rephrase-dev.jsonl"

# (dropped, candidate, same intent), a few per kind of the dev set
ROWS = [
    # reordered
    ("Buy a second monitor for Lena", "Buy Lena a second monitor", True),
    ("Deploy v2.3.1 to production tonight", "Tonight, deploy v2.3.1 to production", True),
    # synonyms
    ("Add rate limiting to POST /auth/login", "Throttle requests to POST /auth/login", False),
    ("Add a dark mode to the dashboard", "Add a dark theme to the dashboard", True),
    ("Upgrade Django to 5.0", "Bump Django to 5.0", True),
    # question_imperative
    ("Decide the webinar language", "Which language should the webinar be in?", True),
    ("Rename the `utils` package to `helpers`", "Should `utils` be renamed to `helpers`?", True),
    # politeness_context
    (
        "Cancel the unused Figma seats",
        "Could you cancel the unused Figma seats before the annual renewal on the 1st? We're "
        "paying for six editors and only three of us log in.",
        True,
    ),
    # abbreviation_expansion
    ("Increase the Postgres connection pool to 50", "Increase the PG conn pool to 50", True),
    (
        "Enable two-factor authentication for all admin accounts",
        "Enable 2FA for all admin accounts",
        True,
    ),
    # typo
    ("Add a dark mode to the dashboard", "Add a drak mode to the dashbaord", True),
    ("Extend the free trial from 14 to 30 days", "Extend the free trail from 14 to 30 days", True),
    # person_tense
    ("Send me the PyPI API token", "Have you sent me the PyPI API token yet?", True),
    # paraphrase_length
    ("Extend the free trial from 14 to 30 days", "Make the free trial 30 days instead of 14", True),
    # identifier_translation
    (
        "Should we support Windows paths in store.py?",
        "Should we support Windows paths in the store module?",
        True,
    ),
    # same_topic_different_decision
    ("Decide the webinar language", "Decide the webinar date", False),
    ("Pick a licence: MIT or Apache-2.0", "Decide whether contributors must sign a CLA", False),
    # same_verb_different_object
    ("Deploy v2.3.1 to production tonight", "Deploy v2.3.1 to staging tonight", False),
    ("Write the copy for the pricing page hero", "Write the copy for the careers page hero", False),
    (
        "Translate the onboarding emails into Spanish",
        "Translate the onboarding emails into French",
        False,
    ),
    # negation_opposite
    (
        "Raise the free-plan storage limit to 10 GB",
        "Lower the free-plan storage limit to 1 GB to cut S3 costs",
        False,
    ),
    (
        "Merge the `feature/sso` branch into main",
        "Delete the stale `feature/sso` branch without merging it",
        False,
    ),
    # subtask_whole
    ("Add a dark mode to the dashboard", "Redesign the dashboard UI", False),
    # unrelated_shared_words
    ("Buy a second monitor for Lena", "Ask Lena to set up monitoring for the second server", False),
    # other languages
    (
        "决定是否把数据库从 MySQL 迁移到 PostgreSQL",
        "数据库要不要从 MySQL 迁移到 PostgreSQL\uff1f",
        True,
    ),
    (
        "决定是否把数据库从 MySQL 迁移到 PostgreSQL",
        "决定是否把缓存从 Memcached 迁移到 Redis",
        False,
    ),
    (
        "Bitte den Vertrag mit dem Hosting-Anbieter zum Jahresende kündigen",
        "Bitte den Vertrag mit dem Telefonanbieter zum Jahresende kündigen",
        False,
    ),
]


@pytest.mark.parametrize(("dropped", "candidate", "expected"), ROWS)
def test_representative_rows_of_each_kind(dropped: str, candidate: str, expected: bool) -> None:
    assert same_intent(dropped, candidate) is expected


def test_a_negated_restatement_is_not_the_same_ask() -> None:
    assert same_intent("Enable 2FA for admin accounts", "Enable 2FA for admin accounts") is True
    assert (
        same_intent("Enable 2FA for admin accounts", "Don't enable 2FA for admin accounts") is False
    )


def test_the_dev_set_meets_the_targets() -> None:
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines()]
    same = [same_intent(r["dropped"], r["candidate"]) for r in rows if r["same_intent"]]
    different = [same_intent(r["dropped"], r["candidate"]) for r in rows if not r["same_intent"]]
    assert sum(same) / len(same) >= 0.90
    assert sum(different) / len(different) <= 0.03


def test_restated_names_the_closest_existing_entry() -> None:
    entries = {
        "D1": "Use PostgreSQL for the event store",
        "D2": "Deploy to production only on weekdays",
        "D3": "Use Postgres for the event store and SQLite for tests",
    }
    assert restated("We use Postgres for the event store", entries) == "D1"
    assert restated("Deploy to staging only on weekdays", entries) is None
